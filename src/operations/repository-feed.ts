/**
 * A deployment fed from a connected repository (the vendor's continuous deployment: production is built
 * from pushes to its production branch, and the repository's branches are the platform's). Nothing is
 * uploaded: the preview pulls the PR's own head branch, waits for the build of its head commit,
 * validates it, enables its staging environment and runs the impact step. The close never merges into
 * the deploy branch (GitHub's merge deploys): it pulls the production branch, waits for production to
 * build the merge commit, and turns the preview's staging off. A head branch the repository does not
 * have (a fork's) is previewed by upload on a preview branch instead (the caller's fallback).
 */
import { isDevBranch } from '@datamodel-ci/platform-api';
import { BadRequestError, InputError, NotFoundError, messageOf } from '../client/errors.js';
import { DEFAULTS } from '../defaults.js';
import { ABSENT, ACCEPTED, markBuild, markOf, ordersBuilds, sameCommit, waitForBuild, type BuildMark } from './branch-build.js';
import { mutate, type OpContext } from './context.js';
import { deleteFork, turnStagingOff } from './door.js';
import { ledgerOf } from './ledger.js';
import { enableStaging, wakeStaging } from './enable-staging.js';
import { stagingTokenFor, type MetaToken, type StartedImpact } from './impact.js';
import type { PreviewFlow, PreviewInput, PreviewOutcome } from './preview-types.js';
import { validateWhenBuilt } from './validate.js';
import { buildAfterMerge, type BuildAfterMerge } from './production-proof.js';

export type RepositoryPreviewInput = Pick<PreviewInput, 'branch' | 'modelDir' | 'deployBranch'> & {
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
      // The fork is this run's (the platform just answered with it): the door may delete it.
      const ledger = ledgerOf(ctx);
      ledger.recordFork(fork);
      await deleteFork(ctx, ledger.fork(fork, branch)!).catch((e: unknown) =>
        ctx.reporter.warning(`could not delete ${fork}, the dev-mode fork that added ${branch}: ${messageOf(e)}`),
      );
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

/** Whether the branch list holds the branch, and its commit as the list says it (its `lastHash`). */
async function listedCommit(ctx: OpContext, branch: string): Promise<{ listed: boolean; commit?: string }> {
  for await (const b of ctx.client.branches.iterate({ deploymentId: ctx.deploymentId, query: { first: 100 } }, { signal: ctx.signal })) {
    if (b.name === branch) return { listed: true, ...(b.lastHash ? { commit: b.lastHash } : {}) };
  }
  return { listed: false };
}

/**
 * The mark the head's build must be newer than, read before GitHub's push could have landed (issue 36):
 * GitHub's push webhook syncs a branch already added to the platform before this run pulls it, so a mark
 * read now may already be after the push. In turn: the build a run of this PR accepted for this very
 * head (it or a later one); the last build a run of this PR accepted (an earlier head); the status now,
 * when the branch list shows the platform does not have the head yet; else the status now, which a build
 * of the head must be newer than (when the head's build already ended, none will be: "not proven").
 */
async function markBeforePush(ctx: OpContext, branch: string, headSha: string): Promise<{ mark?: BuildMark; why: string; late?: boolean }> {
  const v = ledgerOf(ctx).validated;
  if (v?.branch === branch && v.build && v.headSha && sameCommit(v.headSha, headSha))
    return { mark: { ...v.build, status: ACCEPTED }, why: 'the build a run of this pull request accepted for this commit' };
  if (v?.branch === branch && v.build) return { mark: v.build, why: 'the build a run of this pull request accepted last' };
  const [listed, now] = await Promise.all([listedCommit(ctx, branch), markBuild(ctx, branch)]);
  if (!listed.listed) return { mark: ABSENT, why: 'the branch is not on the platform yet' };
  if (!listed.commit || !sameCommit(listed.commit, headSha)) return { ...(now ? { mark: now } : {}), why: 'the platform does not have the head commit yet' };
  return { ...(now ? { mark: now } : {}), why: 'the platform had the head commit before this run: only a build seen after now proves it', late: true };
}

/** The preview of a PR whose head branch is in the connected repository, up to its validation; why not, when it is not on the platform. */
export async function runRepositoryPreview(ctx: OpContext, input: RepositoryPreviewInput, impact?: StartedImpact): Promise<PreviewFlow | NotAdded> {
  const { branch } = input;
  const outcome: PreviewOutcome = { branch, created: false, stale: false };
  const ledger = ledgerOf(ctx);
  let minted: Promise<MetaToken> | undefined;
  try {
    // Production's build status before GitHub merges this PR: the close proves production's build against it.
    const production = markBuild(ctx, input.deployBranch).then((m) => m && ledger.recordProduction(input.deployBranch, m));
    let { mark: since, why, late } = await markBeforePush(ctx, branch, input.headSha);
    await production;
    let pulled = await ctx.reporter.group(`Pull ${branch}`, () => pull(ctx, branch));
    // Pushes sync only branches already added to the platform (the vendor): an unknown one is added first.
    if (pulled === undefined && !ctx.dryRun) {
      const refused = await addBranch(ctx, branch);
      if (refused) return { notAdded: `pull answered that ${branch} is unknown, and adding it with the dev-mode switch failed: ${refused}` };
      // Added by this run: every build of it is of what it was added at, or later.
      since = ABSENT;
      why = 'this run added the branch to the platform';
      late = false;
      pulled = await ctx.reporter.group(`Pull ${branch}`, () => pull(ctx, branch));
    }
    if (pulled === undefined)
      return { notAdded: `pull answered that ${branch} is unknown${ctx.dryRun ? ' (a dry run does not add it)' : ', also once added'}` };
    if (pulled === 'dry-run') {
      ctx.reporter.info(`dry run: would enable the staging environment of ${branch}, wait for the build of ${input.headSha.slice(0, 7)} and validate it`);
      return { outcome };
    }
    ctx.reporter.info(
      `pulled ${branch} from the connected repository${pulled.buildTriggered === false ? ' (nothing new)' : ''}; its build is proven by ${why}`,
    );
    const s = await enableStaging(ctx, { branch, smokeTest: false });
    outcome.staging = s;
    if (impact) minted = stagingTokenFor(ctx, branch, s);
    const wake = () => (s.stagingUrl ? wakeStaging(ctx, s.stagingUrl) : Promise.resolve(false));
    outcome.validation = await validateWhenBuilt(ctx, { branch, modelDir: input.modelDir }, () =>
      waitForBuild(ctx, branch, {
        lastHash: input.headSha,
        exactCommit: true,
        ...(since ? { since } : {}),
        // The head may have built before the mark was read: a blank mark then waits only a while for a new run.
        ...(late && !ordersBuilds(since) ? { unprovenAfterMs: DEFAULTS.buildIdleGraceMs } : {}),
        wake,
      }),
    );
    const accepted = outcome.validation.accepted;
    ledger.recordValidated({ branch, headSha: input.headSha, valid: outcome.validation.valid, ...(accepted ? { build: markOf(accepted.status) } : {}) });
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
  /** The built commit is the PR's merge commit, on a build newer than the mark read before the merge. */
  isMergeCommit?: boolean;
  /** Why it could not be checked (or proven). */
  unchecked?: string;
  /** Production's build after the merge, as the proof takes it (absent when it was not checked at all). */
  build?: BuildAfterMerge;
}

/** Production's build status before GitHub's merge, for a close: the ledger's (a preview read it), else now when production lacks the merge commit. */
async function productionMark(ctx: OpContext, deployBranch: string, mergeCommit: string | undefined): Promise<BuildMark | string> {
  const recorded = ledgerOf(ctx).production;
  if (recorded?.branch === deployBranch) return recorded.mark;
  const listed = await listedCommit(ctx, deployBranch);
  if (listed.listed && mergeCommit && listed.commit && !sameCommit(listed.commit, mergeCommit)) {
    const now = await markBuild(ctx, deployBranch);
    if (now) return now;
  }
  return `no build status of ${deployBranch} read before the merge (no preview of this pull request recorded one, and the platform has the merge commit already), so no build can be shown to be the merge's`;
}

/**
 * After GitHub merged the PR: pull the production branch (in case the push's webhook was missed) and wait
 * for production's build of the merge commit, newer than the mark read before the merge. Never throws
 * for the platform: says what it could not check or prove.
 */
export async function checkProduction(
  ctx: OpContext,
  input: { deployBranch: string; mergeCommit: string | undefined; waitMs?: number },
): Promise<ProductionCheck> {
  const { deployBranch, mergeCommit } = input;
  try {
    const since = await productionMark(ctx, deployBranch, mergeCommit);
    const pulled = await pull(ctx, deployBranch);
    if (pulled === 'dry-run') return { unchecked: 'dry run' };
    if (pulled === undefined) return { unchecked: `the connected repository has no ${deployBranch} branch` };
    if (typeof since === 'string') {
      ctx.reporter.warning(`production (${deployBranch}): not proven: ${since}`);
      return { unchecked: `not proven: ${since}`, build: { none: since } };
    }
    const build = await buildAfterMerge(ctx, deployBranch, since, input.waitMs ?? DEFAULTS.buildWaitMinutes * 60_000, mergeCommit);
    if (!('built' in build)) {
      const why = 'failed' in build ? build.failed : build.none;
      ctx.reporter.warning(`could not check that production built the merge commit: ${why}`);
      return { unchecked: why, build };
    }
    const builtAt = build.built.status.lastHash ?? undefined;
    const isMergeCommit = !!(builtAt && mergeCommit && sameCommit(builtAt, mergeCommit));
    ctx.reporter.info(
      builtAt
        ? `production (${deployBranch}) is built at ${builtAt}${mergeCommit ? (isMergeCommit ? ', the merge commit' : ` (the merge commit is ${mergeCommit.slice(0, 7)}: a later push?)`) : ''}`
        : `production (${deployBranch}) is built; the platform does not say at which commit`,
    );
    return { ...(builtAt ? { builtAt } : {}), isMergeCommit, build };
  } catch (e) {
    if (ctx.signal?.aborted) throw e;
    const why = messageOf(e);
    ctx.reporter.warning(`could not check that production built the merge commit: ${why}`);
    return { unchecked: why, build: { none: why } };
  }
}

/** Turn the preview's staging environment off when a run of this PR turned it on (the head branch itself is the repository's: it stays). */
export async function stagingOff(ctx: OpContext, branch: string): Promise<boolean> {
  const on = ledgerOf(ctx).stagingOn(branch);
  if (!on) return false;
  const done = await turnStagingOff(ctx, on);
  if (done === 'off' && !ctx.dryRun) ctx.reporter.info(`turned the staging environment of ${branch} off`);
  return done === 'off';
}
