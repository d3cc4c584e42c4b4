/**
 * The definition diff of two data models (production's files and the pull request's): what `/meta`
 * cannot show. Each change is classified: breaking (a query that works today fails), values (the same
 * name and type answer other numbers), non-breaking (speed or labels only). Names, types, titles and
 * formats of public members are the `/meta` diff's; this one compares what computes the numbers, and
 * follows a values change to every member whose numbers it moves.
 */
import { snakeCase } from '../../model/locate/model-tree.js';
import type { CubeDef, MemberDef, MemberKind, ModelDefinition } from './model.js';

export type ChangeClass = 'breaking' | 'values' | 'non-breaking';

export interface DefinitionChange {
  cube: string;
  cubeType: 'cube' | 'view';
  /** `cube.member`; absent for a change of the cube or view itself. */
  member?: string;
  kind?: MemberKind;
  /** What changed: `sql`, `formula`, `filters`, `rolling window`, `granularity`, `alias`, `definition`, `aggregation`, `type`, `sql_table`, `data source`, `join`, `primary key`, `access policy`, `pre-aggregations`, `visibility`. */
  aspect: string;
  class: ChangeClass;
  /** The change in a few words (`sql amount → amount * 0.9`). */
  detail: string;
  /** Joins: the cube joined. */
  join?: string;
}

const MAX = 80;
const short = (s: string | undefined) => (s === undefined ? '(none)' : s.length > MAX ? `${s.slice(0, MAX - 1)}…` : s);
const arrow = (a: string | undefined, b: string | undefined) => `${short(a)} → ${short(b)}`;

/** A measure of type number whose sql names other members: a calculated measure, its sql a formula. */
const isFormula = (m: MemberDef) => m.kind === 'measure' && m.type === 'number' && /\{[^}]+\}/.test(m.sql ?? '');

/** The type `/meta` gives a measure of each type: a change within `number` is a change of aggregation only. */
const outputType = (t: string | undefined) => (t === 'string' || t === 'time' || t === 'boolean' ? t : 'number');

function memberChanges(cube: CubeDef, a: MemberDef, b: MemberDef): DefinitionChange[] {
  const at = { cube: cube.name, cubeType: cube.type, member: `${cube.name}.${b.name}`, kind: b.kind };
  const out: DefinitionChange[] = [];
  const add = (aspect: string, klass: ChangeClass, detail: string) => out.push({ ...at, aspect, class: klass, detail });
  if (a.kind !== b.kind) return out;
  if (a.public && !b.public) add('visibility', 'breaking', 'made private');
  if (a.sql !== b.sql && (a.sql !== undefined || b.sql !== undefined)) {
    const formula = isFormula(a) || isFormula(b);
    add(formula ? 'formula' : 'sql', 'values', `${formula ? 'formula' : 'sql'} ${arrow(a.sql, b.sql)}`);
  }
  // Queries on a public measure whose aggregation changed still run: its numbers change. A view member's type
  // is its cube member's: the change is the cube's (and /meta's, for the view).
  const [ta, tb] = [a.type && snakeCase(a.type), b.type && snakeCase(b.type)];
  if (ta !== tb && a.kind === 'measure' && cube.type === 'cube' && outputType(ta) === outputType(tb) && (a.public || b.public))
    add('aggregation', 'values', `aggregation ${arrow(ta, tb)}`);
  // Other types of public members are the /meta diff's (breaking); a hidden member's type shows only here.
  else if (a.type !== b.type && !a.public && !b.public) add('type', 'values', `type ${arrow(a.type, b.type)}`);
  const fa = (a.filters ?? []).join(' AND ');
  const fb = (b.filters ?? []).join(' AND ');
  if (fa !== fb) add('filters', 'values', !fa ? `filter added: ${short(fb)}` : !fb ? `filter removed: ${short(fa)}` : `filters ${arrow(fa, fb)}`);
  if (a.rollingWindow !== b.rollingWindow) {
    const d = !a.rollingWindow
      ? `became cumulative (rolling window ${b.rollingWindow})`
      : !b.rollingWindow
        ? `no longer cumulative (was rolling window ${a.rollingWindow})`
        : `rolling window ${arrow(a.rollingWindow, b.rollingWindow)}`;
    add('rolling window', 'values', d);
  }
  for (const [g, gb] of Object.entries(b.granularities ?? {})) {
    const ga = a.granularities?.[g];
    if (!ga) continue;
    for (const k of ['interval', 'offset', 'origin', 'sql'] as const) {
      if (ga[k] !== gb[k]) add('granularity', 'values', `granularity ${g}: ${k} ${arrow(ga[k], gb[k])}`);
    }
  }
  if (a.alias !== b.alias && a.alias && b.alias) add('alias', 'values', `stands for ${b.alias} (was ${a.alias})`);
  if (a.other !== b.other) add('definition', 'values', `definition ${arrow(a.other, b.other)}`);
  return out;
}

const keys = (c: CubeDef) =>
  [...c.members.values()]
    .filter((m) => m.primaryKey)
    .map((m) => m.name)
    .sort()
    .join(', ') || undefined;

function cubeChanges(a: CubeDef, b: CubeDef): DefinitionChange[] {
  const at = { cube: b.name, cubeType: b.type };
  const out: DefinitionChange[] = [];
  const add = (aspect: string, klass: ChangeClass, detail: string, join?: string) =>
    out.push({ ...at, aspect, class: klass, detail, ...(join ? { join } : {}) });
  if (a.public && !b.public) add('visibility', 'breaking', 'made private');
  if (a.sqlTable !== b.sqlTable || a.sql !== b.sql) {
    const label = (c: CubeDef) => (c.sqlTable !== undefined ? `sql_table ${short(c.sqlTable)}` : c.sql !== undefined ? `sql ${short(c.sql)}` : '(none)');
    const same = (a.sqlTable !== undefined) === (b.sqlTable !== undefined);
    add(
      'sql_table',
      'values',
      same ? `${b.sqlTable !== undefined ? 'sql_table' : 'sql'} ${arrow(a.sqlTable ?? a.sql, b.sqlTable ?? b.sql)}` : `${label(a)} → ${label(b)}`,
    );
  }
  if (a.dataSource !== b.dataSource) add('data source', 'values', `data source ${arrow(a.dataSource ?? 'default', b.dataSource ?? 'default')}`);
  if (a.type === 'cube' && keys(a) !== keys(b)) add('primary key', 'values', `primary key ${arrow(keys(a), keys(b))}`);
  for (const [name, ja] of a.joins) {
    const jb = b.joins.get(name);
    if (!jb) add('join', 'breaking', `join to ${name} removed`, name);
    else {
      if (ja.relationship !== jb.relationship) add('join', 'values', `join to ${name}: relationship ${arrow(ja.relationship, jb.relationship)}`, name);
      if (ja.sql !== jb.sql) add('join', 'values', `join to ${name}: condition ${arrow(ja.sql, jb.sql)}`, name);
    }
  }
  for (const name of b.joins.keys()) if (!a.joins.has(name)) add('join', 'non-breaking', `join to ${name} added`, name);
  if (a.accessPolicy !== b.accessPolicy) {
    add('access policy', 'values', !a.accessPolicy ? 'access policy added' : !b.accessPolicy ? 'access policy removed' : 'access policy changed');
  }
  if (a.preAggregations !== b.preAggregations) add('pre-aggregations', 'non-breaking', 'pre-aggregations changed (speed, not numbers)');
  return out;
}

/** Every change from `base` to `head`, cube by cube (cubes and members on one side only are the /meta diff's). */
export function diffDefinitions(base: ModelDefinition, head: ModelDefinition): DefinitionChange[] {
  const out: DefinitionChange[] = [];
  for (const [name, a] of base.cubes) {
    const b = head.cubes.get(name);
    if (!b || a.type !== b.type) continue;
    out.push(...cubeChanges(a, b));
    for (const [m, ma] of a.members) {
      const mb = b.members.get(m);
      if (mb) out.push(...memberChanges(b, ma, mb));
    }
  }
  return out;
}

// What a values change moves: the members changed, every member whose sql names one of them (a calculated
// measure over a changed measure), every view member that stands for one, the members of a cube whose
// table, key, data source or access policy changed, and the view members reached through a join whose
// relationship or condition changed; each with the reason.

/** `cube.member` → why its numbers change (`sql amount → …`, `uses orders.total_amount`). */
export type ValuesChanged = Map<string, string>;

/** Members a sql names: `{amount}`, `{CUBE.amount}`, `{orders.amount}`, `{orders.customers.country}`. */
export function sqlReferences(sql: string | undefined, cube: string): string[] {
  const out: string[] = [];
  for (const m of (sql ?? '').matchAll(/\{\s*([A-Za-z_][\w.]*)\s*\}/g)) {
    const parts = (m[1] as string).split('.');
    if (parts.length === 1) out.push(`${cube}.${parts[0]}`);
    else {
      const owner = parts.at(-2) === 'CUBE' || parts.at(-2) === 'TABLE' ? cube : (parts.at(-2) as string);
      out.push(`${owner}.${parts.at(-1)}`);
    }
  }
  return out;
}

/** Members of a cube that a cube-level change moves: all of them, or its measures for a new key. */
function cubeMembers(cube: CubeDef, aspect: string): string[] {
  return [...cube.members.values()].filter((m) => aspect !== 'primary key' || m.kind === 'measure').map((m) => `${cube.name}.${m.name}`);
}

/** Every member of `head` whose numbers change, from the values changes (in head's names). */
export function valuesChanged(head: ModelDefinition, changes: readonly DefinitionChange[]): ValuesChanged {
  const out: ValuesChanged = new Map();
  const mark = (member: string, why: string) => {
    if (out.has(member)) return false;
    out.set(member, why);
    return true;
  };
  const joins: { from: string; to: string; why: string }[] = [];
  for (const c of changes.filter((x) => x.class === 'values')) {
    if (c.member) mark(c.member, c.detail);
    else if (c.aspect === 'join' && c.join) joins.push({ from: c.cube, to: c.join, why: `${c.cube}: ${c.detail}` });
    else {
      const cube = head.cubes.get(c.cube);
      if (cube) for (const m of cubeMembers(cube, c.aspect)) mark(m, `${c.cube}: ${c.detail}`);
    }
  }
  // View members reached through a changed join: those of the cube on the far side of the hop, or beyond it.
  for (const view of [...head.cubes.values()].filter((v) => v.type === 'view')) {
    for (const path of view.paths ?? []) {
      const hops = path.split('.');
      const at = joins.find((j) => hops.some((h, i) => h === j.from && hops[i + 1] === j.to));
      if (!at) continue;
      const beyond = new Set(hops.slice(hops.indexOf(at.to)));
      for (const m of view.members.values()) if (m.alias && beyond.has(m.alias.split('.')[0] as string)) mark(`${view.name}.${m.name}`, at.why);
    }
  }
  // Follow references and view aliases from what moved, each edge once: who uses whom, reversed.
  const users = new Map<string, { member: string; why: string }[]>();
  for (const c of head.cubes.values()) {
    for (const m of c.members.values()) {
      const full = `${c.name}.${m.name}`;
      const edges = m.alias ? [{ to: m.alias, why: `stands for ${m.alias}` }] : [];
      for (const r of new Set(sqlReferences(m.sql, c.name))) if (r !== full) edges.push({ to: r, why: `uses ${r}` });
      for (const e of edges) {
        const list = users.get(e.to) ?? [];
        list.push({ member: full, why: e.why });
        users.set(e.to, list);
      }
    }
  }
  const queue = [...out.keys()];
  for (let i = 0; i < queue.length; i++) {
    for (const u of users.get(queue[i] as string) ?? []) if (mark(u.member, u.why)) queue.push(u.member);
  }
  return out;
}
