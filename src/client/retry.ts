/**
 * The one retry policy of the client: which failures are repeated, how long to wait, and when to stop.
 * Every request goes through `retrying` exactly once (raw sends and endpoint calls alike), so attempts
 * never multiply across layers.
 */
import { DEFAULTS } from '../defaults.js';
import { AbortedError, ConnectionError, PlatformError, TimeoutError } from './errors.js';

export interface RetryPolicy {
  /** Total attempts including the first (1 = never retry): only a safety bound; the deadline is what ends retries. */
  maxAttempts: number;
  /** Base of the exponential backoff, in ms. */
  baseDelayMs: number;
  /** Cap of a single computed wait, in ms (Retry-After may ask for more, up to the deadline). */
  maxDelayMs: number;
  /** Budget of one call including all waits, in ms, unless the caller gives an operation deadline. */
  deadlineMs: number;
}

// WHY a deadline and not a count: under a storm of 5xx and 429 (half the answers failing), eight tries
// in a row fail often enough to end a run; a time budget per operation survives it and still ends.
export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 40,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  deadlineMs: DEFAULTS.operationDeadlineMs,
};

/**
 * How a request may be repeated:
 * - `idempotent`: GET, PUT, DELETE, or a write the caller declares harmless to repeat;
 * - `checked`: a write whose effect the caller can check (`settle`) before it is repeated;
 * - `once`: any other write, repeated only when it cannot have reached the server (or was refused with 429).
 */
export type RepeatMode = 'idempotent' | 'checked' | 'once';

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

export function repeatModeOf(method: string, declared: { repeatable?: boolean; checked?: boolean }): RepeatMode {
  if (declared.repeatable || IDEMPOTENT_METHODS.has(method)) return 'idempotent';
  return declared.checked ? 'checked' : 'once';
}

/** A failure after which the request may or may not have taken effect. */
function uncertain(error: PlatformError): boolean {
  if (error instanceof ConnectionError) return error.sent;
  if (error instanceof TimeoutError) return true;
  return error.status === 408 || (error.status !== undefined && error.status >= 500);
}

/** What to do after a failed attempt: repeat it, check its effect first, or give up. */
export function classify(error: unknown, mode: RepeatMode): 'retry' | 'check' | 'stop' {
  if (!(error instanceof PlatformError) || error instanceof AbortedError) return 'stop';
  if (error instanceof ConnectionError && PERMANENT_CODES.has(error.code ?? '')) return 'stop';
  // 429 and a connection that never carried the request: the server did not act on it.
  if (error.status === 429 || (error instanceof ConnectionError && !error.sent)) return 'retry';
  if (!uncertain(error)) return 'stop';
  if (mode === 'idempotent') return 'retry';
  return mode === 'checked' ? 'check' : 'stop';
}

/** Failures that repeat on every try: TLS verification, a wrong host name. */
const PERMANENT_CODES = new Set([
  'ENOTFOUND',
  // The proxy refused the tunnel (a 407 wants credentials): asking again changes nothing.
  'PROXY_REFUSED',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

/** The retry about to happen: which attempt comes next, of how many at most, and after what wait. */
export interface RetryInfo {
  label: string;
  /** 2 for the first retry. */
  attempt: number;
  delayMs: number;
  /** Until the operation's deadline: retries stop there, not after a count. */
  secondsLeft: number;
}

export interface RetryRun<T> {
  policy: RetryPolicy;
  mode: RepeatMode;
  /** `GET /path`, for the log lines. */
  label: string;
  /** Absolute time (ms) after which no attempt starts: the operation's deadline, else `deadlineMs` from now. */
  deadline?: number;
  /**
   * Whether a write whose outcome is unknown took effect: the result to return when it did, undefined
   * when it did not (then it is repeated). Also asked when a repeat fails for good (a 404 or 409 can mean
   * the first attempt landed).
   */
  settle?: (error: PlatformError) => Promise<T | undefined>;
  signal?: AbortSignal;
  /** Told about every failure that is about to be retried (a caller can slow down, a person be told). */
  onRetry?: (error: PlatformError, next: RetryInfo) => void;
  /** A failure the server meant as its answer (the data API's own 500 `{ error }`): never repeated. */
  final?: (error: PlatformError) => boolean;
  debug: (message: string) => void;
  random?: () => number;
  /** Build the error thrown when the caller aborts during a wait. */
  aborted: () => PlatformError;
  /** Whether the host has answered once: a host that never did gets a short budget (a wrong address, not a blip). */
  hostAnswered?: () => boolean;
}

/** Failures before any connection: nothing was ever reached at that address. */
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The time retries may go on until: the operation's deadline, shorter for a host that never answered. */
function retryLimit(run: RetryRun<unknown>, error: PlatformError, started: number, deadline: number): number {
  const unreached = error instanceof ConnectionError && NEVER_CONNECTED.has(error.code ?? '') && run.hostAnswered?.() === false;
  return unreached ? Math.min(deadline, started + DEFAULTS.unreachedHostBudgetMs) : deadline;
}

/** Run `attempt` until it succeeds or the policy says stop; every wait is logged. */
export async function retrying<T>(attempt: () => Promise<T>, run: RetryRun<T>): Promise<T> {
  const deadline = run.deadline ?? Date.now() + run.policy.deadlineMs;
  const started = Date.now();
  let maybeLanded = false;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      const pe = error as PlatformError;
      let decision = error instanceof PlatformError && run.final?.(pe) ? 'stop' : classify(error, run.mode);
      if (decision === 'stop' && maybeLanded && run.settle && error instanceof PlatformError && !(error instanceof AbortedError)) {
        const settled = await settleChecked(run, pe, deadline);
        if (settled !== undefined) return settled;
      }
      if (decision === 'check') {
        const settled = await settleChecked(run, pe, deadline);
        if (settled !== undefined) return settled;
        decision = 'retry';
      }
      if (decision === 'stop' || n >= run.policy.maxAttempts) throw error;
      if (uncertain(pe)) maybeLanded = true;
      let wait = backoffDelay(n, run.policy, run.random);
      if (pe.retryAfterSeconds !== undefined) wait = Math.max(wait, Math.ceil(pe.retryAfterSeconds * 1000));
      const limit = retryLimit(run, pe, started, deadline);
      if (Date.now() + wait > limit) {
        const left = Math.max(0, limit - Date.now());
        run.debug(`not retrying ${run.label}: waiting ${wait} ms would pass the deadline (${left} ms left)`);
        // Say why the run gave up: a Retry-After longer than the time left is not obeyed.
        if (pe.retryAfterSeconds !== undefined && pe.retryAfterSeconds * 1000 > left) {
          pe.message += ` (the platform asked to wait ${pe.retryAfterSeconds} s before retrying, past this operation's deadline: ${Math.ceil(left / 1000)} s left)`;
        }
        throw error;
      }
      run.debug(`retrying ${run.label} in ${wait} ms (attempt ${n + 1}) after: ${pe.message}`);
      run.onRetry?.(pe, { label: run.label, attempt: n + 1, delayMs: wait, secondsLeft: Math.max(0, Math.round((limit - Date.now()) / 1000)) });
      await pause(run, wait);
    }
  }
}

async function pause(run: RetryRun<unknown>, ms: number): Promise<void> {
  try {
    await sleep(ms, run.signal);
  } catch {
    throw run.aborted();
  }
}

/**
 * Ask `settle` whether a write landed. The check is a read: when it fails on a passing fault (5xx,
 * 429, a lost connection) it is asked again, never the write, until the operation's deadline.
 */
async function settleChecked<T>(run: RetryRun<T>, cause: PlatformError, deadline: number): Promise<T | undefined> {
  run.debug(`checking whether ${run.label} took effect after: ${cause.message}`);
  for (let n = 1; ; n++) {
    try {
      return await run.settle!(cause);
    } catch (error) {
      if (classify(error, 'idempotent') !== 'retry') throw error;
      const wait = backoffDelay(n, run.policy, run.random);
      if (Date.now() + wait > deadline) throw error;
      run.debug(`checking whether ${run.label} took effect again in ${wait} ms after: ${(error as Error).message}`);
      await pause(run, wait);
    }
  }
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

/** Sleep that ends early (rejecting with the signal's reason) when the signal fires. The one sleep of the project. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the caller's abort reason, passed on as Node's abortable APIs do
    const abort = () => reject(signal?.reason);
    if (signal?.aborted) return abort();
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      abort();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
