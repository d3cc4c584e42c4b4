/**
 * The rollup plans as a run shows them: the outputs `rollups-lost-count` and `rollups-rebuilt-count`, the
 * comment's (and job summary's) "Cost" section, the lists `diff --json` carries, and `fail-on-rollup-loss`.
 */
import { lostByPullRequest, type RollupOutcome } from '../impact/rollups/outcome.js';
import { plural } from '../report/plural.js';
import type { CostView } from './comment/render-cost.js';
import { rollupsView, type RollupsView } from './comment/render-rollups.js';

export interface PresentedRollups {
  outputs: Record<string, string>;
  /** The rollup part of the Cost section (absent when there is nothing to say). */
  part?: RollupsView;
  /** What `--json` and the change-set record carry (the lists absent when the plans did not run). */
  json?: {
    rollups?: RollupOutcome['changes'];
    rebuilt?: RollupOutcome['rebuilt'];
    /** Rollups built otherwise on the two sides while they run other Cube versions (not counted as rebuilt). */
    versionRebuilt?: RollupOutcome['rebuilt'];
    truncated?: RollupOutcome['truncated'];
    /** The preview's loads skipped (or run, allowed) because they would build a pre-aggregation. */
    rollupBuilds?: RollupOutcome['builds'];
  };
  failure?: string;
}

/** Said only when it says something: a model with rollups, a rollup some plan found, or the warning. */
export function presentRollups(r: RollupOutcome | undefined, head: string, hasRollups: boolean, failOnLoss: boolean): PresentedRollups {
  const ran = !!r && !r.skipped;
  // A row that may come from the Cube versions is not the pull request's loss: kept out of the count and the gate.
  const lost = r ? lostByPullRequest(r.changes) : 0;
  const outputs = { 'rollups-lost-count': ran ? String(lost) : '', 'rollups-rebuilt-count': ran ? String(r.rebuilt.length) : '' };
  // A model without rollups says nothing unless a plan found one (its files may not have been read).
  const found = !!r && r.changes.length + r.rebuilt.length + (r.versionRebuilt?.length ?? 0) + r.truncated.length > 0;
  const shown = r && (found || r.warning || r.builds || hasRollups);
  const builds = r?.builds ? { rollupBuilds: r.builds } : {};
  return {
    outputs,
    ...(shown ? { part: rollupsView(r) } : {}),
    // The lists only when the plans ran; what the loads skipped for a build whenever there is some.
    ...(ran
      ? {
          json: {
            rollups: r.changes,
            rebuilt: r.rebuilt,
            ...(r.versionRebuilt ? { versionRebuilt: r.versionRebuilt } : {}),
            truncated: r.truncated,
            ...builds,
          },
        }
      : r?.builds
        ? { json: builds }
        : {}),
    ...(failOnLoss && lost
      ? {
          failure: `${head} moves ${plural(lost, 'key query', 'key queries')} off their pre-aggregation: they would reach the warehouse (fail-on-rollup-loss is true)`,
        }
      : {}),
  };
}

/** The Cost section with the rollup part added beside what it holds (the version skew). */
export function withRollups(cost: CostView | undefined, part: RollupsView | undefined): CostView | undefined {
  return part ? { ...cost, rollups: part } : cost;
}
