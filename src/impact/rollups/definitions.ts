/**
 * What the rollup plans ask of the rollups the model files define (read in base/rollup-definitions.ts): each
 * rollup's own query, and the rollups both sides define whose build the pull request may change. Pure.
 */
import type { RollupDef } from '../base/rollup-definitions.js';
import type { CubeQuery } from '../base/types.js';

export type { RollupDef } from '../base/rollup-definitions.js';

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
