/**
 * Two results of one query, compared row by row: rows are keyed on the query's dimensions (and time
 * dimensions with their granularity), measures compared with an absolute and a relative tolerance.
 * In relative mode nothing that is a value (a number, a key) is kept: row counts and relative moves only.
 */
import { periodAfter } from './refresh.js';
import type { ChangedRow, CubeQuery, DataDiffLimits, DataDiffMode, LargestChange, QueryComparison } from './types.js';

export type Row = Record<string, unknown>;

/** At most this many changed rows, added and removed keys are kept per query. */
export const TOP_ROWS = 20;

/** The key column of a compareDateRange query's rows: which of its ranges a row belongs to. */
export const COMPARE_KEY = 'compareDateRange';

/** A compareDateRange query's ranges as the query writes them (the same on both sides, whenever each ran), or nothing. */
export function compareRangeLabels(q: CubeQuery): string[] | undefined {
  const ranges = (q.timeDimensions ?? []).find((t) => Array.isArray(t.compareDateRange))?.compareDateRange as unknown[] | undefined;
  return ranges?.map((r) => (Array.isArray(r) ? r.map(String).join(' – ') : String(r)));
}

/** The result's column of each key: `orders.status`, `orders.created_at.month` (and a compared range first). */
export function keyColumns(q: CubeQuery): string[] {
  const dims = q.dimensions ?? [];
  const times = (q.timeDimensions ?? []).filter((t) => t.granularity).map((t) => `${t.dimension}.${t.granularity}`);
  return [...(compareRangeLabels(q) ? [COMPARE_KEY] : []), ...dims, ...times];
}

/** Any cell as text: strings as they are, anything else as JSON. */
const cellText = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));

/** `2025-03-01T00:00:00.000` as `2025-03` for a month, `2025-03-01` for a day; other values as text. */
function keyText(column: string, v: unknown): string {
  if (v === null || v === undefined) return '∅';
  const s = cellText(v);
  const grain = column.split('.')[2];
  const t = /^(\d{4})-(\d{2})-(\d{2})T00:00:00(?:\.000)?Z?$/.exec(s);
  if (!t) return s;
  if (grain === 'year') return t[1] as string;
  if (grain === 'month' || grain === 'quarter') return `${t[1]}-${t[2]}`;
  return `${t[1]}-${t[2]}-${t[3]}`;
}

const shortName = (m: string) => (m.includes('.') ? m.split('.').slice(1).join('.') : m);

function rowKey(row: Row, columns: string[]): string {
  return columns.length ? columns.map((c) => `${shortName(c)} = ${keyText(c, row[c])}`).join(', ') : '(total)';
}

/** A measure's value: a number when it reads as one, else its text (or null). */
function valueOf(v: unknown): number | string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v;
  return cellText(v);
}

function index(rows: Row[], columns: string[]): Map<string, Row> {
  const out = new Map<string, Row>();
  for (const r of rows) {
    let k = rowKey(r, columns);
    for (let i = 2; out.has(k); i++) k = `${rowKey(r, columns)} #${i}`;
    out.set(k, r);
  }
  return out;
}

/** A change of one value, or nothing when it stays within the tolerance. */
function change(base: number | string | null, head: number | string | null, limits: DataDiffLimits): { abs?: number; rel?: number } | undefined {
  if (typeof base === 'number' && typeof head === 'number') {
    const abs = head - base;
    const size = Math.max(Math.abs(base), Math.abs(head));
    if (Math.abs(abs) <= limits.absTolerance || Math.abs(abs) <= limits.relTolerance * size) return undefined;
    return base === 0 ? { abs } : { abs, rel: abs / Math.abs(base) };
  }
  return base === head ? undefined : {};
}

/** The most rows one result of a query holds (a compareDateRange query has one result per range). */
function longest(rows: Row[], query: CubeQuery): number {
  if (!compareRangeLabels(query)) return rows.length;
  const counts = new Map<unknown, number>();
  for (const r of rows) counts.set(r[COMPARE_KEY], (counts.get(r[COMPARE_KEY]) ?? 0) + 1);
  return Math.max(0, ...counts.values());
}

/**
 * Compare production's rows (`base`) with the preview's (`head`) for `query`; `asked` is the limit sent.
 * When the two answers were read at different times (`refreshed`), a row whose period ends after the
 * older read is left out: the newer side may hold rows the older never saw.
 */
export function compareRows(
  query: CubeQuery,
  base: Row[],
  head: Row[],
  limits: DataDiffLimits,
  mode: DataDiffMode,
  asked: number,
  refreshed: { base?: string; head?: string } = {},
): QueryComparison {
  const columns = keyColumns(query);
  const measures = query.measures ?? [];
  const a = index(base, columns);
  const b = index(head, columns);
  const older = refreshed.base && refreshed.head && refreshed.base !== refreshed.head ? [refreshed.base, refreshed.head].sort()[0] : undefined;
  const late = older ? periodAfter(query, older) : undefined;
  const unread = new Set<string>();
  for (const side of [a, b])
    for (const [key, row] of side)
      if (late?.(row)) {
        unread.add(key);
        side.delete(key);
      }
  const addedKeys = [...b.keys()].filter((k) => !a.has(k));
  const removedKeys = [...a.keys()].filter((k) => !b.has(k));
  const moved: ChangedRow[] = [];
  let changed = 0;
  for (const [key, ra] of a) {
    const rb = b.get(key);
    if (!rb) continue;
    let rowChanged = false;
    for (const m of measures) {
      const [va, vb] = [valueOf(ra[m]), valueOf(rb[m])];
      const c = change(va, vb, limits);
      if (!c) continue;
      rowChanged = true;
      moved.push({ key, measure: m, base: va, head: vb, ...c });
    }
    if (rowChanged) changed += 1;
  }
  const largest: LargestChange[] = [];
  for (const m of measures) {
    const own = moved.filter((x) => x.measure === m);
    if (!own.length) continue;
    const top = [...own].sort(
      (x, y) => Math.abs(y.rel ?? Infinity) - Math.abs(x.rel ?? Infinity) || Math.abs(y.abs ?? 0) - Math.abs(x.abs ?? 0),
    )[0] as ChangedRow;
    const l: LargestChange = { measure: m, ...(top.rel !== undefined ? { rel: top.rel } : {}) };
    if (mode === 'values') Object.assign(l, { key: top.key, base: top.base, head: top.head, ...(top.abs !== undefined ? { abs: top.abs } : {}) });
    largest.push(l);
  }
  largest.sort((x, y) => Math.abs(y.rel ?? 0) - Math.abs(x.rel ?? 0));
  const values = mode === 'values';
  return {
    rows: { base: base.length, head: head.length },
    added: addedKeys.length,
    removed: removedKeys.length,
    changed,
    largest,
    top: values ? moved.sort((x, y) => Math.abs(y.abs ?? 0) - Math.abs(x.abs ?? 0)).slice(0, TOP_ROWS) : [],
    addedKeys: values ? addedKeys.slice(0, TOP_ROWS) : [],
    removedKeys: values ? removedKeys.slice(0, TOP_ROWS) : [],
    truncated: longest(base, query) >= asked || longest(head, query) >= asked,
    ...(unread.size ? { afterRefresh: unread.size, refreshedAt: older } : {}),
  };
}

/** The rows of a query run on the preview only (a new measure): counted, and in values mode its first rows. */
export function newRows(query: CubeQuery, head: Row[], mode: DataDiffMode, asked: number): QueryComparison {
  const columns = keyColumns(query);
  const top: ChangedRow[] =
    mode === 'values'
      ? head.slice(0, TOP_ROWS).flatMap((r) => (query.measures ?? []).map((m) => ({ key: rowKey(r, columns), measure: m, base: null, head: valueOf(r[m]) })))
      : [];
  return {
    rows: { base: 0, head: head.length },
    added: head.length,
    removed: 0,
    changed: 0,
    largest: [],
    top,
    addedKeys: [],
    removedKeys: [],
    truncated: longest(head, query) >= asked,
  };
}
