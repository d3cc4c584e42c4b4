/**
 * The close of a pull request on the platform: the merge into the deploy branch (when asked), the proof of
 * what production then serves (production-proof.ts), then the clean-up of the preview's branches, each
 * pass safe to repeat.
 */
import { InputError, PlatformError, messageOf } from '../client/errors.js';
import { sleep } from '../client/retry.js';
import { cleanupBranch, type CleanupResult } from './cleanup-branch.js';
import type { OpContext } from './context.js';
import { ledgerOf } from './ledger.js';
import { MergeRefused, mergeToDefault, type CheckoutModel, type MergeResult } from './merge-to-default.js';
import { deployTarget, type DeployTarget } from './branch-build.js';
import { proveMerge, type MergeProofInput, type ProofOutcome } from './production-proof.js';

export interface CloseInput {
  branch: string;
  /** Merge into the deploy branch first (the PR was merged and merge-on-close is on). */
  merge: boolean;
  message: string;
  /** The branch's name is one the toolkit generates (its ref upstream may go, with `removeOnUpstream`, when a run created it). */
  generatedName: boolean;
  /** `remove-on-upstream`. */
  removeOnUpstream: boolean;
  /** The model of the PR's merge commit (the checkout), read before the first write: what is merged. */
  model?: CheckoutModel;
  /** In CLI deploy mode, upload `model` to the deploy branch after the merge. */
  deployOnMerge?: boolean;
  /** The deployment's settings, read by the caller before the first write. */
  target?: DeployTarget;
  /** Pauses between cleanup passes, ms (tests shorten them). */
  cleanupPausesMs?: readonly number[];
  /** After the merge, the proof: the last validation record, the merge commit's model, and how long to wait for production's build. */
  proof?: Omit<MergeProofInput, 'target' | 'merge'>;
}

/** A close that failed: which step, whether production may have changed, and what is left on the platform. */
export class CloseFailed extends Error {
  constructor(
    message: string,
    readonly step: 'Merge' | 'Cleanup',
    readonly pending: string[],
    readonly merge?: MergeResult,
    readonly proof?: ProofOutcome,
  ) {
    super(message);
  }
}

export interface CloseOutcome {
  merge?: MergeResult;
  /** What production serves after the merge, against the validated model (none when nothing was merged). */
  proof?: ProofOutcome;
  cleanup: CleanupResult;
}

/** Merge (when asked) and clean up; the branch is kept through the merge so cleanup also removes its dev forks. */
export async function runClose(ctx: OpContext, input: CloseInput): Promise<CloseOutcome> {
  // What the ledger says this pull request made: what a failed close leaves on the platform.
  const ledger = ledgerOf(ctx);
  const left = [...(ledger.created(input.branch) ? [input.branch] : []), ...ledger.forks.filter((d) => d !== input.branch)];
  let merge: MergeResult | undefined;
  if (input.merge) {
    try {
      merge = await mergeToDefault(ctx, {
        branch: input.branch,
        message: input.message,
        keepBranch: true,
        model: input.model,
        uploadFirst: true,
        deployModel: input.deployOnMerge ? input.model : undefined,
        target: input.target,
      });
    } catch (e) {
      if (e instanceof InputError) throw e;
      const message = messageOf(e);
      // The branch stays for the rerun that merges it: cleanup must not take it away first.
      throw new CloseFailed(
        e instanceof MergeRefused ? message : `${message} (the platform did not show the merge as done: production was not touched; rerun this job to merge)`,
        'Merge',
        left,
      );
    }
  }
  // The proof reads only: it runs before the cleanup, and a failed cleanup still reports it.
  const proof = merge && input.proof ? await proveMerge(ctx, { ...input.proof, merge, target: input.target ?? (await deployTarget(ctx)) }) : undefined;
  const cleanup = await cleanupWithRetries(ctx, input, left, merge, proof);
  return { ...(merge ? { merge } : {}), ...(proof ? { proof } : {}), cleanup };
}

/** Cleanup is a set of deletes that are safe to repeat: a pass that fails on the platform is run again. */
async function cleanupWithRetries(
  ctx: OpContext,
  input: CloseInput,
  left: string[],
  merge: MergeResult | undefined,
  proof: ProofOutcome | undefined,
): Promise<CleanupResult> {
  const pauses = input.cleanupPausesMs ?? [5_000, 20_000];
  for (let pass = 0; ; pass++) {
    try {
      return await cleanupBranch(ctx, { branch: input.branch, generatedName: input.generatedName, removeOnUpstream: input.removeOnUpstream });
    } catch (e) {
      const message = messageOf(e);
      const wait = pauses[pass];
      if (!(e instanceof PlatformError) || e.name === 'AbortedError' || wait === undefined) throw new CloseFailed(message, 'Cleanup', left, merge, proof);
      ctx.reporter.warning(`cleanup failed (${message}); trying again in ${Math.round(wait / 1000)} s`);
      await sleep(wait, ctx.signal).catch(() => undefined);
      if (ctx.signal?.aborted) throw new CloseFailed(message, 'Cleanup', left, merge, proof);
    }
  }
}
