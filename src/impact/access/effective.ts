/**
 * A row filter as one persona meets it: each `values` entry evaluated against the persona's context (as
 * Cube's `evaluateNestedFilter` does), and the whole put in one normal form, so an equivalent rewrite
 * (filters reordered, a list written as `and`, a policy split in two, a member named with or without its
 * cube, an attribute renamed that holds the same value) reads the same, and only a change of what the
 * persona's rows are filtered by reads as a change. A value it cannot evaluate stays as written.
 */
import { canon, field, isCode, isMap, type Raw } from '../base/model-definition.js';
import { evaluateCondition } from './condition.js';

/** A filter in normal form: a leaf's text, or `and`/`or` of sorted, distinct, flattened parts. */
type Norm = { leaf: string } | { and: Norm[] } | { or: Norm[] } | { all: true };

const TRUE: Norm = { all: true };

const text = (n: Norm): string => {
  if ('all' in n) return 'every row';
  if ('leaf' in n) return n.leaf;
  const parts = ('and' in n ? n.and : n.or).map((p) => ('leaf' in p ? p.leaf : `(${text(p)})`));
  return parts.join('and' in n ? ' AND ' : ' OR ');
};

/** Flatten one kind, drop duplicates, sort; one part is itself; `and` of nothing is every row. */
function join(kind: 'and' | 'or', parts: Norm[]): Norm {
  const flat = parts.flatMap((p) => (kind in p ? (p as Record<typeof kind, Norm[]>)[kind] : [p]));
  if (kind === 'or' && flat.some((p) => 'all' in p)) return TRUE;
  // An AND with a part that gives no row gives no row.
  if (kind === 'and' && flat.some((p) => 'or' in p && !p.or.length)) return { or: [] };
  const kept = flat.filter((p) => !('all' in p));
  const unique = [...new Map(kept.map((p) => [text(p), p] as const)).entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, p]) => p);
  if (!unique.length) return kind === 'and' ? TRUE : { or: [] };
  return unique.length === 1 ? unique[0]! : kind === 'and' ? { and: unique } : { or: unique };
}

/** `{ userAttributes.x }` is the user's attribute, which Cube Cloud keeps under `securityContext.cubeCloud`. */
const expression = (src: string) => src.replace(/(^|[^.\w$])userAttributes\./g, '$1securityContext.cubeCloud.userAttributes.');

/** One `values` entry as the persona's request gives it (a list spreads), or as written when it cannot be read. */
function valueOf(v: Raw, context: Record<string, unknown>): unknown[] {
  const written = typeof v === 'string' ? v.trim() : isCode(v) ? v.code.trim() : undefined;
  const templated = written !== undefined && (isCode(v) || (written.startsWith('{') && written.endsWith('}')));
  if (!templated) return [typeof v === 'number' || typeof v === 'boolean' ? String(v) : (v ?? null)];
  const r = evaluateCondition(expression(written.replace(/^\{\s*([\s\S]*?)\s*\}$/, '$1')), context);
  if ('unknown' in r) return [`as written: ${canon(v)}`];
  const value = r.value;
  // YAML's `"{ … }"` is a template string: Cube gives the value as text (`undefined` when the attribute is not set).
  if (!isCode(v)) return [Array.isArray(value) ? value.join(',') : String(value)];
  const one = (x: unknown) => (x === undefined ? null : typeof x === 'number' || typeof x === 'boolean' ? String(x) : x);
  return Array.isArray(value) ? value.map(one) : [one(value)];
}

/** `orders.status`, `{CUBE}.status` and `status` name the same member of `orders`: its full name. */
function memberOf(raw: Raw | undefined, cube: string): string {
  const t = (isCode(raw) ? raw.code : typeof raw === 'string' ? raw : (canon(raw) ?? '')).trim().replace(/^\{\s*([\s\S]*?)\s*\}$/, '$1');
  const parts = t.split('.');
  if (parts.length === 1 && cube) return `${cube}.${t}`;
  return parts.length === 2 && (parts[0] === 'CUBE' || parts[0] === '{CUBE}') && cube ? `${cube}.${parts[1]}` : t;
}

/** One filter of a `row_level.filters` list in normal form. */
function normal(f: Raw, cube: string, context: Record<string, unknown>): Norm {
  if (!isMap(f)) return { leaf: canon(f) ?? '' };
  for (const kind of ['and', 'or'] as const) {
    const list = field(f, kind);
    if (Array.isArray(list))
      return join(
        kind,
        list.map((x) => normal(x, cube, context)),
      );
  }
  const raw = field(f, 'values');
  const values = raw === undefined ? [] : (Array.isArray(raw) ? raw : [raw]).flatMap((v) => valueOf(v, context));
  const distinct = [...new Set(values.map((v) => JSON.stringify(v)))].sort();
  const op = String(canon(field(f, 'operator')) ?? '');
  return { leaf: `${memberOf(field(f, 'member') ?? field(f, 'memberReference'), cube)} ${op}${distinct.length ? ` [${distinct.join(', ')}]` : ''}` };
}

/** A policy's filters (ANDed) as the persona meets them. */
export const policyFilter = (filters: Raw[], cube: string, context: Record<string, unknown>): Norm =>
  join(
    'and',
    filters.map((f) => normal(f, cube, context)),
  );

/** Parts ORed (policies that grant one member) or ANDed (a view over its cubes), in normal form. */
export const anyOf = (parts: Norm[]): Norm => join('or', parts);
export const allOf = (parts: Norm[]): Norm => join('and', parts);

/** The rows a normal form gives: every row, no row (an OR of nothing), or a filter as canonical text. */
export function rowsOf(n: Norm): { all: true } | { none: true } | { filter: string } {
  if ('all' in n) return { all: true };
  if ('or' in n && !n.or.length) return { none: true };
  return { filter: text(n) };
}

export type { Norm as NormalFilter };
