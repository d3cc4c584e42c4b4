/** `start-dev-branch`: make sure the shared branch exists, then open dev mode on it. */
import { previewSection } from '../github/sections.js';
import { startDevBranch } from '../workflows/start-dev-branch.js';
import { publish, resolveBranch, type ActionRun } from './action-run.js';

export async function startDevBranchCommand(x: ActionRun<'start-dev-branch'>): Promise<number> {
  const branch = await resolveBranch(x);
  const r = await startDevBranch(x.op, { branch });
  x.out.branch = r.branch;
  x.out['dev-branch'] = r.devBranch ?? '';
  x.out.status = r.created ? 'created' : 'exists';
  await publish(x, { preview: previewSection({ branch, devBranch: r.devBranch, headSha: x.run.pr?.headSha ?? '', created: r.created }) }, {
    branch,
    ...(r.devBranch ? { devBranch: r.devBranch } : {}),
    state: 'open',
  });
  return 0;
}
