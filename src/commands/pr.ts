/**
 * `pr` (the root action): the whole PR lifecycle for the pull_request event of the run, and its check in
 * a merge queue (merge_group). A preview's data goes one way: the settings (read and checked before the
 * first call), the platform's operations, one outcome, the pull request's side (src/pr/), the outputs.
 * Several models (`deployments`) run the same per model, into one comment (pr-models.ts).
 */
import { InputError } from '../client/errors.js';
import { readLocalModel } from '../model/local-model.js';
import type { ActionRun } from './action-run.js';
import { StepFailed } from './exit-codes.js';
import { oneModel, type ModelRun } from './models.js';
import { closeModel } from './pr-close.js';
import { closeModels, previewModels } from './pr-models.js';
import { firstReads, planNumbers, planPersonas, previewModel, readyModel, untouched, type ReadyModel } from './pr-preview.js';
import { queueCommand } from './pr-queue.js';

/** Events that (re)build the preview. */
const PREVIEW_ACTIONS = ['opened', 'synchronize', 'reopened', 'ready_for_review'];

export async function prCommand(run: ActionRun<'pr'>): Promise<number> {
  const pr = run.event.pr;
  if (run.event.group) return queueCommand(run);
  if (!pr)
    throw new InputError('event', run.event.eventName, 'a pull_request or merge_group event (the lifecycle runs on pull requests and in the merge queue)');
  if (pr.action === 'closed') return run.settings.targets ? closeModels(run) : close(run);
  if (!PREVIEW_ACTIONS.includes(pr.action)) {
    run.reporter.notice(`pull_request ${pr.action}: nothing to do`);
    run.out.skipped = 'true';
    return 0;
  }
  if (run.settings.targets) return previewModels(run);
  const m = oneModel(run);
  const ready = await readyToPreview(run, m);
  return ready ? preview(run, m, ready) : 0;
}

/**
 * Before the first call, the local model is read and checked (walked once: hashed for the upload, its
 * texts read from the same walk), the data diff's plan and the personas read; a model the pull request does not touch
 * stops here; then the preflight, when asked. Undefined when there is nothing to preview.
 */
async function readyToPreview(run: ActionRun<'pr'>, m: ModelRun): Promise<ReadyModel | undefined> {
  const local = await readLocalModel(run.reporter, m.target.modelDir, run.settings.inputs.exclude);
  const numbers = await planNumbers(run);
  const personas = await planPersonas(run);
  // Its first reads go beside the check of the changed files: one round trip less for every preview.
  const reads = firstReads(run, m);
  const skipped = await untouched(run, m.side, m.target.modelDir);
  if (skipped) {
    run.reporter.notice(`${skipped} (preview-untouched: true previews it anyway)`);
    Object.assign(run.out, { skipped: 'true', status: 'untouched' });
    return undefined;
  }
  return readyModel(run, m.target, local, numbers, reads, personas);
}

/** The preview of the run's one model: the platform's operations, one outcome, the pull request's side, the outputs. */
async function preview(run: ActionRun<'pr'>, m: ModelRun, ready: ReadyModel): Promise<number> {
  const failed = await previewModel(run, m, ready, run.out);
  if (failed) throw new StepFailed(failed.failure, failed.cause !== undefined ? { cause: failed.cause } : undefined);
  return 0;
}

async function close(run: ActionRun<'pr'>): Promise<number> {
  const failed = await closeModel(run, oneModel(run), run.out);
  if (failed) throw new StepFailed(failed.failure);
  return 0;
}
