/** What every operation gets: the client, the deployment, a reporter, dry-run and cancellation. */
import { NotFoundError } from '../client/errors.js';
import type { PlatformClient } from '../client/client.js';
import type { Reporter } from '../report/reporter.js';

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
