/**
 * The "Numbers" section of the PR comment and the job summary: per key query, unchanged or how many
 * rows changed, the largest change in absolute and relative terms, rows added and removed; then a
 * collapsible table of the rows that moved most. The comment shows the first queries and rows, the job
 * summary all that were kept. In relative mode no value and no row key is ever shown.
 */
import { DEFAULTS } from '../../defaults.js';
import type { ChangedRow, ContextShown, DataDiffResult, KeySource, LargestChange, QueryOutcome } from '../../impact/data/types.js';
import { REASON_WORDS, type RollupBuild } from '../../impact/rollups/builds.js';
import { plural } from '../../report/plural.js';
import { code, cut, link, plain, text } from './markdown.js';

export interface NumbersQueryRow {
  name: string;
  source: KeySource;
  why?: string;
  status: QueryOutcome['status'];
  rows?: { base: number; head: number };
  added?: number;
  removed?: number;
  changed?: number;
  largest?: LargestChange;
  truncated?: boolean;
  failed?: { side: string; message: string };
  /** Values mode: the rows that moved most, and keys added and removed. */
  top?: ChangedRow[];
  addedKeys?: string[];
  removedKeys?: string[];
  /** Rows left out: their period ends after the older side's read (`refreshedAt`). */
  afterRefresh?: number;
  refreshedAt?: string;
  /** Skipped: what its load on the preview would build. */
  wouldBuild?: RollupBuild[];
}

export interface NumbersView {
  mode: 'values' | 'relative';
  /** Why the data diff did not run (off, a fork, a public repository, nothing to compare). */
  notRun?: string;
  total: number;
  changed: number;
  failed: number;
  /** Queries of a measure only the preview has (absent in views written before). */
  fresh?: number;
  /** Queries not run: their load on the preview would build a pre-aggregation (absent in views written before). */
  skipped?: number;
  /** Queries only the base's key-queries file has (gone from the pull request's; absent in views written before). */
  gone?: number;
  /** Key queries found beyond the cap. */
  notRunQueries: number;
  seconds?: number;
  queries: NumbersQueryRow[];
  /** When each side's data was read (the oldest `lastRefreshTime` of its answers). */
  refreshed?: { production?: string; preview?: string };
  /** Requests sent to each side's data API (the job summary shows them: the tiers' query quota counts them). */
  requests?: { production: number; preview: number };
  /** Whose numbers: the security context the key queries ran with (groups, and the other keys by name). */
  context?: ContextShown;
}

/** The whole result as a view (the view then keeps the first queries and rows, view.ts). */
export function numbersView(r: DataDiffResult | { skipped: string; mode: 'values' | 'relative' }): NumbersView {
  if ('skipped' in r) return { mode: r.mode, notRun: r.skipped, total: 0, changed: 0, failed: 0, notRunQueries: 0, queries: [] };
  const queries = r.queries.map((q): NumbersQueryRow => {
    const c = q.comparison;
    const row: NumbersQueryRow = { name: q.name, source: q.source, status: q.status, ...(q.why ? { why: q.why } : {}) };
    if (q.failed) row.failed = q.failed;
    if (q.wouldBuild) row.wouldBuild = q.wouldBuild;
    if (c) {
      Object.assign(row, { rows: c.rows, added: c.added, removed: c.removed, changed: c.changed, truncated: c.truncated });
      if (c.afterRefresh) Object.assign(row, { afterRefresh: c.afterRefresh, refreshedAt: c.refreshedAt });
      if (c.largest[0]) row.largest = c.largest[0];
      if (r.mode === 'values') Object.assign(row, { top: c.top, addedKeys: c.addedKeys, removedKeys: c.removedKeys });
    }
    return row;
  });
  return {
    mode: r.mode,
    ...(r.notices.length && !r.queries.length ? { notRun: r.notices.join('; ') } : {}),
    total: r.queries.length,
    changed: r.changed,
    failed: r.queries.filter((q) => q.status === 'failed').length,
    fresh: r.queries.filter((q) => q.status === 'new').length,
    skipped: r.queries.filter((q) => q.status === 'skipped').length,
    ...(r.queries.some((q) => q.status === 'gone') ? { gone: r.queries.filter((q) => q.status === 'gone').length } : {}),
    notRunQueries: r.notRun,
    seconds: Math.round(r.elapsedMs / 100) / 10,
    queries,
    ...(r.refreshed ? { refreshed: r.refreshed } : {}),
    ...(r.requests ? { requests: r.requests } : {}),
    ...(r.context
      ? { context: { groups: r.context.groups.slice(0, 10).map((g) => cut(g, 60)), keys: r.context.keys.slice(0, 10).map((k) => cut(k, 60)) } }
      : {}),
  };
}

/** Whose numbers they are: `as a user with no groups (empty security context)`, or the groups and keys of the one given. */
export function whose(c: ContextShown | undefined): string {
  if (!c) return '';
  const keys = c.keys.length ? `; security context with ${c.keys.map((k) => code(k)).join(', ')}` : '';
  if (!c.groups.length) return c.keys.length ? `as a user with no groups${keys}` : 'as a user with no groups (empty security context)';
  return `as a user in ${c.groups.length === 1 ? 'group' : 'groups'} ${c.groups.map((g) => code(g)).join(', ')}${keys}`;
}

/** `2026-11-27 13:54:15 UTC` from an ISO instant; anything else as escaped text. */
const instant = (iso: string) =>
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : text(cut(iso, 40));

const NUMBER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
/** `1,234.5`, `−12`: a number as people read it (a real minus sign, never a list marker). */
export const num = (n: number): string => NUMBER.format(n).replace(/^-/, '−');
const signed = (n: number) => (n > 0 ? `+${num(n)}` : num(n));
/** `+12.5 %`, `−3.0 %`. */
export const percent = (rel: number): string => `${rel > 0 ? '+' : rel < 0 ? '−' : ''}${Math.abs(rel * 100).toFixed(Math.abs(rel) < 0.001 ? 3 : 1)} %`;
const value = (v: number | string | null | undefined) => (v === null || v === undefined ? '∅' : typeof v === 'number' ? num(v) : text(cut(v, 60)));
const measure = (m: string) => code(m.split('.').slice(1).join('.') || m, { cell: true });

/** Outside text inside an HTML element (a `<summary>`: markdown is not read there): entities, and mentions broken. */
export function htmlText(s: string): string {
  return plain(s)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/([@#])(?=\w)/g, '$1\u200B');
}

/** The result cell of a query: unchanged, what moved, or where it failed. */
function result(q: NumbersQueryRow): string {
  if (q.status === 'skipped')
    return `not run: its load on the preview would build ${(q.wouldBuild ?? []).map((b) => `${code(b.rollup, { cell: true })} (${REASON_WORDS[b.reason]})`).join(', ') || 'a pre-aggregation'} in the shared Cube Store (see Cost)`;
  if (q.status === 'failed') return `failed on ${q.failed?.side === 'both' ? 'both' : (q.failed?.side ?? '?')}: ${text(cut(q.failed?.message ?? '', 160))}`;
  if (q.status === 'new') return `new on the preview: ${plural(q.rows?.head ?? 0, 'row')}`;
  if (q.status === 'gone') return "gone: only the base's key-queries file has it (not run)";
  const parts: string[] = [];
  if (q.changed) parts.push(`${plural(q.changed, 'row')} changed`);
  const l = q.largest;
  if (l) {
    const rel = l.rel !== undefined ? percent(l.rel) : '';
    const abs = l.abs !== undefined ? signed(l.abs) : '';
    const how = [rel, abs && rel ? `(${abs})` : abs].filter(Boolean).join(' ');
    parts.push(`largest ${how || 'change'} on ${measure(l.measure)}${l.key && l.key !== '(total)' ? ` at ${text(cut(l.key, 80))}` : ''}`);
  }
  if (q.added) parts.push(`${q.added} added`);
  if (q.removed) parts.push(`${q.removed} removed`);
  const out = parts.length ? parts.join('; ') : 'unchanged';
  const late = q.afterRefresh
    ? ` (${plural(q.afterRefresh, 'row')} ending after the older read${q.refreshedAt ? `, ${instant(q.refreshedAt)},` : ''} not compared)`
    : '';
  return q.truncated ? `${out}${late} (row cap reached: rows past it not compared)` : `${out}${late}`;
}

function queryTable(rows: NumbersQueryRow[]): string[] {
  const rowsCell = (q: NumbersQueryRow) => (q.rows ? `${num(q.rows.base)} → ${num(q.rows.head)}` : '');
  return ['| Key query | Rows | Result |', '|---|---|---|', ...rows.map((q) => `| ${text(cut(q.name, 120))} | ${rowsCell(q)} | ${result(q)} |`)];
}

/** The rows that moved most in one query (values mode), with keys added and removed. */
function detail(q: NumbersQueryRow, limit: number): string[] {
  const top = (q.top ?? []).slice(0, limit);
  if (!top.length && !q.addedKeys?.length && !q.removedKeys?.length) return [];
  const change = (r: ChangedRow) => (r.abs !== undefined ? `${signed(r.abs)}${r.rel !== undefined ? ` (${percent(r.rel)})` : ''}` : 'changed');
  const out = [`<details><summary>${htmlText(cut(q.name, 120))}: ${q.status === 'new' ? 'first rows' : 'the rows that moved most'}</summary>`, ''];
  if (top.length) {
    out.push('| Row | Measure | Production | Preview | Change |', '|---|---|---|---|---|');
    for (const r of top)
      out.push(`| ${text(cut(r.key, 100))} | ${measure(r.measure)} | ${value(r.base)} | ${value(r.head)} | ${q.status === 'new' ? 'new' : change(r)} |`);
    out.push('');
  }
  const keys = (label: string, ks: string[] | undefined, n: number | undefined) =>
    ks?.length
      ? [
          `${label}: ${ks
            .slice(0, limit)
            .map((k) => text(cut(k, 80)))
            .join('; ')}${(n ?? 0) > Math.min(ks.length, limit) ? ' …' : ''}`,
          '',
        ]
      : [];
  out.push(...keys('Rows only on the preview', q.addedKeys, q.added), ...keys('Rows only on production', q.removedKeys, q.removed), '</details>', '');
  return out;
}

export interface NumbersRenderOptions {
  target: 'comment' | 'summary';
  /** Key queries shown in a comment, and rows of each detail table. */
  queries?: number;
  rows?: number;
  runUrl?: string;
}

/** The section, for a comment (first queries and rows) or the job summary (all of `full`, else of the view). */
export function renderNumbers(v: NumbersView, options: NumbersRenderOptions, full?: NumbersView): string[] {
  if (v.notRun) return [`**Numbers**: not compared: ${text(cut(v.notRun, 400))}`, ''];
  const all = options.target === 'summary' && full ? full : v;
  const comment = options.target === 'comment';
  const shown = comment ? all.queries.slice(0, options.queries ?? DEFAULTS.dataDiffCommentQueries) : all.queries;
  const rows = comment ? (options.rows ?? DEFAULTS.dataDiffCommentRows) : Number.POSITIVE_INFINITY;
  const fresh = all.fresh ?? 0;
  const skipped = all.skipped ?? 0;
  const gone = all.gone ?? 0;
  const unchanged = all.total - all.changed - all.failed - fresh - skipped - gone;
  const counts = [
    `${all.changed} changed`,
    `${unchanged} unchanged`,
    ...(fresh ? [`${fresh} new`] : []),
    ...(gone ? [`${gone} gone`] : []),
    ...(all.failed ? [`${all.failed} failed`] : []),
    ...(skipped ? [`${skipped} not run (they would build a pre-aggregation)`] : []),
  ].join(', ');
  const mode = all.mode === 'relative' ? '; relative changes only' : '';
  const who = whose(all.context);
  const head = `**Numbers** (production → preview, ${plural(all.total, 'key query', 'key queries')}${all.seconds !== undefined ? ` in ${all.seconds} s` : ''}${who ? `, ${who}` : ''}${mode}): ${counts}`;
  const out = [head, ''];
  const read = all.refreshed;
  // Only a side that answered says when its data was read.
  const sides = [read?.production && `production ${instant(read.production)}`, read?.preview && `preview ${instant(read.preview)}`].filter(Boolean);
  if (sides.length) out.push(`Data as read (each side's oldest answer): ${sides.join(', ')}.`, '');
  out.push(...queryTable(shown), '');
  const more = all.queries.length - shown.length;
  if (more > 0)
    out.push(
      `… ${options.runUrl ? link(`${plural(more, 'more key query', 'more key queries')} in the job summary`, options.runUrl) : `${plural(more, 'more key query', 'more key queries')} in the job summary`}.`,
      '',
    );
  if (all.notRunQueries) out.push(`${plural(all.notRunQueries, 'more key query', 'more key queries')} found but not run (data-diff-max-queries).`, '');
  if (!comment && all.requests) {
    const { production, preview } = all.requests;
    out.push(
      `Data-API requests of this run: ${num(production + preview)} (${num(production)} to production, ${num(preview)} to the preview; every poll and repeat counted). Small tiers' daily query quota is account-wide and hard: see docs/impact.md.`,
      '',
    );
  }
  for (const q of shown.filter((x) => x.status === 'changed' || x.status === 'new')) out.push(...detail(q, rows));
  return out;
}
