/**
 * A cube's rollups as its files define them, read for one purpose: each rollup's own query (its measures and
 * dimensions, by its time dimension at its granularity), which the rollup plans ask of each side so a rollup
 * whose build changes is seen whether or not a key query reaches it. Pure; a rollup the reader cannot turn
 * into a query (a `rollup_join`, `rollup_lambda`, `original_sql`, members written as code it does not read)
 * is left out, never guessed.
 */
import { field, isCode, isMap, type Raw } from './model-definition.js';

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
