import { ConnectionError, PlatformError, TimeoutError } from './errors.js';

export interface RetryPolicy {
  /** Total attempts including the first (1 = never retry). */
  maxAttempts: number;
  /** Base of the exponential backoff, in ms. */
  baseDelayMs: number;
  /** Cap of a single computed wait, in ms (Retry-After may ask for more, up to the deadline). */
  maxDelayMs: number;
  /** Overall budget for one call including all waits, in ms. */
  deadlineMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 8,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  deadlineMs: 120_000,
};

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const RETRY_STATUS = (s: number) => s === 408 || s === 429 || s >= 500;

/**
 * Decide whether a failed attempt may be repeated. Idempotent methods retry on 408, 429, 5xx,
 * connection errors and timeouts; other methods only when the request never reached the server,
 * or when the endpoint is known to be idempotent.
 */
export function isRetryable(error: unknown, method: string, endpointIdempotent: boolean): boolean {
  if (!(error instanceof PlatformError)) return false;
  const idempotent = endpointIdempotent || IDEMPOTENT.has(method);
  if (error instanceof ConnectionError) return idempotent || !error.sent;
  if (error instanceof TimeoutError) return idempotent;
  // A POST that got an answer reached the server: not repeated here, even on a 429. The operations
  // repeat one where they know repeating is harmless (src/workflows/context.ts retryTransient).
  if (error.status !== undefined && RETRY_STATUS(error.status)) return idempotent;
  return false;
}

/** Full-jitter exponential backoff: a random wait in [0, min(cap, base * 2^attempt)). */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/** Parse Retry-After: delta-seconds or an HTTP date. Returns seconds (>= 0) or undefined. */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, (at - now) / 1000);
}

/** Sleep that ends early (rejecting) when the signal fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
