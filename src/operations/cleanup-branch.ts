/**
 * cleanup-branch: disable staging and delete the PR's shared branch and its dev branches (already gone
 * counts as done); `sweep` deletes the branches under the prefix whose PR is closed or missing.
 */
import { BadRequestError, NotFoundError, PermissionDeniedError } from '../client/errors.js';
import { isDevBranch } from '@datamodel-ci/platform-api';
import { prOfBranch, prOfQueueBranch } from '../branch-names.js';
import { mutate, type OpContext } from './context.js';

export interface CleanupResult {
  branch: string;
  /** Branches deleted now (dry run: that would be deleted). */
  deleted: string[];
  /** Branches that were already gone. */
  alreadyGone: string[];
}

async function removeIfThere(ctx: OpContext, name: string, removeOnUpstream: boolean): Promise<'deleted' | 'gone'> {
  try {
    const done = await mutate(ctx, `delete branch ${name}${removeOnUpstream ? ' and its upstream ref' : ''}`, () =>
      ctx.client.branches.remove({ deploymentId: ctx.deploymentId, query: { branchName: name, removeOnUpstream } }, { signal: ctx.signal }),
    );
    if (done) ctx.reporter.info(`deleted branch ${name}`);
    return 'deleted';
  } catch (e) {
    if (e instanceof NotFoundError) return 'gone';
    throw e;
  }
}

export async function cleanupBranch(ctx: OpContext, input: { branch: string; devBranches: string[]; removeOnUpstream: boolean }): Promise<CleanupResult> {
  const result: CleanupResult = { branch: input.branch, deleted: [], alreadyGone: [] };
  try {
    await mutate(ctx, `disable the staging environment of ${input.branch}`, () =>
      ctx.client.branches.setStagingEnvironment({ deploymentId: ctx.deploymentId, body: { enabled: false, branchName: input.branch } }, { signal: ctx.signal }),
    );
  } catch (e) {
    // Gone already, or not a shared branch any more: nothing to disable.
    if (!(e instanceof NotFoundError || e instanceof BadRequestError)) throw e;
  }
  // Dev branches forked from the shared branch (a run that stopped early can leave one) go too; a dev
  // branch the ledger names is deleted only when it is such a fork (a ledger is outside text).
  const children: string[] = [];
  const listed = new Set<string>();
  for await (const b of ctx.client.branches.iterate({ deploymentId: ctx.deploymentId, query: { first: 100 } }, { signal: ctx.signal })) {
    listed.add(b.name);
    if (b.parentBranch === input.branch && isDevBranch(b.name)) children.push(b.name);
  }
  for (const named of input.devBranches) {
    if (named && listed.has(named) && !children.includes(named))
      ctx.reporter.warning(`${JSON.stringify(named)} is not a dev-mode fork of ${input.branch}: left alone`);
    else if (named && !listed.has(named)) result.alreadyGone.push(named);
  }
  for (const dev of children) {
    try {
      if ((await removeIfThere(ctx, dev, false)) === 'deleted') result.deleted.push(dev);
      else result.alreadyGone.push(dev);
    } catch (e) {
      if (!(e instanceof PermissionDeniedError)) throw e;
      ctx.reporter.warning(`dev branch ${dev} belongs to another credential; left alone`);
    }
  }
  if ((await removeIfThere(ctx, input.branch, input.removeOnUpstream)) === 'deleted') result.deleted.push(input.branch);
  else result.alreadyGone.push(input.branch);
  // The key's dev-mode session is not ended here: it is per credential, and may be another run's (deleting
  // a fork above ends the session on it).
  if (result.alreadyGone.length) ctx.reporter.info(`already gone: ${result.alreadyGone.join(', ')}`);
  return result;
}

export interface SweepRow {
  branch: string;
  pr: number;
  /** `open`, `closed`, `merged` or `missing`. */
  state: string;
  closedAt: string | null;
  action: 'deleted' | 'would delete' | 'kept';
  reason: string;
}

/** What the sweep needs to know of a pull request (the GitHub side, behind a port). */
export interface PullLookup {
  /** The PR, or undefined when it does not exist. */
  getPull(number: number): Promise<{ state: 'open' | 'closed'; merged: boolean; closedAt: string | null } | undefined>;
}

export async function sweepBranches(
  ctx: OpContext,
  input: { prefix: string; minAgeMs: number; pulls: PullLookup; removeOnUpstream: boolean; now?: () => number },
): Promise<SweepRow[]> {
  const now = input.now ?? Date.now;
  const rows: SweepRow[] = [];
  const candidates: { name: string; pr: number }[] = [];
  for await (const b of ctx.client.branches.iterate({ deploymentId: ctx.deploymentId, query: { first: 100 } }, { signal: ctx.signal })) {
    // A merge queue run removes its branch as it ends; one a killed run left goes with its pull request.
    const pr = prOfBranch(input.prefix, b.name) ?? prOfQueueBranch(input.prefix, b.name);
    if (pr !== undefined) candidates.push({ name: b.name, pr });
  }
  for (const c of candidates) {
    const pull = await input.pulls.getPull(c.pr);
    const state = !pull ? 'missing' : pull.merged ? 'merged' : pull.state;
    const closedAt = pull?.closedAt ?? null;
    let reason: string;
    let remove = false;
    if (!pull) {
      remove = true;
      reason = 'the pull request does not exist';
    } else if (pull.state === 'open') {
      reason = 'the pull request is open';
    } else {
      const age = closedAt ? now() - Date.parse(closedAt) : Number.POSITIVE_INFINITY;
      remove = age >= input.minAgeMs;
      reason = remove ? `closed ${Math.round(age / 3_600_000)} h ago` : `closed less than ${Math.round(input.minAgeMs / 60_000)} min ago`;
    }
    let action: SweepRow['action'] = 'kept';
    if (remove) {
      if (ctx.dryRun) action = 'would delete';
      else {
        await ctx.client.branches
          .setStagingEnvironment({ deploymentId: ctx.deploymentId, body: { enabled: false, branchName: c.name } })
          .catch(() => undefined);
        await removeIfThere(ctx, c.name, input.removeOnUpstream);
        action = 'deleted';
      }
    }
    rows.push({ branch: c.name, pr: c.pr, state, closedAt, action, reason });
  }
  return rows;
}
