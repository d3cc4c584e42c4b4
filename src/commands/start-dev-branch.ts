/** `start-dev-branch`: make sure the shared branch exists, then open dev mode on it. */
import { startDevBranch } from '../operations/start-dev-branch.js';
import { publish } from '../pr/publish.js';
import type { ActionRun } from './action-run.js';

export async function startDevBranchCommand(run: ActionRun<'start-dev-branch'>): Promise<number> {
  const branch = await run.pr.resolveBranch(run.settings.inputs.branch);
  // The run's ledger records the branch if this run creates it, and the fork dev mode answers with.
  run.op.ledger = await run.pr.runLedger();
  const r = await startDevBranch(run.op, { branch });
  run.out.branch = r.branch;
  run.out['dev-branch'] = r.devBranch ?? '';
  run.out.status = r.created ? 'created' : 'exists';
  await publish(run.pr, { branch }, { branch, state: 'open' });
  return 0;
}
