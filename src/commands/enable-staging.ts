/** `enable-staging`: turn on the shared branch's staging environment; optionally query it once. */
import { enableStaging } from '../operations/enable-staging.js';
import { presentStaging } from '../pr/presenters.js';
import { publish } from '../pr/publish.js';
import type { ActionRun } from './action-run.js';

export async function enableStagingCommand(run: ActionRun<'enable-staging'>): Promise<number> {
  const { inputs } = run.settings;
  const branch = await run.pr.resolveBranch(inputs.branch);
  // The run's ledger: a staging environment seen off and turned on here is this PR's to turn off at the close.
  run.op.ledger = await run.pr.runLedger();
  const r = await enableStaging(run.op, { branch, smokeTest: inputs.smokeTest, smoke: { timeoutMs: inputs.smokeTimeoutMs } });
  const shown = presentStaging(r);
  run.out.branch = branch;
  Object.assign(run.out, shown.outputs, { status: shown.status });
  await publish(run.pr, { branch, ...shown.view }, { branch, ...shown.ledger });
  return 0;
}
