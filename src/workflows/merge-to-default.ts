/** merge-to-default: merge the shared branch into the deploy branch. */
import { mutate, type OpContext } from './context.js';
import { branchExists } from './start-dev-branch.js';

export interface MergeResult {
  branch: string;
  merged: boolean;
  branchDeleted: boolean;
}

export async function mergeToDefault(ctx: OpContext, input: { branch: string; message: string; keepBranch: boolean }): Promise<MergeResult> {
  const r = await mutate(ctx, `merge ${input.branch} into the deploy branch${input.keepBranch ? ' (keeping it)' : ''}`, () =>
    ctx.client.branches.mergeToDefault(
      { deploymentId: ctx.deploymentId, body: { branchName: input.branch, message: input.message, removeBranchAfterMerge: !input.keepBranch } },
      {
        signal: ctx.signal,
        // A merge that removes the branch is recognised by the branch being gone.
        settle: async () => (!input.keepBranch && !(await branchExists(ctx, input.branch)) ? { merged: true, branchDeleted: true } : undefined),
      },
    ),
  );
  if (!r) return { branch: input.branch, merged: false, branchDeleted: false };
  ctx.reporter.info(`merged ${input.branch} into the deploy branch${r.branchDeleted ? ' and deleted it' : ''}`);
  return { branch: input.branch, merged: r.merged, branchDeleted: r.branchDeleted };
}
