/** `dbt-sync-and-wait`: start a dbt sync and wait for its end; a run that did not complete fails the step. */
import { dbtSyncAndWait } from '../operations/dbt-sync-and-wait.js';
import { presentDbt } from '../pr/presenters.js';
import type { ActionRun } from './action-run.js';
import { StepFailed } from './exit-codes.js';

export async function dbtSyncCommand(run: ActionRun<'dbt-sync-and-wait'>): Promise<number> {
  const { ref, branchName, source, timeoutMs, firstPollMs } = run.settings.inputs;
  const r = await dbtSyncAndWait(run.op, { ref, branchName: branchName || undefined, source, timeoutMs, firstPollMs });
  const shown = presentDbt(r);
  Object.assign(run.out, shown.outputs);
  run.reporter.summary(shown.summary);
  if (shown.failure) throw new StepFailed(shown.failure);
  return 0;
}
