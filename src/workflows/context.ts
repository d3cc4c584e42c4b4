/** What every operation gets: the client, the deployment, a reporter, dry-run and cancellation. */
import { NotFoundError, PlatformError } from '../client/errors.js';
import { sleep } from '../client/retry.js';
import type { PlatformClient } from '../client/client.js';
import type { Reporter } from './reporter.js';

export interface OpContext {
  client: PlatformClient;
  deploymentId: number;
  reporter: Reporter;
  /** Print the calls a mutating step would make, and make none. */
  dryRun: boolean;
  signal?: AbortSignal;
}

/** Run a mutating call, or in dry-run mode only say what it would do. */
export async function mutate<T>(ctx: OpContext, description: string, fn: () => Promise<T>): Promise<T | undefined> {
  if (ctx.dryRun) {
    ctx.reporter.info(`dry run: would ${description}`);
    return undefined;
  }
  ctx.reporter.debug(description);
  return fn();
}

/** A call whose 404 means "already gone": returns false then. */
export async function ignoreNotFound(fn: () => Promise<unknown>): Promise<boolean> {
  try {
    await fn();
    return true;
  } catch (e) {
    if (e instanceof NotFoundError) return false;
    throw e;
  }
}

/** A failure worth repeating the call for: 5xx, 429, no response, timeout (not the caller's abort). */
export function isTransient(e: unknown): e is PlatformError {
  return e instanceof PlatformError && e.name !== 'AbortedError' && (e.status === undefined || e.status === 429 || e.status >= 500);
}

export interface RetryOptions<T> {
  attempts?: number;
  baseMs?: number;
  /**
   * Called when a repeat (after a transient failure) fails for good, e.g. 404 because the first try
   * did take effect before its answer was lost. Return a value when the platform shows the work done;
   * return undefined to report the error.
   */
  afterRepeat?: (error: unknown) => Promise<T | undefined>;
  signal?: AbortSignal;
}

/**
 * Repeat a call on transient failures. For calls whose repetition is harmless (same file in the same
 * transaction, opening the same dev branch) or whose double effect `afterRepeat` recognises.
 */
export async function retryTransient<T>(fn: () => Promise<T>, options: RetryOptions<T> = {}): Promise<T> {
  const attempts = options.attempts ?? 6;
  const baseMs = options.baseMs ?? 300;
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (e) {
      if (!isTransient(e)) {
        if (i > 1 && options.afterRepeat) {
          const settled = await options.afterRepeat(e);
          if (settled !== undefined) return settled;
        }
        throw e;
      }
      if (i >= attempts || options.signal?.aborted) throw e;
      const wait = Math.max(baseMs * 2 ** (i - 1), (e.retryAfterSeconds ?? 0) * 1000);
      await sleep(Math.random() * wait, options.signal);
    }
  }
}
