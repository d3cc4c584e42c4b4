/**
 * The review's facets as checks of their own, beside "datamodel-ci / validation", so branch protection can
 * require exactly what a team gates on: "datamodel-ci / impact" (breaking changes), "datamodel-ci / numbers"
 * (the key queries), "datamodel-ci / access" (who can see what), "datamodel-ci / cost" (rollups and the
 * Cube version skew) and "datamodel-ci / evals" (the agents' eval delta, `evals: on`). Each facet is parts, each part established (clear, of concern, failing by its
 * `fail-on-…` input) or not; a check is `failure` where a part fails or a gated part is not established,
 * `neutral` where something is of concern or not established, `success` only when every part was
 * established and is clear. A facet none of whose parts was established, and none gated, writes no check:
 * never a green (or grey) check for work that was not done. Pure: the writer is ./check-run.ts.
 */
import type { DataDiffOutcome } from '../operations/data-diff.js';
import type { ImpactResult } from '../operations/impact.js';
import { lostByPullRequest, type RollupOutcome } from '../impact/rollups/outcome.js';
import { GAINS } from '../impact/access/types.js';
import { refusedText, type VersionSkew } from '../model/version-skew.js';
import { repoPath } from '../operations/validate.js';
import { plural } from '../report/plural.js';
import type { CommandInputs } from '../settings.js';
import type { CheckAnnotation } from '../github/types.js';
import { accuracyOf, type EvalDelta } from '../operations/evals/delta.js';
import { breakingPlaces, type BreakingPlace } from './breaking-places.js';
import { code, cut, plain, text } from './comment/markdown.js';

/** Places listed in the impact check's summary (GitHub keeps 65,535 characters of it); the annotations hold them all. */
const SHOWN_PLACES = 100;
/** The characters the places' list may take of the summary. */
const SUMMARY_PLACES_CHARS = 50_000;

export type Facet = 'impact' | 'numbers' | 'access' | 'cost' | 'evals';

/** The `fail-on-…` inputs, each the gate of one part. */
export interface FacetGates {
  breaking: boolean;
  dataChange: boolean;
  exposure: boolean;
  rollupLoss: boolean;
  versionSkew: boolean;
  /** `fail-on-eval-regression` (absent: false). */
  evalRegression?: boolean;
}

/** What a run asked of the facets. */
export interface FacetSettings {
  /** The `impact` input: without it the run writes no facet check. */
  impact: boolean;
  /** `data-diff` is not `off`. */
  dataDiff: boolean;
  /** A personas file was given. */
  personas: boolean;
  /** `evals: on` (absent: off). */
  evals?: boolean;
  gates: FacetGates;
  /** The model folder the files are under (annotations name repository paths). */
  modelDir: string;
}

/** The facets' settings from the `impact` or `pr` inputs. */
export function facetSettings(
  inputs: Pick<CommandInputs['impact'], 'failOnBreaking' | 'dataDiff' | 'access' | 'failOnVersionSkew' | 'evals'> & { impact?: boolean },
  modelDir: string,
): FacetSettings {
  return {
    impact: inputs.impact ?? true,
    dataDiff: inputs.dataDiff.mode !== 'off',
    personas: !!inputs.access.personasFile,
    evals: !!inputs.evals,
    gates: {
      breaking: inputs.failOnBreaking,
      dataChange: inputs.dataDiff.failOnChange,
      exposure: inputs.access.failOnExposure,
      rollupLoss: !!inputs.dataDiff.failOnRollupLoss,
      versionSkew: inputs.failOnVersionSkew,
      evalRegression: !!inputs.evals?.failOnRegression,
    },
    modelDir,
  };
}

/** What the run did of the review. */
export interface FacetOutcome {
  impact?: ImpactResult;
  /** Why the impact did not run (the model is invalid, a step failed). */
  notRun?: string;
  numbers?: DataDiffOutcome;
  rollups?: RollupOutcome;
  versions?: VersionSkew;
  /** The eval delta, when it ran; undefined with `evals: off` or when the run stopped before it. */
  evals?: EvalDelta;
}

export interface FacetCheck {
  facet: Facet;
  conclusion: 'success' | 'neutral' | 'failure';
  title: string;
  /** Markdown; names in backticks are the toolkit's own or the platform's identifiers. */
  summary: string;
  annotations: CheckAnnotation[];
  /** The breaking changes' places (the impact check), annotated or named in the summary. */
  places?: BreakingPlace[];
}

type State = 'clear' | 'concern' | 'failing' | 'unknown';
interface Part {
  state: State;
  /** For `unknown`: a `fail-on-…` input asks for it, so not knowing fails. */
  gated?: boolean;
  says: string;
}

const RANK: Record<State, number> = { failing: 0, unknown: 1, concern: 2, clear: 3 };

/** What each check gates on, under its parts. */
const GATES: Record<Facet, string> = {
  impact: 'Fails with `fail-on-breaking: true` on a breaking change, or when none could be ruled out; else neutral when something is to look at.',
  numbers: 'Fails with `fail-on-data-change: true` when a key query answers differently, or when they could not be compared.',
  access: 'Fails with `fail-on-exposure: true` when a persona gains access, or when that could not be established.',
  evals:
    'Fails with `fail-on-eval-regression: true` when a question that passes on production fails on the pull request, or when the runs could not be compared; flaky questions are a concern, never a failure.',
  cost: 'Fails with `fail-on-rollup-loss: true` when a key query loses its pre-aggregation (not a loss that may come from the sides’ Cube versions), and with `fail-on-version-skew: true` (the default) when production’s Cube refuses a key, or when either could not be established.',
};

/** The check the parts make; none when nothing was established and nothing gated. `tail`: markdown under the parts. */
function verdict(facet: Facet, parts: Part[], more: Partial<FacetCheck> = {}, tail: string[] = []): FacetCheck | undefined {
  if (parts.every((p) => p.state === 'unknown' && !p.gated)) return undefined;
  const failing = (p: Part) => p.state === 'failing' || (p.state === 'unknown' && !!p.gated);
  const conclusion = parts.some(failing) ? 'failure' : parts.some((p) => p.state !== 'clear') ? 'neutral' : 'success';
  const ordered = [...parts].sort((a, b) => Number(failing(b)) - Number(failing(a)) || RANK[a.state] - RANK[b.state]);
  const title = ordered[0]!.says.replace(/\.$/, '');
  const mark: Record<State, string> = { failing: '❌', unknown: '❔', concern: '⚠️', clear: '✅' };
  // The parts name outside things (personas, the platform's reasons): inert markdown.
  const lines = ordered.map((p) => `- ${failing(p) && p.state === 'unknown' ? '❌' : mark[p.state]} ${text(p.says)}`);
  const summary = [...lines, ...(tail.length ? ['', ...tail] : []), '', GATES[facet]].join('\n');
  return { facet, conclusion, title: cut(plain(title), 200), summary, annotations: [], ...more };
}

/** The impact did not compare the layers: why, or undefined when it did. */
const notCompared = (o: FacetOutcome): string | undefined =>
  !o.impact ? (o.notRun ?? 'the impact did not run') : o.impact.unavailable ? `the semantic layers were not compared (${o.impact.unavailable})` : undefined;

const gate = (on: boolean, input: string) => (on ? ` (${input} is true)` : '');

function impactCheck(o: FacetOutcome, s: FacetSettings): FacetCheck | undefined {
  const why = notCompared(o);
  if (why) return verdict('impact', [{ state: 'unknown', gated: s.gates.breaking, says: `Breaking changes not established: ${why}.` }]);
  const r = o.impact!;
  const parts: Part[] = [];
  const { breaking, values = 0, added, changed } = r.counts;
  const hit = r.affected.length ? `, used by ${plural(r.affected.length, 'report, dashboard or notification', 'reports, dashboards and notifications')}` : '';
  if (breaking)
    parts.push({
      state: s.gates.breaking ? 'failing' : 'concern',
      says: `${plural(breaking, 'breaking change')}${hit}${gate(s.gates.breaking, 'fail-on-breaking')}.`,
    });
  if (r.layer && !r.layer.whole)
    parts.push({
      state: 'unknown',
      gated: s.gates.breaking,
      says: `The review could not see the whole semantic layer (${plural(r.layer.unseen.length, 'public member')} listed by no /meta read): its breaking changes are not established.`,
    });
  if (values) parts.push({ state: 'concern', says: `${plural(values, 'change moves', 'changes move')} the numbers of a member that keeps its name and type.` });
  if (!parts.length) parts.push({ state: 'clear', says: `No breaking change: ${added} added, ${changed} changed.` });
  const places = breakingPlaces(r, s.modelDir);
  const level = s.gates.breaking ? 'failure' : 'warning';
  return verdict('impact', parts, { places, annotations: annotationsOf(places, level) }, placesList(places));
}

/** The breaking changes' places, each on a line (the annotations carry them onto the files). */
function placesList(places: BreakingPlace[]): string[] {
  if (!places.length) return [];
  const shown: string[] = [];
  let size = 0;
  for (const p of places.slice(0, SHOWN_PLACES)) {
    const line = `- ${p.path ? `${code(p.line ? `${p.path}:${p.line}` : p.path)}: ` : ''}${cut(p.markdown, 1_000)}`;
    // GitHub keeps 65,535 characters of a summary: the list stops well before, with a count.
    if (size + line.length > SUMMARY_PLACES_CHARS) break;
    shown.push(line);
    size += line.length + 1;
  }
  const more = places.length > shown.length ? [`- … and ${places.length - shown.length} more (every one an annotation of this check)`] : [];
  return ['**Where**', '', ...shown, ...more];
}

/** One annotation per line: the places on it joined (a view member and its cube member can share an include line). */
function annotationsOf(places: BreakingPlace[], level: CheckAnnotation['level']): CheckAnnotation[] {
  const byLine = new Map<string, CheckAnnotation>();
  for (const p of places.filter((x): x is BreakingPlace & { path: string; line: number } => !!x.path && !!x.line)) {
    const key = `${p.path}:${p.line}`;
    const had = byLine.get(key);
    if (had) {
      if (!had.message.split('\n').includes(p.message)) had.message = `${had.message}\n${p.message}`.slice(0, 64_000);
      continue;
    }
    byLine.set(key, {
      path: p.path,
      startLine: p.line,
      endLine: p.line,
      ...(p.column ? { startColumn: p.column } : {}),
      level,
      message: p.message,
      title: 'Breaking change',
    });
  }
  return [...byLine.values()];
}

function numbersCheck(o: FacetOutcome, s: FacetSettings): FacetCheck | undefined {
  const gated = s.gates.dataChange;
  if (!s.dataDiff && !gated) return undefined;
  const d = o.numbers;
  const why = !s.dataDiff ? 'data-diff is off' : d?.skipped ? d.skipped : !d?.result ? (notCompared(o) ?? 'the data diff did not run') : undefined;
  if (why || !d?.result) return verdict('numbers', [{ state: 'unknown', gated, says: `The key queries were not compared: ${why}.` }]);
  const r = d.result;
  const count = (status: string) => r.queries.filter((q) => q.status === status).length;
  const parts: Part[] = [];
  const ran = r.queries.length - count('skipped') - count('gone');
  if (r.changed)
    parts.push({
      state: gated ? 'failing' : 'concern',
      says: `${plural(r.changed, 'key query answers', 'key queries answer')} differently on the preview${gate(gated, 'fail-on-data-change')}.`,
    });
  if (count('failed')) parts.push({ state: 'concern', says: `${plural(count('failed'), 'key query', 'key queries')} failed (not compared).` });
  const skipped = count('skipped') + r.notRun;
  if (skipped)
    parts.push({
      state: 'concern',
      says: `${plural(skipped, 'key query', 'key queries')} not run (a pre-aggregation build, or beyond data-diff-max-queries).`,
    });
  if (!parts.length)
    parts.push({
      state: ran ? 'clear' : 'unknown',
      gated,
      says: ran ? `${plural(ran, 'key query answers', 'key queries answer')} the same on the preview.` : 'No key query to compare.',
    });
  return verdict('numbers', parts);
}

function accessCheck(o: FacetOutcome, s: FacetSettings): FacetCheck | undefined {
  const gated = s.gates.exposure;
  const why = !s.personas ? 'no personas file (input personas)' : notCompared(o);
  const a = o.impact?.access;
  if (why || !a) return verdict('access', [{ state: 'unknown', gated, says: `Who can see what was not compared: ${why ?? 'no access review'}.` }]);
  const parts: Part[] = [];
  // Fails closed: every persona read as the empty context, so no gain can be ruled out.
  if (a.groupsUnreached)
    parts.push({
      state: gated ? 'unknown' : 'concern',
      gated,
      says: `The personas' groups do not reach the policies on this deployment: who can see what is not established (${a.groupsUnreached.remedy}).`,
    });
  const gains = a.changes.filter((c) => GAINS.has(c.change));
  const personasOf = (list: { persona: string }[]) => [...new Set(list.map((c) => c.persona))];
  if (gains.length) {
    const who = personasOf(gains);
    parts.push({
      state: gated ? 'failing' : 'concern',
      says: `${plural(who.length, 'persona gains', 'personas gain')} access (${who.slice(0, 5).join(', ')}): ${plural(gains.length, 'change')}${gate(gated, 'fail-on-exposure')}.`,
    });
  }
  const other = a.changes.length - gains.length;
  if (other) parts.push({ state: 'concern', says: `${plural(other, 'change')} by which a persona sees less or other rows.` });
  if (a.lost.length)
    parts.push({
      state: 'concern',
      says: `${plural(a.lost.length, 'saved report or dashboard', 'saved reports and dashboards')} a persona can no longer see.`,
    });
  if (a.probesNotRun)
    parts.push({
      state: 'unknown',
      gated,
      says: `${a.probesNotRun.why ? `The row counts were not probed (${a.probesNotRun.why})` : `${plural(a.probesNotRun.count, 'row probe')} not run`}: rows gained are not established.`,
    });
  if (!parts.length) parts.push({ state: 'clear', says: `No change in who can see what for ${plural(a.personas.length, 'persona')}.` });
  return verdict('access', parts);
}

function rollupPart(o: FacetOutcome, gated: boolean): Part {
  const why = notCompared(o);
  const r = o.rollups;
  // Both sides' files were read (the definition diff ran) and neither defines a pre-aggregation: none can be lost.
  if (!why && o.impact?.definition && !o.impact.rollupsInModel)
    return { state: 'clear', says: 'No pre-aggregation on either side of the model: no key query can lose one.' };
  if (why && !r) return { state: 'unknown', gated, says: `Rollups not planned: ${why}.` };
  if (!r) return { state: 'unknown', gated, says: "Rollups not planned: production's model files were not read." };
  if (r.skipped) return { state: 'unknown', gated, says: `Rollups not planned: ${r.skipped}.` };
  const lost = lostByPullRequest(r.changes);
  if (lost)
    return {
      state: gated ? 'failing' : 'concern',
      says: `${plural(lost, 'key query', 'key queries')} leave their pre-aggregation: they would reach the warehouse${gate(gated, 'fail-on-rollup-loss')}.`,
    };
  const more = [
    r.rebuilt.length ? `${plural(r.rebuilt.length, 'pre-aggregation')} rebuilt on merge` : '',
    r.versions && (r.changes.length || r.versionRebuilt?.length)
      ? `${plural(r.changes.length + (r.versionRebuilt?.length ?? 0), 'difference')} that ${r.versions}, not counted against the pull request`
      : '',
    r.truncated.length ? `${plural(r.truncated.length, 'key query', 'key queries')} beyond a build range` : '',
    r.warning ? 'a rollup definition changed (branch builds share production’s Cube Store)' : '',
    r.builds ? 'loads that would build a pre-aggregation' : '',
  ].filter(Boolean);
  const none = r.versions ? 'No key query is known to lose its pre-aggregation because of the pull request' : 'No key query loses its pre-aggregation';
  if (more.length) return { state: 'concern', says: `${none}; ${more.join('; ')}.` };
  return { state: 'clear', says: `No key query loses its pre-aggregation (${plural(r.planned, 'plan')}).` };
}

function versionPart(v: VersionSkew | undefined, gated: boolean, why: string | undefined): Part {
  if (!v) return { state: 'unknown', gated, says: `Cube versions not read: ${why ?? 'the impact did not run'}.` };
  const checked = !!v.checkedAgainst?.length || (!!v.production && v.production === v.staging);
  if (!checked) return { state: 'unknown', gated, says: `Cube version skew not checked: ${v.unchecked ?? "production's version is unknown"}.` };
  // The version production runs after the merge's deploy (its channel's newest patch when upgrades are automatic).
  const runs = v.afterMerge ?? v.production ?? '';
  const n = v.refused.length;
  if (n)
    return {
      state: gated ? 'failing' : 'concern',
      says: `Production's Cube ${runs} refuses ${plural(n, 'key')} of the model that staging accepts${gate(gated, 'fail-on-version-skew')}.`,
    };
  // A key the key table cannot settle is a warning, never a failure.
  if (v.notKnown.length)
    return {
      state: 'concern',
      says: `Whether production's Cube ${runs} accepts ${plural(v.notKnown.length, 'key')} of the model is not known${v.notKnownWhy ? ` (${v.notKnownWhy})` : ''}.`,
    };
  return { state: 'clear', says: `Production's Cube ${runs} accepts every key of the model.` };
}

function costCheck(o: FacetOutcome, s: FacetSettings): FacetCheck | undefined {
  const versions = versionPart(o.versions, s.gates.versionSkew, notCompared(o));
  const level = s.gates.versionSkew ? 'failure' : 'warning';
  const annotations: CheckAnnotation[] = (o.versions?.refused ?? []).map((r) => ({
    path: repoPath(s.modelDir, r.file),
    startLine: r.line,
    endLine: r.line,
    level,
    message: `${refusedText(r)} needs Cube ${r.version}; production runs ${o.versions?.production ?? 'an older one'}`,
    title: 'Refused by production’s Cube version',
  }));
  return verdict('cost', [rollupPart(o, s.gates.rollupLoss), versions], { annotations });
}

/** The eval delta's check: only when asked; none for a tenant without evaluations (nothing was evaluated). */
function evalsCheck(o: FacetOutcome, s: FacetSettings): FacetCheck | undefined {
  const gated = !!s.gates.evalRegression;
  if (!s.evals || o.evals?.state === 'absent') return undefined;
  const d = o.evals;
  if (!d) return verdict('evals', [{ state: 'unknown', gated, says: `The agents' evals did not run: ${o.notRun ?? 'the preview did not validate'}.` }]);
  const sides = `production ${accuracyOf(d.production)}, this pull request ${accuracyOf(d.preview)}`;
  if (!d.compared) return verdict('evals', [{ state: 'unknown', gated, says: `The agents' evals were not compared (${sides}): never a pass.` }]);
  const parts: Part[] = [];
  const failing = d.newlyFailing;
  if (failing.length)
    parts.push({
      state: gated ? 'failing' : 'concern',
      says: `${plural(failing.length, 'eval question')} newly failing (${sides}): ${failing.map((c) => c.label).join(', ')}${gate(gated, 'fail-on-eval-regression')}.`,
    });
  if (d.flaky?.length) parts.push({ state: 'concern', says: `${plural(d.flaky.length, 'flaky question')}: ${d.flaky.map((f) => f.label).join(', ')}.` });
  if (!parts.length) parts.push({ state: 'clear', says: `No eval question newly failing (${sides}).` });
  return verdict('evals', parts);
}

/** The facet checks of one run (none without the `impact` input), in the order they are written. */
export function facetChecks(o: FacetOutcome, s: FacetSettings): FacetCheck[] {
  // The evals are asked for on their own (`evals: on`): their check does not depend on the `impact` input.
  const review = s.impact ? [impactCheck(o, s), numbersCheck(o, s), accessCheck(o, s), costCheck(o, s)] : [];
  return [...review, evalsCheck(o, s)].filter((c): c is FacetCheck => !!c);
}

/** The facets a run of these settings writes a check for, as a model the change does not touch shows them. */
export function configuredFacets(s: FacetSettings): Facet[] {
  if (!s.impact) return s.evals ? ['evals'] : [];
  return [
    'impact',
    ...(s.dataDiff || s.gates.dataChange ? (['numbers'] as const) : []),
    ...(s.personas || s.gates.exposure ? (['access'] as const) : []),
    'cost',
    ...(s.evals ? (['evals'] as const) : []),
  ];
}
