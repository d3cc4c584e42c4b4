/** `merge-to-default`: merge the shared branch into the deploy branch. */
import { InputError } from '../client/errors.js';
import { DEFAULTS } from '../defaults.js';
import { mergeToDefault } from '../operations/merge-to-default.js';
import { hashLocalModel } from '../operations/upload-model.js';
import { resolveBranch, type ActionRun } from './action-run.js';
import { publish } from './publish.js';

export async function mergeToDefaultCommand(x: ActionRun<'merge-to-default'>): Promise<number> {
  const branch = await resolveBranch(x);
  const { inputs } = x.settings;
  const pr = x.run.pr;
  const message = inputs.message ?? (pr ? `Merge PR #${pr.number}: ${pr.title}` : `Merge ${branch}`);
  // The model to deploy is read and checked before the merge (the first write). On a merged PR's close
  // the checkout is its merge commit: when there is one, the branch is made to hold it before merging.
  let local = inputs.deployOnMerge ? await hashLocalModel(x.op, x.settings.modelDir, inputs.exclude) : undefined;
  if (!local && pr?.merged) {
    local = await hashLocalModel(x.op, x.settings.modelDir, inputs.exclude).catch((e: unknown) => {
      if (!(e instanceof InputError)) throw e;
      x.reporter.warning(`no checkout of the merge commit in model-dir (${e.message}): merging ${branch} as it is, without comparing it first`);
      return undefined;
    });
  }
  const r = await mergeToDefault(x.op, {
    branch,
    message,
    keepBranch: inputs.keepBranch,
    ...(local && pr?.merged
      ? { model: { local, concurrency: DEFAULTS.uploadConcurrency, modelDir: x.settings.modelDir, allowModelDeletion: inputs.allowModelDeletion } }
      : {}),
    ...(local && inputs.deployOnMerge
      ? { deployModel: { local, concurrency: DEFAULTS.uploadConcurrency, modelDir: x.settings.modelDir, allowModelDeletion: inputs.allowModelDeletion } }
      : {}),
  });
  x.out.branch = branch;
  x.out.merged = String(r.merged);
  x.out.status = x.settings.dryRun ? 'dry-run' : r.merged ? 'merged' : 'skipped';
  if (r.merged) {
    await publish(
      x,
      { state: 'merged', branch, deployBranch: r.deployBranch, merge: { deployMode: r.deployMode, productionUpdated: r.productionUpdated } },
      { state: 'merged' },
    );
  }
  return 0;
}
