/** `upload-model`: send the changed files of the model to the shared branch. */
import { DEFAULTS } from '../defaults.js';
import { excludeFilter, readLocalModel } from '../model/local-model.js';
import { markBuild, type BuildMark } from '../operations/branch-build.js';
import { ledgerOf } from '../operations/ledger.js';
import { uploadModel } from '../operations/upload-model.js';
import { presentUpload } from '../pr/presenters.js';
import { publish } from '../pr/publish.js';
import type { ActionRun } from './action-run.js';

export async function uploadModelCommand(run: ActionRun<'upload-model'>): Promise<number> {
  const { inputs, modelDir } = run.settings;
  const branch = await run.pr.resolveBranch(inputs.branch);
  const local = await readLocalModel(run.reporter, modelDir, inputs.exclude);
  // The run's ledger records what lands, and the build status read just before: the `validate` step's mark.
  run.op.ledger = await run.pr.runLedger();
  const ledger = ledgerOf(run.op);
  let mark: BuildMark | undefined;
  const r = await uploadModel(run.op, {
    branch,
    modelDir,
    local,
    concurrency: inputs.concurrency,
    via: inputs.via,
    commitMessage: run.pr.commitMessage(inputs.commitMessage),
    isStale: () => run.pr.isStale(),
    allowModelDeletion: inputs.allowModelDeletion,
    excluded: excludeFilter(inputs.exclude),
    beforeLanding: async () => {
      mark = await markBuild(run.op, branch, { settleMs: DEFAULTS.buildIdleGraceMs });
    },
    onLanded: (_hash, landed, digest) => {
      if (landed) ledger.recordLanded(branch, digest, mark);
    },
    // Nothing to send and no landing of this model on record: land anyway, so a build of it can be proven.
    alwaysFinish: (digest) => !ledger.landingMark(branch, digest),
  });
  const shown = presentUpload(r);
  run.out.branch = branch;
  Object.assign(run.out, shown.outputs, { status: shown.status });
  if (r.stale) {
    run.out.skipped = 'true';
    return 0;
  }
  await publish(run.pr, { branch, ...shown.view }, { branch });
  return 0;
}
