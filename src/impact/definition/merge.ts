/**
 * The definition diff folded into the `/meta` change set: a member or cube `/meta` lost but the pull
 * request's files still define as non-public is "made private", not "removed"; a member whose numbers
 * change gets the "values change" class (with the `/meta` details it already had); a change of a cube
 * itself (its table, joins, primary key, access policy) becomes a row of its own, and so does a rename
 * `/meta` does not show (a cube that is not public).
 */
import { order, type ChangeSet, type CubeChange, type MemberChange } from '../base/diff.js';
import type { DefinitionChange } from './diff.js';
import type { ModelDefinition } from '../base/model-definition.js';

const RANK = { breaking: 0, values: 1, 'non-breaking': 2 } as const;

/** Fold `changes` (and what `head` says is private) into `cs`, in place. */
export function mergeDefinitions(cs: ChangeSet, head: ModelDefinition, changes: readonly DefinitionChange[]): void {
  const cubePrivate = (name: string) => head.cubes.get(name)?.public === false;
  for (const c of cs.cubes) {
    if (c.change === 'removed' && cubePrivate(c.name)) c.change = 'private';
  }
  for (const m of cs.members) {
    if (m.change !== 'removed' && m.change !== 'private') continue;
    const cube = head.cubes.get(m.cube);
    const def = cube?.members.get(m.member.slice(m.cube.length + 1));
    if (cube && !cube.public) {
      m.change = 'private';
      m.details = [`${cube.type} ${cube.name} made private`];
    } else if (def && !def.public) {
      m.change = 'private';
      m.details = ['made private'];
    }
  }
  const byMember = new Map(cs.members.map((m) => [m.member, m]));
  const byCube = new Map<string, CubeChange>();
  for (const d of [...changes].sort((a, b) => RANK[a.class] - RANK[b.class])) {
    if (d.aspect === 'visibility') continue; // `/meta` shows it; made private is settled above.
    if (d.aspect === 'name') {
      // A public cube's rename is `/meta`'s (its members' rows, breaking): only one it does not show is added.
      if (!cs.cubes.some((c) => c.name === d.cube))
        cs.cubes.push({ name: d.cube, type: d.cubeType, change: 'renamed', to: d.to, details: [d.detail], breaking: false });
      continue;
    }
    if (d.member) {
      const existing = byMember.get(d.member);
      if (existing && (existing.change === 'removed' || existing.change === 'private' || existing.change === 'renamed' || existing.change === 'added'))
        continue;
      if (existing) {
        // `/meta` said it in fewer words (`became cumulative`) or its own (`aggregation …`): the definition's words replace them.
        const shorter = existing.details.findIndex(
          (x) => d.detail === x || d.detail.startsWith(`${x} (`) || (d.aspect === 'aggregation' && x.startsWith('aggregation ')),
        );
        if (shorter < 0) existing.details.push(d.detail);
        else existing.details[shorter] = d.detail;
        if (d.class === 'values') existing.values = true;
        continue;
      }
      const row: MemberChange = {
        member: d.member,
        cube: d.cube,
        cubeType: d.cubeType,
        kind: d.kind ?? 'measure',
        change: 'changed',
        breaking: d.class === 'breaking',
        details: [d.detail],
        ...(d.class === 'values' ? { values: true } : {}),
      };
      cs.members.push(row);
      byMember.set(d.member, row);
      continue;
    }
    let row = byCube.get(d.cube);
    if (!row) {
      row = { name: d.cube, type: d.cubeType, change: 'changed', details: [], breaking: false };
      byCube.set(d.cube, row);
      cs.cubes.push(row);
    }
    row.details?.push(d.detail);
    if (d.class === 'breaking') row.breaking = true;
    if (d.class === 'values') row.values = true;
  }
  // A member whose numbers change is no longer in the plain "changed" rank: keep the diff's order.
  cs.members.sort((a, b) => Number(b.breaking) - Number(a.breaking) || Number(!!b.values) - Number(!!a.values) || order(a, b));
}

/** Every member the files declare non-public, and every member of a non-public cube or view. */
export function privateIn(def: ModelDefinition): Set<string> {
  const out = new Set<string>();
  for (const c of def.cubes.values()) for (const m of c.members.values()) if (!c.public || !m.public) out.add(`${c.name}.${m.name}`);
  return out;
}
