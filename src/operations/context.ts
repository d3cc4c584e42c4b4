/** What every operation gets: the client, the deployment, a reporter, dry-run and cancellation. */
import { NotFoundError } from '../client/errors.js';
import type { PlatformClient } from '../client/client.js';
import type { RequestOptions } from '../client/http.js';
import { DEFAULTS } from '../defaults.js';
import type { Reporter } from '../report/reporter.js';
import type { RunLedger } from './ledger.js';

export interface OpContext {
  client: PlatformClient;
  deploymentId: number;
  reporter: Reporter;
  /** Print the calls a mutating step would make, and make none. */
  dryRun: boolean;
  signal?: AbortSignal;
  /** The per-request timeout the user set, ms (git-bound writes and data-API calls get at least their own floor). */
  requestTimeoutMs?: number;
  /** The trusted CA of the connection (`ca-cert`): the platform's, and its deployments' data API alike. */
  ca?: string;
  /**
   * Name files from the project root (`useDeployProjectRoot`) in the hashes and the upload calls: a
   * deployment connected to a repository whose project is a folder of it (doctor checks the answer).
   */
  useDeployProjectRoot?: boolean;
  /**
   * What this pull request's runs made, as its comment's ledger remembers it, plus what this run makes: the
   * evidence the door's steps need (`ledgerOf(ctx)`; none given: nothing on the platform is this run's yet).
   */
  ledger?: RunLedger;
}

/**
 * Options of a git-bound write (`upload/finish`, commit, merges): it commits to the platform's git
 * repository and may take long, so it gets at least `DEFAULTS.gitWriteTimeoutMs` for an answer.
 */
export function gitWrite(ctx: OpContext): RequestOptions {
  const timeoutMs = Math.max(DEFAULTS.gitWriteTimeoutMs, ctx.requestTimeoutMs ?? 0);
  // The operation's deadline leaves room for retries after one attempt that used its whole timeout:
  // a write whose answer hung is then checked and, when it did not land, sent again.
  return { ...(ctx.signal ? { signal: ctx.signal } : {}), timeoutMs, deadline: Date.now() + timeoutMs + DEFAULTS.operationDeadlineMs };
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
