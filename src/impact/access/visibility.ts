/**
 * What the member diff must know of access policies so it never calls a policy change a removal: each
 * side's layer is the union of every `/meta` read of it (the empty context's and each persona's), and a
 * member or cube that a side's `/meta` reads do not list while that side's model still defines it under an
 * access policy is hidden by the policy, not removed (nor, the other way, added).
 */
import type { ChangeSet, CubeChange, MemberChange } from '../base/diff.js';
import type { CubeDef, ModelDefinition } from '../base/model-definition.js';
import { shortName, type MetaCube, type MetaDocument } from '../base/meta.js';

/** Every cube and member any of the reads lists; a member visible in one read is visible in the union. */
export function unionMeta(docs: readonly MetaDocument[]): MetaDocument {
  const cubes = new Map<string, MetaCube>();
  for (const doc of docs) {
    for (const c of doc.cubes) {
      const have = cubes.get(c.name);
      if (!have) {
        cubes.set(c.name, { ...c, members: [...c.members] });
        continue;
      }
      for (const m of c.members) {
        const at = have.members.findIndex((x) => x.name === m.name);
        if (at < 0) have.members.push(m);
        else if (!have.members[at]!.visible && m.visible) have.members[at] = m;
      }
    }
  }
  return { cubes: [...cubes.values()] };
}

/** Each cube's visible members (full names) in one read; a cube none of whose members is visible is left out. */
export function visibleMembers(doc: MetaDocument): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const c of doc.cubes) {
    const shown = c.members.filter((m) => m.visible).map((m) => m.name);
    if (shown.length) out.set(c.name, new Set(shown));
  }
  return out;
}

/** The cube defines the member as public, in a public cube or view that has an access policy. */
export function definedUnderPolicy(def: ModelDefinition | undefined, cube: string, member?: string): CubeDef | undefined {
  const c = def?.cubes.get(cube);
  if (!c || !c.public || c.accessPolicy === undefined) return undefined;
  if (member === undefined) return c;
  const m = c.members.get(shortName(member));
  return m?.public ? c : undefined;
}

/** Member and cube rows the diff took out because an access policy explains them. */
export interface PolicyExplained {
  /** `hidden`: the preview's reads no longer list it; `shown`: production's did not and the preview's do. */
  members: { row: MemberChange; way: 'hidden' | 'shown' }[];
  cubes: { row: CubeChange; way: 'hidden' | 'shown' }[];
}

/**
 * Take out of `cs` (in place) what a policy explains: a member "removed" or "made private" that the
 * pull request's model still defines, public, under an access policy; a member "added" that production's
 * model already defined under one; the same for whole cubes and views.
 */
export function withoutPolicyEffects(cs: ChangeSet, defs: { base?: ModelDefinition; head?: ModelDefinition }): PolicyExplained {
  const out: PolicyExplained = { members: [], cubes: [] };
  cs.members = cs.members.filter((row) => {
    const gone = row.change === 'removed' || row.change === 'private' || row.change === 'view-lost';
    if (gone && definedUnderPolicy(defs.head, row.cube, row.member)) {
      out.members.push({ row, way: 'hidden' });
      return false;
    }
    if (row.change === 'added' && definedUnderPolicy(defs.base, row.cube, row.member)) {
      out.members.push({ row, way: 'shown' });
      return false;
    }
    return true;
  });
  cs.cubes = cs.cubes.filter((row) => {
    if (row.change === 'removed' && definedUnderPolicy(defs.head, row.name)) {
      out.cubes.push({ row, way: 'hidden' });
      return false;
    }
    if (row.change === 'added' && definedUnderPolicy(defs.base, row.name)) {
      out.cubes.push({ row, way: 'shown' });
      return false;
    }
    return true;
  });
  return out;
}

/** Cubes and views whose access policy differs between the two models (added, changed or removed), with how. */
export function policyTargets(base: ModelDefinition | undefined, head: ModelDefinition | undefined): { target: string; how: string }[] {
  if (!base || !head) return [];
  const out: { target: string; how: string }[] = [];
  for (const [name, h] of head.cubes) {
    const b = base.cubes.get(name);
    if (!b || b.accessPolicy === h.accessPolicy) continue;
    out.push({ target: name, how: b.accessPolicy === undefined ? 'added' : h.accessPolicy === undefined ? 'removed' : 'changed' });
  }
  return out.sort((a, b) => a.target.localeCompare(b.target));
}

/** One line per cube of what the diff took out: `view orders_view: 3 members no longer listed …`. */
export function explainedNotices(x: PolicyExplained, personasRead: number, everyGroup = false): string[] {
  const byCube = new Map<string, { type: string; hidden: string[]; shown: string[] }>();
  const at = (cube: string, type: string) => byCube.get(cube) ?? byCube.set(cube, { type, hidden: [], shown: [] }).get(cube)!;
  for (const { row, way } of x.members) at(row.cube, row.cubeType)[way].push(shortName(row.member));
  for (const { row } of x.cubes) at(row.name, row.type);
  const read = ['the empty security context', ...(everyGroup ? ["every group of the model's policies"] : [])];
  if (personasRead) read.push(personasRead === 1 ? 'the persona' : `${personasRead} personas`);
  const contexts = read.length > 1 ? `${read.slice(0, -1).join(', ')} and ${read.at(-1)}` : read[0]!;
  const list = (names: string[]) => (names.length > 4 ? `${names.slice(0, 4).join(', ')} and ${names.length - 4} more` : names.join(', '));
  const lines: string[] = [];
  for (const [cube, e] of [...byCube].sort(([a], [b]) => a.localeCompare(b))) {
    if (e.hidden.length || x.cubes.some((c) => c.row.name === cube && c.way === 'hidden'))
      lines.push(
        `${e.type} ${cube}: ${e.hidden.length ? list(e.hidden) : 'its members'} no longer listed by the preview's /meta for ${contexts}, but still defined under its access policy: the policy hides them, they are not removed`,
      );
    if (e.shown.length || x.cubes.some((c) => c.row.name === cube && c.way === 'shown'))
      lines.push(
        `${e.type} ${cube}: ${e.shown.length ? list(e.shown) : 'its members'} now listed for ${contexts}, hidden by production's access policy before: not new members`,
      );
  }
  return lines;
}
