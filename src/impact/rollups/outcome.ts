/** What the rollup plans came to, the warning a changed rollup earns, and whether a model has pre-aggregations. */
import type { ModelDefinition } from '../base/model-definition.js';
import type { QueryPlan, RebuiltRollup, RollupChange, RollupTruncation } from './compare.js';
import type { BuildSkips } from './builds.js';
import { parseVersion } from '../../model/cube-keys.js';

export interface RollupOutcome {
  /** Key queries whose rollup is lost, gained or moved (unchanged ones are not listed). */
  changes: RollupChange[];
  /** Rollups whose tables the merge builds anew (a key query's or the rollup's own query planned on each side). */
  rebuilt: RebuiltRollup[];
  /** Rollups built otherwise on the two sides while they run other Cube versions: may come from them, so not in `rebuilt`. */
  versionRebuilt?: RebuiltRollup[];
  /** The label of every row when the sides run other Cube versions or planners (`may come from the Cube versions …`). */
  versions?: string;
  /** Rollups whose own queries were planned beside the key queries (for `rebuilt`). */
  rollupQueries?: number;
  /** Key queries reaching outside the build range of the partitioned rollup serving them (or it is not known). */
  truncated: RollupTruncation[];
  /** Said whenever the pull request changes a rollup definition: branch builds share production's Cube Store. */
  warning?: string;
  notices: string[];
  /** Plans made (a query on both sides counts once; each persona's once more). */
  planned: number;
  /** Key queries found beyond `data-diff-max-queries`, not planned. */
  notRun: number;
  /** Why the plans did not run. */
  skipped?: string;
  /** The plans themselves: what the preview's loads would build is read from them (never shown, never in the JSON). */
  plans?: QueryPlan[];
  /** The preview's loads (key queries, persona probes) skipped, or run when allowed, because they would build a pre-aggregation. */
  builds?: BuildSkips;
}

/** The planner a Cube version plans with by default: Tesseract since 1.7.0 (cube-js/cube #11223), the JS planner before. */
export function plannerOf(version: string): 'JS planner' | 'Tesseract' | undefined {
  const v = parseVersion(version);
  if (!v) return undefined;
  return v[0] > 1 || (v[0] === 1 && v[1] >= 7) ? 'Tesseract' : 'JS planner';
}

/**
 * The label of every rollup row when production and the preview plan with other Cube versions (and so,
 * across 1.7.0, other planners): the row may come from them, not from the pull request. Nothing when the
 * versions are the same or either is not known.
 */
export function versionLabel(v: { production?: string; staging?: string } | undefined): string | undefined {
  if (!v?.production || !v.staging || v.production === v.staging) return undefined;
  const [a, b] = [plannerOf(v.production), plannerOf(v.staging)];
  const planners = a && b && a !== b ? ` and their planners (${a}, ${b})` : '';
  return `may come from the Cube versions (production ${v.production}, staging ${v.staging})${planners}`;
}

/** Key queries that lose their rollup because of the pull request (a row that may come from the Cube versions is not one). */
export const lostByPullRequest = (changes: readonly RollupChange[]): number => changes.filter((c) => c.change === 'lost' && !c.versions).length;

/** Whether either side's model files define a pre-aggregation. */
export function modelHasRollups(models: { base?: ModelDefinition; head: ModelDefinition } | undefined): boolean {
  return [models?.base, models?.head].some((m) => [...(m?.cubes.values() ?? [])].some((c) => !!c.preAggregations && c.preAggregations !== '[]'));
}

/** The warning for a pull request that changes any rollup definition (the definition diff's `pre-aggregations` aspect). */
export function rollupWarning(impact: { definition?: { changes: readonly { cube: string; aspect: string }[] } }): string | undefined {
  const cubes = [...new Set((impact.definition?.changes ?? []).filter((c) => c.aspect === 'pre-aggregations').map((c) => c.cube))];
  if (!cubes.length) return undefined;
  return `this pull request changes the pre-aggregations of ${cubes.join(', ')}: its branch builds them in production's Cube Store, which branch environments share (cube-js/cube #11889)`;
}

/** The terminal's lines for the rollup plans (the job summary has the section). */
export function rollupLines(r: RollupOutcome): string[] {
  if (r.skipped) return [`rollups: not planned: ${r.skipped}`];
  return [
    ...r.changes.map(
      (c) =>
        `rollups: ${c.query}${c.persona ? ` (${c.persona})` : ''}: ${c.change}: ${c.production ?? 'none'} → ${c.preview ?? 'none'}${c.versions ? ` (${c.versions})` : ''}`,
    ),
    ...r.rebuilt.map((b) => `rollups: ${b.rollup} rebuilt on merge: ${b.reason}`),
    ...(r.versionRebuilt ?? []).map((b) => `rollups: ${b.rollup} built otherwise on the preview: ${b.reason} (${b.versions ?? ''}; not counted as rebuilt)`),
    ...r.truncated.map(
      (t) =>
        `rollups: ${t.query}${t.persona ? ` (${t.persona})` : ''}: ${t.rollup} ${t.buildRange ? `is built for ${t.buildRange.join(' to ')} only` : 'has a build range not known'}; the query asks ${t.queryRange.join(' to ')}`,
    ),
  ];
}
