/**
 * A branch's build: validation asks the branch's own running instance, so a shared branch must be
 * running (its staging environment on) and built before it is validated. The states and the verdicts
 * follow the vendor's CLI, which measured them on live deployments: `built` is success, `failed` and
 * `cancelled` are failure, `Branch is not active` and `Bad branch` in `errorText` mean it will never
 * build, `none` and `stopped` get a short grace, and any other state is progress.
 */
import type { BuildStatus, DeploymentSettings } from '@datamodel-ci/platform-api';
import { sleep } from '../client/retry.js';
import { DEFAULTS } from '../defaults.js';
import { mutate, type OpContext } from './context.js';

/** What a deployment's settings say about where production comes from. */
export interface DeployTarget {
  /** The production (deploy) branch. */
  deployBranch: string;
  /** `cli`: production changes only when a model is uploaded to the deploy branch; merges do not rebuild it. */
  deployMode: string;
}

export async function deployTarget(ctx: OpContext): Promise<DeployTarget> {
  const s: DeploymentSettings = await ctx.client.deployments.settings({ deploymentId: ctx.deploymentId }, { signal: ctx.signal });
  return { deployBranch: s.deployBranchName, deployMode: s.deployMode ?? 'git' };
}

export class BuildError extends Error {
  override name = 'BuildError';
}

export interface WaitOptions {
  /** The commit the build must be of (from `upload/finish`), when known. */
  lastHash?: string;
  timeoutMs?: number;
  /** First poll interval, ms (it grows to `maxPollMs`). */
  pollMs?: number;
  maxPollMs?: number;
  /** How long `none` or `stopped` is taken as "about to start", ms. */
  idleGraceMs?: number;
}

/** Poll the branch's build until it is built (and of `lastHash`, when given); throws a BuildError otherwise. */
export async function waitForBuild(ctx: OpContext, branch: string, options: WaitOptions = {}): Promise<BuildStatus> {
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? DEFAULTS.buildWaitMinutes * 60_000;
  const idleGrace = options.idleGraceMs ?? DEFAULTS.buildIdleGraceMs;
  let poll = options.pollMs ?? 1_000;
  const maxPoll = options.maxPollMs ?? 5_000;
  for (;;) {
    const s = await ctx.client.deployments.buildStatus({ deploymentId: ctx.deploymentId, query: { branchName: branch } }, { signal: ctx.signal });
    const status = s.status.trim().toLowerCase();
    const error = s.errorText?.trim() ?? '';
    const elapsed = Date.now() - started;
    if (error.includes('Bad branch')) throw new BuildError(`branch ${branch} does not exist on the platform (build status: Bad branch)`);
    if (error.includes('Branch is not active')) {
      throw new BuildError(
        `branch ${branch} is not running: nothing compiles it until its staging environment is enabled or someone opens it in dev mode (build status: Branch is not active)`,
      );
    }
    if (status === 'failed' || status === 'cancelled') throw new BuildError(`the build of ${branch} ${status}${error ? `: ${error}` : ''}`);
    const ofOurs = !options.lastHash || !s.lastHash || s.lastHash === options.lastHash;
    if (status === 'built' && ofOurs) {
      ctx.reporter.progress('');
      return s;
    }
    if ((status === 'none' || status === 'stopped') && elapsed > idleGrace) {
      throw new BuildError(`branch ${branch} is ${status} after ${Math.round(elapsed / 1000)} s: enable its staging environment or open it in dev mode`);
    }
    if (elapsed + poll > timeoutMs) {
      throw new BuildError(`branch ${branch} was not built within ${Math.round(timeoutMs / 1000)} s (last status: ${status}${error ? `, ${error}` : ''})`);
    }
    ctx.reporter.debug(`build of ${branch}: ${status}${error ? ` (${error})` : ''}${ofOurs ? '' : ` (still ${s.lastHash}, waiting for ${options.lastHash})`}`);
    ctx.reporter.progress(`build of ${branch}: ${status}`, `${Math.round(elapsed / 1000)} s since the start`);
    await sleep(poll, ctx.signal);
    poll = Math.min(maxPoll, poll * 2);
  }
}

/** Turn on the always-on staging environment of a shared branch (the deploy branch runs anyway). */
export async function enableBranchStaging(ctx: OpContext, branch: string): Promise<boolean> {
  const done = await mutate(ctx, `enable the staging environment of ${branch}`, () =>
    ctx.client.branches.setStagingEnvironment({ deploymentId: ctx.deploymentId, body: { enabled: true, branchName: branch } }, { signal: ctx.signal }),
  );
  return done !== undefined;
}

/** Make sure `branch` runs and is built (of `lastHash`, when given) before it is validated. */
export async function ensureBuilt(ctx: OpContext, branch: string, options: WaitOptions & { deployBranch?: string } = {}): Promise<void> {
  const deployBranch = options.deployBranch ?? (await deployTarget(ctx)).deployBranch;
  if (branch !== deployBranch && !(await enableBranchStaging(ctx, branch))) return;
  if (ctx.dryRun) return;
  await waitForBuild(ctx, branch, options);
}
