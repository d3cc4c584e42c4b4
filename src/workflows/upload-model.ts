/**
 * upload-model: send the local model to a dev branch (only new and changed files, in parallel),
 * delete what the local model lacks through the finish manifest, commit, and merge into the shared
 * branch. Afterwards the shared branch holds exactly the local files, and no dev branch or dev-mode
 * session is left behind, also when a step fails. Every call names its branch: dev mode is per
 * credential, so "the current dev branch" is never relied on.
 */
import { BadRequestError, ConflictError, InputError, NotFoundError } from '../client/errors.js';
import { ignoreNotFound, type OpContext } from './context.js';
import { mapLimit, readLocal, scanModel, type LocalFile } from './local-model.js';
import { openDevMode } from './start-dev-branch.js';

export interface UploadInput {
  branch: string;
  modelDir: string;
  /** The local model, when the caller hashed it already (before its first platform write). */
  local?: LocalFile[];
  /** Globs of files not to upload. */
  exclude?: readonly string[];
  concurrency: number;
  commitMessage: string;
  /**
   * Called before the merge into the shared branch (while the dev branch is committed): true stops the
   * upload (a newer run owns the PR).
   */
  isStale?: () => Promise<boolean>;
  /**
   * Called as soon as the merge into the shared branch has landed, before its check and the dev-mode
   * cleanup: a caller can start work on the merged branch (validation) meanwhile. Called again when
   * the check finds another run's files and the upload starts over.
   */
  onMerged?: () => void;
}

export interface UploadResult {
  branch: string;
  devBranch: string | undefined;
  /** Files sent (new or changed). */
  uploaded: number;
  /** Files deleted on the platform. */
  deleted: number;
  unchanged: number;
  bytes: number;
  /** The merge was skipped because a newer run owns the PR. */
  stale: boolean;
  files: { sent: string[]; deleted: string[] };
}

/** Two trees (path -> { hash }) hold the same files. */
export function sameTree(a: Record<string, { hash: string }>, b: Record<string, { hash: string }>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => b[k]?.hash === a[k]?.hash);
}

/** Compare local hashes with the remote ones. */
export function plan(local: LocalFile[], remote: Record<string, { hash: string }>) {
  const localPaths = new Set(local.map((f) => f.path));
  const send = local.filter((f) => remote[f.path]?.hash !== f.sha1);
  const remove = Object.keys(remote)
    .filter((p) => !localPaths.has(p))
    .sort();
  return { send, remove, unchanged: local.length - send.length };
}

/** List and hash the local model; an empty one is refused (it would delete every file of the branch). */
export async function hashLocalModel(ctx: OpContext, modelDir: string, exclude: readonly string[] = []): Promise<LocalFile[]> {
  return ctx.reporter.group(`Hash the local model (${modelDir})`, async () => {
    const files = await scanModel(modelDir, { exclude });
    // An empty model would delete every file of the shared branch: almost always a wrong model-dir.
    if (files.length === 0) throw new InputError('model-dir', `${modelDir} (no files)`, 'a data model (cube.js and model/ files)');
    ctx.reporter.info(`${files.length} files, ${files.reduce((a, f) => a + f.size, 0)} bytes`);
    return files;
  });
}

export async function uploadModel(ctx: OpContext, input: UploadInput): Promise<UploadResult> {
  const { client, deploymentId, reporter } = ctx;
  const opts = { signal: ctx.signal };
  const local = input.local ?? (await hashLocalModel(ctx, input.modelDir, input.exclude));

  if (ctx.dryRun) {
    // A branch a dry run did not create reads as empty: everything would be sent.
    const remote = await client.dataModel
      .fileHashes({ deploymentId, query: { branchName: input.branch } }, opts)
      .catch((e: unknown) => {
        if (e instanceof NotFoundError) return {};
        throw e;
      });
    const p = plan(local, remote);
    reporter.info(
      `dry run: would upload ${p.send.length} file(s) (${p.send.map((f) => f.path).join(', ') || 'none'}), delete ${p.remove.length} (${p.remove.join(', ') || 'none'}), then commit and merge into ${input.branch}`,
    );
    return {
      branch: input.branch,
      devBranch: undefined,
      uploaded: p.send.length,
      deleted: p.remove.length,
      unchanged: p.unchanged,
      bytes: p.send.reduce((a, f) => a + f.size, 0),
      stale: false,
      files: { sent: p.send.map((f) => f.path), deleted: p.remove },
    };
  }

  const manifest: Record<string, { hash: string }> = {};
  for (const f of local) manifest[f.path] = { hash: f.sha1 };
  /** The branch holds exactly the local files (to recognise a write whose answer was lost). */
  const holdsLocal = async (branchName: string) => {
    const now = await client.dataModel.fileHashes({ deploymentId, query: { branchName } }, opts);
    return sameTree(now, manifest);
  };

  // Dev mode is per credential: two runs of one PR (a push while the last run is in flight) share the
  // dev branch. When the other run gets in the way (its finish, merge or cleanup), this one starts over
  // on a fresh fork, unless it has become the older run, which then stops without merging.
  for (let attempt = 1; ; attempt++) {
    const devBranch = (await openDevMode(ctx, input.branch)) as string;
    let merged = false;
    let stale = false;
    try {
      const result = await uploadOnce(devBranch);
      merged = !result.stale;
      stale = result.stale;
      return result;
    } catch (e) {
      const interfered = e instanceof NotFoundError || e instanceof ConflictError || e instanceof BadRequestError;
      if (!interfered || attempt >= 3) throw e;
      if (input.isStale && (await input.isStale())) {
        stale = true;
        reporter.notice(`a newer run owns this pull request: stopping (${e instanceof Error ? e.message : String(e)})`);
        return { branch: input.branch, devBranch, uploaded: 0, deleted: 0, unchanged: 0, bytes: 0, stale: true, files: { sent: [], deleted: [] } };
      }
      reporter.warning(`another run changed ${devBranch} while this one used it (${e instanceof Error ? e.message : String(e)}); starting over on a fresh fork`);
    } finally {
      // Leave nothing behind: the dev branch (unless the merge deleted it) and the dev-mode session.
      // A stale run leaves the shared dev branch to the newer run, which merges or removes it.
      const cleanup = async () => {
        if (!merged && !stale) await ignoreNotFound(() => client.branches.remove({ deploymentId, query: { branchName: devBranch } }));
        await ignoreNotFound(() => client.branches.stopDevMode({ deploymentId }));
      };
      await cleanup().catch((e: unknown) =>
        reporter.warning(`could not clean up dev branch ${devBranch}: ${e instanceof Error ? e.message : String(e)}`),
      );
    }
  }

  async function uploadOnce(devBranch: string): Promise<UploadResult> {
    // The transaction needs only the dev branch: it is opened while the hashes are read (one round trip
    // less). When nothing changed it stays unused, harmless like the second transaction of a repeated
    // start; the merge deletes the dev branch and its transactions.
    const [hashes, started] = await Promise.allSettled([
      client.dataModel.fileHashes({ deploymentId, query: { branchName: devBranch } }, opts),
      // A second transaction after a lost answer stays unused: harmless.
      client.dataModel.startUpload({ deploymentId, query: { branchName: devBranch } }, { ...opts, repeatable: true }),
    ]);
    if (hashes.status === 'rejected') throw hashes.reason;
    const p = plan(local, hashes.value);
    reporter.info(`${p.send.length} to send, ${p.remove.length} to delete, ${p.unchanged} unchanged`);
    let bytes = 0;
    if (p.send.length > 0 || p.remove.length > 0) {
      if (started.status === 'rejected') throw started.reason;
      const tx = started.value;
      await reporter.group(`Upload ${p.send.length} file(s) to ${devBranch}`, async () => {
        await mapLimit(p.send, input.concurrency, async (file) => {
          const data = await readLocal(file);
          bytes += data.length;
          // Re-sending the same bytes under the same transaction and name has the same effect.
          await client.dataModel.uploadFile(
            { deploymentId, query: { branchName: devBranch }, body: { transaction: tx.transaction.id, fileName: file.path, file: data } },
            { ...opts, repeatable: true },
          );
          reporter.debug(`sent ${file.path} (${data.length} bytes)`);
        });
        for (const path of p.remove) reporter.info(`delete ${path}`);
      });
      await client.dataModel.finishUpload(
        {
          deploymentId,
          query: { branchName: devBranch },
          body: { transaction: tx.transaction, files: manifest, autoRemoveFiles: true, commitMessage: input.commitMessage },
        },
        // The transaction ends with a successful finish: the branch holding the manifest means it landed.
        { ...opts, settle: async () => ((await holdsLocal(devBranch)) ? {} : undefined) },
      );
    }
    // Committing twice commits nothing the second time. The stale check (a GitHub read) needs nothing
    // from the platform: it runs while the commit does, still before the merge.
    const [, isStale] = await Promise.all([
      client.branches.commit({ deploymentId, body: { branchName: devBranch, message: input.commitMessage } }, { ...opts, repeatable: true }),
      input.isStale ? input.isStale() : false,
    ]);
    const result = (stale: boolean): UploadResult => ({
      branch: input.branch,
      devBranch,
      uploaded: p.send.length,
      deleted: p.remove.length,
      unchanged: p.unchanged,
      bytes,
      stale,
      files: { sent: p.send.map((f) => f.path), deleted: p.remove },
    });
    if (isStale) {
      reporter.notice(`a newer run owns this pull request: not merging into ${input.branch}`);
      return result(true);
    }
    await client.branches.merge(
      { deploymentId, body: { branchName: devBranch, deleteBranch: true, message: input.commitMessage } },
      // The merge deletes the dev branch: the shared branch holding the files means it landed.
      { ...opts, settle: async () => ((await holdsLocal(input.branch)) ? { merged: true, branchDeleted: true } : undefined) },
    );
    input.onMerged?.();
    // The dev branch is shared with any other run of this credential on the PR: another run's finish
    // can land between this run's finish and its commit. Check what the merge brought (while the
    // caller's work on the merged branch has started: on a mismatch the upload starts over, and
    // calls onMerged again).
    if (!(await holdsLocal(input.branch))) {
      throw new ConflictError({
        status: 409,
        method: 'POST',
        path: `/build/api/v1/deployments/${deploymentId}/merge`,
        platformMessage: `${input.branch} does not hold this run's files after the merge (another run wrote to ${devBranch})`,
        request: { method: 'POST', path: `/build/api/v1/deployments/${deploymentId}/merge`, headers: {} },
      });
    }
    reporter.info(`merged ${devBranch} into ${input.branch}: ${p.send.length} sent, ${p.remove.length} deleted`);
    return result(false);
  }
}

