/** `upload-model`: send the changed files of the model to the shared branch. */
import { uploadModel } from '../operations/upload-model.js';
import { commitMessage, isStale, resolveBranch, type ActionRun } from './action-run.js';
import { publish } from './publish.js';

export async function uploadModelCommand(x: ActionRun<'upload-model'>): Promise<number> {
  const branch = await resolveBranch(x);
  const { inputs } = x.settings;
  const r = await uploadModel(x.op, {
    branch,
    modelDir: x.settings.modelDir,
    exclude: inputs.exclude,
    concurrency: inputs.concurrency,
    via: inputs.via,
    commitMessage: commitMessage(x, inputs.commitMessage),
    isStale: () => isStale(x),
    allowModelDeletion: inputs.allowModelDeletion,
  });
  x.out.branch = branch;
  x.out['dev-branch'] = r.devBranch ?? '';
  x.out.uploaded = String(r.uploaded);
  x.out.deleted = String(r.deleted);
  x.out.status = r.stale ? 'stale' : 'uploaded';
  if (r.stale) {
    x.out.skipped = 'true';
    return 0;
  }
  await publish(x, { branch, upload: { sent: r.uploaded, deleted: r.deleted, unchanged: r.unchanged, via: r.via } }, { branch });
  return 0;
}
