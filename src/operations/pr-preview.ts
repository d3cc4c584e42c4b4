/**
 * The PR's preview on the platform, whole: on a deployment fed from a connected repository the PR's own
 * head branch (no upload, repository-feed.ts), else (or when the repository does not have that branch: a
 * fork's) an upload to the preview branch (upload-preview.ts); then the same ending for both, the smoke
 * test beside the impact, and the data diff after the impact. One outcome comes back. The impact's reads
 * of production start first: they do not depend on this push.
 */
import { InputError, messageOf } from '../client/errors.js';
import type { OpContext } from './context.js';
import { smokeTest, type EnableStagingResult, type SmokeOptions } from './enable-staging.js';
import { compareWithProduction, startImpact, type ImpactResult, type MetaToken, type StartedImpact } from './impact.js';
import type { FileTexts } from '../model/model-files.js';
import { dataDiffStep, type DataDiffOutcome } from './data-diff.js';
import type { DataDiffPlan } from '../impact/data/plan.js';
import { runRepositoryPreview } from './repository-feed.js';
import type { LocalFile } from '../model/local-model.js';
import { runPreview } from './upload-preview.js';
import type { UploadResult, UploadVia } from './upload-model.js';
import type { ValidateResult } from './validate.js';

/** What the lifecycle needs from the pull request's side (GitHub), behind a port. */
export interface PullRequestPort {
  /** True once a newer push owns the PR: the run then stops without merging its files. */
  isStale(): Promise<boolean>;
  /** Told as soon as the run made the shared branch: the ledger's evidence, also when a later step fails. */
  created?(branch: string): void;
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
  /** A run of this PR made the branch (its ledger says so): its staging is this PR's to turn on and off. */
  ownBranch?: boolean;
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

export interface PlatformPreviewInput extends PreviewInput {
  /** A repository-fed deployment: the PR's head branch and commit, and the folder its errors are placed under. */
  fed?: { branch: string; headSha: string; modelDir: string; repository: string };
  /** The data diff after the impact (planned, and its key queries read, before the first call). */
  numbers?: DataDiffPlan;
}

/** The preview on the platform; a platform failure is reported in the outcome, bad input is thrown. */
export async function previewOnPlatform(ctx: OpContext, input: PlatformPreviewInput, pull: PullRequestPort): Promise<PreviewOutcome> {
  // What the impact reads from production and the content does not depend on this push: started at once.
  const impact = input.impact && !ctx.dryRun ? startImpact(ctx, { deployBranch: input.deployBranch }) : undefined;
  let flow: PreviewFlow | undefined;
  if (input.fed) {
    const { fed } = input;
    const fedFlow = await runRepositoryPreview(ctx, { ...input, branch: fed.branch, headSha: fed.headSha, modelDir: fed.modelDir }, impact);
    if ('notAdded' in fedFlow) {
      ctx.reporter.notice(
        `${fed.branch} of ${fed.repository} is not added to the platform (${fedFlow.notAdded}): previewing by upload on ${input.branch} instead, removed at cleanup`,
      );
    } else flow = fedFlow;
  }
  flow ??= await runPreview(ctx, input, pull, impact);
  const o = flow.outcome;
  try {
    await afterValidation(ctx, input, o, impact, flow.stagingToken);
  } catch (e) {
    if (e instanceof InputError) throw e;
    o.failure = messageOf(e);
    o.failureCause = e;
  } finally {
    // The impact's early reads finish before the run ends, also when a flow failed or stopped before using them.
    await Promise.allSettled([impact?.base, impact?.content, impact?.baseFiles]);
  }
  if (o.impact && input.numbers) o.numbers = await dataDiffStep(ctx, input.numbers, o.impact);
  return o;
}

/** One flow's outcome, and the impact's token for its staging environment (minted while the model built). */
export interface PreviewFlow {
  outcome: PreviewOutcome;
  stagingToken?: Promise<MetaToken> | undefined;
}

/** How every preview ends once validated (by upload or from the repository): the smoke test alongside the impact. */
async function afterValidation(
  ctx: OpContext,
  input: Pick<PreviewInput, 'smokeTest' | 'smoke' | 'deployBranch' | 'modelFiles'>,
  outcome: PreviewOutcome,
  impact: StartedImpact | undefined,
  token: Promise<MetaToken> | undefined,
): Promise<void> {
  const s = outcome.staging;
  if (!outcome.validation?.valid || !s || outcome.failure) return;
  const smoke = input.smokeTest && s.stagingUrl ? smokeTest(ctx, s.stagingUrl, input.smoke) : undefined;
  smoke?.catch(() => undefined);
  if (impact)
    outcome.impact = await ctx.reporter.group('Impact on the semantic layer', () =>
      compareWithProduction(ctx, impact, s, { branch: outcome.branch, deployBranch: input.deployBranch, modelFiles: input.modelFiles }, token),
    );
  if (smoke) outcome.staging = { ...s, smoke: await smoke };
}
