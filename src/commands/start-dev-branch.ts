/** `start-dev-branch`: make sure the shared branch exists, then open dev mode on it. */
import { startDevBranch } from '../operations/start-dev-branch.js';
import { resolveBranch, type ActionRun } from './action-run.js';
import { publish } from './publish.js';

export async function startDevBranchCommand(x: ActionRun<'start-dev-branch'>): Promise<number> {
  const branch = await resolveBranch(x);
  const r = await startDevBranch(x.op, { branch });
  x.out.branch = r.branch;
  x.out['dev-branch'] = r.devBranch ?? '';
  x.out.status = r.created ? 'created' : 'exists';
  await publish(x, { branch }, { branch, ...(r.devBranch ? { devBranch: r.devBranch } : {}), state: 'open' });
  return 0;
}
