/**
 * Which members answer other numbers after a change: the members changed, every member whose sql
 * names one of them (a calculated measure over a changed measure), every view member that stands for
 * one, the members of a cube whose table, key, data source or access policy changed, and the view
 * members reached through a join whose relationship or condition changed. Each with the reason.
 */
import type { DefinitionChange } from './diff.js';
import type { CubeDef, ModelDefinition } from './model.js';

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
