/** `upload-model`: send the changed files of the model to the shared branch. */
import { readLocalModel } from '../model/local-model.js';
import { uploadModel } from '../operations/upload-model.js';
import { presentUpload } from '../pr/presenters.js';
import { publish } from '../pr/publish.js';
import type { ActionRun } from './action-run.js';

export async function uploadModelCommand(run: ActionRun<'upload-model'>): Promise<number> {
  const { inputs, modelDir } = run.settings;
  const branch = await run.pr.resolveBranch(inputs.branch);
  const local = await readLocalModel(run.reporter, modelDir, inputs.exclude);
  const r = await uploadModel(run.op, {
    branch,
    modelDir,
    local,
    concurrency: inputs.concurrency,
    via: inputs.via,
    commitMessage: run.pr.commitMessage(inputs.commitMessage),
    isStale: () => run.pr.isStale(),
    allowModelDeletion: inputs.allowModelDeletion,
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
