/**
 * The PR's preview on the platform, whole: on a deployment fed from a connected repository the PR's own
 * head branch (no upload, repository-feed.ts), else (or when the platform does not have that branch and
 * cannot add it) an upload to the preview branch (upload-preview.ts); then the same ending for both, the smoke
 * test beside the impact, then the rollup plans, the persona probes and the data diff (rollup-builds.ts: no
 * load builds a pre-aggregation unless allowed). One outcome comes back. The impact's reads of production
 * start first: they do not depend on this push.
 */
import { InputError, messageOf } from '../client/errors.js';
import type { PreviewFlow, PreviewInput, PreviewOutcome, PullRequestPort } from './preview-types.js';
import type { OpContext } from './context.js';
import { smokeTest } from './enable-staging.js';
import { compareWithProduction, startImpact, type MetaToken, type StartedImpact } from './impact.js';
import { readsAfterImpact } from './rollup-builds.js';
import { checkCubeVersions } from './cube-versions.js';
import type { DataDiffPlan } from '../impact/data/plan.js';
import type { Persona } from '../impact/access/types.js';
import { runRepositoryPreview } from './repository-feed.js';
import { runPreview } from './upload-preview.js';
import { previewRecord } from './preview-record.js';
import { agentsCheckOf } from './agents-check.js';
import { evalDelta } from './evals/run.js';

export interface PlatformPreviewInput extends PreviewInput {
  /** A repository-fed deployment: the PR's head branch and commit, and the folder its errors are placed under. */
  fed?: { branch: string; headSha: string; modelDir: string; repository: string };
  /** The data diff after the impact (planned, and its key queries read, before the first call). */
  numbers?: DataDiffPlan;
  /** The personas whose view of each side the impact compares (read and checked before the first call). */
  personas?: readonly Persona[];
}

/** The preview on the platform; a platform failure is reported in the outcome, bad input is thrown. */
export async function previewOnPlatform(ctx: OpContext, input: PlatformPreviewInput, pull: PullRequestPort): Promise<PreviewOutcome> {
  // What the impact reads from production and the content does not depend on this push: started at once.
  const impact =
    input.impact && !ctx.dryRun
      ? startImpact(ctx, { deployBranch: input.deployBranch, cliDeploy: input.deployMode === 'cli', ...(input.personas ? { personas: input.personas } : {}) })
      : undefined;
  // The versions list does not depend on this push either; the check reads the PR's own files.
  const versions = input.impact && !ctx.dryRun ? checkCubeVersions(ctx, input.modelFiles, input.fed?.modelDir ?? input.modelDir) : undefined;
  versions?.catch(() => undefined);
  let flow: PreviewFlow | undefined;
  let fromRepository = false;
  if (input.fed) {
    const { fed } = input;
    const fedFlow = await runRepositoryPreview(ctx, { ...input, branch: fed.branch, headSha: fed.headSha, modelDir: fed.modelDir }, impact);
    if ('notAdded' in fedFlow) {
      ctx.reporter.notice(
        `${fed.branch} of ${fed.repository} is not added to the platform (${fedFlow.notAdded}): previewing by upload on ${input.branch} instead, removed at cleanup`,
      );
    } else {
      flow = fedFlow;
      fromRepository = true;
    }
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
    await Promise.allSettled([impact?.base, impact?.content, impact?.baseFiles, impact?.personaBase, impact?.wholeBase]);
  }
  if (o.impact && versions) o.versions = await versions;
  // The rollup plans before any load: the probes and the data diff skip what would build in the shared Cube Store.
  if (o.impact && input.numbers) ({ rollups: o.rollups, numbers: o.numbers } = await readsAfterImpact(ctx, input.numbers, o.impact, undefined, o.versions));
  const headSha = fromRepository ? input.fed?.headSha : input.headSha;
  o.agents = await agentsCheckOf(input.local, input.fed?.modelDir ?? input.modelDir, o, input.modelFiles, input.agentsFolder);
  // The eval delta on the validated branch against the deploy branch (`evals: on`): its own bounded wait.
  if (input.evals && o.validation?.valid && !o.failure && !o.stale && !ctx.dryRun)
    o.evals = await ctx.reporter.group('Agent evals', () =>
      evalDelta(ctx, { previewBranch: o.branch, productionBranch: input.deployBranch, ...(input.evals as NonNullable<PreviewInput['evals']>) }),
    );
  o.record = await previewRecord(ctx, { local: input.local, excluded: input.excluded, headSha, fed: fromRepository }, o);
  return o;
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
