/** `dbt-sync-and-wait`: start a dbt sync and wait for its end; a run that did not complete fails the step. */
import { dbtTable } from '../github/render-tables.js';
import { dbtSyncAndWait } from '../operations/dbt-sync-and-wait.js';
import { StepFailed, type ActionRun } from './action-run.js';

export async function dbtSyncCommand(x: ActionRun<'dbt-sync-and-wait'>): Promise<number> {
  const { ref, branchName, source, timeoutMs, firstPollMs } = x.settings.inputs;
  const r = await dbtSyncAndWait(x.op, {
    ...(ref !== undefined ? { ref } : {}),
    ...(branchName ? { branchName } : {}),
    source,
    timeoutMs,
    firstPollMs,
  });
  x.out['sync-job-id'] = r.syncJobId;
  x.out.branch = r.branch;
  x.out.status = r.status;
  x.out['timed-out'] = String(r.timedOut);
  x.reporter.summary(`### datamodel-ci: dbt sync\n\n${dbtTable(r)}`);
  if (r.status !== 'COMPLETED') throw new StepFailed(`dbt sync ${r.syncJobId} ended ${r.status}${r.error ? `: ${r.error}` : ''}`);
  return 0;
}
