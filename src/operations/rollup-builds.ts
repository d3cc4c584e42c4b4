/**
 * The reads after the impact, in the order that keeps the toolkit's own loads from building pre-aggregations
 * in the Cube Store production shares with every branch: the rollup plans first (`/v1/sql`, no data read),
 * then the persona probes and the data diff, whose loads on the preview skip what the plans say would build
 * (unless `data-diff-build-rollups` allows it), then one line that says what was skipped or built.
 */
import type { AccessOutcome } from '../impact/access/types.js';
import type { DataDiffPlan } from '../impact/data/plan.js';
import { buildGuard, buildSentence, distinctBuilds, keyQueryBuilds, type BuildGuard, type BuildSkips } from '../impact/rollups/builds.js';
import { HARMLESS_ASPECTS } from '../impact/rollups/definitions.js';
import type { RollupOutcome } from '../impact/rollups/outcome.js';
import { accessProbeStep } from './access-probes.js';
import type { OpContext } from './context.js';
import { checkFileQueries, dataDiffStep, type DataDiffOutcome } from './data-diff.js';
import type { ImpactResult } from './impact.js';
import { rollupPlansStep } from './rollup-plans.js';

const HARMLESS = HARMLESS_ASPECTS;

/**
 * The cubes whose pre-aggregations the pull request may change, when the model has any: those whose
 * pre-aggregations it edits, else those whose definitions it changes (a measure under a rollup changes the
 * rollup's build SQL); `the model` when the definitions were not compared. A preview load whose plan is not
 * known is skipped only then.
 */
export function rollupsMayChange(impact: ImpactResult): string | undefined {
  if (!impact.rollupsInModel) return undefined;
  const changes = impact.definition?.changes;
  if (!changes) return 'the model';
  const edited = [...new Set(changes.filter((c) => c.aspect === 'pre-aggregations').map((c) => c.cube))];
  const touched = [...new Set(changes.filter((c) => !HARMLESS.has(c.aspect)).map((c) => c.cube))];
  const cubes = edited.length ? edited : touched;
  return cubes.length ? cubes.join(', ') : undefined;
}

/** The guard of the preview's loads, from the rollup plans (none made: only the rule for loads whose plan is not known). */
export function guardOf(plan: DataDiffPlan, impact: ImpactResult, rollups: RollupOutcome | undefined): BuildGuard {
  return buildGuard(rollups?.plans ?? [], rollups?.rebuilt ?? [], !!plan.settings.buildRollups, rollupsMayChange(impact));
}

/** What the loads came to: the key queries and probes that were skipped (or ran, allowed) for a build; nothing when none would build. */
export function buildSkipsOf(guard: BuildGuard, numbers: DataDiffOutcome | undefined, access: AccessOutcome | undefined): BuildSkips | undefined {
  // A query gone from the pull request's key-queries file ran nowhere: it built nothing.
  const ran = (numbers?.result?.queries ?? []).filter((q) => q.status !== 'gone');
  const queries = ran.map((q) => ({ name: q.name, builds: q.wouldBuild ?? (guard.allow ? keyQueryBuilds(guard, q.name) : []) }));
  const probes = (access?.probes ?? []).filter((p) => p.wouldBuild?.length);
  const keyQueries = queries.filter((q) => q.builds.length);
  if (!keyQueries.length && !probes.length) return undefined;
  const rollups = distinctBuilds([...keyQueries.map((q) => q.builds), ...probes.map((p) => p.wouldBuild ?? [])]);
  return { allowed: guard.allow, rollups, keyQueries: keyQueries.map((q) => q.name), probes: probes.length };
}

export interface ReadsAfterImpact<T> {
  rollups: RollupOutcome;
  access?: AccessOutcome;
  numbers: DataDiffOutcome;
  /** What `beforeDiff` gave. */
  before: T;
}

/**
 * The rollup plans, then the probes and the data diff guarded by them, then the line; `beforeDiff` runs
 * between the probes and the data diff (the `impact` command records the change set there); `versions`:
 * the Cube versions the sides run (rows that may come from them are labelled).
 */
export async function readsAfterImpact<T = void>(
  ctx: OpContext,
  plan: DataDiffPlan,
  impact: ImpactResult,
  beforeDiff: () => T = () => undefined as T,
  versions?: { production?: string; staging?: string },
): Promise<ReadsAfterImpact<T>> {
  // The team's key queries are checked against the semantic layers before any of them runs (the plans first).
  const files = checkFileQueries(ctx, plan, impact);
  const rollups = await rollupPlansStep(ctx, files.plan, impact, versions);
  const guard = guardOf(files.plan, impact, rollups);
  const access = await accessProbeStep(ctx, files.plan, impact, guard);
  if (access) impact.access = access;
  const before = beforeDiff();
  const numbers = files.refused ?? (await dataDiffStep(ctx, files.plan, impact, guard));
  const builds = buildSkipsOf(guard, numbers, access);
  if (builds) {
    rollups.builds = builds;
    const line = `rollups: ${buildSentence(builds)}`;
    if (builds.allowed) ctx.reporter.info(line);
    else ctx.reporter.notice(line);
  }
  return { rollups, numbers, before, ...(access ? { access } : {}) };
}
