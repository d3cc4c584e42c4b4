/** `cleanup-branch`: remove the PR's branches, or sweep the preview branches of closed PRs. */
import { InputError } from '../client/errors.js';
import { sweepTable } from '../github/render-tables.js';
import { cleanupBranch, sweepBranches } from '../operations/cleanup-branch.js';
import { resolveBranch, type ActionRun } from './action-run.js';
import { publish } from './publish.js';

export async function cleanupBranchCommand(x: ActionRun<'cleanup-branch'>): Promise<number> {
  const { inputs, dryRun, branchPrefix } = x.settings;
  if (inputs.mode === 'sweep') {
    if (!x.github) throw new InputError('github-token', undefined, 'a token and GITHUB_REPOSITORY: the sweep asks GitHub about each PR');
    const rows = await sweepBranches(x.op, { prefix: branchPrefix, minAgeMs: inputs.minAgeMs, pulls: x.github, removeOnUpstream: inputs.removeOnUpstream });
    const gone = rows.filter((row) => row.action !== 'kept');
    x.out.deleted = String(dryRun ? 0 : gone.length);
    x.out.status = dryRun ? 'dry-run' : 'swept';
    x.reporter.info(`${gone.length} of ${rows.length} preview branch(es) ${dryRun ? 'would be deleted' : 'deleted'}`);
    x.reporter.summary(`### datamodel-ci: sweep${dryRun ? ' (dry run)' : ''}\n\n${sweepTable(rows)}`);
    return 0;
  }
  const branch = await resolveBranch(x);
  const devBranch = (await x.thread())?.ledger?.devBranch;
  const r = await cleanupBranch(x.op, { branch, devBranches: devBranch ? [devBranch] : [], removeOnUpstream: inputs.removeOnUpstream });
  x.out.branch = branch;
  x.out.deleted = String(r.deleted.length);
  x.out.status = 'cleaned';
  const merged = x.run.pr?.merged ?? false;
  const state = merged ? 'merged' : 'closed';
  await publish(x, { state, branch, cleanup: { deleted: r.deleted } }, { state });
  return 0;
}
