/**
 * The "Cost" section of the PR comment and the job summary: what the merge costs beyond the diff. One
 * part per concern, each a function of its own view that returns its lines (none when it has nothing
 * to say); the section shows the parts that speak under one heading: the Cube version skew, the rollups.
 */
import type { NotKnownKey, RefusedKey } from '../../model/version-skew.js';
import { plural } from '../../report/plural.js';
import { code, text } from './markdown.js';
import { renderRollups, type RollupsView } from './render-rollups.js';

/** Production's and staging's Cube versions, and what production's refuses of the model. */
export interface VersionsView {
  production?: string;
  staging?: string;
  /** The version production runs after the merge's deploy (automatic patch upgrades), when it moves. */
  afterMerge?: string;
  refusedTotal: number;
  /** The refused keys (the view keeps the first ones; the job summary has them all). */
  refused: RefusedKey[];
  /** Keys not known to be accepted by production's Cube (a warning, never a failure). */
  notKnownTotal?: number;
  notKnown?: NotKnownKey[];
  notKnownWhy?: string;
  /** Why the model was not checked against production's version. */
  unchecked?: string;
}

/** What the Cost section shows; each part optional. */
export interface CostView {
  versions?: VersionsView;
  /** Key queries that lose, gain or move a pre-aggregation, rollups rebuilt on merge, build ranges that cut a query. */
  rollups?: RollupsView;
}

export interface CostOptions {
  target: 'comment' | 'summary';
  /** Rows of a table the comment shows. */
  rows?: number;
}

const COMMENT_ROWS = 10;

function refusedTable(v: VersionsView, options: CostOptions): string[] {
  const shown = options.target === 'comment' ? v.refused.slice(0, options.rows ?? COMMENT_ROWS) : v.refused;
  const rows = shown.map(
    (r) =>
      `| ${code(r.key, { cell: true })}${r.value === undefined ? '' : ` = ${code(r.value, { cell: true })}`} | ${code(`${r.file}:${r.line}`, { cell: true })} | ${code(r.version, { cell: true })} |`,
  );
  const more = v.refusedTotal - shown.length;
  const tail = more > 0 ? ['', `…and ${more} more: the job summary lists them all.`] : [];
  const title = `${plural(v.refusedTotal, 'key')} production's Cube refuses`;
  return [`<details open><summary>${title}</summary>`, '', '| Key | Where | Needs Cube |', '|---|---|---|', ...rows, ...tail, '', '</details>'];
}

/** The version part: the versions when they differ, the refused keys, the keys not known, or why the model was not checked. */
export function renderVersions(v: VersionsView | undefined, options: CostOptions): string[] {
  if (!v) return [];
  const runs = v.afterMerge ?? v.production;
  const differ = !!runs && !!v.staging && runs !== v.staging;
  if (!differ && !v.afterMerge && !v.refusedTotal && !v.notKnownTotal && !v.unchecked) return [];
  const out: string[] = [];
  if (v.afterMerge)
    out.push(
      `Production runs Cube ${code(v.production as string)} now and will run ${code(v.afterMerge)} after the merge's deploy (automatic patch upgrades).`,
    );
  if (differ)
    out.push(
      `Production ${v.afterMerge ? 'will run' : 'runs'} Cube ${code(runs)}, staging ${code(v.staging as string)}: staging validated the model with the newer one.`,
    );
  if (v.refusedTotal) {
    out.push('', `❌ ${plural(v.refusedTotal, 'key')} of the model would break production after the merge: its Cube refuses them.`, '');
    out.push(...refusedTable(v, options));
  } else if (differ && !v.unchecked && !v.notKnownTotal) out.push('', `✅ Production's Cube accepts every key of the model.`);
  if (v.notKnownTotal) {
    const shown = options.target === 'comment' ? (v.notKnown ?? []).slice(0, options.rows ?? COMMENT_ROWS) : (v.notKnown ?? []);
    const keys = shown.map((k) => `${code(k.value === undefined ? k.key : `${k.key}: ${k.value}`)} (${code(`${k.file}:${k.line}`)})`).join(', ');
    const more = v.notKnownTotal - shown.length;
    const why = v.notKnownWhy ? ` (${text(v.notKnownWhy)})` : '';
    out.push('', `⚠️ ${plural(v.notKnownTotal, 'key')} not known to production's Cube${why}, a warning: ${keys}${more > 0 ? ` and ${more} more` : ''}.`);
  }
  if (v.unchecked) out.push('', `ℹ️ ${text(v.unchecked)}`);
  return out;
}

/** The whole section: a heading over the parts that have something to say; nothing when none does. */
export function renderCost(v: CostView | undefined, options: CostOptions): string[] {
  const parts = [renderVersions(v?.versions, options), v?.rollups ? renderRollups(v.rollups, options) : []].filter((p) => p.length);
  if (!parts.length) return [];
  return ['**Cost**', '', ...parts.flatMap((p, i) => (i ? ['', ...p] : p))];
}

/** The section in one line (a comment too long for the whole section): what each part would say first. */
export function costHeadline(v: CostView | undefined): string | undefined {
  if (!renderCost(v, { target: 'comment' }).length) return undefined;
  const parts: string[] = [];
  const s = v?.versions;
  if (s?.refusedTotal) parts.push(`${plural(s.refusedTotal, 'key')} production's Cube refuses`);
  else if (s?.production && s.staging && s.production !== s.staging) parts.push(`production runs Cube ${code(s.production)}, staging ${code(s.staging)}`);
  if (s?.unchecked) parts.push("the model was not checked against production's Cube version");
  const r = v?.rollups;
  if (r?.skipped) parts.push('rollups not planned');
  else if (r) {
    const lost = r.totals.lost;
    parts.push(
      `${lost ? `${plural(lost, 'key query', 'key queries')} ${lost === 1 ? 'leaves its' : 'leave their'} rollup` : `${plural(r.totals.changes, 'key query', 'key queries')} ${r.totals.changes === 1 ? 'changes' : 'change'} rollup`}, ${plural(r.totals.rebuilt, 'rollup')} rebuilt on merge`,
    );
  }
  return `**Cost**: ${parts.join('; ')}`;
}
