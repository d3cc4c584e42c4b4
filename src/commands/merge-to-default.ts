/** `merge-to-default`: merge the shared branch into the deploy branch. */
import { InputError } from '../client/errors.js';
import { DEFAULTS } from '../defaults.js';
import { mergeToDefault } from '../operations/merge-to-default.js';
import { readLocalModel } from '../model/local-model.js';
import { publish } from '../pr/publish.js';
import type { ActionRun } from './action-run.js';

export async function mergeToDefaultCommand(run: ActionRun<'merge-to-default'>): Promise<number> {
  const { inputs, modelDir } = run.settings;
  const branch = await run.pr.resolveBranch(inputs.branch);
  const pr = run.event.pr;
  const message = inputs.message ?? (pr ? `Merge PR #${pr.number}: ${pr.title}` : `Merge ${branch}`);
  // The model to deploy is read and checked before the merge (the first write). On a merged PR's close
  // the checkout is its merge commit: when there is one, the branch is made to hold it before merging.
  let local = inputs.deployOnMerge ? await readLocalModel(run.reporter, modelDir, inputs.exclude) : undefined;
  if (!local && pr?.merged) {
    local = await readLocalModel(run.reporter, modelDir, inputs.exclude).catch((e: unknown) => {
      if (!(e instanceof InputError)) throw e;
      run.reporter.warning(`no checkout of the merge commit in model-dir (${e.message}): merging ${branch} as it is, without comparing it first`);
      return undefined;
    });
  }
  const r = await mergeToDefault(run.op, {
    branch,
    message,
    keepBranch: inputs.keepBranch,
    ...(local && pr?.merged ? { model: { local, concurrency: DEFAULTS.uploadConcurrency, modelDir, allowModelDeletion: inputs.allowModelDeletion } } : {}),
    ...(local && inputs.deployOnMerge
      ? { deployModel: { local, concurrency: DEFAULTS.uploadConcurrency, modelDir, allowModelDeletion: inputs.allowModelDeletion } }
      : {}),
  });
  run.out.branch = branch;
  run.out.merged = String(r.merged);
  run.out.status = run.settings.dryRun ? 'dry-run' : r.merged ? 'merged' : 'skipped';
  if (r.merged) {
    await publish(
      run.pr,
      { state: 'merged', branch, deployBranch: r.deployBranch, merge: { deployMode: r.deployMode, productionUpdated: r.productionUpdated } },
      { state: 'merged' },
    );
  }
  return 0;
}
