/** start-dev-branch: make sure the PR's shared branch exists, then open dev mode on it. */
import { isDevBranch } from '@datamodel-ci/platform-api';
import { AuthenticationError, PermissionDeniedError, PlatformError } from '../client/errors.js';
import { deployTarget } from './branch-build.js';
import { mutate, type OpContext } from './context.js';
import { ledgerOf } from './ledger.js';

export interface StartDevBranchResult {
  branch: string;
  /** Undefined in dry-run mode. */
  devBranch: string | undefined;
  /** The shared branch was created by this run (false when a rerun found it). */
  created: boolean;
}

/** Find the branch by name, across all pages. */
export async function branchExists(ctx: OpContext, name: string): Promise<boolean> {
  for await (const b of ctx.client.branches.iterate({ deploymentId: ctx.deploymentId, query: { first: 100 } }, { signal: ctx.signal })) {
    if (b.name === name) return true;
  }
  return false;
}

/** A refusal of a create that may mean "exists": any 4xx but the credential's (the vendor never says which a duplicate gets). */
function mayMeanExists(e: unknown): e is PlatformError {
  const s = e instanceof PlatformError ? e.status : undefined;
  return s !== undefined && s >= 400 && s < 500 && s !== 429 && !(e instanceof AuthenticationError || e instanceof PermissionDeniedError);
}

/**
 * Create the shared branch from the deploy branch (`from`, as the deployment's settings name it) unless
 * it exists. The branch list is read first: a branch listed before is never this run's, whatever the
 * create answers (a tenant may answer a create of an existing name with a 5xx, and the branch is listed
 * afterwards: that is someone else's branch, not a create that landed). A refusal (409 on some tenants,
 * 400 on others) is checked against the list again: listed means a concurrent run of this PR made it.
 * True when this run created it (recorded in the run's ledger: the evidence cleanup needs).
 */
export async function ensureSharedBranch(ctx: OpContext, branch: string, from: string): Promise<boolean> {
  if (await branchExists(ctx, branch)) {
    ctx.reporter.info(`shared branch ${branch} exists`);
    return false;
  }
  if (ctx.dryRun) {
    ctx.reporter.info(`dry run: would create shared branch ${branch} from ${from}`);
    return false;
  }
  try {
    // A create whose answer was lost is checked, not repeated: not listed before, listed now, it landed.
    await ctx.client.branches.create(
      { deploymentId: ctx.deploymentId, body: { name: branch, from } },
      { signal: ctx.signal, settle: async () => ((await branchExists(ctx, branch)) ? { active: false, branchName: branch } : undefined) },
    );
    ctx.reporter.info(`created shared branch ${branch} from ${from}`);
    ledgerOf(ctx).recordCreated(branch);
    return true;
  } catch (e) {
    if (mayMeanExists(e) && (await branchExists(ctx, branch))) {
      ctx.reporter.info(`shared branch ${branch} exists (${e.status} on create)`);
      return false;
    }
    throw e;
  }
}

/** Open dev mode on `branch`; returns the platform's name of the personal dev branch. */
export async function openDevMode(ctx: OpContext, branch: string): Promise<string | undefined> {
  const dev = await mutate(ctx, `start dev mode on ${branch}`, () =>
    // Opening dev mode on the same branch again returns the same fork.
    ctx.client.branches.startDevMode({ deploymentId: ctx.deploymentId, body: { branchName: branch } }, { signal: ctx.signal, repeatable: true }),
  );
  if (!dev) return undefined;
  // A fork is a `dev-…` branch of its own: an answer naming no fork (or the branch itself) is no write target.
  if (!dev.branchName || !isDevBranch(dev.branchName) || dev.branchName === branch) {
    throw new Error(
      `POST /build/api/v1/deployments/${ctx.deploymentId}/dev-mode on ${branch} answered without a dev- fork (${JSON.stringify(dev.branchName ?? null)})`,
    );
  }
  ctx.reporter.info(`dev mode open on ${branch}: dev branch ${dev.branchName}`);
  // The fork is this run's: the door may delete it (cleanup deletes only the forks a ledger names).
  ledgerOf(ctx).recordFork(dev.branchName);
  return dev.branchName;
}

/**
 * Make the shared branch and fork its dev branch. The key's dev-mode session stays on the fork (later steps
 * name it) until cleanup deletes the fork, which ends it: `DELETE …/dev-mode` would end the key's session
 * wherever it is, maybe another run's.
 */
export async function startDevBranch(ctx: OpContext, input: { branch: string }): Promise<StartDevBranchResult> {
  const created = await ensureSharedBranch(ctx, input.branch, (await deployTarget(ctx)).deployBranch);
  const devBranch = await openDevMode(ctx, input.branch);
  return { branch: input.branch, devBranch, created };
}
