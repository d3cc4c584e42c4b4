/**
 * Uploads, the vendor's `deploy [--branch]`: `file-hashes`, then `upload/start`, one multipart
 * `upload/file` per changed file, and `upload/finish` with the full manifest, which commits, prunes
 * and builds. Any existing branch may be the target (unless the tenant refuses direct uploads).
 */
import { randomBytes } from 'node:crypto';
import { HttpError, profileOn, reply, requireDeployment, type Ctx, type HandlerTable } from '../context.js';
import { fedFromRepository, type DeploymentRec } from '../deployments/models.js';
import { branchByName, checkFilePath, commit, devBranchName, requireOwner, sessionBranch, targetBranch } from './branches.js';
import type { BranchRec, FileMap, UploadRec } from './models.js';
import { productionFiles, stagingFiles, triggerBuild } from './runtime.js';
import { decodeFile, encodeFile, hashTree, sha1Hex } from './trees.js';

/**
 * What `file-hashes?live=true` hashes. Profile `live-hashes-served`: the tree the branch's running
 * instance serves (a dev-mode branch serves its working tree). Profile `live-hashes-dev-session`: the
 * caller's live-preview tree, its dev-mode fork of the branch when it has one. Otherwise the branch's files.
 */
function liveTree(ctx: Ctx, d: DeploymentRec, b: BranchRec): FileMap {
  const now = ctx.clock.now();
  if (profileOn(ctx, 'live-hashes-served')) return b.kind === 'deploy' ? productionFiles(b, now) : b.kind === 'shared' ? stagingFiles(b, now) : b.files;
  if (profileOn(ctx, 'live-hashes-dev-session') && b.kind !== 'dev') return (d.branches[devBranchName(ctx.principal.key.id, b.name)] ?? b).files;
  return b.files;
}

/** The branch an upload call names: in the query, the body or both (then the same). */
function namedBranch(ctx: Ctx): string | undefined {
  const fromQuery = (ctx.query as { branchName?: string }).branchName;
  const body = ctx.body;
  let fromBody: string | undefined;
  if (body !== undefined && body !== null) {
    if (typeof body !== 'object' || Array.isArray(body))
      throw new HttpError(400, `body: got ${JSON.stringify(body)}, expected a JSON object such as {"branchName":"…"}`);
    const value = (body as { branchName?: unknown }).branchName;
    if (value !== undefined && value !== null && (typeof value !== 'string' || value === '')) {
      throw new HttpError(400, `body.branchName: got ${JSON.stringify(value)}, expected a non-empty branch name`);
    }
    fromBody = value ?? undefined;
  }
  if (fromQuery && fromBody && fromQuery !== fromBody) {
    throw new HttpError(
      400,
      `branchName: got ${JSON.stringify(fromQuery)} in the query and ${JSON.stringify(fromBody)} in the body, expected one branch (name it once, or the same in both)`,
    );
  }
  return fromQuery ?? fromBody;
}

/** The branch named, else the caller's dev-mode branch, else the deploy branch; a dev branch must be the caller's. */
function uploadTarget(ctx: Ctx, d: DeploymentRec, name: string | undefined): BranchRec {
  const b = name ? branchByName(d, name) : (sessionBranch(ctx, d) ?? branchByName(d, d.deployBranch));
  if (b.kind !== 'dev' && !ctx.controls.behaviour.directUploads) {
    throw new HttpError(400, `branch ${JSON.stringify(b.name)} is not a dev-mode branch: this tenant accepts uploads on a personal dev-mode branch only`);
  }
  if (b.kind === 'deploy' && fedFromRepository(d)) {
    throw new HttpError(
      400,
      `branch ${JSON.stringify(b.name)} is read-only (deployBranchReadOnly: true): production is built from pushes to ${d.connected.repository}`,
    );
  }
  requireOwner(ctx, b);
  return b;
}

/** The caller's open upload transaction `id`, on the branch the call names (if it names one). */
function openUpload(ctx: Ctx, d: DeploymentRec, id: string, branchName: string | undefined): UploadRec {
  const tx = d.uploads[id];
  if (!tx) throw new HttpError(404, `upload transaction ${JSON.stringify(id)} not found (finished, or never started)`);
  if (tx.owner !== ctx.principal.key.id) throw new HttpError(403, 'the upload transaction belongs to another credential');
  if (branchName && branchName !== tx.branch) {
    throw new HttpError(400, `branchName: got ${JSON.stringify(branchName)}, expected ${JSON.stringify(tx.branch)} (the transaction's branch)`);
  }
  return tx;
}

/** The multipart `transaction` field: the JSON text of the object `upload/start` returned, as both vendor clients send it. */
function transactionId(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const id = value && typeof value === 'object' ? (value as { id?: unknown }).id : undefined;
  if (typeof id !== 'string' || id === '') {
    throw new HttpError(
      400,
      `body.transaction: got ${JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)}, expected the JSON text of the transaction object upload/start returned, e.g. {"id":"tx-…"}`,
    );
  }
  return id;
}

/** The tree a finish leaves: the manifest's files, from this upload or kept from the branch; the rest only when not pruning. */
function finishedTree(b: BranchRec, tx: UploadRec, files: Record<string, { hash: string }>, prune: boolean): FileMap {
  const current = hashTree(b.files);
  const next: FileMap = prune ? {} : { ...b.files };
  for (const [path, { hash }] of Object.entries(files)) {
    checkFilePath(path, `body.files[${JSON.stringify(path)}]`);
    const received = tx.files[path];
    if (received !== undefined) {
      const got = sha1Hex(decodeFile(received));
      if (got !== hash) throw new HttpError(400, `body.files[${JSON.stringify(path)}].hash: got ${hash}, expected ${got} (the SHA-1 of the uploaded bytes)`);
      next[path] = received;
    } else if (current[path] === hash) {
      next[path] = b.files[path] as string;
    } else {
      throw new HttpError(
        400,
        `body.files[${JSON.stringify(path)}]: listed with hash ${hash}, but it was not uploaded in this transaction and the branch ${current[path] ? `has ${current[path]}` : 'does not have it'}`,
      );
    }
  }
  const stray = Object.keys(tx.files).filter((p) => !(p in files));
  if (stray.length) throw new HttpError(400, `body.files: uploaded but missing from the manifest: ${stray.join(', ')}`);
  return next;
}

export const uploadHandlers: HandlerTable = {
  fileHashes(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as { branchName?: string; live?: boolean };
    const b = targetBranch(ctx, d, { branchName: q.branchName }, 'session-or-deploy');
    // `live` has no prose in the vendor file: ignored by default, read one way under each live-hashes profile.
    const tree = q.live ? liveTree(ctx, d, b) : b.files;
    const out: Record<string, { hash: string }> = {};
    for (const [path, hash] of Object.entries(hashTree(tree))) out[path] = { hash };
    if (!ctx.controls.behaviour.wrapFileHashes) return out;
    // The wrapped form some tenants answer; raw, since the contract's schema is the plain map.
    const text = JSON.stringify({ files: out });
    return reply({ raw: text, headers: { 'content-type': 'application/json' } });
  },

  startUpload(ctx) {
    const d = requireDeployment(ctx);
    const b = uploadTarget(ctx, d, namedBranch(ctx));
    const id = `tx-${randomBytes(8).toString('hex')}`;
    d.uploads[id] = { id, branch: b.name, owner: ctx.principal.key.id, files: {}, startedAt: ctx.clock.now() };
    return { transaction: { id }, deploymentName: d.name };
  },

  uploadFile(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as { branchName?: string };
    // The file part's own filename is not used: `fileName` is the path.
    const body = ctx.body as { transaction: string; fileName: string; file: Buffer | string };
    const tx = openUpload(ctx, d, transactionId(body.transaction), q.branchName);
    checkFilePath(body.fileName, 'body.fileName');
    tx.files[body.fileName] = encodeFile(typeof body.file === 'string' ? Buffer.from(body.file) : body.file);
    return { success: true };
  },

  finishUpload(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { transaction: { id: string }; files: Record<string, { hash: string }>; autoRemoveFiles?: boolean | null };
    const tx = openUpload(ctx, d, body.transaction.id, namedBranch(ctx));
    const b = branchByName(d, tx.branch);
    const next = finishedTree(b, tx, body.files, body.autoRemoveFiles !== false);
    b.files = next;
    commit(d, b);
    triggerBuild(ctx, d, b, 'finish');
    delete d.uploads[tx.id];
    // Profile no-hash: the finish answers without the commit.
    return profileOn(ctx, 'no-hash') ? {} : { lastHash: b.lastHash };
  },
};
