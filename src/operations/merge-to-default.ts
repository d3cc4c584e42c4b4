/**
 * merge-to-default: merge the shared branch into the deploy branch. A deployment that deploys with the
 * CLI (`deployMode: cli`) does not rebuild production on a merge (the vendor's continuous-deployment
 * docs): then the toolkit says so, and on request uploads the merged model to the deploy branch, as the
 * vendor's `deploy` does.
 */
import { InputError, NotFoundError, messageOf } from '../client/errors.js';
import { deployTarget, type DeployTarget } from './branch-build.js';
import { gitWrite, mutate, type OpContext } from './context.js';
import type { LocalFile } from '../model/local-model.js';
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

export interface MergeInput {
  branch: string;
  message: string;
  keepBranch: boolean;
  /**
   * The model of the PR's merge commit (the checkout): the shared branch is made to hold exactly it
   * before the merge (never an older run's upload), and the deploy branch is checked after.
   */
  model?: { local: LocalFile[]; concurrency: number; modelDir: string; allowModelDeletion: boolean; via?: UploadVia };
  /** In CLI deploy mode, upload this model (the merged checkout) to the deploy branch after the merge. */
  deployModel?: { local: LocalFile[]; concurrency: number; modelDir?: string; allowModelDeletion?: boolean };
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
  /** With `model`: the deploy branch holds exactly the merge commit's model after the merge. */
  verified?: boolean;
  /** Set when nothing was merged because there was nothing to merge (why). */
  skipped?: string;
}

/**
 * Make the shared branch hold the merge commit's model before it is merged: upload what differs.
 * `already` when the branch is gone and the deploy branch holds the model (a rerun after the merge).
 */
async function prepare(ctx: OpContext, input: MergeInput, deployBranch: string): Promise<'merge' | 'already' | 'nothing'> {
  const model = input.model!;
  const manifest = manifestOf(model.local);
  let remote: Manifest | undefined;
  try {
    // Of the files the walk reads: a connected repository's `.github/` on the branch is no difference.
    remote = walked(await remoteTree(ctx, input.branch));
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
  }
  if (!remote) return (await holds(ctx, deployBranch, manifest)) ? 'already' : 'nothing';
  if (sameTree(remote, manifest)) return 'merge';
  ctx.reporter.warning(
    `${input.branch} does not hold this PR's merge commit (differs in: ${treeDiff(remote, manifest).join(', ')}): uploading the merged model to it before merging`,
  );
  // The preview's decision (upload-via): straight to the branch, or through dev mode where the tenant refuses that.
  await uploadModel(ctx, {
    branch: input.branch,
    modelDir: model.modelDir,
    local: model.local,
    concurrency: model.concurrency,
    commitMessage: input.message,
    via: model.via ?? 'auto',
    allowModelDeletion: model.allowModelDeletion,
  });
  const after = walked(await remoteTree(ctx, input.branch));
  if (!sameTree(after, manifest))
    throw new Error(`${input.branch} still differs from the merge commit after the upload (in: ${treeDiff(after, manifest).join(', ')})`);
  return 'merge';
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
  const base = { branch: input.branch, deployBranch: target.deployBranch, deployMode: target.deployMode };
  if (input.model && !ctx.dryRun) {
    let ready: Awaited<ReturnType<typeof prepare>>;
    try {
      ready = await prepare(ctx, input, target.deployBranch);
    } catch (e) {
      throw new MergeRefused(
        `not merging ${input.branch} into ${target.deployBranch}: it could not be made to hold this PR's merge commit (${messageOf(e)}). Production was not touched; rerun this job to merge.`,
      );
    }
    if (ready !== 'merge') {
      const skipped =
        ready === 'already'
          ? `${input.branch} is gone and ${target.deployBranch} already holds this PR's merge commit (merged by an earlier run)`
          : `${input.branch} does not exist (the PR never had a preview, or it was removed): nothing to merge, production was not touched`;
      ctx.reporter.notice(skipped);
      return { ...base, merged: ready === 'already', branchDeleted: false, productionUpdated: false, verified: ready === 'already', skipped };
    }
  }
  const r = await mutate(ctx, `merge ${input.branch} into ${target.deployBranch}${input.keepBranch ? ' (keeping it)' : ''}`, () =>
    ctx.client.branches.mergeToDefault(
      { deploymentId: ctx.deploymentId, body: { branchName: input.branch, message: input.message, removeBranchAfterMerge: !input.keepBranch } },
      {
        ...gitWrite(ctx),
        // A merge whose answer was lost is recognised by its effect: the branch gone (when it is removed
        // by the merge), or the deploy branch holding the branch's files.
        settle: async () => {
          if (!input.keepBranch) return (await branchExists(ctx, input.branch)) ? undefined : { merged: true, branchDeleted: true };
          return (await holds(ctx, target.deployBranch, await remoteTree(ctx, input.branch))) ? { merged: true, branchDeleted: false } : undefined;
        },
      },
    ),
  );
  if (!r) return { ...base, merged: false, branchDeleted: false, productionUpdated: false };
  ctx.reporter.info(`merged ${input.branch} into ${target.deployBranch}${r.branchDeleted ? ' and deleted it' : ''}`);
  if (target.deployMode !== 'cli')
    return { ...base, merged: r.merged, branchDeleted: r.branchDeleted, productionUpdated: r.merged, ...(await verify(ctx, input, target.deployBranch)) };
  if (!input.deployModel) {
    ctx.reporter.warning(
      `production was not rebuilt: deployment ${ctx.deploymentId} deploys with the CLI (deployMode: cli), so a merge only updates ${target.deployBranch}; set deploy-on-merge: true to upload the merged model to production`,
    );
    return { ...base, merged: r.merged, branchDeleted: r.branchDeleted, productionUpdated: false, ...(await verify(ctx, input, target.deployBranch)) };
  }
  // The vendor's `deploy`: one upload transaction to the deploy branch, which commits and rebuilds production.
  const t = await uploadTransaction(ctx, {
    branch: target.deployBranch,
    local: input.deployModel.local,
    concurrency: input.deployModel.concurrency,
    commitMessage: input.message,
    alwaysFinish: true,
    // Production is guarded too: a wrong model-dir must not empty the deploy branch.
    ...(input.deployModel.modelDir ? { guard: { modelDir: input.deployModel.modelDir, allow: input.deployModel.allowModelDeletion ?? false } } : {}),
  });
  ctx.reporter.info(`deployed the merged model to ${target.deployBranch} (CLI deploy mode): ${t.sent.length} sent, ${t.removed.length} deleted`);
  return { ...base, merged: r.merged, branchDeleted: r.branchDeleted, productionUpdated: true, ...(await verify(ctx, input, target.deployBranch)) };
}

/**
 * After the merge, the deploy branch should hold exactly the merge commit's model. It may hold more
 * when a later PR merged first (its close ran earlier): that is said, never "repaired" by an upload
 * that would take the later PR's files out of production.
 */
async function verify(ctx: OpContext, input: MergeInput, deployBranch: string): Promise<{ verified?: boolean }> {
  if (!input.model) return {};
  const after = walked(await remoteTree(ctx, deployBranch));
  const diff = treeDiff(after, manifestOf(input.model.local));
  if (!diff.length) {
    ctx.reporter.info(`verified: ${deployBranch} holds exactly this PR's merge commit`);
    return { verified: true };
  }
  ctx.reporter.warning(
    `${deployBranch} differs from this PR's merge commit after the merge, in: ${diff.join(', ')} (a later merge, or a change made on the platform); check it on the platform`,
  );
  return { verified: false };
}
