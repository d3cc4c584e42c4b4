/**
 * The platform half of a merge queue's check: the merge commit's model uploaded to a short-lived branch
 * of its own (made from the deploy branch), validated by the platform's compiler, and the branch removed
 * whatever happened (a killed run's branch is left to the sweep). No staging stays on, nothing is merged.
 */
import { messageOf } from '../client/errors.js';
import type { LocalFile, PathFilter } from '../model/local-model.js';
import { cleanupBranch } from './cleanup-branch.js';
import type { OpContext } from './context.js';
import { ledgerOf } from './ledger.js';
import { runPreview } from './upload-preview.js';
import type { UploadResult, UploadVia } from './upload-model.js';
import type { ValidateResult } from './validate.js';

export interface QueueGateInput {
  /** `<prefix>mq-<number>-<sha>`: named from the queue entry. */
  branch: string;
  deployBranch: string;
  local: LocalFile[];
  modelDir: string;
  concurrency: number;
  via: UploadVia;
  commitMessage: string;
  allowModelDeletion: boolean;
  /** Remote paths `exclude` leaves out: kept on the branch. */
  excluded: PathFilter;
}

export interface QueueGateOutcome {
  branch: string;
  upload?: UploadResult;
  validation?: ValidateResult;
  /** What failed on the platform, when something did. */
  failure?: string;
  failureCause?: unknown;
  /** The branch could not be removed: the sweep of `cleanup-branch` will. */
  left?: string;
  /** This run made the branch (a rerun of the entry finds it). */
  created?: boolean;
}

/** Validate the merge commit's model on its own branch, then remove the branch. */
export async function validateInQueue(ctx: OpContext, input: QueueGateInput): Promise<QueueGateOutcome> {
  const outcome: QueueGateOutcome = { branch: input.branch };
  try {
    // The preview's own steps, without the impact and the smoke test: a queue asks "is it valid?" only.
    const { outcome: o } = await runPreview(
      ctx,
      input,
      // A queue entry's commit never moves: a newer one is another entry with a branch of its own.
      { isStale: () => Promise.resolve(false) },
    );
    outcome.created = o.created;
    if (o.upload) outcome.upload = o.upload;
    if (o.validation) outcome.validation = o.validation;
    if (o.failure) Object.assign(outcome, { failure: o.failure, failureCause: o.failureCause });
    return outcome;
  } finally {
    // Removed also after a failure or a refused input: the queue run leaves nothing behind.
    if (!ctx.dryRun) {
      // Its name is the queue entry's own (named from this event's commit): it goes even after a failure,
      // upstream too only when this run made it.
      const created = ledgerOf(ctx).queueEntry(input.branch, { expected: input.branch, ofThisRepository: true });
      await ctx.reporter
        .group('Remove the queue branch', () =>
          cleanupBranch(ctx, { branch: input.branch, generatedName: true, removeOnUpstream: outcome.created === true, ...(created ? { created } : {}) }),
        )
        .catch((e: unknown) => {
          outcome.left = input.branch;
          ctx.reporter.warning(`could not remove ${input.branch} (${messageOf(e)}); the sweep of cleanup-branch removes it once the pull request is closed`);
        });
    }
  }
}
