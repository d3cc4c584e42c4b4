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
  /** The branch, left on the platform (and upstream) for want of evidence that this pull request made it. */
  kept?: string;
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

/**
 * What the toolkit may do to a branch, from evidence of its own (docs/faults.md): `ours` only when this
 * pull request's runs created it (the ledger says so) or its name is the queue entry's own; upstream only
 * for such a branch whose name the toolkit generates. Without that evidence the branch is left as it is.
 */
export interface BranchClaim {
  /** This pull request's runs made the branch: it may be deleted. */
  ours: boolean;
  /** Its git ref in the connected repository may be deleted too (`remove-on-upstream`, a generated name). */
  removeOnUpstream: boolean;
  /** This pull request's runs turned its staging environment on (off again at cleanup); implied by `ours`. */
  stagingOurs?: boolean;
}

export async function cleanupBranch(ctx: OpContext, input: { branch: string; devBranches: string[] } & BranchClaim): Promise<CleanupResult> {
  const result: CleanupResult = { branch: input.branch, deleted: [], alreadyGone: [] };
  if (input.ours || input.stagingOurs) {
    try {
      await mutate(ctx, `disable the staging environment of ${input.branch}`, () =>
        ctx.client.branches.setStagingEnvironment(
          { deploymentId: ctx.deploymentId, body: { enabled: false, branchName: input.branch } },
          { signal: ctx.signal },
        ),
      );
    } catch (e) {
      // Gone already, or not a shared branch any more: nothing to disable.
      if (!(e instanceof NotFoundError || e instanceof BadRequestError)) throw e;
    }
  }
  // Dev branches forked from the shared branch (a run that stopped early can leave one) go too; of a branch
  // not ours only the fork the ledger names (others are people's dev-mode sessions). A dev branch the ledger
  // names is deleted only when it is such a fork (a ledger is outside text).
  const children: string[] = [];
  const listed = new Set<string>();
  for await (const b of ctx.client.branches.iterate({ deploymentId: ctx.deploymentId, query: { first: 100 } }, { signal: ctx.signal })) {
    listed.add(b.name);
    if (b.parentBranch === input.branch && isDevBranch(b.name) && (input.ours || input.devBranches.includes(b.name))) children.push(b.name);
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
  if (!input.ours) {
    result.kept = input.branch;
    ctx.reporter.info(
      `${input.branch} left as it is: no run of this pull request created it${input.stagingOurs ? ' (its staging environment, turned on by one, is off again)' : ''}`,
    );
  } else if ((await removeIfThere(ctx, input.branch, input.removeOnUpstream)) === 'deleted') result.deleted.push(input.branch);
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
  /** What the PR's comment's ledger records: the branch previewed, and the one its runs created (undefined: no comment of ours). */
  ledgerOf?(number: number): Promise<{ branch?: string; created?: string } | undefined>;
}

/** When the branch last built (its build status's time), as evidence of its age; undefined when the platform does not say. */
async function lastBuiltAt(ctx: OpContext, branch: string): Promise<number | undefined> {
  const s = await ctx.client.deployments
    .buildStatus({ deploymentId: ctx.deploymentId, query: { branchName: branch } }, { signal: ctx.signal })
    .catch(() => undefined);
  const at = s?.updatedAt ? Date.parse(s.updatedAt) : Number.NaN;
  return Number.isNaN(at) ? undefined : at;
}

const hours = (ms: number) => `${Math.round(ms / 3_600_000)} h`;

/** A sweep's verdict on one branch: delete it (upstream too?) or keep it, and why. */
interface Verdict {
  remove: boolean;
  upstream: boolean;
  reason: string;
}

/**
 * A branch under the prefix of a closed pull request goes once `min-age` has passed since the close, when
 * the PR's ledger names it (a queue branch's name is its entry's own); upstream only where the ledger says
 * a run created it. A branch whose PR is gone goes once it has not built for `min-age`, never upstream.
 */
async function verdict(
  ctx: OpContext,
  c: { name: string; pr: number; queue: boolean },
  pull: Awaited<ReturnType<PullLookup['getPull']>>,
  input: SweepInput,
): Promise<Verdict> {
  const now = (input.now ?? Date.now)();
  const keep = (reason: string): Verdict => ({ remove: false, upstream: false, reason });
  if (!pull) {
    const builtAt = await lastBuiltAt(ctx, c.name);
    if (builtAt === undefined) return keep('the pull request does not exist, and the platform does not say when the branch last built');
    const idle = now - builtAt;
    if (idle < 0) return keep("the pull request does not exist, and the platform's clock is ahead of this machine's: the branch's age is unknown");
    if (idle < input.minAgeMs) return keep(`the pull request does not exist; last built ${hours(idle)} ago (less than min-age)`);
    return { remove: true, upstream: false, reason: `the pull request does not exist; last built ${hours(idle)} ago` };
  }
  if (pull.state === 'open') return keep('the pull request is open');
  const age = pull.closedAt ? now - Date.parse(pull.closedAt) : Number.POSITIVE_INFINITY;
  if (age < input.minAgeMs) return keep(`closed less than ${Math.round(input.minAgeMs / 60_000)} min ago`);
  const ledger = c.queue ? undefined : await input.pulls.ledgerOf?.(c.pr);
  if (!c.queue && ledger?.branch !== c.name && ledger?.created !== c.name)
    return keep(`closed, but no comment of the toolkit on pull request #${c.pr} names this branch`);
  const upstream = input.removeOnUpstream && ledger?.created === c.name;
  return {
    remove: true,
    upstream,
    reason: `closed ${hours(age)} ago${upstream ? '' : '; its ref upstream (if any) kept: no ledger says a run of the pull request created it'}`,
  };
}

interface SweepInput {
  prefix: string;
  minAgeMs: number;
  pulls: PullLookup;
  removeOnUpstream: boolean;
  now?: () => number;
}

export async function sweepBranches(ctx: OpContext, input: SweepInput): Promise<SweepRow[]> {
  const rows: SweepRow[] = [];
  const candidates: { name: string; pr: number; queue: boolean }[] = [];
  for await (const b of ctx.client.branches.iterate({ deploymentId: ctx.deploymentId, query: { first: 100 } }, { signal: ctx.signal })) {
    // A merge queue run removes its branch as it ends; one a killed run left goes with its pull request.
    const pr = prOfBranch(input.prefix, b.name);
    const queued = pr === undefined ? prOfQueueBranch(input.prefix, b.name) : undefined;
    if (pr !== undefined || queued !== undefined) candidates.push({ name: b.name, pr: (pr ?? queued)!, queue: queued !== undefined });
  }
  for (const c of candidates) {
    const pull = await input.pulls.getPull(c.pr);
    const state = !pull ? 'missing' : pull.merged ? 'merged' : pull.state;
    const v = await verdict(ctx, c, pull, input);
    let action: SweepRow['action'] = 'kept';
    if (v.remove) {
      if (ctx.dryRun) action = 'would delete';
      else {
        await ctx.client.branches
          .setStagingEnvironment({ deploymentId: ctx.deploymentId, body: { enabled: false, branchName: c.name } })
          .catch(() => undefined);
        await removeIfThere(ctx, c.name, v.upstream);
        action = 'deleted';
      }
    }
    rows.push({ branch: c.name, pr: c.pr, state, closedAt: pull?.closedAt ?? null, action, reason: v.reason });
  }
  return rows;
}
