/**
 * What a name resolves to, so the diff compares meanings rather than names: a cube renamed on the same
 * table is the same cube (its joins and the views that reach it follow it), and a view's join path is the
 * cubes and tables it crosses, each hop with the join that reaches it.
 */
import type { CubeDef, JoinDef, MemberDef, ModelDefinition } from '../base/model-definition.js';

/** A cube's data: its table (or sql) and data source. */
const dataOf = (c: CubeDef): string | undefined =>
  c.sqlTable !== undefined
    ? `table ${c.sqlTable} @${c.dataSource ?? 'default'}`
    : c.sql !== undefined
      ? `sql ${c.sql} @${c.dataSource ?? 'default'}`
      : undefined;

const shared = (a: CubeDef, b: CubeDef) => [...a.members.keys()].filter((m) => b.members.has(m)).length;

/**
 * Cubes gone from `base` whose data a new cube of `head` reads (the same table or sql, the same data
 * source) with members of the same names: renamed, old name → new. Several candidates: the one sharing
 * the most member names.
 */
export function cubeRenames(base: ModelDefinition, head: ModelDefinition): Map<string, string> {
  const fresh = [...head.cubes.values()].filter((c) => c.type === 'cube' && !base.cubes.has(c.name));
  const out = new Map<string, string>();
  for (const a of base.cubes.values()) {
    if (a.type !== 'cube' || head.cubes.has(a.name) || dataOf(a) === undefined) continue;
    const taken = new Set(out.values());
    const match = fresh
      .filter((b) => !taken.has(b.name) && dataOf(b) === dataOf(a) && (shared(a, b) > 0 || !a.members.size))
      .sort((x, y) => shared(a, y) - shared(a, x))
      .at(0);
    if (match) out.set(a.name, match.name);
  }
  return out;
}

/** References in model text (`{enrollment_stints.key}`, `{scores.enrollment_stints.grade}`) under the new names. */
export function renameRefs(text: string, renames: ReadonlyMap<string, string>): string;
export function renameRefs(text: string | undefined, renames: ReadonlyMap<string, string>): string | undefined;
export function renameRefs(text: string | undefined, renames: ReadonlyMap<string, string>): string | undefined {
  if (text === undefined || !renames.size) return text;
  return text.replace(/\{([^{}]*)\}/g, (_, inner: string) => `{${renamePath(inner, renames)}}`);
}

/** A dotted path (`scores.enrollment_stints`, `enrollment_stints.grade_level`) under the new names. */
export const renamePath = (path: string, renames: ReadonlyMap<string, string>): string =>
  path
    .split('.')
    .map((p) => renames.get(p.trim()) ?? p)
    .join('.');

function renamedMember(m: MemberDef, r: ReadonlyMap<string, string>): MemberDef {
  const out: MemberDef = { ...m };
  if (m.sql !== undefined) out.sql = renameRefs(m.sql, r);
  if (m.filters) out.filters = m.filters.map((f) => renameRefs(f, r));
  if (m.other !== undefined) out.other = renameRefs(m.other, r);
  if (m.alias) out.alias = renamePath(m.alias, r);
  if (m.path) out.path = renamePath(m.path, r);
  return out;
}

/** `base` as if its renamed cubes had their new names from the start: names, joins and references. */
export function withRenames(base: ModelDefinition, renames: ReadonlyMap<string, string>): ModelDefinition {
  if (!renames.size) return base;
  const cubes = new Map<string, CubeDef>();
  for (const c of base.cubes.values()) {
    const name = renames.get(c.name) ?? c.name;
    const joins = new Map<string, JoinDef>();
    for (const j of c.joins.values()) {
      const to = renames.get(j.name) ?? j.name;
      joins.set(to, { ...j, name: to, ...(j.sql !== undefined ? { sql: renameRefs(j.sql, renames) } : {}) });
    }
    const members = new Map([...c.members].map(([k, m]) => [k, renamedMember(m, renames)]));
    const out: CubeDef = { ...c, name, joins, members };
    if (c.sql !== undefined) out.sql = renameRefs(c.sql, renames);
    if (c.extends) out.extends = renames.get(c.extends) ?? c.extends;
    if (c.paths) out.paths = c.paths.map((p) => renamePath(p, renames));
    cubes.set(name, out);
  }
  return { cubes, skipped: base.skipped };
}

/** A join condition with the two cubes it joins written alike whatever their names: `{CUBE}` and `{JOINED}`. */
function neutral(sql: string | undefined, from: string, to: string): string {
  return (sql ?? '(none)').replace(/\{([^{}]*)\}/g, (_, inner: string) => {
    const [head, ...rest] = inner.trim().split('.');
    const name = head === to ? 'JOINED' : head === from || head === 'CUBE' ? 'CUBE' : head;
    return `{${[name, ...rest].join('.')}}`;
  });
}

/** What a join path crosses: each cube's data, and each hop's join (relationship and condition). */
export function pathHops(model: ModelDefinition, path: string): string[] {
  const names = path.split('.').map((n) => n.trim());
  return names.map((n, i) => {
    const c = model.cubes.get(n);
    const data = c ? (dataOf(c) ?? `cube ${n}`) : `unknown ${n}`;
    if (i === 0) return data;
    const from = names[i - 1] as string;
    const j = model.cubes.get(from)?.joins.get(n);
    return `${data} by ${j?.relationship ?? '(none)'} on ${neutral(j?.sql, from, n)}`;
  });
}
