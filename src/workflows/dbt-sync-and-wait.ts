/**
 * dbt-sync-and-wait: start a sync, poll it until it ends or the deadline passes (at the run's predicted
 * end, see `nextPollDelay`), print new log lines grouped by phase, check once more at the deadline, and
 * cancel the remote run (DELETE) on timeout or when the job is cancelled (the signal).
 */
import { AbortedError, ConflictError, NotFoundError } from '../client/errors.js';
import type { DbtSyncLogEntry, DbtSyncStatusResponse } from '@datamodel-ci/platform-api';
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
   * Wait before the first look (ms), default 20 s (at most `maxPollMs`). Progress comes in whole
   * percents: read too early it says little about the end, and a poll spent on it is wasted.
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

/**
 * The next wait, within [minMs, maxMs]. `percent` is whole (rounded down), so after `elapsedMs` the run
 * ends between `elapsedMs * 100 / (percent + 1)` (earliest) and `elapsedMs * 100 / percent` (latest).
 * The next poll is at the latest end (plus `minMs / 2`), but never more than `stepMs` after the
 * earliest: a run that ends anywhere in between is noticed within `stepMs` (default 2 x `minMs`),
 * and a long run is polled about once per `maxMs` until its end comes near.
 */
export function nextPollDelay(elapsedMs: number, percent: number, minMs: number, maxMs: number, stepMs = 2 * minMs): number {
  const clamp = (ms: number) => Math.ceil(Math.min(maxMs, Math.max(minMs, ms)));
  // Below 1 %, the run lasts more than 100 x what has elapsed.
  if (percent <= 0) return clamp(elapsedMs * 99);
  if (percent >= 100) return minMs;
  const earliest = Math.max(0, (elapsedMs * 100) / (percent + 1) - elapsedMs);
  const latest = (elapsedMs * 100) / percent - elapsedMs;
  return clamp(Math.min(earliest + stepMs, latest + minMs / 2));
}

export async function dbtSyncAndWait(ctx: OpContext, input: DbtSyncInput): Promise<DbtSyncResult> {
  const { client, deploymentId, reporter } = ctx;
  const now = input.now ?? Date.now;
  const sleep = input.sleep ?? defaultSleep;
  const minPoll = input.minPollMs ?? 1_000;
  const maxPoll = input.maxPollMs ?? 45_000;
  const firstPoll = Math.min(maxPoll, input.firstPollMs ?? 20_000);
  if (ctx.dryRun) {
    reporter.info(`dry run: would start a dbt sync (ref ${input.ref ?? 'default'}, branch ${input.branchName ?? 'chosen by the platform'}) and wait up to ${input.timeoutMs} ms`);
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
  const t0 = now();
  const deadline = t0 + input.timeoutMs;
  const args = { deploymentId, syncJobId: id };

  let printed = 0;
  let polls = 0;
  const printLogs = async () => {
    const logs = await client.dbtSync.logs(args);
    const fresh = logs.items.slice(printed);
    printed = logs.items.length;
    printPhases(fresh, reporter);
  };

  const cancelRemote = async (why: string) => {
    try {
      await client.dbtSync.cancel(args, { timeoutMs: 10_000 });
      reporter.warning(`dbt sync ${id} cancelled: ${why}`);
    } catch (e) {
      // Already ended (409) or gone (404): nothing left to cancel.
      if (!(e instanceof ConflictError || e instanceof NotFoundError)) {
        reporter.warning(`could not cancel dbt sync ${id}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  };

  let status: DbtSyncStatusResponse | undefined;
  let lastStage = '';
  try {
    let wait = firstPoll;
    for (;;) {
      await sleep(Math.max(0, Math.min(deadline - now(), wait)), ctx.signal);
      status = await client.dbtSync.status(args, { signal: ctx.signal });
      polls += 1;
      if (status.progress.stage !== lastStage || TERMINAL.has(status.status)) {
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
    status = await client.dbtSync.status(args);
    polls += 1;
    if (!TERMINAL.has(status.status)) {
      await cancelRemote(`still ${status.status} after ${Math.round(input.timeoutMs / 1000)} s`);
      await printLogs().catch(() => undefined);
      return { syncJobId: id, branch: started.branchName, status: 'TIMED_OUT', timedOut: true, cancelled: false, polls, error: 'timed out' };
    }
    await printLogs();
  }
  const outcome = status.status as DbtOutcome;
  const error = status.error ?? undefined;
  if (outcome === 'COMPLETED') reporter.info(`dbt sync ${id} completed in ${Math.round((now() - t0) / 1000)} s (${polls} polls)`);
  else reporter.error(`dbt sync ${id} ${outcome === 'CANCELLED' ? 'was cancelled' : 'failed'}: ${error ?? outcome}`);
  // The status endpoint reports a cancelled run as a failure whose reason says cancelled.
  const final: DbtOutcome = outcome === 'FAILED' && /cancel/i.test(error ?? '') ? 'CANCELLED' : outcome;
  return { syncJobId: id, branch: started.branchName, status: final, timedOut: false, cancelled: false, polls, ...(error ? { error } : {}) };
}

/** Print log lines grouped by phase, each group titled with the phase's duration. */
export function printPhases(lines: DbtSyncLogEntry[], reporter: OpContext['reporter']): void {
  const groups: { phase: string; duration: number | null | undefined; lines: DbtSyncLogEntry[] }[] = [];
  for (const line of lines) {
    const phase = line.phase ?? 'sync';
    const last = groups.at(-1);
    if (last && last.phase === phase) {
      last.lines.push(line);
      last.duration = line.durationMs ?? last.duration;
    } else groups.push({ phase, duration: line.durationMs, lines: [line] });
  }
  for (const g of groups) {
    const secs = g.duration != null ? ` (${(g.duration / 1000).toFixed(1)} s)` : '';
    reporter.info(`── ${g.phase}${secs}`);
    for (const l of g.lines) {
      const text = `   ${l.timestamp} ${l.message}`;
      if (l.level === 'error') reporter.error(l.message, { title: `dbt ${g.phase}` });
      else reporter.info(text);
    }
  }
}
