/**
 * The member diff of two semantic layers (the deploy branch's and the pull request's) and its
 * classification. Breaking: what a query that works today can no longer ask for (a member removed or
 * made private, a cube renamed, a type changed, a view member gone, a granularity removed). Values: what
 * still answers, with other numbers (an aggregation changed, a granularity's interval, a view member
 * standing for another). Non-breaking: what adds or only relabels (a member or granularity added, a
 * title, description or format changed).
 */
import { snakeCase } from '../../model/locate/model-tree.js';
import type { AccessChange } from './types.js';
import { shortName, type MemberKind, type MetaCube, type MetaDocument, type MetaMember } from './meta.js';

export type ChangeKind = 'added' | 'removed' | 'private' | 'renamed' | 'view-lost' | 'changed';

export interface MemberChange {
  /** Full name: the deploy branch's (the pull request's for an added member). */
  member: string;
  /** Cube or view the member belongs to. */
  cube: string;
  cubeType: 'cube' | 'view';
  kind: MemberKind;
  change: ChangeKind;
  breaking: boolean;
  /** What changed, one short phrase each (`type string → number`, `granularity fiscal_year removed`). */
  details: string[];
  /** `renamed`: the member's new full name. */
  to?: string;
  /** `view-lost`: the cube member whose change took it out of the view. */
  because?: string;
  /** A change that only removed granularities: content that uses the member with another granularity still works. */
  onlyGranularities?: string[];
  /** Not breaking, but the same name and type answer other numbers (the "values change" class). */
  values?: boolean;
}

export interface CubeChange {
  name: string;
  type: 'cube' | 'view';
  change: 'added' | 'removed' | 'renamed' | 'private' | 'changed';
  /** `renamed`: the new name. */
  to?: string;
  /** `changed`: what changed in the cube itself (its table, joins, primary key, access policy); `renamed`: set only for a rename the files show and `/meta` does not (a cube that is not public), then a row of its own. */
  details?: string[];
  breaking?: boolean;
  values?: boolean;
}

export interface ChangeSet {
  cubes: CubeChange[];
  members: MemberChange[];
  /** Who can see what, per persona (absent when the access review did not run). */
  access?: AccessChange[];
}

export interface ChangeCounts {
  breaking: number;
  /** Changes that keep names and types but move the numbers (members and cubes). */
  values?: number;
  added: number;
  /** Non-breaking changes of existing members. */
  changed: number;
}

export interface DiffOptions {
  /** Members the pull request's model files declare non-public: a member gone from `/meta` is then "made private". */
  privateInHead?: ReadonlySet<string>;
  /** Cubes the model files show renamed (old → new): a view member standing for the same member under the new name is no change. */
  cubeRenames?: ReadonlyMap<string, string>;
}

/** A cube's change that is a row of its own: changed or made private itself, or renamed where `/meta` does not show it. */
export const ownRow = (c: CubeChange): boolean => c.change === 'changed' || c.change === 'private' || (c.change === 'renamed' && !!c.details);

const arrow = (from: string | undefined, to: string | undefined) => `${from ?? '(none)'} → ${to ?? '(none)'}`;

/** `enrollment_stints.grade_level` under its cube's new name. */
const renamedAlias = (alias: string, renames: ReadonlyMap<string, string>) => {
  const to = renames.get(alias.slice(0, Math.max(0, alias.indexOf('.'))));
  return to ? `${to}.${shortName(alias)}` : alias;
};

/** Field by field: breaking phrases first, then those that move the numbers, then the others. */
function compare(
  a: MetaMember,
  b: MetaMember,
  renames: ReadonlyMap<string, string>,
): { breaking: string[]; values: string[]; other: string[]; removedGrains: string[] } {
  const breaking: string[] = [];
  const values: string[] = [];
  const other: string[] = [];
  for (const [g, d] of Object.entries(b.grainDefs ?? {})) {
    const was = a.grainDefs?.[g];
    for (const k of ['interval', 'offset', 'origin'] as const) if (was && was[k] !== d[k]) values.push(`granularity ${g}: ${k} ${arrow(was[k], d[k])}`);
  }
  if (!a.cumulative && b.cumulative) values.push('became cumulative');
  if (a.cumulative && !b.cumulative) values.push('no longer cumulative');
  if (a.alias && b.alias && renamedAlias(a.alias, renames) !== b.alias) values.push(`stands for ${b.alias} (was ${a.alias})`);
  if (a.type !== b.type) breaking.push(`type ${arrow(a.type, b.type)}`);
  // Queries still run on a measure whose aggregation changed; its numbers change (written as the model writes it).
  if (a.aggType !== b.aggType) values.push(`aggregation ${arrow(a.aggType && snakeCase(a.aggType), b.aggType && snakeCase(b.aggType))}`);
  const removedGrains = a.granularities.filter((g) => !b.granularities.includes(g));
  for (const g of removedGrains) breaking.push(`granularity ${g} removed`);
  for (const g of b.granularities.filter((x) => !a.granularities.includes(x))) other.push(`granularity ${g} added`);
  if (a.format !== b.format) other.push(`format ${arrow(a.format, b.format)}`);
  if (a.title !== b.title) other.push(`title ${arrow(a.title, b.title)}`);
  if (a.description !== b.description) other.push('description changed');
  return { breaking, values, other, removedGrains };
}

/** Signature of a cube's members without its name: a cube whose signature reappears under a new name was renamed. */
function signature(c: MetaCube): string {
  return c.members
    .filter((m) => m.visible)
    .map((m) => `${m.kind}:${shortName(m.name)}:${m.type ?? ''}:${m.aggType ?? ''}`)
    .sort()
    .join('|');
}

const byName = <T extends { name: string }>(list: T[]) => new Map(list.map((x) => [x.name, x]));

/** Cubes removed and added whose members match one to one: renamed (same kind, cube or view). */
function renames(base: Map<string, MetaCube>, head: Map<string, MetaCube>): Map<string, string> {
  const gone = [...base.values()].filter((c) => !head.has(c.name));
  const fresh = [...head.values()].filter((c) => !base.has(c.name));
  const out = new Map<string, string>();
  for (const c of gone) {
    const sig = signature(c);
    if (!sig) continue;
    const match = fresh.find((n) => n.type === c.type && !([...out.values()] as string[]).includes(n.name) && signature(n) === sig);
    if (match) out.set(c.name, match.name);
  }
  return out;
}

/** Compare the deploy branch's `/meta` (`base`) with the pull request's (`head`). */
export function diffMeta(base: MetaDocument, head: MetaDocument, options: DiffOptions = {}): ChangeSet {
  const baseCubes = byName(base.cubes);
  const headCubes = byName(head.cubes);
  const renamed = renames(baseCubes, headCubes);
  const cubes: CubeChange[] = [];
  const members: MemberChange[] = [];
  const privateInHead = options.privateInHead ?? new Set<string>();
  for (const c of base.cubes) {
    const to = renamed.get(c.name);
    if (to) cubes.push({ name: c.name, type: c.type, change: 'renamed', to });
    else if (!headCubes.has(c.name)) cubes.push({ name: c.name, type: c.type, change: 'removed' });
  }
  const renamedTo = new Set(renamed.values());
  for (const c of head.cubes) if (!baseCubes.has(c.name) && !renamedTo.has(c.name)) cubes.push({ name: c.name, type: c.type, change: 'added' });

  for (const c of base.cubes) {
    const h = headCubes.get(c.name);
    const newName = renamed.get(c.name);
    const headMembers = byName((h?.members ?? []).filter((m) => m.visible));
    for (const m of c.members.filter((x) => x.visible)) {
      const at = { member: m.name, cube: c.name, cubeType: c.type, kind: m.kind };
      if (newName) {
        const to = `${newName}.${shortName(m.name)}`;
        members.push({ ...at, change: 'renamed', breaking: true, to, details: [`${c.type} renamed to ${newName}`] });
        continue;
      }
      const n = headMembers.get(m.name);
      if (!n) {
        const hidden = h?.members.some((x) => x.name === m.name && !x.visible) || privateInHead.has(m.name);
        const why = !h ? `${c.type} ${c.name} removed` : hidden ? 'made private' : 'removed';
        members.push({ ...at, change: hidden ? 'private' : 'removed', breaking: true, details: [why] });
        continue;
      }
      const { breaking, values, other, removedGrains } = compare(m, n, options.cubeRenames ?? new Map());
      if (!breaking.length && !values.length && !other.length) continue;
      const change: MemberChange = { ...at, change: 'changed', breaking: breaking.length > 0, details: [...breaking, ...values, ...other] };
      if (values.length) change.values = true;
      if (breaking.length && breaking.length === removedGrains.length) change.onlyGranularities = removedGrains;
      members.push(change);
    }
    for (const n of h?.members.filter((x) => x.visible) ?? []) {
      if (!c.members.some((m) => m.visible && m.name === n.name)) {
        members.push({ member: n.name, cube: c.name, cubeType: c.type, kind: n.kind, change: 'added', breaking: false, details: ['added'] });
      }
    }
  }
  for (const c of head.cubes.filter((x) => !baseCubes.has(x.name) && !renamedTo.has(x.name))) {
    for (const n of c.members.filter((x) => x.visible)) {
      members.push({ member: n.name, cube: c.name, cubeType: c.type, kind: n.kind, change: 'added', breaking: false, details: [`${c.type} ${c.name} added`] });
    }
  }
  attributeViewLosses(base, members);
  return { cubes, members: members.sort(order) };
}

/** A view member that is gone because the cube member it stands for changed: say so, under the view. */
function attributeViewLosses(base: MetaDocument, members: MemberChange[]): void {
  const aliases = new Map<string, string>();
  for (const c of base.cubes) for (const m of c.members) if (c.type === 'view' && m.alias) aliases.set(m.name, m.alias);
  const broken = new Map(members.filter((m) => m.cubeType === 'cube' && m.breaking && m.change !== 'changed').map((m) => [m.member, m]));
  for (const m of members) {
    if (m.cubeType !== 'view' || (m.change !== 'removed' && m.change !== 'private')) continue;
    const alias = aliases.get(m.member);
    const cause = alias ? broken.get(alias) : undefined;
    if (!alias || !cause) {
      if (m.change === 'removed' && alias) m.details = [`no longer in the view (it stood for ${alias})`];
      continue;
    }
    m.change = 'view-lost';
    m.because = alias;
    m.details = [`${alias} ${cause.change === 'renamed' ? `renamed to ${cause.to}` : cause.details[0]}`];
  }
}

const RANK: Record<ChangeKind, number> = { removed: 0, private: 1, renamed: 2, 'view-lost': 3, changed: 4, added: 5 };
export function order(a: MemberChange, b: MemberChange): number {
  return Number(b.breaking) - Number(a.breaking) || a.cube.localeCompare(b.cube) || RANK[a.change] - RANK[b.change] || a.member.localeCompare(b.member);
}

/** How many changes are breaking, values changes, added and (other non-breaking) changed. */
export function countChanges(cs: ChangeSet): ChangeCounts {
  let breaking = 0;
  let values = 0;
  let added = 0;
  let changed = 0;
  for (const m of cs.members) {
    if (m.breaking) breaking += 1;
    else if (m.values) values += 1;
    else if (m.change === 'added') added += 1;
    else changed += 1;
  }
  // A cube made private is counted by its members' rows.
  for (const c of cs.cubes.filter((x) => x.change !== 'private' && ownRow(x))) {
    if (c.breaking) breaking += 1;
    else if (c.values) values += 1;
    else changed += 1;
  }
  return { breaking, ...(values ? { values } : {}), added, changed };
}
