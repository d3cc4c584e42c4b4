/**
 * `merge-to-default`: merge the shared branch into the deploy branch, on the toolkit's own evidence only;
 * then prove what production serves (production-proof.ts): production differing fails the step.
 */
import { InputError } from '../client/errors.js';
import { DEFAULTS } from '../defaults.js';
import { mergeToDefault } from '../operations/merge-to-default.js';
import { deployTarget } from '../operations/branch-build.js';
import { proveMerge } from '../operations/production-proof.js';
import { localModelFiles } from '../model/model-files.js';
import { presentProof, recordProduction } from '../pr/present-proof.js';
import { StepFailed } from './exit-codes.js';
import { excludeFilter, readLocalModel } from '../model/local-model.js';
import { publish } from '../pr/publish.js';
import type { ActionRun } from './action-run.js';

export async function mergeToDefaultCommand(run: ActionRun<'merge-to-default'>): Promise<number> {
  const { inputs, modelDir } = run.settings;
  const branch = await run.pr.resolveBranch(inputs.branch);
  const pr = run.event.pr;
  const message = inputs.message ?? (pr ? `Merge PR #${pr.number}: ${pr.title}` : `Merge ${branch}`);
  // The run's ledger: the branch goes with the merge only when a run of this PR created it; without a
  // checkout, only the model a run of this PR validated is merged.
  run.op.ledger = await run.pr.runLedger();
  // The checkout's model is read and checked before the merge (the first write): the branch must hold it.
  // On a merged PR's close it is the merge commit, uploaded to the branch first when the branch differs.
  let local = inputs.deployOnMerge ? await readLocalModel(run.reporter, modelDir, inputs.exclude) : undefined;
  local ??= await readLocalModel(run.reporter, modelDir, inputs.exclude).catch((e: unknown) => {
    if (!(e instanceof InputError)) throw e;
    run.reporter.warning(`no checkout in model-dir (${e.message}): ${branch} is merged only if it holds the model a run of this pull request validated`);
    return undefined;
  });
  const excluded = excludeFilter(inputs.exclude);
  const model = local && { local, concurrency: DEFAULTS.uploadConcurrency, modelDir, allowModelDeletion: inputs.allowModelDeletion, excluded };
  const target = await deployTarget(run.op);
  const r = await mergeToDefault(run.op, {
    branch,
    message,
    keepBranch: inputs.keepBranch,
    target,
    ...(model ? { model, uploadFirst: pr?.merged === true } : {}),
    ...(model && inputs.deployOnMerge ? { deployModel: model } : {}),
  });
  run.out.branch = branch;
  run.out.merged = String(r.merged);
  run.out.status = run.settings.dryRun ? 'dry-run' : r.merged ? 'merged' : 'skipped';
  // What production serves after the merge, against the last push of this pull request that validated.
  const record = (await run.pr.thread())?.ledger?.record;
  const checkout = local && { local, excluded, files: await localModelFiles(local, modelDir, { emptyAllowed: true }) };
  const proof = await proveMerge(run.op, {
    target,
    merge: r,
    ...(record ? { record } : {}),
    ...(checkout ? { checkout } : {}),
    waitMs: inputs.proofWaitMs,
  });
  const shown = proof && presentProof(proof);
  if (shown) {
    Object.assign(run.out, shown.outputs);
    run.setResult(shown.json);
    await recordProduction(run.pr, pr?.mergeCommitSha, r.deployBranch, proof);
  }
  if (r.merged) {
    await publish(
      run.pr,
      {
        state: 'merged',
        branch,
        deployBranch: r.deployBranch,
        merge: { deployMode: r.deployMode, productionUpdated: r.productionUpdated, ...(shown ? { proof: shown.view } : {}) },
      },
      { state: 'merged' },
    );
  }
  if (shown?.failure) throw new StepFailed(shown.failure);
  return 0;
}
