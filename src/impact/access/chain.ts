/**
 * Access through views, as Cube decides it: a view's member is the view's own policies' (what /meta lists,
 * what is masked) and the policies of the cube it stands for, reached through the view: Cube skips that
 * cube's member rules there but keeps its masks and its row filters, and a persona no policy of the cube
 * applies to reads no row of it (server-core's applyRowLevelSecurity, `cubesAccessedViaView`).
 */
import type { CubeDef, ModelDefinition } from '../base/model-definition.js';
import { cubeOf, shortName } from '../base/meta.js';
import { allOf, anyOf, type NormalFilter } from './effective.js';
import { entityAccess, type EntityAccess, type MemberAccess } from './policy.js';
import type { Persona } from './types.js';

/** Public members of a cube's definition, short names. */
export const publicMembers = (c: CubeDef): string[] => [...c.members.values()].filter((m) => m.public).map((m) => m.name);

/** A view member's access from the view's own and the cube's through the view (hidden there: no row, not hidden). */
function through(own: MemberAccess, cube: MemberAccess): MemberAccess {
  if (own === 'hidden') return 'hidden';
  if (own === 'unknown' || cube === 'unknown') return 'unknown';
  return own === 'masked' || cube === 'masked' ? 'masked' : own;
}

/** The cubes a view's members stand for (each a cube the view reaches). */
export function cubesUnder(view: CubeDef): string[] {
  return [...new Set([...view.members.values()].flatMap((m) => (m.alias ? [cubeOf(m.alias)] : [])))].sort();
}

/** Members of other cubes a member's SQL names (`{customers.country}`): Cube applies their cubes' policies to the query too. */
function referenced(def: ModelDefinition, cube: string, member: string): { cube: string; member: string }[] {
  const sql = def.cubes.get(cube)?.members.get(member)?.sql ?? '';
  return [...sql.matchAll(/\{\s*(\w+)\.(\w+)\s*\}/g)]
    .filter(([, c]) => c !== cube && c !== 'CUBE' && def.cubes.get(c!)?.type === 'cube')
    .map(([, c, m]) => ({ cube: c!, member: m! }));
}

/** What a side's policies give a persona on a cube, or on a view with the cubes under it (none: the side does not define it). */
export function modelAccess(def: ModelDefinition | undefined, name: string, persona: Persona): EntityAccess | undefined {
  const c = def?.cubes.get(name);
  if (!def || !c) return undefined;
  const own = entityAccess(c.accessPolicies ?? [], publicMembers(c), persona, { cube: name });
  const viaView = new Set(c.type === 'view' ? cubesUnder(c) : []);
  const seen = new Map<string, EntityAccess>();
  const of = (cube: string): EntityAccess | undefined => {
    const d = def.cubes.get(cube);
    if (!d?.accessPolicies?.length) return undefined;
    if (!seen.has(cube)) seen.set(cube, entityAccess(d.accessPolicies, [...d.members.keys()], persona, { cube, viaView: viaView.has(cube) }));
    return seen.get(cube);
  };
  /** The access and rows a cube member brings into the query: its own cube's (through the view or not) and those its SQL names. */
  const reached = (cube: string, member: string, self: boolean) => {
    let access: MemberAccess = 'full';
    const rows: (NormalFilter | undefined)[] = [];
    const at = self ? undefined : of(cube);
    if (at) {
      access = at.members.get(member) ?? 'full';
      // Reached directly, a member no policy grants denies the query: no row.
      rows.push(access === 'hidden' && !viaView.has(cube) ? anyOf([]) : at.memberRows.get(member));
    }
    for (const r of referenced(def, cube, member)) {
      const acc = of(r.cube);
      if (!acc) continue;
      const a = acc.members.get(r.member) ?? 'full';
      rows.push(a === 'hidden' && !viaView.has(r.cube) ? anyOf([]) : acc.memberRows.get(r.member));
      if (a === 'unknown') access = 'unknown';
    }
    return { access, rows };
  };
  const members = new Map(own.members);
  const memberRows = new Map(own.memberRows);
  for (const [m, access] of own.members) {
    const alias = c.type === 'view' ? c.members.get(m)?.alias : `${name}.${m}`;
    if (!alias) continue;
    const r = reached(cubeOf(alias), shortName(alias), c.type !== 'view');
    if (!r.rows.length) continue;
    if (c.type === 'view') members.set(m, through(access, r.access));
    else if (r.access === 'unknown') members.set(m, 'unknown');
    const parts = [own.memberRows.get(m), ...r.rows];
    memberRows.set(m, parts.every((x) => x !== undefined) ? allOf(parts) : undefined);
  }
  const extra = [...seen.values()];
  return {
    ...own,
    policed: own.policed || extra.some((a) => a.policed),
    members,
    memberRows,
    unknown: [...new Set([...own.unknown, ...extra.flatMap((a) => a.unknown)])],
    notes: [...new Set([...own.notes, ...extra.flatMap((a) => a.notes)])],
  };
}

/** Views (on either side) over a cube among `targets` that are not targets themselves: a cube's policy reaches them. */
export function viewsOver(base: ModelDefinition | undefined, head: ModelDefinition | undefined, targets: string[]): string[] {
  const out = new Set<string>();
  for (const def of [base, head])
    for (const c of def?.cubes.values() ?? [])
      if (
        c.type === 'view' &&
        !targets.includes(c.name) &&
        base?.cubes.has(c.name) &&
        head?.cubes.has(c.name) &&
        cubesUnder(c).some((x) => targets.includes(x))
      )
        out.add(c.name);
  return [...out].sort();
}
