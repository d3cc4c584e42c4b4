/**
 * upload-model: put the local model on the shared branch, sending only new and changed files. The
 * vendor's way first: one upload transaction straight to the shared branch (`deploy --branch`). A
 * tenant that refuses direct uploads to a shared branch gets the vendor's dev-mode recipe instead:
 * upload to the credential's fork, `commit` (which pushes the fork's edits to the shared branch it was
 * forked from), then release dev mode and delete the fork. Afterwards the shared branch holds exactly
 * the local files, and no fork or session is left behind, also when a step fails.
 */
import { isDevBranch } from '@datamodel-ci/platform-api';
import { BadRequestError, PermissionDeniedError, messageOf } from '../client/errors.js';
import { gitWrite, type OpContext } from './context.js';
import { deleteFork } from './door.js';
import { ledgerOf } from './ledger.js';
import type { LocalFile, PathFilter } from '../model/local-model.js';
import { openDevMode } from './start-dev-branch.js';
import { holds, manifestOf, uploadTransaction, type TransactionInput, type TransactionResult } from './upload-transaction.js';
import { plural } from '../report/plural.js';

/** How the model reaches the shared branch: `auto` tries a direct upload and falls back to dev mode. */
export type UploadVia = 'auto' | 'direct' | 'dev-mode';

export interface UploadInput {
  branch: string;
  modelDir: string;
  /** The local model, read, hashed and checked by the caller (`readLocalModel`, exclude honoured) before its first platform call. */
  local: LocalFile[];
  concurrency: number;
  commitMessage: string;
  via?: UploadVia;
  /** Asked before the upload is committed: true stops it (a newer run owns the PR). */
  isStale?: () => Promise<boolean>;
  /** Called right before the files land (finish, or commit of the fork): a caller marks the build status then. */
  beforeLanding?: () => Promise<void>;
  /**
   * Called as soon as the upload is done on the shared branch (a caller can start validating): `landed`
   * when files landed (a finish or a commit, after `beforeLanding`), else the branch held them already.
   */
  onLanded?: (lastHash: string | undefined, landed: boolean, digest: string) => void;
  /** Allow an upload that deletes most of the branch's model (input `allow-model-deletion`). */
  allowModelDeletion?: boolean;
  /** Remote paths `exclude` leaves out (as the model's paths): kept on the branch, never pruned. */
  excluded?: PathFilter;
  /** Land even when nothing changed (see TransactionInput): the caller has no evidence yet of a build of what the branch holds. */
  alwaysFinish?: TransactionInput['alwaysFinish'];
}

export interface UploadResult {
  branch: string;
  /** The dev-mode fork the upload went through (dev-mode path only). */
  devBranch: string | undefined;
  via: 'direct' | 'dev-mode' | 'none';
  /** Files sent (new or changed). */
  uploaded: number;
  /** Files deleted on the platform. */
  deleted: number;
  unchanged: number;
  bytes: number;
  /** Nothing was committed because a newer run owns the PR. */
  stale: boolean;
  files: { sent: string[]; deleted: string[] };
  /** The commit that holds the model, when the platform reported it. */
  lastHash?: string;
  /** Files landed on the shared branch in this upload (a finish, or the fork's commit). */
  landed: boolean;
  /** The digest of the shared branch's model afterwards (over the files the walk reads). */
  digest: string;
}

/** A refusal of a direct upload to a shared branch (the tenant takes uploads on dev-mode forks only). */
export function refusesDirectUpload(e: unknown): boolean {
  return (e instanceof BadRequestError || e instanceof PermissionDeniedError) && /dev-?mode/i.test(e.platformMessage ?? '');
}

function result(input: UploadInput, t: TransactionResult, via: UploadResult['via'], devBranch?: string): UploadResult {
  return {
    branch: input.branch,
    devBranch,
    via,
    uploaded: t.sent.length,
    deleted: t.removed.length,
    unchanged: t.unchanged,
    bytes: t.bytes,
    stale: t.stopped,
    files: { sent: t.sent, deleted: t.removed },
    ...(t.lastHash ? { lastHash: t.lastHash } : {}),
    landed: t.finished && !t.stopped,
    digest: t.digest,
  };
}

export async function uploadModel(ctx: OpContext, input: UploadInput): Promise<UploadResult> {
  const { local } = input;
  if (ctx.dryRun) return dryRunPlan(ctx, input, local);
  const via = input.via ?? 'auto';
  if (via === 'dev-mode') return viaDevMode(ctx, input, local);
  try {
    return await direct(ctx, input, local);
  } catch (e) {
    if (via !== 'auto' || !refusesDirectUpload(e)) throw e;
    ctx.reporter.notice(
      `this tenant refuses direct uploads to a shared branch (${(e as Error).message}); uploading through dev mode instead (set upload-via: dev-mode to skip the first try)`,
    );
    return viaDevMode(ctx, input, local);
  }
}

async function dryRunPlan(ctx: OpContext, input: UploadInput, local: LocalFile[]): Promise<UploadResult> {
  const guard = { modelDir: input.modelDir, allow: input.allowModelDeletion ?? false };
  const t = await uploadTransaction(ctx, {
    branch: input.branch,
    local,
    concurrency: input.concurrency,
    commitMessage: input.commitMessage,
    guard,
    planOnly: true,
    excluded: input.excluded,
  });
  ctx.reporter.info(
    `dry run: would upload ${plural(t.sent.length, 'file')} (${t.sent.join(', ') || 'none'}) to ${input.branch} and delete ${t.removed.length} (${t.removed.join(', ') || 'none'})`,
  );
  return result(input, t, 'none');
}

/** Straight to the shared branch; when another writer's files land in between, start over (twice at most). */
async function direct(ctx: OpContext, input: UploadInput, local: LocalFile[]): Promise<UploadResult> {
  const manifest = manifestOf(local);
  for (let attempt = 1; ; attempt++) {
    const t = await uploadTransaction(ctx, {
      branch: input.branch,
      local,
      concurrency: input.concurrency,
      commitMessage: input.commitMessage,
      guard: { modelDir: input.modelDir, allow: input.allowModelDeletion ?? false },
      stopBeforeFinish: input.isStale,
      beforeFinish: input.beforeLanding,
      excluded: input.excluded,
      alwaysFinish: attempt === 1 ? input.alwaysFinish : true,
    });
    if (t.stopped) {
      ctx.reporter.notice(`a newer run owns this pull request: not committing to ${input.branch}`);
      return result(input, t, 'direct');
    }
    input.onLanded?.(t.lastHash, t.finished, t.digest);
    // Another run of the PR can finish between this run's finish and now: check what the branch holds.
    if (!t.finished || (await holds(ctx, input.branch, manifest, input.excluded))) {
      ctx.reporter.info(`${input.branch}: ${t.sent.length} sent, ${t.removed.length} deleted, ${t.unchanged} unchanged`);
      return result(input, t, t.finished ? 'direct' : 'none');
    }
    if (input.isStale && (await input.isStale())) {
      ctx.reporter.notice(`a newer run owns this pull request and wrote ${input.branch}: stopping`);
      return { ...result(input, t, 'direct'), stale: true };
    }
    if (attempt >= 3) throw new Error(`${input.branch} does not hold this run's files after 3 uploads: another writer keeps changing it`);
    ctx.reporter.warning(`${input.branch} changed under this upload (another writer); uploading again`);
  }
}

/**
 * The vendor's dev-mode recipe: fork, upload to the fork, commit (to the shared branch), delete the fork,
 * which ends the session on it (never `DELETE …/dev-mode`: per credential, it may end another run's).
 */
async function viaDevMode(ctx: OpContext, input: UploadInput, local: LocalFile[]): Promise<UploadResult> {
  const { client, deploymentId } = ctx;
  const fork = await openDevMode(ctx, input.branch);
  if (!fork || !isDevBranch(fork) || fork === input.branch) {
    throw new Error(`dev mode on ${input.branch} answered without a dev- fork (${JSON.stringify(fork ?? null)}): nothing safe to write to`);
  }
  try {
    const t = await uploadTransaction(ctx, {
      branch: fork,
      local,
      concurrency: input.concurrency,
      commitMessage: input.commitMessage,
      guard: { modelDir: input.modelDir, allow: input.allowModelDeletion ?? false },
      excluded: input.excluded,
      alwaysFinish: input.alwaysFinish,
    });
    if (input.isStale && (await input.isStale())) {
      ctx.reporter.notice(`a newer run owns this pull request: not committing ${fork} to ${input.branch}`);
      return { ...result(input, t, 'dev-mode', fork), stale: true };
    }
    // Nothing changed on the fork (forked from the shared branch): the shared branch holds the model already.
    if (!t.finished) {
      input.onLanded?.(undefined, false, t.digest);
      return { ...result(input, t, 'dev-mode', fork), landed: false };
    }
    const manifest = manifestOf(local);
    await input.beforeLanding?.();
    // Commit pushes the fork's edits to the shared branch it was forked from.
    await client.branches.commit(
      { deploymentId, body: { branchName: fork, message: input.commitMessage } },
      { ...gitWrite(ctx), settle: async () => ((await holds(ctx, input.branch, manifest, input.excluded)) ? { success: true } : undefined) },
    );
    if (!(await holds(ctx, input.branch, manifest, input.excluded))) {
      throw new Error(`${input.branch} does not hold this run's files after committing ${fork} (another writer changed it)`);
    }
    input.onLanded?.(undefined, true, t.digest);
    return result(input, t, 'dev-mode', fork);
  } finally {
    // Leave nothing behind: the fork this run opened, and with it the session on it.
    const own = ledgerOf(ctx).fork(fork, input.branch);
    if (own) await deleteFork(ctx, own).catch((e: unknown) => ctx.reporter.warning(`could not delete dev branch ${fork}: ${messageOf(e)}`));
  }
}
