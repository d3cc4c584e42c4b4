/**
 * merge-to-default: merge the shared branch into the deploy branch. A deployment that deploys with the
 * CLI (`deployMode: cli`) does not rebuild production on a merge (the vendor's continuous-deployment
 * docs): then the toolkit says so, and on request uploads the merged model to the deploy branch, as the
 * vendor's `deploy` does.
 */
import { deployTarget } from './branch-build.js';
import { gitWrite, mutate, type OpContext } from './context.js';
import type { LocalFile } from './local-model.js';
import { branchExists } from './start-dev-branch.js';
import { holds, remoteTree, uploadTransaction } from './upload-transaction.js';

export interface MergeInput {
  branch: string;
  message: string;
  keepBranch: boolean;
  /** In CLI deploy mode, upload this model (the merged checkout) to the deploy branch after the merge. */
  deployModel?: { local: LocalFile[]; concurrency: number };
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
}

export async function mergeToDefault(ctx: OpContext, input: MergeInput): Promise<MergeResult> {
  const target = await deployTarget(ctx);
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
  const base = { branch: input.branch, deployBranch: target.deployBranch, deployMode: target.deployMode };
  if (!r) return { ...base, merged: false, branchDeleted: false, productionUpdated: false };
  ctx.reporter.info(`merged ${input.branch} into ${target.deployBranch}${r.branchDeleted ? ' and deleted it' : ''}`);
  if (target.deployMode !== 'cli') return { ...base, merged: r.merged, branchDeleted: r.branchDeleted, productionUpdated: r.merged };
  if (!input.deployModel) {
    ctx.reporter.warning(
      `production was not rebuilt: deployment ${ctx.deploymentId} deploys with the CLI (deployMode: cli), so a merge only updates ${target.deployBranch}; set deploy-on-merge: true to upload the merged model to production`,
    );
    return { ...base, merged: r.merged, branchDeleted: r.branchDeleted, productionUpdated: false };
  }
  // The vendor's `deploy`: one upload transaction to the deploy branch, which commits and rebuilds production.
  const t = await uploadTransaction(ctx, {
    branch: target.deployBranch,
    local: input.deployModel.local,
    concurrency: input.deployModel.concurrency,
    commitMessage: input.message,
    alwaysFinish: true,
  });
  ctx.reporter.info(`deployed the merged model to ${target.deployBranch} (CLI deploy mode): ${t.sent.length} sent, ${t.removed.length} deleted`);
  return { ...base, merged: r.merged, branchDeleted: r.branchDeleted, productionUpdated: true };
}
