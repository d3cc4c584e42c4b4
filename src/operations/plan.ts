/**
 * plan: the whole review of a working copy's model against production, in one run, on a throwaway branch
 * this run creates (`<prefix>plan-…`): the pull request's preview (pr-preview.ts: upload, validation, staging,
 * the impact, numbers, who can see what, cost) on it, then everything the run made removed through the door
 * (cleanup-branch.ts, on the run's own ledger: the branch, its staging environment, its dev-mode forks),
 * also after a failure and after a cancel, on a signal of its own. `keep` leaves the branch for its
 * staging URL (not after a cancel: a stopped run keeps nothing).
 */
import { messageOf } from '../client/errors.js';
import { DEFAULTS } from '../defaults.js';
import { cleanupBranch } from './cleanup-branch.js';
import type { OpContext } from './context.js';
import { ledgerOf } from './ledger.js';
import { previewOnPlatform, type PlatformPreviewInput } from './pr-preview.js';
import type { PreviewOutcome } from './preview-types.js';
import { branchExists, ensureSharedBranch } from './start-dev-branch.js';

export type PlanInput = Omit<PlatformPreviewInput, 'fed' | 'impact'> & {
  /** Keep the branch (and its staging environment) after the run, unless it was cancelled. */
  keep: boolean;
  /** How long the removal may take, ms (it runs on its own signal: the run's may be aborted). */
  cleanupTimeoutMs?: number;
};

/** What became of what the run made. */
export interface PlanCleanup {
  /** Branches and forks deleted. */
  deleted: string[];
  /** The staging environment of the branch was turned off with it. */
  stagingOff: boolean;
  /** Kept on purpose (`keep`). */
  kept?: string;
  /** Left because the removal failed: the user deletes them. */
  left: string[];
  /** Why the removal failed. */
  problem?: string;
}

export interface PlanOutcome {
  /** The preview on the branch (absent when the branch could not be made). */
  preview?: PreviewOutcome;
  branch: string;
  /** The run was cancelled (Ctrl-C): what it made is removed even with `keep`. */
  cancelled: boolean;
  cleanup?: PlanCleanup;
  /** What was thrown once the branch was asked for (refused input, the create failing): the caller throws it after saying what was removed. */
  error?: unknown;
}

/** The review on a branch of the run's own, then its removal (or, with `keep`, its keeping). */
export async function runPlan(ctx: OpContext, input: PlanInput): Promise<PlanOutcome> {
  const { branch } = input;
  const ledger = ledgerOf(ctx);
  const outcome: PlanOutcome = { branch, cancelled: false };
  // A name taken already is someone's: nothing is written to it, and nothing of it is this run's.
  if (await branchExists(ctx, branch)) throw new Error(`${branch} exists on the platform already: it is not this run's; run again for another name`);
  try {
    ctx.signal?.throwIfAborted();
    // The create is never cut mid-flight by a cancel: its answer is what makes the branch this run's to delete.
    const whole: OpContext = { ...ctx, ledger, signal: AbortSignal.timeout(DEFAULTS.operationDeadlineMs) };
    const created = await ctx.reporter.group('Plan branch', () => ensureSharedBranch(whole, branch, input.deployBranch));
    if (!created) throw new Error(`${branch} appeared while this run was creating it: it is not this run's, and nothing was uploaded to it`);
    // A newer push never owns a plan: it always goes on.
    outcome.preview = await previewOnPlatform(ctx, { ...input, impact: true }, { isStale: () => Promise.resolve(false) });
  } catch (e) {
    outcome.error = e;
  } finally {
    outcome.cancelled = ctx.signal?.aborted === true;
    const made = ledger.created(branch);
    if (made && input.keep && !outcome.cancelled) outcome.cleanup = { deleted: [], stagingOff: false, kept: branch, left: [] };
    else if (made) outcome.cleanup = await removeMade(ctx, branch, input.cleanupTimeoutMs ?? DEFAULTS.operationDeadlineMs);
  }
  return outcome;
}

/**
 * Delete what this run made: the branch's staging, its dev-mode forks, the branch (its ref upstream too:
 * a name this run made). On its own bounded signal, so a cancelled run still cleans up.
 */
async function removeMade(ctx: OpContext, branch: string, timeoutMs: number): Promise<PlanCleanup> {
  const own: OpContext = { ...ctx, ledger: ledgerOf(ctx), signal: AbortSignal.timeout(timeoutMs) };
  const stagingOn = ledgerOf(ctx).toFacts().stagingOn === branch;
  try {
    const r = await ctx.reporter.group(`Remove ${branch}`, () => cleanupBranch(own, { branch, generatedName: true, removeOnUpstream: true }));
    return { deleted: r.deleted, stagingOff: stagingOn, left: r.kept ? [r.kept] : [] };
  } catch (e) {
    const left = [branch, ...ledgerOf(ctx).forks];
    return { deleted: [], stagingOff: false, left, problem: messageOf(e) };
  }
}

/** The one line that says what became of what the run made. */
export function cleanupLine(o: PlanOutcome, stagingUrl?: string): string | undefined {
  const c = o.cleanup;
  if (!c) return undefined;
  if (c.kept)
    return `kept ${c.kept} and its staging environment${stagingUrl ? ` (${stagingUrl})` : ''}: delete it on the platform when you are done (no pull request's ledger names it, so cleanup-branch leaves it)`;
  if (c.problem) return `could not remove ${c.left.join(', ')} (${c.problem}): delete ${c.left.length === 1 ? 'it' : 'them'} on the platform`;
  const forks = c.deleted.filter((b) => b !== o.branch);
  const what = [`branch ${o.branch}`, ...(c.stagingOff ? ['its staging environment'] : []), ...forks.map((f) => `dev-mode fork ${f}`)];
  const list = what.length > 1 ? `${what.slice(0, -1).join(', ')} and ${what.at(-1)}` : what[0];
  return `removed what this plan made${o.cancelled ? ' before it was cancelled' : ''}: ${list}${c.left.length ? `; left ${c.left.join(', ')}` : ''}`;
}
