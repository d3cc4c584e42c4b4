/**
 * A pull request's preview by upload, up to its validation: shared branch, upload, validation, staging.
 * Calls that do not depend on each other overlap (bench/README.md, figure 3): the staging environment is
 * enabled while the model uploads (it needs only the shared branch), and validation starts as soon as
 * the upload has landed. The ending (smoke test, impact, data diff) is the caller's (pr-preview.ts).
 */
import { DEFAULTS } from '../defaults.js';
import { InputError, messageOf } from '../client/errors.js';
import type { OpContext } from './context.js';
import { enableStaging, wakeStaging, type EnableStagingResult } from './enable-staging.js';
import { stagingTokenFor, type MetaToken, type StartedImpact } from './impact.js';
import { ensureSharedBranch } from './start-dev-branch.js';
import { ABSENT, markBuild, markOf, waitForBuild, type BuildMark } from './branch-build.js';
import { ledgerOf } from './ledger.js';
import type { PreviewFlow, PreviewInput, PreviewOutcome, PullRequestPort } from './preview-types.js';
import { uploadModel } from './upload-model.js';
import { validateWhenBuilt, type ValidateResult } from './validate.js';

/** What the upload flow reads of the preview's input (the ending's settings are the caller's). */
export type UploadPreviewInput = Pick<
  PreviewInput,
  'branch' | 'deployBranch' | 'local' | 'modelDir' | 'concurrency' | 'commitMessage' | 'via' | 'allowModelDeletion' | 'excluded' | 'headSha'
>;

/** The preview by upload, up to its validation; a platform failure is reported in the outcome, bad input is thrown. */
export async function runPreview(ctx: OpContext, input: UploadPreviewInput, pull: PullRequestPort, impact?: StartedImpact): Promise<PreviewFlow> {
  const { branch } = input;
  const outcome: PreviewOutcome = { branch, created: false, stale: false };
  const { local } = input;
  const ledger = ledgerOf(ctx);
  // Started once, early, and awaited later (no log group: they run while the upload's group is open).
  let staging: Promise<EnableStagingResult> | undefined;
  let validation: Promise<ValidateResult> | undefined;
  let stagingToken: Promise<MetaToken> | undefined;
  const enable = () =>
    (staging ??= enableStaging(ctx, { branch, smokeTest: false }).then((s) => {
      // The impact's token for the staging environment is minted while the model builds and validates.
      if (impact) stagingToken = stagingTokenFor(ctx, branch, s);
      return s;
    }));
  // The build status before the upload lands: the build that replaces it is this upload's. Read once staging
  // is on, alongside the upload (off the chain), and awaited before finish.
  let landedMark: BuildMark | undefined;
  let marked: Promise<BuildMark | undefined> | undefined;
  const mark = () =>
    (marked ??= enable().then(
      () => markBuild(ctx, branch, { settleMs: DEFAULTS.buildIdleGraceMs }),
      () => undefined,
    ));
  const markBefore = async () => {
    landedMark = await mark();
  };
  // One data request wakes a staging environment that sleeps (some take a while to start after enabling).
  const wake = () => enable().then((s) => (s.stagingUrl ? wakeStaging(ctx, s.stagingUrl) : false));
  /**
   * The mark the change's build must be newer than: the status read just before this run's files landed;
   * else (nothing landed: the branch held them) none when this run made the branch from the deploy branch
   * (every build of it is of these files), else the mark a run of this pull request read when the same
   * model landed (the ledger). An upload finishes anyway (a build of its own) when the ledger has no such
   * mark, or only one that cannot order builds (a blank status proves only a run seen to start).
   */
  const since = (landed: boolean, digest: string): BuildMark | undefined => {
    if (landed) return landedMark;
    if (outcome.created) return ABSENT;
    return ledger.landingMark(branch, digest);
  };
  const noLandingOnRecord = (digest: string) => !outcome.created && !ledger.landingMark(branch, digest);
  // Validation asks the branch's running instance: staging on, and the build of this upload done.
  const startValidation = (lastHash: string | undefined, landed: boolean, digest: string) => {
    const mark = since(landed, digest);
    if (landed) ledger.recordLanded(branch, digest, mark);
    validation = enable().then(() =>
      validateWhenBuilt(ctx, { branch, modelDir: input.modelDir, model: local }, () =>
        waitForBuild(ctx, branch, { ...(lastHash ? { lastHash } : {}), ...(mark ? { since: mark } : {}), wake }),
      ).then((v) => {
        ledger.recordValidated({ branch, headSha: input.headSha ?? '', valid: v.valid, digest, ...(v.accepted ? { build: markOf(v.accepted.status) } : {}) });
        return v;
      }),
    );
    validation.catch(() => undefined);
  };
  /** Let work started early finish (its outcome unused) before the run ends. */
  const settle = () => Promise.allSettled([staging, validation]);
  try {
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
        excluded: input.excluded,
        alwaysFinish: noLandingOnRecord,
      }),
    );
    outcome.upload = up;
    if (up.stale) {
      await settle();
      outcome.stale = true;
      return { outcome };
    }
    if (ctx.dryRun) {
      ctx.reporter.info(`dry run: would validate ${branch}, enable its staging environment and update the pull request comment`);
      return { outcome };
    }
    // Nothing landed (and no validation started): validate what the branch holds, on the ledger's mark.
    if (!validation) startValidation(undefined, false, up.digest);
    const [v, s] = await Promise.all([validation as unknown as Promise<ValidateResult>, enable()]);
    outcome.validation = v;
    outcome.staging = s;
  } catch (e) {
    await settle();
    if (e instanceof InputError) throw e;
    outcome.failure = messageOf(e);
    outcome.failureCause = e;
  }
  return { outcome, stagingToken };
}
