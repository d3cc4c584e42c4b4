/**
 * dbt-sync-and-wait: start a sync, poll it until it ends or the deadline passes (at the run's predicted
 * end, see `nextPollDelay`), print new log lines grouped by phase, check once more at the deadline, and
 * cancel the remote run (DELETE) on timeout or when the job is cancelled (the signal).
 */
import { AbortedError, ConflictError, NotFoundError, messageOf } from '../client/errors.js';
import type { DbtSyncLogEntry, DbtSyncStatusResponse } from '@datamodel-ci/platform-api';
import { DEFAULTS } from '../defaults.js';
import { checkRefUsed } from './dbt-ref.js';
import { nextPollDelay, printPhases } from './dbt-progress.js';
import { type OpContext } from './context.js';
import { sleep as defaultSleep } from '../client/retry.js';

export interface DbtSyncInput {
  ref?: string;
  branchName?: string;
  source?: 'git' | 'manifest';
  timeoutMs: number;
  /**
   * Bounds of the wait between polls (ms), default 1 s and 45 s: a failure is noticed within
   * `maxPollMs`, the end within 2 x `minPollMs`.
   */
  minPollMs?: number;
  maxPollMs?: number;
  /**
   * Wait before the first look (ms), default `DEFAULTS.dbtFirstPollSeconds` (at most `maxPollMs`).
   */
  firstPollMs?: number;
  /** Injected for tests: time and sleeping. */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export type DbtOutcome = 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TIMED_OUT';

export interface DbtSyncResult {
  syncJobId: string;
  branch: string;
  status: DbtOutcome;
  timedOut: boolean;
  /** The job was cancelled (signal) and the remote run was cancelled. */
  cancelled: boolean;
  polls: number;
  error?: string;
}

const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

/** The deployment synced something other than the ref it was given. */
export class RefIgnoredError extends Error {
  override name = 'RefIgnoredError';
}

export async function dbtSyncAndWait(ctx: OpContext, input: DbtSyncInput): Promise<DbtSyncResult> {
  const { client, deploymentId, reporter } = ctx;
  const now = input.now ?? Date.now;
  const sleep = input.sleep ?? defaultSleep;
  const minPoll = input.minPollMs ?? 1_000;
  const maxPoll = input.maxPollMs ?? 45_000;
  const firstPoll = Math.min(maxPoll, input.firstPollMs ?? DEFAULTS.dbtFirstPollSeconds * 1000);
  if (ctx.dryRun) {
    reporter.info(
      `dry run: would start a dbt sync (ref ${input.ref ?? 'default'}, branch ${input.branchName ?? 'chosen by the platform'}) and wait up to ${input.timeoutMs} ms`,
    );
    return { syncJobId: '', branch: input.branchName ?? '', status: 'COMPLETED', timedOut: false, cancelled: false, polls: 0 };
  }
  const body: { ref?: string; branchName?: string; source?: 'git' | 'manifest' } = {};
  if (input.ref !== undefined) body.ref = input.ref;
  if (input.branchName !== undefined) body.branchName = input.branchName;
  if (input.source !== undefined) body.source = input.source;
  // Starting twice starts two syncs; only with a branch name can a repeat be recognised (409, and the
  // run is in the history under that name), so only then is a lost answer repeated.
  const started = await client.dbtSync.start(
    { deploymentId, body },
    body.branchName
      ? {
          signal: ctx.signal,
          settle: async () => {
            for await (const run of client.dbtSync.iterate({ deploymentId, query: { first: 100 } })) {
              if (run.branchName === body.branchName) return { branchName: run.branchName, syncJobId: run.syncJobId, workflowId: '' };
            }
            return undefined;
          },
        }
      : { signal: ctx.signal },
  );
  const id = started.syncJobId;
  reporter.info(`dbt sync ${id} started: generated models go to branch ${started.branchName}`);
  reporter.progress(`dbt sync ${id}: started`, 'waiting for its first status');
  const t0 = now();
  const deadline = t0 + input.timeoutMs;
  const args = { deploymentId, syncJobId: id };
  // Without a branch name of ours, the run's branch is the only evidence that `ref` was used.
  if (input.ref !== undefined && input.branchName === undefined) {
    const check = checkRefUsed(input.ref, started.branchName, (started as { refVerified?: unknown }).refVerified);
    if (check.verdict === 'unverified') reporter.notice(`dbt sync ${id}: could not check that ref ${input.ref} was used (${check.why})`);
    if (check.verdict === 'ignored') {
      await client.dbtSync.cancel(args, { timeoutMs: 10_000 }).catch(() => undefined);
      throw new RefIgnoredError(
        `dbt sync ${id} did not use ref ${JSON.stringify(input.ref)}: ${check.why}. This deployment syncs its saved branch instead (it may run an older version of the platform); the run was cancelled. Delete its branch ${started.branchName}, or set branch-name so the platform's answer can be checked.`,
      );
    }
  }

  let printed = 0;
  let polls = 0;
  const printLogs = async () => {
    const lines: DbtSyncLogEntry[] = [];
    for await (const line of client.dbtSync.iterateLogs(args, { signal: ctx.signal })) lines.push(line);
    printPhases(lines.slice(printed), reporter);
    printed = Math.max(printed, lines.length);
  };
  /**
   * The run's status, trimmed (an untrimmed value would never look terminal). A run is briefly
   * invisible after it starts: a 404 within the grace reads as "starting".
   */
  const readStatus = async (): Promise<DbtSyncStatusResponse> => {
    try {
      const s = await client.dbtSync.status(args, { signal: ctx.signal });
      return { ...s, status: s.status.trim().toUpperCase() };
    } catch (e) {
      if (!(e instanceof NotFoundError) || now() - t0 > DEFAULTS.dbtStartGraceMs) throw e;
      reporter.debug(`dbt sync ${id} not visible yet (${Math.round((now() - t0) / 1000)} s after its start)`);
      return { syncJobId: id, status: 'STARTING', progress: { stage: 'STARTING', percentComplete: 0 }, updatedAt: '' };
    }
  };

  const cancelRemote = async (why: string) => {
    try {
      await client.dbtSync.cancel(args, { timeoutMs: 10_000 });
      reporter.warning(`dbt sync ${id} cancelled: ${why}`);
    } catch (e) {
      // Already ended (409) or gone (404): nothing left to cancel.
      if (!(e instanceof ConflictError || e instanceof NotFoundError)) {
        reporter.warning(`could not cancel dbt sync ${id}: ${messageOf(e)}`);
      }
    }
  };

  let status: DbtSyncStatusResponse | undefined;
  let lastStage = '';
  try {
    let wait = firstPoll;
    for (;;) {
      await sleep(Math.max(0, Math.min(deadline - now(), wait)), ctx.signal);
      status = await readStatus();
      polls += 1;
      reporter.progress(
        `dbt sync ${id}: ${status.progress.stage}`,
        `${status.progress.percentComplete}%, ${Math.round((now() - t0) / 1000)} s since the start`,
      );
      if (status.status !== 'STARTING' && (status.progress.stage !== lastStage || TERMINAL.has(status.status))) {
        lastStage = status.progress.stage;
        await printLogs();
      }
      if (TERMINAL.has(status.status)) break;
      if (deadline - now() <= 0) break;
      wait = nextPollDelay(now() - t0, status.progress.percentComplete, minPoll, maxPoll);
      reporter.debug(`dbt sync ${id}: ${status.status} at ${status.progress.stage} (${status.progress.percentComplete}%), next poll in ${Math.round(wait)} ms`);
    }
  } catch (e) {
    if (ctx.signal?.aborted || e instanceof AbortedError) {
      await cancelRemote('the job was cancelled');
      return { syncJobId: id, branch: started.branchName, status: 'CANCELLED', timedOut: false, cancelled: true, polls };
    }
    throw e;
  }

  if (!TERMINAL.has(status.status)) {
    // At the deadline: one more look before calling it a timeout.
    status = await readStatus();
    polls += 1;
    if (!TERMINAL.has(status.status)) {
      await cancelRemote(`still ${status.status} after ${Math.round(input.timeoutMs / 1000)} s`);
      await printLogs().catch(() => undefined);
      return { syncJobId: id, branch: started.branchName, status: 'TIMED_OUT', timedOut: true, cancelled: false, polls, error: 'timed out' };
    }
    await printLogs();
  }
  reporter.progress('');
  const outcome = status.status as DbtOutcome;
  const error = status.error ?? undefined;
  if (outcome === 'COMPLETED') reporter.info(`dbt sync ${id} completed in ${Math.round((now() - t0) / 1000)} s (${polls} polls)`);
  else reporter.error(`dbt sync ${id} ${outcome === 'CANCELLED' ? 'was cancelled' : 'failed'}: ${error ?? outcome}`);
  // The status endpoint reports a cancelled run as a failure whose reason says cancelled.
  const final: DbtOutcome = outcome === 'FAILED' && /cancel/i.test(error ?? '') ? 'CANCELLED' : outcome;
  return { syncJobId: id, branch: started.branchName, status: final, timedOut: false, cancelled: false, polls, ...(error ? { error } : {}) };
}
