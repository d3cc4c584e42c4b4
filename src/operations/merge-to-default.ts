/**
 * merge-to-default: merge the shared branch into the deploy branch. A deployment that deploys with the
 * CLI (`deployMode: cli`) does not rebuild production on a merge (the vendor's continuous-deployment
 * docs): then the toolkit says so, and on request uploads the merged model to the deploy branch, as the
 * vendor's `deploy` does. What production then holds and serves is the proof's (production-proof.ts), not
 * checked here: the build status it needs is read before the merge and kept in the run's ledger.
 */
import { InputError, NotFoundError, messageOf } from '../client/errors.js';
import { deployTarget, markBuild, type DeployTarget } from './branch-build.js';
import { DEFAULTS } from '../defaults.js';
import type { OpContext } from './context.js';
import { mergeIntoDeployBranch } from './door.js';
import type { MergeReady } from './evidence.js';
import { ledgerOf } from './ledger.js';
import type { LocalFile, PathFilter } from '../model/local-model.js';
import { branchExists } from './start-dev-branch.js';
import { holds, manifestOf, remoteTree, sameTree, uploadTransaction, walked, type Manifest } from './upload-transaction.js';
import { uploadModel, type UploadVia } from './upload-model.js';

/** A merge refused before anything reached the deploy branch: production is as it was. */
export class MergeRefused extends Error {}

/** Paths where two trees differ (first ones), for messages. */
export function treeDiff(a: Manifest, b: Manifest, max = 10): string[] {
  const paths = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((p) => a[p]?.hash !== b[p]?.hash).sort();
  return paths.length > max ? [...paths.slice(0, max), `… ${paths.length - max} more`] : paths;
}

/** A checkout's model, as the merge compares (and may upload) it. */
export interface CheckoutModel {
  local: LocalFile[];
  concurrency: number;
  modelDir: string;
  allowModelDeletion: boolean;
  via?: UploadVia;
  /** Remote paths `exclude` leaves out: kept on the branches, and no difference. */
  excluded: PathFilter;
}

export interface MergeInput {
  branch: string;
  message: string;
  /** Keep the branch after the merge; when false it is removed with the merge only if a run of this pull request created it. */
  keepBranch: boolean;
  /**
   * The checkout's model: the branch must hold exactly it to be merged. With `uploadFirst` (a merged
   * PR's close: the checkout is its merge commit) the branch is made to hold it first (never an older
   * run's upload); without, a branch that differs is not merged. The deploy branch is checked after.
   * No checkout: the branch is merged only when it holds the model a run of this PR last validated.
   */
  model?: CheckoutModel;
  /** The checkout is the PR's merge commit: upload it to the branch when the branch differs. */
  uploadFirst?: boolean;
  /** In CLI deploy mode, upload this model (the merged checkout) to the deploy branch after the merge. */
  deployModel?: { local: LocalFile[]; concurrency: number; modelDir?: string; allowModelDeletion?: boolean; excluded?: PathFilter };
  /** The deployment's settings, when the caller read them already (else read here). */
  target?: DeployTarget;
}

export interface MergeResult {
  branch: string;
  merged: boolean;
  branchDeleted: boolean;
  deployBranch: string;
  /** `git`: the merge rebuilds production; `cli`: only an upload to the deploy branch does. */
  deployMode: string;
  /** Production was rebuilt from the merge (git mode) or from an upload of the merged model (cli mode). */
  productionUpdated: boolean;
  /** Why this merge rebuilds no production (CLI mode without its upload; a merge that changed nothing): the proof then waits for no build. */
  notRebuilt?: string;
  /** Set when nothing was merged because there was nothing to merge (why). */
  skipped?: string;
}

/** What the branch holds of the files the walk reads, or undefined when the branch is gone. */
async function branchTree(ctx: OpContext, branch: string, excluded?: PathFilter): Promise<Manifest | undefined> {
  try {
    // Of the files the walk reads: a connected repository's `.github/` on the branch is no difference.
    return walked(await remoteTree(ctx, branch), excluded);
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
    return undefined;
  }
}

/**
 * Make the shared branch hold the checkout's model before it is merged (upload what differs, with
 * `uploadFirst`), and return the evidence it does. `already` when the branch is gone and the deploy
 * branch holds the model (a rerun after the merge); `nothing` when the branch is gone.
 */
async function prepare(ctx: OpContext, input: MergeInput, deployBranch: string): Promise<MergeReady | 'already' | 'nothing'> {
  const model = input.model!;
  const checkout = manifestOf(model.local);
  const remote = await branchTree(ctx, input.branch, model.excluded);
  if (!remote) return (await holds(ctx, deployBranch, checkout, model.excluded)) ? 'already' : 'nothing';
  const ready = ledgerOf(ctx).mergeReady(input.branch, remote, walked(checkout, model.excluded));
  if (ready) return ready;
  const differs = treeDiff(remote, walked(checkout, model.excluded)).join(', ');
  if (!input.uploadFirst) throw new Error(`${input.branch} does not hold the checkout's model (differs in: ${differs})`);
  ctx.reporter.warning(`${input.branch} does not hold this PR's merge commit (differs in: ${differs}): uploading the merged model to it before merging`);
  // The preview's decision (upload-via): straight to the branch, or through dev mode where the tenant refuses that.
  await uploadModel(ctx, {
    branch: input.branch,
    modelDir: model.modelDir,
    local: model.local,
    concurrency: model.concurrency,
    commitMessage: input.message,
    via: model.via ?? 'auto',
    allowModelDeletion: model.allowModelDeletion,
    excluded: model.excluded,
  });
  const after = (await branchTree(ctx, input.branch, model.excluded)) ?? {};
  const readyNow = ledgerOf(ctx).mergeReady(input.branch, after, walked(checkout, model.excluded));
  if (!readyNow)
    throw new Error(
      `${input.branch} still differs from the merge commit after the upload (in: ${treeDiff(after, walked(checkout, model.excluded)).join(', ')})`,
    );
  return readyNow;
}

/** No checkout: the branch may be merged only when it holds the model a run of this pull request last validated. */
async function validatedReady(ctx: OpContext, branch: string, deployBranch: string): Promise<MergeReady> {
  const remote = await branchTree(ctx, branch);
  if (!remote) throw new MergeRefused(`not merging ${branch} into ${deployBranch}: it does not exist. Production was not touched.`);
  const ready = ledgerOf(ctx).mergeReady(branch, remote);
  if (ready) return ready;
  const v = ledgerOf(ctx).validated;
  const why = !v
    ? "no run of this pull request validated it (the comment's ledger records no validation)"
    : v.branch !== branch
      ? `the last validation was of ${v.branch}`
      : !v.valid
        ? 'its last validation found errors'
        : 'it has changed since a run of this pull request validated it';
  throw new MergeRefused(
    `not merging ${branch} into ${deployBranch}: there is no checkout of the merge commit in model-dir to compare it with, and ${why}. Production was not touched; check out the merge commit (actions/checkout) so the merge can be checked.`,
  );
}

/**
 * Why the deployment's settings forbid a merge into its deploy branch, naming the setting; undefined when
 * they allow it. A fed deployment deploys from GitHub's merge; a read-only deploy branch takes no write.
 */
export function mergeRefusal(target: DeployTarget): string | undefined {
  if (target.repository)
    return `it is fed from ${target.repository.name ?? 'a connected repository'} (${target.repository.evidence}): GitHub's merge of the pull request deploys production, and a merge into ${target.deployBranch} would deploy it a second time`;
  if (!target.mergeAllowed) return `it refuses merges into ${target.deployBranch} (deployBranchMergeAllowed: false)`;
  if (target.readOnly) return `its deploy branch ${target.deployBranch} is read-only (deployBranchReadOnly: true)`;
  return undefined;
}

export async function mergeToDefault(ctx: OpContext, input: MergeInput): Promise<MergeResult> {
  const target = input.target ?? (await deployTarget(ctx));
  // Refused before any write, naming the setting.
  const refused = mergeRefusal(target);
  if (refused) throw new InputError('deployment-id', String(ctx.deploymentId), `a deployment that takes merges into its deploy branch: ${refused}`);
  const cliOnly =
    target.deployMode === 'cli' && !input.deployModel
      ? `production was not rebuilt: deployment ${ctx.deploymentId} deploys with the CLI (deployMode: cli), so the merge only updated ${target.deployBranch}; set deploy-on-merge: true to upload the merged model`
      : undefined;
  const base = { branch: input.branch, deployBranch: target.deployBranch, deployMode: target.deployMode, ...(cliOnly ? { notRebuilt: cliOnly } : {}) };
  const ledger = ledgerOf(ctx);
  // The branch goes with the merge only when a run of this pull request created it ("staging" stays).
  const created = input.keepBranch ? undefined : ledger.created(input.branch);
  if (!input.keepBranch && !created) ctx.reporter.info(`${input.branch} is kept after the merge: no run of this pull request created it`);
  if (ctx.dryRun) {
    ctx.reporter.info(
      `dry run: would merge ${input.branch} into ${target.deployBranch}${created ? ' and delete it' : ''}, once it holds ${input.model ? "the checkout's model" : 'the last validated model'}`,
    );
    return { ...base, merged: false, branchDeleted: false, productionUpdated: false };
  }
  let ready: MergeReady;
  if (input.model) {
    let prepared: Awaited<ReturnType<typeof prepare>>;
    try {
      prepared = await prepare(ctx, input, target.deployBranch);
    } catch (e) {
      throw new MergeRefused(
        `not merging ${input.branch} into ${target.deployBranch}: it could not be made to hold ${input.uploadFirst ? "this PR's merge commit" : "the checkout's model"} (${messageOf(e)}). Production was not touched; rerun this job to merge.`,
      );
    }
    if (prepared === 'already' || prepared === 'nothing') {
      const skipped =
        prepared === 'already'
          ? `${input.branch} is gone and ${target.deployBranch} already holds this PR's merge commit (merged by an earlier run)`
          : `${input.branch} does not exist (the PR never had a preview, or it was removed): nothing to merge, production was not touched`;
      ctx.reporter.notice(skipped);
      return { ...base, merged: prepared === 'already', branchDeleted: false, productionUpdated: false, skipped };
    }
    ready = prepared;
  } else ready = await validatedReady(ctx, input.branch, target.deployBranch);
  // Production's build status before the merge: the proof after it waits for a newer build (a rerun finds it in the
  // ledger). And its tree: a merge that changes nothing makes no commit and no build (git's "already merged").
  const [before, treeBefore] = await Promise.all([
    markBuild(ctx, target.deployBranch, { settleMs: DEFAULTS.buildIdleGraceMs }),
    target.deployMode === 'cli' ? undefined : remoteTree(ctx, target.deployBranch).catch(() => undefined),
  ]);
  if (before) ledger.recordProduction(target.deployBranch, before);
  const r = await mergeIntoDeployBranch(ctx, ready, {
    deployBranch: target.deployBranch,
    message: input.message,
    ...(created ? { remove: created } : {}),
    // A merge whose answer was lost is recognised by its effect: the branch gone (when it is removed
    // by the merge), or the deploy branch holding the branch's files.
    settle: async () => {
      if (created) return (await branchExists(ctx, input.branch)) ? undefined : { merged: true, branchDeleted: true };
      return (await holds(ctx, target.deployBranch, ready.manifest, input.model?.excluded)) ? { merged: true, branchDeleted: false } : undefined;
    },
  });
  if (!r) return { ...base, merged: false, branchDeleted: false, productionUpdated: false };
  if (r.branchDeleted) ledger.forget(input.branch);
  ctx.reporter.info(`merged ${input.branch} into ${target.deployBranch}${r.branchDeleted ? ' and deleted it' : ''}`);
  if (target.deployMode !== 'cli') {
    const unchanged = treeBefore && sameTree(treeBefore, await remoteTree(ctx, target.deployBranch).catch(() => ({})));
    const notRebuilt = unchanged
      ? `the merge changed nothing on ${target.deployBranch} (it held the merged model already), so no build followed it`
      : undefined;
    return { ...base, merged: r.merged, branchDeleted: r.branchDeleted, productionUpdated: r.merged && !unchanged, ...(notRebuilt ? { notRebuilt } : {}) };
  }
  if (!input.deployModel) {
    if (cliOnly) ctx.reporter.warning(cliOnly);
    return { ...base, merged: r.merged, branchDeleted: r.branchDeleted, productionUpdated: false };
  }
  // The vendor's `deploy`: one upload transaction to the deploy branch, which commits and rebuilds production.
  const t = await uploadTransaction(ctx, {
    branch: target.deployBranch,
    local: input.deployModel.local,
    concurrency: input.deployModel.concurrency,
    commitMessage: input.message,
    alwaysFinish: true,
    excluded: input.deployModel.excluded,
    // Production is guarded too: a wrong model-dir must not empty the deploy branch.
    ...(input.deployModel.modelDir ? { guard: { modelDir: input.deployModel.modelDir, allow: input.deployModel.allowModelDeletion ?? false } } : {}),
  });
  ctx.reporter.info(`deployed the merged model to ${target.deployBranch} (CLI deploy mode): ${t.sent.length} sent, ${t.removed.length} deleted`);
  return { ...base, merged: r.merged, branchDeleted: r.branchDeleted, productionUpdated: true };
}
