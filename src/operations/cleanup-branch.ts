/**
 * cleanup-branch: turn the PR's staging off, delete its shared branch and its dev-mode forks (already
 * gone counts as done), each only on the run's ledger's evidence (docs/faults.md): a branch no run of the
 * pull request created stays, a staging environment no run turned on stays on, a fork no run opened (a
 * reviewer's dev-mode session) stays. `sweep` (sweep-branches.ts) does the same for closed pull requests.
 */
import { PermissionDeniedError } from '../client/errors.js';
import { isDevBranch } from '@datamodel-ci/platform-api';
import type { OpContext } from './context.js';
import { deleteBranch, deleteFork, turnStagingOff } from './door.js';
import type { CreatedBranch } from './evidence.js';
import { ledgerOf } from './ledger.js';

export interface CleanupResult {
  branch: string;
  /** Branches deleted now (dry run: that would be deleted). */
  deleted: string[];
  /** Branches that were already gone. */
  alreadyGone: string[];
  /** The branch, left on the platform (and upstream) for want of evidence that this pull request made it. */
  kept?: string;
  /** Dev-mode forks of the branch left alone: no run of this pull request opened them (a person's session). */
  othersForks?: string[];
}

export interface CleanupInput {
  branch: string;
  /** The branch's name is one the toolkit generates (`<prefix>pr-<n>`, `<prefix>mq-…`): its ref upstream may go with it. */
  generatedName: boolean;
  /** `remove-on-upstream`: delete that ref too (a branch a run of this pull request created, with a generated name). */
  removeOnUpstream: boolean;
  /** Evidence the caller holds besides the ledger's (a merge queue entry's own branch). */
  created?: CreatedBranch;
}

/** Remove what the run's ledger says this pull request made of `branch`: its forks, its staging, the branch. */
export async function cleanupBranch(ctx: OpContext, input: CleanupInput): Promise<CleanupResult> {
  const ledger = ledgerOf(ctx);
  const result: CleanupResult = { branch: input.branch, deleted: [], alreadyGone: [] };
  const created = input.created?.branch === input.branch ? input.created : ledger.created(input.branch);
  const staging = created ? ledger.stagingOf(created) : ledger.stagingOn(input.branch);
  if (staging) await turnStagingOff(ctx, staging);
  // Forks of the branch go only when a run of this pull request opened them: another is a person's session.
  const forks: string[] = [];
  const others: string[] = [];
  const listed = new Set<string>();
  for await (const b of ctx.client.branches.iterate({ deploymentId: ctx.deploymentId, query: { first: 100 } }, { signal: ctx.signal })) {
    listed.add(b.name);
    if (b.parentBranch !== input.branch || !isDevBranch(b.name)) continue;
    (ledger.fork(b.name, input.branch) ? forks : others).push(b.name);
  }
  for (const named of ledger.forks) {
    if (!listed.has(named)) result.alreadyGone.push(named);
    else if (!forks.includes(named)) ctx.reporter.warning(`${JSON.stringify(named)} is not a dev-mode fork of ${input.branch}: left alone`);
  }
  for (const name of forks) {
    const own = ledger.fork(name, input.branch)!;
    try {
      if ((await deleteFork(ctx, own)) === 'deleted') result.deleted.push(name);
      else result.alreadyGone.push(name);
    } catch (e) {
      if (!(e instanceof PermissionDeniedError)) throw e;
      ctx.reporter.warning(`dev branch ${name} belongs to another credential; left alone`);
    }
  }
  if (others.length) {
    result.othersForks = others;
    ctx.reporter.info(`left alone (dev-mode sessions no run of this pull request opened): ${others.join(', ')}`);
  }
  if (!created && !listed.has(input.branch)) result.alreadyGone.push(input.branch);
  else if (!created) {
    result.kept = input.branch;
    ctx.reporter.info(
      `${input.branch} left as it is: no run of this pull request created it${staging ? ' (its staging environment, turned on by one, is off again)' : ''}`,
    );
  } else if ((await deleteBranch(ctx, created, ledger.upstream(created, input.generatedName, input.removeOnUpstream))) === 'deleted')
    result.deleted.push(input.branch);
  else result.alreadyGone.push(input.branch);
  // The key's dev-mode session is not ended here: it is per credential, and may be another run's (deleting
  // a fork above ends the session on it).
  if (result.alreadyGone.length) ctx.reporter.info(`already gone: ${result.alreadyGone.join(', ')}`);
  return result;
}
