/**
 * A cube's rollups as its files define them, read for one purpose: each rollup's own query (its measures and
 * dimensions, by its time dimension at its granularity), which the rollup plans ask of each side so a rollup
 * whose build changes is seen whether or not a key query reaches it. Pure; a rollup the reader cannot turn
 * into a query (a `rollup_join`, `rollup_lambda`, `original_sql`, members written as code it does not read)
 * is left out, never guessed.
 */
import { field, isCode, isMap, type Raw } from '../base/model-definition.js';
import type { CubeQuery } from '../data/types.js';

export interface RollupDef {
  /** `orders.orders_by_status`, as Cube's plans name it (`preAggregationId`). */
  id: string;
  measures: string[];
  dimensions: string[];
  timeDimension?: string;
  granularity?: string;
}

/** Kinds Cube builds from members of one cube (and its joins); the others name other rollups or SQL. */
const MEMBER_KINDS = new Set(['rollup', undefined]);

const word = (v: Raw | undefined): string | undefined => (typeof v === 'string' ? v.trim() : isCode(v) ? v.code.trim() : undefined);

/** `count`, `CUBE.count`, `${CUBE}.count`, `customers.country` → the member's full name; anything else undefined. */
function memberName(cube: string, ref: string): string | undefined {
  const m = /^(?:\$\{CUBE\}|\{CUBE\}|CUBE)\.(\w+)$/.exec(ref) ?? /^(\w+)$/.exec(ref);
  if (m) return `${cube}.${m[1]}`;
  return /^\w+\.\w+$/.test(ref) ? ref : undefined;
}

/** A list of member references (YAML's list, JS's code `[CUBE.a, CUBE.b]`); undefined when one cannot be read. */
function memberList(cube: string, v: Raw | undefined): string[] | undefined {
  if (v === undefined || v === null) return [];
  const parts = Array.isArray(v)
    ? v.map(word)
    : (word(v)
        ?.replace(/^\[|\]$/g, '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean) ?? [undefined]);
  const names = parts.map((p) => (p === undefined ? undefined : memberName(cube, p)));
  return names.every((n): n is string => !!n) ? names : undefined;
}

/** The rollups of one cube's `pre_aggregations` (YAML's list or JS's map). */
export function readRollups(cube: string, pre: Raw | undefined): RollupDef[] {
  const items: [string, Raw][] = Array.isArray(pre)
    ? pre.filter(isMap).flatMap((m) => (typeof m.name === 'string' ? [[m.name, m] as [string, Raw]] : []))
    : isMap(pre)
      ? Object.entries(pre)
      : [];
  const out: RollupDef[] = [];
  for (const [name, body] of items) {
    if (!isMap(body)) continue;
    const type = word(field(body, 'type'))?.replace(/^(?:original_sql|originalSql)$/, 'originalSql');
    if (!MEMBER_KINDS.has(type)) continue;
    const measures = memberList(cube, field(body, 'measures'));
    const dimensions = memberList(cube, field(body, 'dimensions'));
    const time = field(body, 'timeDimension');
    const timeDimension = time === undefined ? undefined : memberName(cube, word(time) ?? '');
    if (!measures || !dimensions || (time !== undefined && !timeDimension)) continue;
    if (!measures.length && !dimensions.length && !timeDimension) continue;
    const granularity = word(field(body, 'granularity'));
    out.push({ id: `${cube}.${name}`, measures, dimensions, ...(timeDimension ? { timeDimension } : {}), ...(granularity ? { granularity } : {}) });
  }
  return out;
}

/** The rollup's own query: what Cube's matcher serves from it (or from an earlier rollup holding as much). */
export function rollupQuery(r: RollupDef): CubeQuery {
  return {
    ...(r.measures.length ? { measures: r.measures } : {}),
    ...(r.dimensions.length ? { dimensions: r.dimensions } : {}),
    ...(r.timeDimension ? { timeDimensions: [{ dimension: r.timeDimension, ...(r.granularity ? { granularity: r.granularity } : {}) }] } : {}),
  };
}

/** Definition changes that cannot move a pre-aggregation's tables. */
export const HARMLESS_ASPECTS: ReadonlySet<string> = new Set(['visibility', 'access policy']);

/** A rollup both sides define, with each side's definition: its own query is planned on each side. */
export interface RollupPair {
  id: string;
  base: RollupDef;
  head: RollupDef;
}

interface SideModel {
  cubes: Map<string, { rollups?: RollupDef[] }>;
}

const cubesOf = (r: RollupDef) => [...r.measures, ...r.dimensions, ...(r.timeDimension ? [r.timeDimension] : [])].map((m) => m.split('.')[0] as string);

/**
 * The rollups both sides define whose build the pull request may change: those of a cube, or reading a member
 * of a cube, whose definitions it changes (a measure's SQL under a rollup changes its build SQL, as an edit
 * of the rollup does); nothing when production's definitions were not read.
 */
export function rollupPairs(
  models: { base?: SideModel; head: SideModel } | undefined,
  changes: readonly { cube: string; aspect: string }[] | undefined,
): RollupPair[] {
  if (!models?.base || !changes) return [];
  const touched = new Set(changes.filter((c) => !HARMLESS_ASPECTS.has(c.aspect)).map((c) => c.cube));
  if (!touched.size) return [];
  const all = (m: SideModel) => new Map([...m.cubes.values()].flatMap((c) => c.rollups ?? []).map((r) => [r.id, r]));
  const base = all(models.base);
  const out: RollupPair[] = [];
  for (const [id, head] of all(models.head)) {
    const before = base.get(id);
    if (!before) continue;
    const reads = new Set([id.split('.')[0] as string, ...cubesOf(before), ...cubesOf(head)]);
    if ([...reads].some((c) => touched.has(c))) out.push({ id, base: before, head });
  }
  return out;
}
