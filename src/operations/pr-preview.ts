/**
 * The PR lifecycle: a preview on open and push (shared branch, upload, validation, staging), and a
 * merge and clean-up on close. Calls that do not depend on each other overlap (bench/README.md,
 * figure 3): the staging environment is enabled while the model uploads (it needs only the shared
 * branch), and validation starts as soon as the upload has landed.
 */
import { InputError, PlatformError, messageOf } from '../client/errors.js';
import { sleep } from '../client/retry.js';
import { cleanupBranch, type CleanupResult } from './cleanup-branch.js';
import type { OpContext } from './context.js';
import { enableStaging, smokeTest, wakeStaging, type EnableStagingResult, type SmokeOptions } from './enable-staging.js';
import { MergeRefused, mergeToDefault, type MergeResult } from './merge-to-default.js';
import { compareWithProduction, metaToken, startImpact, type ImpactResult, type MetaToken, type StartedImpact } from './impact.js';
import { ensureSharedBranch } from './start-dev-branch.js';
import type { FileTexts } from '../model/model-files.js';
import type { DataDiffOutcome } from './data-diff.js';
import { markBuild, waitForBuild, type BuildMark } from './branch-build.js';
import type { LocalFile } from '../model/local-model.js';
import { uploadModel, type UploadResult, type UploadVia } from './upload-model.js';
import { validateWhenBuilt, type ValidateResult } from './validate.js';

/** What the lifecycle needs from the pull request's side (GitHub), behind a port. */
export interface PullRequestPort {
  /** True once a newer push owns the PR: the run then stops without merging its files. */
  isStale(): Promise<boolean>;
}

export interface PreviewInput {
  branch: string;
  /** The deployment's deploy branch (from its settings; read by the caller alongside its own reads). */
  deployBranch: string;
  /** The local model, hashed and checked by the caller before its first platform call. */
  local: LocalFile[];
  modelDir: string;
  concurrency: number;
  commitMessage: string;
  via: UploadVia;
  smokeTest: boolean;
  smoke: SmokeOptions;
  /** Compare the semantic layer with production's once the model is valid. */
  impact?: boolean;
  /** The checkout's model files (what is uploaded), for the definition diff. */
  modelFiles?: FileTexts;
  /** Allow an upload that deletes most of the branch's model (input `allow-model-deletion`). */
  allowModelDeletion?: boolean;
}

export interface PreviewOutcome {
  branch: string;
  /** The shared branch was created by this run. */
  created: boolean;
  upload?: UploadResult;
  validation?: ValidateResult;
  staging?: EnableStagingResult;
  impact?: ImpactResult;
  /** A newer push owns the PR: nothing more was done. */
  stale: boolean;
  /** What failed on the platform, when something did (the outcome holds what was done before). */
  failure?: string;
  /** The error behind `failure` (its exit code and hint). */
  failureCause?: unknown;
  /** The data diff after the impact, when it was asked for. */
  numbers?: DataDiffOutcome;
}

/** Run the preview; a platform failure is reported in the outcome, bad input is thrown. */
export async function runPreview(ctx: OpContext, input: PreviewInput, pull: PullRequestPort): Promise<PreviewOutcome> {
  const { branch } = input;
  const outcome: PreviewOutcome = { branch, created: false, stale: false };
  const { local } = input;
  // Started once, early, and awaited later (no log group: they run while the upload's group is open).
  let staging: Promise<EnableStagingResult> | undefined;
  let validation: Promise<ValidateResult> | undefined;
  // What the impact reads from production and the content does not depend on this push: started at once.
  let impact: StartedImpact | undefined;
  let stagingToken: Promise<MetaToken> | undefined;
  const enable = () =>
    (staging ??= enableStaging(ctx, { branch, smokeTest: false }).then((s) => {
      // The impact's token for the staging environment is minted while the model builds and validates.
      if (impact) stagingToken = stagingTokenFor(ctx, branch, s);
      return s;
    }));
  // The build status before the upload lands: the build that replaces it is this upload's. Read once staging
  // is on, alongside the upload (off the chain), and awaited before finish.
  let since: BuildMark | undefined;
  let marked: Promise<BuildMark | undefined> | undefined;
  const mark = () =>
    (marked ??= enable().then(
      () => markBuild(ctx, branch),
      () => undefined,
    ));
  const markBefore = async () => {
    since = await mark();
  };
  // One data request wakes a staging environment that sleeps (some take a while to start after enabling).
  const wake = () => enable().then((s) => (s.stagingUrl ? wakeStaging(ctx, s.stagingUrl) : undefined));
  // Validation asks the branch's running instance: staging on, and the build of this upload done.
  const startValidation = (lastHash: string | undefined) => {
    validation = enable().then(() =>
      validateWhenBuilt(ctx, { branch, modelDir: input.modelDir, model: local }, () =>
        waitForBuild(ctx, branch, { ...(lastHash ? { lastHash } : {}), ...(since ? { since } : {}), wake }),
      ),
    );
    validation.catch(() => undefined);
  };
  /** Let work started early finish (its outcome unused) before the run ends. */
  const settle = () => Promise.allSettled([staging, validation, impact?.base, impact?.content, impact?.baseFiles]);
  try {
    if (input.impact && !ctx.dryRun) impact = startImpact(ctx, { deployBranch: input.deployBranch });
    outcome.created = await ctx.reporter.group('Shared branch', () => ensureSharedBranch(ctx, branch, input.deployBranch));
    if (!ctx.dryRun) {
      enable().catch(() => undefined);
      mark().catch(() => undefined);
    }
    const up = await ctx.reporter.group('Upload the model', () =>
      uploadModel(ctx, {
        branch,
        modelDir: input.modelDir,
        local,
        concurrency: input.concurrency,
        commitMessage: input.commitMessage,
        via: input.via,
        isStale: () => pull.isStale(),
        beforeLanding: markBefore,
        onLanded: startValidation,
        allowModelDeletion: input.allowModelDeletion ?? false,
      }),
    );
    outcome.upload = up;
    if (up.stale) {
      await settle();
      outcome.stale = true;
      return outcome;
    }
    if (ctx.dryRun) {
      ctx.reporter.info(`dry run: would validate ${branch}, enable its staging environment and update the pull request comment`);
      return outcome;
    }
    // Nothing changed on the branch: validate what it holds.
    if (!validation) startValidation(undefined);
    const [v, s] = await Promise.all([validation as unknown as Promise<ValidateResult>, enable()]);
    outcome.validation = v;
    outcome.staging = s;
    await afterValidation(ctx, input, outcome, s, impact, stagingToken);
  } catch (e) {
    await settle();
    if (e instanceof InputError) throw e;
    outcome.failure = messageOf(e);
    outcome.failureCause = e;
  }
  return outcome;
}

/** The impact's token for a branch's staging environment, minted early (awaited by the impact). */
export function stagingTokenFor(ctx: OpContext, branch: string, s: EnableStagingResult): Promise<MetaToken> | undefined {
  if (!s.stagingUrl || !s.environmentId) return undefined;
  const token = metaToken(ctx, { id: s.environmentId, restUrl: s.stagingUrl, label: `the staging environment of ${branch}` });
  token.catch(() => undefined);
  return token;
}

/** How every preview ends once validated (by upload or from the repository): the smoke test alongside the impact. */
export async function afterValidation(
  ctx: OpContext,
  input: Pick<PreviewInput, 'smokeTest' | 'smoke' | 'deployBranch' | 'modelFiles'>,
  outcome: PreviewOutcome,
  s: EnableStagingResult,
  impact: StartedImpact | undefined,
  token: Promise<MetaToken> | undefined,
): Promise<void> {
  if (!outcome.validation?.valid) return;
  const smoke = input.smokeTest && s.stagingUrl ? smokeTest(ctx, s.stagingUrl, input.smoke) : undefined;
  smoke?.catch(() => undefined);
  if (impact)
    outcome.impact = await ctx.reporter.group('Impact on the semantic layer', () =>
      compareWithProduction(ctx, impact, s, { branch: outcome.branch, deployBranch: input.deployBranch, modelFiles: input.modelFiles }, token),
    );
  if (smoke) outcome.staging = { ...s, smoke: await smoke };
}

export interface CloseInput {
  branch: string;
  /** Merge into the deploy branch first (the PR was merged and merge-on-close is on). */
  merge: boolean;
  message: string;
  /** Dev branches the ledger recorded for the PR. */
  devBranches: string[];
  removeOnUpstream: boolean;
  /** The model of the PR's merge commit (the checkout), read before the first write: what is merged. */
  model?: { local: LocalFile[]; concurrency: number; modelDir: string; allowModelDeletion: boolean; via?: UploadVia };
  /** In CLI deploy mode, upload `model` to the deploy branch after the merge. */
  deployOnMerge?: boolean;
  /** Pauses between cleanup passes, ms (tests shorten them). */
  cleanupPausesMs?: readonly number[];
}

/** A close that failed: which step, whether production may have changed, and what is left on the platform. */
export class CloseFailed extends Error {
  constructor(
    message: string,
    readonly step: 'Merge' | 'Cleanup',
    readonly pending: string[],
    readonly merge?: MergeResult,
  ) {
    super(message);
  }
}

export interface CloseOutcome {
  merge?: MergeResult;
  cleanup: CleanupResult;
}

/** Merge (when asked) and clean up; the branch is kept through the merge so cleanup also removes its dev forks. */
export async function runClose(ctx: OpContext, input: CloseInput): Promise<CloseOutcome> {
  const left = [input.branch, ...input.devBranches.filter((d) => d && d !== input.branch)];
  let merge: MergeResult | undefined;
  if (input.merge) {
    try {
      merge = await mergeToDefault(ctx, {
        branch: input.branch,
        message: input.message,
        keepBranch: true,
        model: input.model,
        deployModel: input.deployOnMerge ? input.model : undefined,
      });
    } catch (e) {
      if (e instanceof InputError) throw e;
      const message = messageOf(e);
      // The branch stays for the rerun that merges it: cleanup must not take it away first.
      throw new CloseFailed(
        e instanceof MergeRefused ? message : `${message} (the platform did not show the merge as done: production was not touched; rerun this job to merge)`,
        'Merge',
        left,
      );
    }
  }
  const cleanup = await cleanupWithRetries(ctx, input, left, merge);
  return { ...(merge ? { merge } : {}), cleanup };
}

/** Cleanup is a set of deletes that are safe to repeat: a pass that fails on the platform is run again. */
async function cleanupWithRetries(ctx: OpContext, input: CloseInput, left: string[], merge: MergeResult | undefined): Promise<CleanupResult> {
  const pauses = input.cleanupPausesMs ?? [5_000, 20_000];
  for (let pass = 0; ; pass++) {
    try {
      return await cleanupBranch(ctx, { branch: input.branch, devBranches: input.devBranches, removeOnUpstream: input.removeOnUpstream });
    } catch (e) {
      const message = messageOf(e);
      const wait = pauses[pass];
      if (!(e instanceof PlatformError) || e.name === 'AbortedError' || wait === undefined) throw new CloseFailed(message, 'Cleanup', left, merge);
      ctx.reporter.warning(`cleanup failed (${message}); trying again in ${Math.round(wait / 1000)} s`);
      await sleep(wait, ctx.signal).catch(() => undefined);
      if (ctx.signal?.aborted) throw new CloseFailed(message, 'Cleanup', left, merge);
    }
  }
}
