/**
 * The review as a terminal prints it (`datamodel-ci plan` on stdout, `diff` in its log): the same views
 * the PR comment renders (render-impact.ts, render-access.ts, render-numbers.ts, render-cost.ts), as text
 * tables that name what they count: the members changed (breaking ones marked), the content the breaking
 * changes hit, who sees what differently, each key query's numbers, the rollups. Outside text is made
 * plain (one line, no control characters); nothing is cut but the long cells.
 */
import { GAINS, type AccessChangeKind } from '../impact/access/types.js';
import { sideText } from '../impact/access/probes.js';
import { REASON_WORDS } from '../impact/rollups/builds.js';
import { plural } from '../report/plural.js';
import { textTable } from '../report/text-table.js';
import { cut, plain } from './comment/markdown.js';
import type { AccessView } from './comment/render-access.js';
import type { AgentsView } from './comment/render-agents.js';
import type { EvalsView } from './comment/render-evals.js';
import type { CostView } from './comment/render-cost.js';
import type { ImpactChangeRow, ImpactView } from './comment/render-impact.js';
import { num, percent, type NumbersQueryRow, type NumbersView } from './comment/render-numbers.js';
import type { PreviewView, ViewError } from './comment/view.js';

/** What the review shows: each part optional. */
export interface ReviewParts {
  impact?: ImpactView;
  access?: AccessView;
  numbers?: NumbersView;
  cost?: CostView;
  agents?: AgentsView;
  /** The agents' eval delta (`evals: on`). */
  evals?: EvalsView;
  /** The detail files the run wrote (the change set, the data diff). */
  files?: { changeSet?: string; dataDiff?: string };
}

/** A cell of outside text: one plain line, cut. */
const cell = (s: string, max = 100) => plain(cut(s, max));
const join = (xs: readonly string[]) => (xs.length > 1 ? `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}` : (xs[0] ?? ''));

/** How a row's change reads in the mark column: breaking, the numbers move, or nothing. */
const markOf = (r: ImpactChangeRow) => (r.breaking ? 'BREAKING' : r.values ? 'numbers move' : '');

function memberTable(v: ImpactView): string[] {
  const rows = [...v.breaking, ...(v.values ?? []), ...v.other];
  if (!rows.length) return [];
  const what = (r: ImpactChangeRow) => cell(r.what, 120);
  const name = (r: ImpactChangeRow) => (r.whole ? `${cell(r.member)} (${r.cubeType})` : cell(r.member));
  return [
    '',
    ...textTable(
      ['MEMBER', 'CHANGE', '', 'WHAT'],
      rows.map((r) => [name(r), r.change, markOf(r), what(r)]),
    ),
  ];
}

function contentTable(v: ImpactView): string[] {
  // The members each uses (where, and the links, are in the comment and `--json`).
  const uses = (u: { member: string }[]) => join([...new Set(u.map((x) => cell(x.member)))]);
  const table = (title: string, items: ImpactView['affected']) => [
    '',
    title,
    ...textTable(
      ['KIND', 'NAME', 'USES'],
      items.map((a) => [a.kind, cell(a.name), uses(a.uses)]),
    ),
  ];
  return [
    ...(v.affected.length ? table(`Content the breaking changes hit (${v.affectedTotal}):`, v.affected) : []),
    ...(v.moving?.length ? table(`Content whose numbers move (${v.movingTotal ?? v.moving.length}):`, v.moving) : []),
  ];
}

/** The semantic layer: the counts line, the members by name, the content they hit, what moves with them. */
export function impactText(v: ImpactView): string[] {
  const out = [`Semantic layer (${cell(v.base)} → ${cell(v.head)}): ${v.unavailable ? `not compared: ${cell(v.unavailable, 600)}` : v.summary}`];
  if (v.unavailable) return out;
  out.push(...memberTable(v), ...contentTable(v));
  if (v.moved?.total)
    out.push(
      '',
      `Numbers also move for what uses a changed member: ${join(v.moved.members.map((m) => `${m.kind ?? 'member'} ${cell(m.member)}`))}${v.moved.total > v.moved.members.length ? ` and ${v.moved.total - v.moved.members.length} more` : ''}`,
    );
  if (v.narrower) {
    const seen = v.narrower.members.map((m) => `${cell(m.member)} (${m.side})`);
    out.push(
      '',
      `Not the whole layer: ${plural(v.narrower.total, 'member')} the model files declare public out of sight, such as ${join(seen)}: ${v.narrower.why.map((w) => cell(w, 200)).join('; ')}`,
    );
  }
  for (const n of v.notices.slice(0, 5)) out.push(`note: ${cell(n, 300)}`);
  return out;
}

/** Each kind of access change in words (a gain is marked where it is shown). */
const ACCESS_WORDS: Record<AccessChangeKind, string> = {
  hidden: 'hidden',
  exposed: 'exposed',
  masked: 'masked',
  unmasked: 'unmasked',
  'rows-narrowed': 'fewer rows',
  'rows-widened': 'more rows',
  'rows-filter-changed': 'row filter changed',
  'denied-all': 'no rows at all',
};

/** Who can see what: per persona, each change; the content a persona loses; the probes' counts. */
export function accessText(a: AccessView): string[] {
  if (!a.personas.length)
    return a.policyTargets.length
      ? [`Who can see what: policies touched on ${join(a.policyTargets.map((t) => cell(t)))} (no personas: --personas FILE names them)`]
      : [];
  const head = `Who can see what (${plural(a.personas.length, 'persona')}: ${join(a.personas.map((p) => cell(p)))}): ${plural(a.changeTotal, 'change')}, ${a.gainTotal} gaining access`;
  const out = [head];
  if (a.groupsUnreached)
    out.push(
      `The personas' groups do not reach the policies on this deployment (${join(a.groupsUnreached.sides)}): nothing is established; what to set: ${cell(a.groupsUnreached.remedy, 400)}`,
    );
  if (a.changes.length) {
    const rows = a.changes.map((c) => [
      cell(c.persona, 60),
      `${GAINS.has(c.change) ? 'GAINS: ' : ''}${ACCESS_WORDS[c.change]}`,
      cell(c.target),
      cell(c.detail, 160),
    ]);
    out.push('', ...textTable(['PERSONA', 'CHANGE', 'TARGET', 'DETAIL'], rows));
  }
  if (a.lost.length) {
    const rows = a.lost.map((l) => [cell(l.persona, 60), l.kind, cell(l.name), join(l.members.slice(0, 3).map((m) => cell(m)))]);
    out.push('', 'Content a persona no longer sees:', ...textTable(['PERSONA', 'KIND', 'NAME', 'THROUGH'], rows));
  }
  for (const g of a.newGuarded ?? [])
    out.push(`New under a policy: ${cell(g.target)}, seen by ${g.seenBy.length ? join(g.seenBy.map((p) => cell(p))) : 'none of the personas'}`);
  if (a.probes.length) {
    const rows = a.probes.map((p) => [cell(p.persona, 60), cell(p.target), cell(p.counted), sideText(p.production), sideText(p.preview)]);
    out.push('', 'Rows each persona reads (persona probes):', ...textTable(['PERSONA', 'TARGET', 'COUNTED', 'PRODUCTION', 'PREVIEW'], rows));
  }
  if (a.probesNotRun?.why) out.push(`Persona probes not run: ${cell(a.probesNotRun.why, 300)}`);
  for (const n of a.notices.slice(0, 3)) out.push(`note: ${cell(n, 300)}`);
  return out;
}

/** A key query's result in words: unchanged, what moved, where it failed. */
function queryResult(q: NumbersQueryRow): string {
  if (q.status === 'failed') return `FAILED on ${q.failed?.side ?? '?'}: ${cell(q.failed?.message ?? '', 200)}`;
  if (q.status === 'skipped')
    return `not run: would build ${join((q.wouldBuild ?? []).map((b) => `${cell(b.rollup)} (${REASON_WORDS[b.reason]})`)) || 'a pre-aggregation'}`;
  if (q.status === 'new') return `new on the preview: ${plural(q.rows?.head ?? 0, 'row')}`;
  if (q.status === 'gone') return "gone: only the base's key-queries file has it (not run)";
  const parts: string[] = [];
  if (q.changed) parts.push(`${plural(q.changed, 'row')} changed`);
  const l = q.largest;
  if (l) {
    const abs = l.abs !== undefined ? `${l.abs > 0 ? '+' : ''}${num(l.abs)}` : '';
    const how = l.rel !== undefined ? `${percent(l.rel)}${abs ? ` (${abs})` : ''}` : abs;
    parts.push(`largest ${how || 'change'} on ${cell(l.measure)}${l.key && l.key !== '(total)' ? ` at ${cell(l.key, 80)}` : ''}`);
  }
  if (q.added) parts.push(`${q.added} added`);
  if (q.removed) parts.push(`${q.removed} removed`);
  return `${parts.length ? parts.join('; ') : 'unchanged'}${q.truncated ? ' (row cap reached)' : ''}`;
}

/** Numbers: each key query by name, its rows on each side, and what moved (or where it failed). */
export function numbersText(v: NumbersView): string[] {
  if (v.notRun) return [`Numbers: not compared: ${cell(v.notRun, 400)}`];
  const failed = v.queries.filter((q) => q.status === 'failed').map((q) => cell(q.name));
  const head = `Numbers (production → preview, ${plural(v.total, 'key query', 'key queries')}${v.mode === 'relative' ? ', relative changes only' : ''}): ${v.changed} changed${failed.length ? `, ${failed.length} failed (${join(failed)})` : ''}`;
  const rows = v.queries.map((q) => [cell(q.name, 80), q.status, q.rows ? `${num(q.rows.base)} → ${num(q.rows.head)}` : '', queryResult(q)]);
  const out = [head, '', ...textTable(['KEY QUERY', 'STATUS', 'ROWS', 'RESULT'], rows)];
  if (v.notRunQueries) out.push(`${plural(v.notRunQueries, 'more key query', 'more key queries')} found but not run (--data-diff-max-queries)`);
  return out;
}

/** Cost: the Cube versions when production's refuses a key, and the rollups each key query uses on each side. */
export function costText(c: CostView): string[] {
  const out: string[] = [];
  const v = c.versions;
  if (v && (v.refusedTotal || (v.production && v.staging && v.production !== v.staging))) {
    out.push(
      `Cube versions: production ${cell(v.production ?? '?')}, staging ${cell(v.staging ?? '?')}: ${plural(v.refusedTotal, 'key')} of the model production refuses`,
    );
    if (v.refused.length)
      out.push(
        '',
        ...textTable(
          ['KEY', 'WHERE', 'NEEDS CUBE'],
          v.refused.map((k) => [
            `${cell(k.key)}${k.value === undefined ? '' : ` = ${cell(String(k.value), 60)}`}`,
            cell(`${k.file}:${k.line}`),
            cell(k.version),
          ]),
        ),
      );
  }
  if (v?.unchecked) out.push(`Cube versions: ${cell(v.unchecked, 300)}`);
  const r = c.rollups;
  if (!r) return out;
  if (out.length) out.push('');
  if (r.warning) out.push(`warning: ${cell(r.warning, 400)}`);
  if (r.skipped) return [...out, `Rollups: not planned: ${cell(r.skipped, 300)}`];
  out.push(
    `Rollups (production → preview, ${plural(r.planned, 'key query plan', 'key query plans')}): ${r.totals.changes} changed (${r.totals.lost} lost), ${plural(r.totals.rebuilt, 'rollup')} rebuilt on merge`,
  );
  if (r.groups.length) {
    // One block per rollup change (as the comment's Cost section groups them): its key queries by name, one a line.
    const rows = r.groups.flatMap((g) => {
      const names = g.queries.map((q) => `${cell(q.query, 80)}${q.persona ? ` (${cell(q.persona, 40)})` : ''}`);
      if (g.total > g.queries.length) names.push(`and ${g.total - g.queries.length} more`);
      const word = g.versions ? `${g.change} (${g.versions})` : g.change === 'lost' ? 'LOST: reaches the warehouse' : g.change;
      const head = [g.production ? cell(g.production) : '—', g.preview ? cell(g.preview) : '—', word];
      return names.map((n, i) => [...(i === 0 ? head : ['', '', '']), n]);
    });
    out.push('', ...textTable(['PRODUCTION', 'PREVIEW', 'ROLLUP', 'KEY QUERY'], rows));
  }
  for (const b of r.rebuilt) out.push(`Rebuilt on merge: ${cell(b.rollup)}: ${cell(b.reason, 200)}`);
  for (const b of r.versionRebuilt ?? [])
    out.push(`Built otherwise on the preview (not counted as rebuilt): ${cell(b.rollup)}: ${cell(b.reason, 200)}: ${cell(b.versions ?? '', 200)}`);
  for (const t of r.truncated)
    out.push(
      `Build range: ${cell(t.query, 80)} asks ${t.queryRange.map((d) => d.slice(0, 10)).join(' to ')} of ${cell(t.rollup)}${t.buildRange ? `, built for ${t.buildRange.map((d) => d.slice(0, 10)).join(' to ')}` : ' (build range not known)'}`,
    );
  return out;
}

/** The steps of a preview (upload, validation, staging), what failed, and the model's errors, each at its place. */
export function stepsText(v: Partial<PreviewView>, errors: readonly ViewError[]): string[] {
  const out: string[] = [];
  const u = v.upload;
  if (u) out.push(`Upload: ${plural(u.sent, 'file')} sent, ${u.deleted} deleted, ${u.unchanged} unchanged${u.via === 'dev-mode' ? ' (through dev mode)' : ''}`);
  const c = v.validation;
  if (c)
    out.push(
      c.valid
        ? `Validation: valid${c.cubes !== undefined ? `: ${plural(c.cubes, 'cube or view', 'cubes and views')}` : ''}`
        : `Validation: INVALID: ${plural(c.errorCount, 'error')}`,
    );
  for (const e of errors) {
    const where = e.file ? `${cell(e.file, 200)}${e.line ? `:${e.line}` : ''}: ` : '';
    out.push(`  ${where}${cell(e.message, 600)}`, ...(e.notes ?? []).map((n) => `    ${cell(n, 300)}`));
  }
  if (v.staging) out.push(`Staging: ${v.staging.enabled ? `running${v.restUrl ? ` at ${cell(v.restUrl, 300)}` : ''}` : 'not enabled'}`);
  if (v.failure)
    out.push(`${cell(v.failure.step)} FAILED: ${cell(v.failure.message, 1000)}`, ...(v.failure.hint ? [`hint: ${cell(v.failure.hint, 600)}`] : []));
  return out;
}

/** The check of the `agents/` folder: its counts, the removals with what they break, each finding at its place. */
export function agentsText(a: AgentsView): string[] {
  const against = a.source === 'compiled' ? "the preview's compiled model" : "the pull request's model files";
  const out = [
    `Agents (${cell(a.folder, 200)}/): ${plural(a.agents, 'agent')}, ${plural(a.certifiedQueries, 'certified query', 'certified queries')}, ${plural(a.evalQuestions, 'eval question')}; names checked against ${against}: ${plural(a.errors, 'error')}, ${plural(a.warnings, 'warning')}`,
  ];
  for (const b of a.broken) {
    const who = [
      b.agents.length ? `agents ${b.agents.map((x) => cell(x)).join(', ')}` : '',
      b.certifiedQueries.length ? `certified queries ${b.certifiedQueries.map((x) => cell(x)).join(', ')}` : '',
      b.evalQuestions.length ? `eval questions ${b.evalQuestions.map((x) => cell(x)).join(', ')}` : '',
    ].filter(Boolean);
    out.push(`  REMOVED ${b.kind} ${cell(b.name, 200)} breaks ${who.join('; ') || 'nothing the folder names'}`);
  }
  for (const f of a.findings) out.push(`  ${f.level === 'error' ? 'ERROR' : 'warning'} ${cell(f.file, 200)}:${f.line}: ${cell(f.message, 600)}`);
  return out;
}

/** The eval delta: accuracy per side (or why not compared), then each question whose verdict moved, with its reason. */
export function evalsText(v: EvalsView): string[] {
  if (v.state === 'absent') return [`Agent evals: ${cell(v.line, 300)}`];
  const sideOf = (name: string, s: { branch: string; accuracy?: string; reason?: string; runs?: number }) =>
    `${name} (${cell(s.branch, 200)}) ${s.accuracy ?? `not compared: ${cell(s.reason ?? '', 500)}`}${s.runs ? ` over ${s.runs} runs` : ''}`;
  const out = [
    `Agent evals: ${sideOf('production', v.production)}; ${sideOf('this change', v.preview)}${v.compared ? '' : ': no delta, and nothing here is a pass'}`,
  ];
  for (const c of v.newlyFailing)
    out.push(`  NEWLY FAILING ${cell(c.label, 200)}: ${c.production} -> ${c.preview}${c.reason ? `: ${cell(c.reason, 300)}` : ''}`);
  for (const c of v.newlyPassing)
    out.push(`  newly passing ${cell(c.label, 200)}: ${c.production} -> ${c.preview}${c.reason ? ` (was: ${cell(c.reason, 300)})` : ''}`);
  const side = (xs: string[]) => (xs.length ? xs.map((x) => cell(x, 30)).join(', ') : 'not asked');
  for (const c of v.stillFailing ?? [])
    out.push(`  failing on both ${cell(c.label, 200)}: ${c.production} -> ${c.preview}${c.reason ? `: ${cell(c.reason, 300)}` : ''}`);
  for (const c of v.added ?? []) out.push(`  only asked here ${cell(c.label, 200)}: ${c.preview}${c.reason ? `: ${cell(c.reason, 300)}` : ''}`);
  for (const f of v.flaky ?? []) out.push(`  flaky ${cell(f.label, 200)}: production ${side(f.production)}; this change ${side(f.preview)}`);
  const r = v.production.reused;
  if (r) out.push(`  production: its last complete run ${cell(r.runId, 60)} (created ${cell(r.createdAt, 60)}), reused`);
  if (v.reuseLine) out.push(`  ${cell(v.reuseLine, 500)}`);
  return out;
}

/** The whole review: each part that has something to say, a blank line between them, then the files. */
export function reviewText(p: ReviewParts): string[] {
  const parts = [
    p.impact ? impactText(p.impact) : [],
    p.access ? accessText(p.access) : [],
    p.numbers ? numbersText(p.numbers) : [],
    p.cost ? costText(p.cost) : [],
    p.agents ? agentsText(p.agents) : [],
    p.evals ? evalsText(p.evals) : [],
  ];
  const files = [p.files?.changeSet && `change set ${p.files.changeSet}`, p.files?.dataDiff && `data diff ${p.files.dataDiff}`].filter((f): f is string => !!f);
  if (files.length) parts.push([`Detail files: ${files.join('; ')}`]);
  return parts.filter((x) => x.length).flatMap((x, i) => (i ? ['', ...x] : x));
}
