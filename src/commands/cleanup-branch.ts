/** `cleanup-branch`: remove the PR's branches, or sweep the preview branches of closed PRs. */
import { InputError } from '../client/errors.js';
import { sweepTable } from '../pr/comment/render-tables.js';
import { cleanupBranch } from '../operations/cleanup-branch.js';
import { sweepBranches } from '../operations/sweep-branches.js';
import type { ActionRun } from './action-run.js';
import { publish } from '../pr/publish.js';

export async function cleanupBranchCommand(run: ActionRun<'cleanup-branch'>): Promise<number> {
  const { inputs, dryRun, branchPrefix } = run.settings;
  if (inputs.mode === 'sweep') {
    if (!run.pr.github) throw new InputError('github-token', undefined, 'a token and GITHUB_REPOSITORY: the sweep asks GitHub about each PR');
    const rows = await sweepBranches(run.op, {
      prefix: branchPrefix,
      minAgeMs: inputs.minAgeMs,
      pulls: { getPull: (n) => run.pr.github!.getPull(n), ledgerOf: (n) => run.pr.ledgerOf(n), hasCommit: (sha) => run.pr.github!.hasCommit(sha) },
      removeOnUpstream: inputs.removeOnUpstream,
      deleteOrphans: inputs.deleteOrphans,
    });
    const gone = rows.filter((row) => row.action !== 'kept');
    run.out.deleted = String(dryRun ? 0 : gone.length);
    run.out.status = dryRun ? 'dry-run' : 'swept';
    run.reporter.info(`${gone.length} of ${rows.length} preview branch(es) ${dryRun ? 'would be deleted' : 'deleted'}`);
    run.reporter.summary(`### datamodel-ci: sweep${dryRun ? ' (dry run)' : ''}\n\n${sweepTable(rows)}`);
    return 0;
  }
  const branch = await run.pr.resolveBranch(inputs.branch);
  // The run's ledger: only what this PR's runs made is removed (docs/faults.md).
  run.op.ledger = await run.pr.runLedger();
  const r = await cleanupBranch(run.op, { branch, generatedName: run.pr.generatedName(branch), removeOnUpstream: inputs.removeOnUpstream });
  run.out.branch = branch;
  run.out.deleted = String(r.deleted.length);
  run.out.status = 'cleaned';
  const merged = run.event.pr?.merged ?? false;
  const state = merged ? 'merged' : 'closed';
  await publish(run.pr, { state, branch, cleanup: { deleted: r.deleted } }, { state });
  return 0;
}
