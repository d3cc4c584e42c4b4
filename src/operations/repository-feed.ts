/**
 * A deployment fed from a connected repository (the vendor's continuous deployment: production is built
 * from pushes to its production branch, and the repository's branches are the platform's). Nothing is
 * uploaded: the preview pulls the PR's own head branch, waits for the build of its head commit,
 * validates it, enables its staging environment and runs the impact step. The close never merges into
 * the deploy branch (GitHub's merge deploys): it pulls the production branch, waits for production to
 * build the merge commit, and turns the preview's staging off. A head branch the repository does not
 * have (a fork's) is previewed by upload on a preview branch instead (the caller's fallback).
 */
import type { BuildStatus } from '@datamodel-ci/platform-api';
import { isDevBranch } from '@datamodel-ci/platform-api';
import { BadRequestError, InputError, NotFoundError, messageOf } from '../client/errors.js';
import { DEFAULTS } from '../defaults.js';
import { BuildError, markBuild, sameCommit, waitForBuild, type BuildMark } from './branch-build.js';
import { mutate, type OpContext } from './context.js';
import { enableStaging, wakeStaging } from './enable-staging.js';
import { stagingTokenFor, type MetaToken, type StartedImpact } from './impact.js';
import type { PreviewFlow, PreviewInput, PreviewOutcome } from './preview-types.js';
import { validateWhenBuilt } from './validate.js';

export type RepositoryPreviewInput = Pick<PreviewInput, 'branch' | 'modelDir'> & {
  /** The PR's head commit: the build to wait for (a hint: the platform may word it shorter). */
  headSha: string;
};

/** Pull a branch from the connected repository; `undefined` when the platform does not know it (not added, or not in the repository). */
async function pull(ctx: OpContext, branch: string): Promise<{ buildTriggered?: boolean | null } | undefined | 'dry-run'> {
  try {
    const r = await mutate(ctx, `pull ${branch} from the connected repository`, () =>
      // Pulling twice only finds nothing new the second time.
      ctx.client.branches.pull({ deploymentId: ctx.deploymentId, body: { branchName: branch } }, { signal: ctx.signal, repeatable: true }),
    );
    return ctx.dryRun ? 'dry-run' : (r ?? {});
  } catch (e) {
    if (e instanceof NotFoundError || (e instanceof BadRequestError && /not found|unknown|does not exist/i.test(e.platformMessage ?? ''))) return undefined;
    throw e;
  }
}

/**
 * Add a repository branch the platform does not know the documented way: the dev-mode switch (the branch
 * switcher's counterpart), which adds it and puts the key's session on a `dev-…` fork of it; the fork is
 * deleted at once, which ends that session (never `DELETE …/dev-mode`: per credential, maybe another
 * run's). Returns why it could not be added, or undefined when it was.
 */
async function addBranch(ctx: OpContext, branch: string): Promise<string | undefined> {
  try {
    const dev = await ctx.client.branches.startDevMode(
      { deploymentId: ctx.deploymentId, body: { branchName: branch } },
      { signal: ctx.signal, repeatable: true },
    );
    ctx.reporter.info(`added ${branch} to the platform (the dev-mode switch)`);
    const fork = dev.branchName;
    if (fork && fork !== branch && isDevBranch(fork)) {
      await ctx.client.branches
        .remove({ deploymentId: ctx.deploymentId, query: { branchName: fork, removeOnUpstream: false } }, { signal: ctx.signal })
        .catch((e: unknown) => ctx.reporter.warning(`could not delete ${fork}, the dev-mode fork that added ${branch}: ${messageOf(e)}`));
    }
    return undefined;
  } catch (e) {
    if (ctx.signal?.aborted) throw e;
    return messageOf(e);
  }
}

/** Why the fed preview did not run: the head branch is not on the platform and could not be added. */
export interface NotAdded {
  notAdded: string;
}

/** The preview of a PR whose head branch is in the connected repository, up to its validation; why not, when it is not on the platform. */
export async function runRepositoryPreview(ctx: OpContext, input: RepositoryPreviewInput, impact?: StartedImpact): Promise<PreviewFlow | NotAdded> {
  const { branch } = input;
  const outcome: PreviewOutcome = { branch, created: false, stale: false };
  let minted: Promise<MetaToken> | undefined;
  try {
    // The build status before the pull: the build that replaces it is the head commit's.
    let since: BuildMark | undefined = await markBuild(ctx, branch);
    let pulled = await ctx.reporter.group(`Pull ${branch}`, () => pull(ctx, branch));
    // Pushes sync only branches already added to the platform (the vendor): an unknown one is added first.
    if (pulled === undefined && !ctx.dryRun) {
      const refused = await addBranch(ctx, branch);
      if (refused) return { notAdded: `pull answered that ${branch} is unknown, and adding it with the dev-mode switch failed: ${refused}` };
      since = await markBuild(ctx, branch);
      pulled = await ctx.reporter.group(`Pull ${branch}`, () => pull(ctx, branch));
    }
    if (pulled === undefined)
      return { notAdded: `pull answered that ${branch} is unknown${ctx.dryRun ? ' (a dry run does not add it)' : ', also once added'}` };
    if (pulled === 'dry-run') {
      ctx.reporter.info(`dry run: would enable the staging environment of ${branch}, wait for the build of ${input.headSha.slice(0, 7)} and validate it`);
      return { outcome };
    }
    ctx.reporter.info(`pulled ${branch} from the connected repository${pulled.buildTriggered === false ? ' (nothing new)' : ''}`);
    const s = await enableStaging(ctx, { branch, smokeTest: false });
    outcome.staging = s;
    if (impact) minted = stagingTokenFor(ctx, branch, s);
    const wake = () => (s.stagingUrl ? wakeStaging(ctx, s.stagingUrl) : Promise.resolve(false));
    // Nothing new pulled (a rerun, or a branch not running yet): the build it has or starts now is the head's.
    const mark = since && pulled.buildTriggered !== false ? { since } : {};
    outcome.validation = await validateWhenBuilt(ctx, { branch, modelDir: input.modelDir }, () =>
      waitForBuild(ctx, branch, { lastHash: input.headSha, ...mark, wake }),
    );
  } catch (e) {
    if (e instanceof InputError) throw e;
    outcome.failure = messageOf(e);
    outcome.failureCause = e;
  }
  return { outcome, stagingToken: minted };
}

/** What production was seen to build after a merge on GitHub. */
export interface ProductionCheck {
  /** Production is built at this commit (as the platform words it). */
  builtAt?: string;
  /** The built commit is the PR's merge commit. */
  isMergeCommit?: boolean;
  /** Why it could not be checked. */
  unchecked?: string;
}

/**
 * After GitHub merged the PR: pull the production branch (in case the push's webhook was missed) and wait
 * for production to build the merge commit. Never throws for the platform: says what it could not check.
 */
export async function checkProduction(ctx: OpContext, input: { deployBranch: string; mergeCommit: string | undefined }): Promise<ProductionCheck> {
  const { deployBranch, mergeCommit } = input;
  try {
    const since = await markBuild(ctx, deployBranch);
    const pulled = await pull(ctx, deployBranch);
    if (pulled === 'dry-run') return { unchecked: 'dry run' };
    if (pulled === undefined) return { unchecked: `the connected repository has no ${deployBranch} branch` };
    const hint = mergeCommit ? { lastHash: mergeCommit } : {};
    let s: BuildStatus;
    if (pulled.buildTriggered !== false) s = await waitForBuild(ctx, deployBranch, { ...hint, ...(since ? { since } : {}) });
    else {
      // Nothing new: production took the push already (its build may still show the one before for a
      // while); a short wait for the merge commit, then whatever it is built at is the answer.
      try {
        s = await waitForBuild(ctx, deployBranch, { ...hint, timeoutMs: DEFAULTS.buildIdleGraceMs });
      } catch (e) {
        if (!(e instanceof BuildError)) throw e;
        s = await ctx.client.deployments.buildStatus({ deploymentId: ctx.deploymentId, query: { branchName: deployBranch } }, { signal: ctx.signal });
        if (s.status.trim().toLowerCase() !== 'built') throw e;
      }
    }
    const builtAt = s.lastHash ?? undefined;
    const isMergeCommit = !!(builtAt && mergeCommit && sameCommit(builtAt, mergeCommit));
    ctx.reporter.info(
      builtAt
        ? `production (${deployBranch}) is built at ${builtAt}${mergeCommit ? (isMergeCommit ? ', the merge commit' : ` (the merge commit is ${mergeCommit.slice(0, 7)}: a later push?)`) : ''}`
        : `production (${deployBranch}) is built; the platform does not say at which commit`,
    );
    return { ...(builtAt ? { builtAt } : {}), isMergeCommit };
  } catch (e) {
    if (ctx.signal?.aborted) throw e;
    const why = messageOf(e);
    ctx.reporter.warning(`could not check that production built the merge commit: ${why}`);
    return { unchecked: why };
  }
}

/** Turn the preview's staging environment off (the head branch itself is the repository's: it stays). */
export async function stagingOff(ctx: OpContext, branch: string): Promise<boolean> {
  try {
    const done = await mutate(ctx, `disable the staging environment of ${branch}`, () =>
      ctx.client.branches.setStagingEnvironment({ deploymentId: ctx.deploymentId, body: { enabled: false, branchName: branch } }, { signal: ctx.signal }),
    );
    if (done !== undefined) ctx.reporter.info(`turned the staging environment of ${branch} off`);
    return true;
  } catch (e) {
    if (e instanceof NotFoundError || e instanceof BadRequestError) return false;
    throw e;
  }
}
