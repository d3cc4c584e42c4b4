/**
 * One upload transaction to a named branch, as the vendor's `deploy --branch` makes it: the branch's
 * file hashes, `upload/start`, the new and changed files, then `upload/finish` with the full manifest,
 * which commits, removes what the manifest lacks and starts one build. Every call names the branch
 * (query and body): a credential's dev-mode session is never relied on.
 */
import { createHash } from 'node:crypto';
import type { FileHashes } from '@datamodel-ci/platform-api';
import { DEFAULTS } from '../defaults.js';
import { AdaptivePool } from './adaptive-pool.js';
import type { OpContext } from './context.js';
import { finishUpload } from './door.js';
import { attest } from './evidence.js';
import { readLocal, skippedPath, type LocalFile, type PathFilter } from '../model/local-model.js';
import { guardModelDeletion } from '../model/guard.js';
import { formatBytes, plural } from '../report/plural.js';

/** POSIX path -> `{ hash }`: the shape of `file-hashes` and of the finish manifest. */
export type Manifest = Record<string, { hash: string }>;

export function manifestOf(local: readonly LocalFile[]): Manifest {
  const m: Manifest = {};
  for (const f of local) m[f.path] = { hash: f.sha1 };
  return m;
}

/** The digest of a model: SHA-1 over its sorted `path hash` lines (the ledger keeps this, not every file). */
export function digestOf(manifest: Manifest): string {
  const lines = Object.keys(manifest)
    .sort()
    .map((p) => `${p} ${manifest[p]?.hash ?? ''}\n`);
  return createHash('sha1').update(lines.join('')).digest('hex');
}

/** Two trees hold the same files. */
export function sameTree(a: Manifest, b: Manifest): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => b[k]?.hash === a[k]?.hash);
}

/**
 * Compare local hashes with the remote ones. A remote file the walk never looks at (a dotfile such as a
 * connected repository's `.github/`, `node_modules`) or one `exclude` leaves out (a folder the platform
 * writes, say) is kept: listed in the manifest with its remote hash, never removed. Only a file the walk
 * reads and did not find is pruned.
 */
export function plan(local: readonly LocalFile[], remote: Manifest, options: { keepRemote?: boolean; excluded?: PathFilter } = {}) {
  const localPaths = new Set(local.map((f) => f.path));
  const send = local.filter((f) => remote[f.path]?.hash !== f.sha1);
  const kept: Manifest = {};
  const keep = (path: string) => options.keepRemote || skippedPath(path) || !!options.excluded?.(path);
  for (const [path, entry] of Object.entries(remote)) if (!localPaths.has(path) && keep(path)) kept[path] = { hash: entry.hash };
  const remove = Object.keys(remote)
    .filter((p) => !localPaths.has(p) && !(p in kept))
    .sort();
  return { send, remove, kept, unchanged: local.length - send.length };
}

/** The query that names files from the project root, on a deployment that asks for it. */
const rooted = (ctx: OpContext) => (ctx.useDeployProjectRoot ? { useDeployProjectRoot: true } : {});

/** The branch's files with their hashes. */
export async function remoteTree(ctx: OpContext, branch: string): Promise<FileHashes> {
  return ctx.client.dataModel.fileHashes({ deploymentId: ctx.deploymentId, query: { branchName: branch, ...rooted(ctx) } }, { signal: ctx.signal });
}

/** A tree as the walk sees it: the files it never reads (dotfiles, `node_modules`), and those `excluded` leaves out, left out. */
export function walked(tree: Manifest, excluded?: PathFilter): Manifest {
  return Object.fromEntries(Object.entries(tree).filter(([path]) => !skippedPath(path) && !excluded?.(path)));
}

/** The branch holds exactly `manifest`, of the files the walk reads (to recognise a write whose answer was lost). */
export async function holds(ctx: OpContext, branch: string, manifest: Manifest, excluded?: PathFilter): Promise<boolean> {
  return sameTree(walked(await remoteTree(ctx, branch), excluded), walked(manifest, excluded));
}

export interface TransactionInput {
  branch: string;
  local: readonly LocalFile[];
  /** Files uploaded in parallel at most; the pool starts lower and grows while answers stay healthy. */
  concurrency: number;
  commitMessage: string;
  /** Asked while the files upload, and awaited before `finish`: true stops the transaction unfinished (a newer run owns the PR). */
  stopBeforeFinish?: () => Promise<boolean>;
  /**
   * Finish even when nothing changed: `finish` is what starts the build (the vendor's `deploy` always
   * finishes, so a production deploy rebuilds even when the deploy branch already holds the files). A
   * function decides from the digest of what the branch holds (`true`: no evidence yet of a build of it).
   */
  alwaysFinish?: boolean | ((digest: string) => boolean);
  /** Stop after the plan and the guard, writing nothing (a dry run: a branch it did not create reads as empty). */
  planOnly?: boolean;
  /** Refuse an upload that would wipe the branch's model (a wrong model-dir) unless `allow`. */
  guard?: { modelDir: string; allow: boolean };
  /** Called right before `finish` (a caller marks the build status it must see replaced). */
  beforeFinish?: () => Promise<void>;
  /** Add and change files only, removing none (the doctor's files on a branch that mirrors a repository). */
  keepRemote?: boolean;
  /** The remote paths `exclude` leaves out of the walk (as the model's paths): kept on the branch as they are. */
  excluded?: PathFilter;
}

export interface TransactionResult {
  sent: string[];
  removed: string[];
  unchanged: number;
  bytes: number;
  /** `finish` ran (false when the branch already held the model, or the run stopped). */
  finished: boolean;
  /** Stopped by `stopBeforeFinish`. */
  stopped: boolean;
  /** The commit `finish` reported, when it did. */
  lastHash?: string;
  /** The digest of the branch's model once the transaction is done (`digestOf`, over the files the walk reads). */
  digest: string;
}

export async function uploadTransaction(ctx: OpContext, input: TransactionInput): Promise<TransactionResult> {
  const { client, deploymentId, reporter } = ctx;
  const branchName = input.branch;
  const remote = await remoteTree(ctx, branchName).catch((e: unknown) => {
    if (input.planOnly) return {};
    throw e;
  });
  const p = plan(input.local, remote, { keepRemote: input.keepRemote, excluded: input.excluded });
  // `finish` removes what its manifest lacks: the files the walk skips or excludes stay listed, as the branch holds them.
  const manifest = { ...p.kept, ...manifestOf(input.local) };
  // The door's evidence: this manifest prunes only files the walk reads and did not find.
  const prune = attest('prune', { branch: branchName, manifest, removed: p.remove });
  if (Object.keys(p.kept).length) reporter.debug(`kept on ${branchName} (never uploaded from here): ${Object.keys(p.kept).join(', ')}`);
  if (input.guard) {
    await guardModelDeletion({
      branch: branchName,
      modelDir: input.guard.modelDir,
      local: input.local.map((f) => f.path),
      remote: Object.keys(remote),
      remove: p.remove,
      allow: input.guard.allow,
    });
  }
  const digest = digestOf(walked(manifest));
  const base = { sent: p.send.map((f) => f.path), removed: p.remove, unchanged: p.unchanged, bytes: 0, digest };
  if (input.planOnly) return { ...base, bytes: p.send.reduce((a, f) => a + f.size, 0), finished: false, stopped: false };
  reporter.info(`${branchName}: ${p.send.length} to send, ${p.remove.length} to delete, ${p.unchanged} unchanged`);
  const always = typeof input.alwaysFinish === 'function' ? input.alwaysFinish(digest) : !!input.alwaysFinish;
  if (p.send.length === 0 && p.remove.length === 0 && !always) return { ...base, finished: false, stopped: false };

  // A second transaction after a lost answer stays unused: harmless to repeat.
  const started = await client.dataModel.startUpload(
    { deploymentId, query: { branchName, ...rooted(ctx) }, body: { branchName } },
    { signal: ctx.signal, repeatable: true },
  );
  // Both vendor clients send the transaction as the JSON text of the whole object `start` returned.
  const transaction = JSON.stringify(started.transaction);
  const pool = new AdaptivePool({
    start: DEFAULTS.uploadStartConcurrency,
    max: input.concurrency,
    onChange: (n, why) => reporter.debug(`upload concurrency ${n} (${why})`),
  });
  let bytes = 0;
  let sentFiles = 0;
  let sentBytes = 0;
  const totalBytes = p.send.reduce((a, f) => a + f.size, 0);
  const phase = `upload to ${branchName}`;
  const showProgress = () => reporter.progress(phase, `${sentFiles}/${plural(p.send.length, 'file')}, ${formatBytes(sentBytes)} of ${formatBytes(totalBytes)}`);
  // The stale check needs nothing from the platform: it runs while the files upload, still before finish.
  const stopping = input.stopBeforeFinish?.();
  stopping?.catch(() => undefined);
  await reporter.group(`Upload ${plural(p.send.length, 'file')} to ${branchName}`, async () => {
    showProgress();
    await pool.map(p.send, async (file) => {
      const data = await readLocal(file);
      bytes += data.length;
      // The same bytes under the same transaction and name have the same effect: harmless to repeat.
      await client.dataModel.uploadFile(
        { deploymentId, query: { branchName, ...rooted(ctx) }, body: { transaction, fileName: file.path, file: data } },
        { signal: ctx.signal, repeatable: true, onRetry: (e) => pool.slowDown(e.status ? `answer ${e.status}` : e.name) },
      );
      reporter.debug(`sent ${file.path} (${data.length} bytes)`);
      sentFiles += 1;
      sentBytes += data.length;
      showProgress();
    });
    reporter.progress('');
    for (const path of p.remove) reporter.info(`delete ${path}`);
  });
  if (stopping && (await stopping)) return { ...base, bytes, finished: false, stopped: true };
  await input.beforeFinish?.();
  const finished = await finishUpload(ctx, prune, {
    transaction: started.transaction,
    commitMessage: input.commitMessage,
    query: rooted(ctx),
    // The branch holding the manifest means a finish whose answer was lost did land.
    settle: async () => ((await holds(ctx, branchName, manifest)) ? {} : undefined),
  });
  return { ...base, bytes, finished: true, stopped: false, ...(finished.lastHash ? { lastHash: finished.lastHash } : {}) };
}
