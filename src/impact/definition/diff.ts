/**
 * The definition diff of two data models (production's files and the pull request's): what `/meta`
 * cannot show. Each change is classified: breaking (a query that works today fails), values (the same
 * name and type answer other numbers), non-breaking (speed or labels only). Names, types, titles and
 * formats of public members are the `/meta` diff's; this one compares what computes the numbers (what a
 * name resolves to: a cube renamed on the same table is the same cube, a view's join path is the cubes
 * and tables it crosses), and follows a values change to every member whose numbers it moves.
 */
import { snakeCase } from '../../model/locate/model-tree.js';
import type { CubeDef, MemberDef, MemberKind, ModelDefinition } from '../base/model-definition.js';
import { cubeRenames, pathHops, withRenames } from './resolve.js';

export type ChangeClass = 'breaking' | 'values' | 'non-breaking';

export interface DefinitionChange {
  cube: string;
  cubeType: 'cube' | 'view';
  /** `cube.member`; absent for a change of the cube or view itself. */
  member?: string;
  kind?: MemberKind;
  /**
   * What changed: `sql`, `formula`, `filters`, `rolling window`, `granularity`, `alias`, `join path`, `definition`, `aggregation`,
   * `uses` (a member that is not public, changed under this one), `name` (a cube renamed), `sql_table`, `data source`, `join`,
   * `primary key`, `access policy`, `pre-aggregations`, `visibility`.
   */
  aspect: string;
  class: ChangeClass;
  /** The change in a few words (`sql amount → amount * 0.9`). */
  detail: string;
  /** Joins: the cube joined. */
  join?: string;
  /** A cube renamed (`name`): its new name. */
  to?: string;
}

const MAX = 80;
const short = (s: string | undefined) => (s === undefined ? '(none)' : s.length > MAX ? `${s.slice(0, MAX - 1)}…` : s);
const arrow = (a: string | undefined, b: string | undefined) => `${short(a)} → ${short(b)}`;

/** A measure of type number whose sql names other members: a calculated measure, its sql a formula. */
const isFormula = (m: MemberDef) => m.kind === 'measure' && m.type === 'number' && /\{[^}]+\}/.test(m.sql ?? '');

/** The type `/meta` gives a measure of each type: a change within `number` is a change of aggregation only. */
const outputType = (t: string | undefined) => (t === 'string' || t === 'time' || t === 'boolean' ? t : 'number');

/** The two models a member is compared in: production's (under the new names of renamed cubes) and the pull request's. */
interface Sides {
  base: ModelDefinition;
  head: ModelDefinition;
  /** Never-public measures whose aggregation changed (head's names), with the change: they leave no entry of their own. */
  hidden: { member: string; detail: string }[];
}

function memberChanges(cube: CubeDef, a: MemberDef, b: MemberDef, sides: Sides): DefinitionChange[] {
  const at = { cube: cube.name, cubeType: cube.type, member: `${cube.name}.${b.name}`, kind: b.kind };
  const out: DefinitionChange[] = [];
  const add = (aspect: string, klass: ChangeClass, detail: string) => out.push({ ...at, aspect, class: klass, detail });
  if (a.kind !== b.kind) return out;
  if (a.public && !b.public) add('visibility', 'breaking', 'made private');
  if (a.sql !== b.sql && (a.sql !== undefined || b.sql !== undefined)) {
    const formula = isFormula(a) || isFormula(b);
    add(formula ? 'formula' : 'sql', 'values', `${formula ? 'formula' : 'sql'} ${arrow(a.sql, b.sql)}`);
  }
  // Queries on a measure whose aggregation changed still run: its numbers change. Other type changes of
  // public members are the /meta diff's (breaking); a member never public leaves no entry (nobody queried it).
  const [ta, tb] = [a.type && snakeCase(a.type), b.type && snakeCase(b.type)];
  // A view member's type is its cube member's: the change is the cube's (and /meta's, for the view).
  if (ta !== tb && a.kind === 'measure' && cube.type === 'cube' && outputType(ta) === outputType(tb)) {
    const detail = `aggregation ${arrow(ta, tb)}`;
    if (a.public || b.public) add('aggregation', 'values', detail);
    else sides.hidden.push({ member: at.member, detail });
  }
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
  // A view member reached through another path means something else when the path crosses other tables or joins.
  if (a.path && b.path && a.path !== b.path && pathHops(sides.base, a.path).join('|') !== pathHops(sides.head, b.path).join('|'))
    add('join path', 'values', `join path ${arrow(a.path, b.path)}`);
  if (a.other !== b.other) add('definition', 'values', `definition ${arrow(a.other, b.other)}`);
  return out;
}

const keyMembers = (c: CubeDef) => [...c.members.values()].filter((m) => m.primaryKey).sort((x, y) => x.name.localeCompare(y.name));
const keys = (c: CubeDef) =>
  keyMembers(c)
    .map((m) => m.name)
    .join(', ') || undefined;
/** What the key resolves to: a key renamed on the same column is the same key. */
const keyColumns = (c: CubeDef) =>
  keyMembers(c)
    .map((m) => m.sql ?? m.name)
    .sort()
    .join(', ');

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
  if (a.type === 'cube' && keyColumns(a) !== keyColumns(b)) add('primary key', 'values', `primary key ${arrow(keys(a), keys(b))}`);
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

/** A cube renamed: one row, naming the cubes whose joins follow it. */
function renameChange(a: CubeDef, b: CubeDef, base: ModelDefinition, head: ModelDefinition): DefinitionChange {
  const same = b.sqlTable !== undefined ? `same table ${short(b.sqlTable)}` : 'same sql';
  const joining = [...head.cubes.values()].filter((c) => c.joins.has(b.name) && base.cubes.get(c.name)?.joins.has(b.name)).map((c) => c.name);
  const follow = joining.length
    ? `; the joins of ${joining
        .sort()
        .join(', ')
        .replace(/, ([^,]*)$/, ' and $1')} follow it`
    : '';
  return { cube: a.name, cubeType: 'cube', aspect: 'name', class: 'non-breaking', detail: `renamed to ${b.name} (${same})${follow}`, to: b.name };
}

/** Members a member's sql and filters name (`{x}`, `{cube.x}`). */
const namedBy = (m: MemberDef, cube: string) => [m.sql, ...(m.filters ?? [])].flatMap((s) => sqlReferences(s, cube));

/** A never-public measure's change, carried by the public members that use it (through hidden ones, if need be). */
function carriedByUsers(head: ModelDefinition, hidden: Sides['hidden']): DefinitionChange[] {
  const out: DefinitionChange[] = [];
  for (const h of hidden) {
    const seen = new Set([h.member]);
    const queue = [h.member];
    for (let i = 0; i < queue.length; i++) {
      for (const c of head.cubes.values()) {
        for (const m of c.members.values()) {
          const full = `${c.name}.${m.name}`;
          if (seen.has(full) || !namedBy(m, c.name).includes(queue[i] as string)) continue;
          seen.add(full);
          if (!m.public) queue.push(full);
          else
            out.push({
              cube: c.name,
              cubeType: c.type,
              member: full,
              kind: m.kind,
              aspect: 'uses',
              class: 'values',
              detail: `${h.member} (not public): ${h.detail}`,
            });
        }
      }
    }
  }
  return out;
}

/** Every change from `base` to `head`, cube by cube (cubes and members on one side only are the /meta diff's; a cube renamed is one row). */
export function diffDefinitions(base: ModelDefinition, head: ModelDefinition): DefinitionChange[] {
  const renames = cubeRenames(base, head);
  const sides: Sides = { base: withRenames(base, renames), head, hidden: [] };
  const out: DefinitionChange[] = [];
  for (const [name, to] of renames) out.push(renameChange(base.cubes.get(name) as CubeDef, head.cubes.get(to) as CubeDef, sides.base, head));
  for (const [name, a] of sides.base.cubes) {
    const b = head.cubes.get(name);
    if (!b || a.type !== b.type) continue;
    out.push(...cubeChanges(a, b));
    for (const [m, ma] of a.members) {
      const mb = b.members.get(m);
      if (mb) out.push(...memberChanges(b, ma, mb, sides));
    }
  }
  return [...out, ...carriedByUsers(head, sides.hidden)];
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
