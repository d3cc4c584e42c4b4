/**
 * The platform half of a pull request's preview, whole: on a deployment fed from a connected repository
 * the PR's own head branch (no upload), else (or when the repository does not have that branch: a
 * fork's) an upload to the preview branch; then the data diff after the impact. One outcome comes back.
 */
import type { OpContext } from './context.js';
import { runPreview, type PreviewInput, type PreviewOutcome, type PullRequestPort } from './pr-preview.js';
import { runRepositoryPreview } from './repository-feed.js';
import type { DataDiffPlan } from '../impact/data/plan.js';
import { dataDiffStep } from './data-diff.js';

export interface PlatformPreviewInput extends PreviewInput {
  /** A repository-fed deployment: the PR's head branch and commit, and the folder its errors are placed under. */
  fed?: { branch: string; headSha: string; modelDir: string; repository: string };
  /** The data diff after the impact (planned, and its key queries read, before the first call). */
  numbers?: DataDiffPlan;
}

/** The preview on the platform; a platform failure is reported in the outcome, bad input is thrown. */
export async function previewOnPlatform(ctx: OpContext, input: PlatformPreviewInput, pull: PullRequestPort): Promise<PreviewOutcome> {
  let o: PreviewOutcome | undefined;
  if (input.fed) {
    const { fed } = input;
    o = await runRepositoryPreview(ctx, { ...input, branch: fed.branch, headSha: fed.headSha, modelDir: fed.modelDir });
    if (!o) {
      ctx.reporter.notice(
        `${fed.branch} is not a branch of ${fed.repository} (a fork's?): previewing by upload on ${input.branch}, whose ref is removed from the repository at cleanup`,
      );
    }
  }
  o ??= await runPreview(ctx, input, pull);
  if (o.impact && input.numbers) o.numbers = await dataDiffStep(ctx, input.numbers, o.impact);
  return o;
}
