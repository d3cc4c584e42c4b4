/**
 * One presenter per step: an operation's result turned, once, into what the run shows of it: the
 * action's outputs, the comment's part of the view, and the failure an input asks for. The step's
 * own command and the `pr` lifecycle both use these, so a result reads the same wherever it runs.
 */
import type { DbtSyncResult } from '../operations/dbt-sync-and-wait.js';
import type { EnableStagingResult } from '../operations/enable-staging.js';
import type { ImpactResult } from '../operations/impact.js';
import type { UploadResult } from '../operations/upload-model.js';
import type { ValidateResult } from '../operations/validate.js';
import type { DataDiffOutcome } from '../operations/data-diff.js';
import type { VersionSkew } from '../model/version-skew.js';
import { plural } from '../report/plural.js';
import type { Ledger } from './comment/ledger.js';
import { GAINS } from '../impact/access/types.js';
import { ownRow } from '../impact/base/diff.js';
import { plain } from './comment/markdown.js';
import { breaksContent } from '../impact/base/affected.js';
import { accessView, type AccessView } from './comment/render-access.js';
import { impactView, type ImpactView } from './comment/render-impact.js';
import { numbersView, type NumbersView } from './comment/render-numbers.js';
import type { VersionsView } from './comment/render-cost.js';
import { dbtTable } from './comment/render-tables.js';
import type { PreviewView, ViewError } from './comment/view.js';
import { viewErrors } from './publish.js';

/** An action's outputs, by name, in the order they are printed. */
export type Outputs = Record<string, string>;

/** What a run shows of one step's result. */
export interface Presented {
  /** The step's outputs (`status` apart: the lifecycle words its own). */
  outputs: Outputs;
  /** The step's own `status` output, when it runs as its own action. */
  status?: string;
  /** The comment's part. */
  view: Partial<PreviewView>;
  /** What the comment's ledger remembers of it. */
  ledger?: Partial<Ledger>;
  /** Why the step fails, when an input asks it to. */
  failure?: string;
}

export function presentUpload(r: UploadResult): Presented {
  return {
    outputs: { 'dev-branch': r.devBranch ?? '', uploaded: String(r.uploaded), deleted: String(r.deleted) },
    status: r.stale ? 'stale' : 'uploaded',
    view: { upload: { sent: r.uploaded, deleted: r.deleted, unchanged: r.unchanged, via: r.via } },
  };
}

/** The validation, with its errors as the comment lists them (the job summary shows them all). */
export function presentValidation(r: ValidateResult, failOnInvalid: boolean): Presented & { errors: ViewError[] } {
  const errors = viewErrors(r.errors);
  return {
    outputs: { valid: String(r.valid), 'error-count': String(r.errors.length) },
    status: r.valid ? 'valid' : 'invalid',
    view: { validation: { valid: r.valid, errorCount: r.errors.length, errors, ...(r.cubes !== undefined ? { cubes: r.cubes } : {}) } },
    errors,
    ...(!r.valid && failOnInvalid ? { failure: `the data model on ${r.branch} is invalid: ${plural(r.errors.length, 'error')}` } : {}),
  };
}

export function presentStaging(r: EnableStagingResult): Presented {
  return {
    outputs: { 'staging-url': r.stagingUrl ?? '', 'environment-id': r.environmentId ?? '' },
    status: r.stagingUrl ? 'enabled' : 'dry-run',
    view: { staging: { enabled: !!r.stagingUrl, ...(r.smoke ? { smoke: r.smoke } : {}) }, ...(r.stagingUrl ? { restUrl: r.stagingUrl } : {}) },
  };
}

/** The reads did not show the whole layer: the breaking verdict is not established (said, never passed). */
const notWhole = (r: ImpactResult) => !r.unavailable && !!r.layer && !r.layer.whole;

/** The first names of a list, and how many more: a failure line names what it counts. */
function named(xs: string[], max = 5): string {
  return `${xs.slice(0, max).join('; ')}${xs.length > max ? `; and ${xs.length - max} more` : ''}`;
}

/** Each breaking change as `member change` (a cube's own change as `cube name change`), as `counts.breaking` counts them. */
function breakingNames(r: ImpactResult): string[] {
  const cubes = (r.changes?.cubes ?? [])
    .filter((c) => c.change !== 'private' && ownRow(c) && c.breaking)
    .map((c) => `${c.type} ${plain(c.name)}: ${plain((c.details ?? []).join('; ') || c.change)}`);
  const members = (r.changes?.members ?? [])
    .filter((m) => m.breaking)
    .map((m) => `${m.kind} ${plain(m.member)}: ${m.change === 'renamed' && m.to ? `renamed to ${plain(m.to)}` : plain(m.details.join('; ') || m.change)}`);
  return [...cubes, ...members];
}

/** The failure `fail-on-breaking` asks for, when there is one: a breaking change, or a layer the review could not see whole. */
function breakingFailure(r: ImpactResult, failOnBreaking: boolean): string | undefined {
  if (!failOnBreaking) return undefined;
  // Not compared at all: the gate asked for is not green on nothing.
  if (r.unavailable)
    return `${r.head}: the semantic layers were not compared (${r.unavailable}), so no breaking change is ruled out (fail-on-breaking is true)`;
  const unseen = notWhole(r) ? r.layer!.unseen : [];
  const blind = unseen.length
    ? `the review could not see the whole semantic layer (${plural(unseen.length, 'member')} the model files declare public listed by no /meta read, such as ${unseen[0]!.member}), so its breaking changes are not established`
    : '';
  if (!r.counts.breaking) return blind ? `${r.head}: ${blind} (fail-on-breaking is true)` : undefined;
  const broken = breaksContent(r.affected);
  const hit = broken.length
    ? `, used by ${plural(broken.length, 'report, dashboard or notification', 'reports, dashboards and notifications')} (${named(
        broken.map((a) => `${a.kind} "${plain(a.name)}"`),
        3,
      )})`
    : '';
  const names = breakingNames(r);
  return `${r.head} makes ${plural(r.counts.breaking, 'breaking change')} to the semantic layer${names.length ? ` (${named(names)})` : ''}${hit}${blind ? `; and ${blind}` : ''} (fail-on-breaking is true)`;
}

/** The failure `fail-on-exposure` asks for: a persona gains access (a member or view exposed, a mask lifted, more rows). */
function exposureFailure(r: ImpactResult, failOnExposure: boolean): string | undefined {
  const gains = (r.access?.changes ?? []).filter((c) => GAINS.has(c.change));
  if (failOnExposure && r.access?.groupsUnreached)
    return `${r.head}: the personas' groups do not reach the policies on this deployment, so no gain of access can be ruled out (fail-on-exposure is true)`;
  if (!failOnExposure || !gains.length) return undefined;
  const personas = [...new Set(gains.map((c) => c.persona))];
  return `${r.head} gives ${plural(personas.length, 'persona')} (${personas.slice(0, 5).join(', ')}) more access: ${plural(gains.length, 'change')} (fail-on-exposure is true)`;
}

/** The impact (the change-set file's path is the writer's output: src/pr/records.ts), with who can see what. */
export function presentImpact(r: ImpactResult, failOnBreaking: boolean, failOnExposure = false): Presented & { impact: ImpactView; access?: AccessView } {
  const compared = !r.unavailable;
  const count = (n: number) => (compared ? String(n) : '');
  const impact = impactView(r);
  const access = r.access ? accessView(r.access) : undefined;
  const failure = breakingFailure(r, failOnBreaking) ?? exposureFailure(r, failOnExposure);
  return {
    outputs: {
      'breaking-count': count(r.counts.breaking),
      'values-changed-count': count(r.counts.values ?? 0),
      'added-count': count(r.counts.added),
      'changed-count': count(r.counts.changed),
      'affected-content-count': count(breaksContent(r.affected).length),
      'access-changed-count': r.access ? String(access?.changeTotal ?? 0) : '',
      'exposed-count': r.access ? String(access?.gainTotal ?? 0) : '',
    },
    status: r.unavailable ? 'not-compared' : r.counts.breaking ? 'breaking' : notWhole(r) ? 'not-established' : 'compatible',
    view: { impact, ...(access ? { access } : {}) },
    impact,
    ...(access ? { access } : {}),
    ...(failure ? { failure } : {}),
  };
}

/**
 * The data diff (the file's path is the writer's: src/pr/records.ts). Turned off, it is said only when
 * some member's numbers do change; `fail-on-data-change` fails when a key query's numbers moved.
 */
export function presentNumbers(d: DataDiffOutcome, impact: ImpactResult, failOnChange: boolean): Presented & { numbers?: NumbersView } {
  const outputs = { 'data-changed-count': d.result ? String(d.result.changed) : '' };
  const numbers = d.result
    ? numbersView(d.result)
    : d.off && !d.refused && !(impact.counts.values ?? 0)
      ? undefined
      : numbersView({ skipped: d.skipped ?? '', mode: d.mode });
  const changed = d.result?.changed ?? 0;
  return {
    outputs,
    view: numbers ? { numbers } : {},
    ...(numbers ? { numbers } : {}),
    // A key-queries file that names a member neither side has is the team's input to fix: the step fails.
    ...(d.refused ? { failure: d.refused } : {}),
    ...(!d.refused && failOnChange && changed
      ? { failure: `${impact.head} changes the results of ${plural(changed, 'key query', 'key queries')} against production (fail-on-data-change is true)` }
      : {}),
  };
}

/** A dbt sync: no comment (it is not a PR's step), a table in the job summary. */
export function presentDbt(r: DbtSyncResult): Presented & { summary: string } {
  return {
    outputs: { 'sync-job-id': r.syncJobId, branch: r.branch, status: r.status, 'timed-out': String(r.timedOut) },
    view: {},
    summary: `### datamodel-ci: dbt sync\n\n${dbtTable(r)}`,
    ...(r.status !== 'COMPLETED' ? { failure: `dbt sync ${r.syncJobId} ended ${r.status}${r.error ? `: ${r.error}` : ''}` } : {}),
  };
}

/** The record of the Cube versions `--json` and the change-set file carry. */
export function versionsJson(v: VersionSkew) {
  const key = (r: VersionSkew['refused'][number]) => ({
    key: r.key,
    ...(r.value === undefined ? {} : { value: r.value }),
    file: r.file,
    line: r.line,
    version: r.version,
  });
  return {
    production: v.production ?? null,
    staging: v.staging ?? null,
    ...(v.upgrades ? { upgrades: v.upgrades } : {}),
    ...(v.newestPatch ? { newestPatch: v.newestPatch } : {}),
    ...(v.channelHead ? { channelHead: v.channelHead } : {}),
    ...(v.afterMerge ? { afterMerge: v.afterMerge } : {}),
    ...(v.checkedAgainst ? { checkedAgainst: v.checkedAgainst } : {}),
    refused: v.refused.map(key),
    notKnown: v.notKnown.map(key),
    ...(v.notKnownWhy ? { notKnownWhy: v.notKnownWhy } : {}),
    ...(v.unchecked ? { unchecked: v.unchecked } : {}),
  };
}

/**
 * The Cube version skew: `version-skew-count` (empty when the model was not checked), the Cost part, and
 * a failure when the version production will run refuses a key and `fail-on-version-skew` is true; a key
 * not known to it is a warning, never a failure.
 */
export function presentVersions(v: VersionSkew, failOnVersionSkew: boolean): Presented & { versions: VersionsView; json: ReturnType<typeof versionsJson> } {
  const checked = !!v.checkedAgainst;
  const versions: VersionsView = {
    ...(v.production ? { production: v.production } : {}),
    ...(v.staging ? { staging: v.staging } : {}),
    ...(v.afterMerge ? { afterMerge: v.afterMerge } : {}),
    refusedTotal: v.refused.length,
    refused: v.refused,
    ...(v.notKnown.length ? { notKnownTotal: v.notKnown.length, notKnown: v.notKnown } : {}),
    ...(v.notKnownWhy ? { notKnownWhy: v.notKnownWhy } : {}),
    ...(v.unchecked ? { unchecked: v.unchecked } : {}),
  };
  const n = v.refused.length;
  const failure =
    failOnVersionSkew && n
      ? `production's Cube ${v.afterMerge ?? v.production ?? ''} refuses ${plural(n, 'key')} of the model that staging accepts (fail-on-version-skew is true)`
      : undefined;
  return {
    outputs: { 'version-skew-count': checked ? String(n) : '' },
    view: { cost: { versions } },
    versions,
    json: versionsJson(v),
    ...(failure ? { failure } : {}),
  };
}
