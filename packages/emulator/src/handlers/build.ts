/**
 * Build API: branches, dev mode, files, uploads, hashes, validation, commit/pull/merge and the branch
 * staging environment (spec sections 3, 4.4, 4.13, 4.15). Every handler checks everything first and
 * changes state last, so a rejected request changes nothing.
 */
import { randomBytes } from 'node:crypto';
import { compileModel } from '../compiler.js';
import { HttpError, requireDeployment, type Ctx, type HandlerTable } from '../context.js';
import { makeBranch } from '../seed.js';
import {
  decodeFile,
  encodeFile,
  hashTree,
  sha1Hex,
  treeHash,
  type BranchRec,
  type DeploymentRec,
  type FileMap,
} from '../state.js';

/** Shared branch names: letters, digits, `.`, `_`, `-`, `/`; no `..`, no spaces; `dev-` is reserved. */
const BRANCH_NAME = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$/;

export function checkBranchName(name: string, input = 'name'): void {
  if (!BRANCH_NAME.test(name) || name.includes('..') || name.endsWith('/') || name.endsWith('.lock') || name.includes('//')) {
    throw new HttpError(
      400,
      `${input}: got ${JSON.stringify(name)}, expected a branch name of letters, digits, ".", "_", "-" and "/" (no spaces, no "..")`,
    );
  }
}

/** A POSIX path inside the model: relative, no `..`, no backslash, no empty segment. */
export function checkFilePath(path: string, input = 'path'): void {
  const bad =
    path === '' ||
    path.startsWith('/') ||
    path.includes('\\') ||
    path.includes('\0') ||
    path.split('/').some((seg) => seg === '' || seg === '.' || seg === '..');
  if (bad) throw new HttpError(400, `${input}: got ${JSON.stringify(path)}, expected a relative POSIX path without ".." segments`);
}

export function branchRecord(b: BranchRec) {
  return {
    id: b.id,
    name: b.name,
    parentBranch: b.parent ?? null,
    lastHash: b.lastHash,
    isStagingEnvironmentEnabled: b.staging,
  };
}

function branchByName(d: DeploymentRec, name: string): BranchRec {
  const b = d.branches[name];
  if (!b) throw new HttpError(404, `branch ${JSON.stringify(name)} not found in deployment ${d.id}`);
  return b;
}

function branchById(d: DeploymentRec, id: number): BranchRec {
  const b = Object.values(d.branches).find((x) => x.id === id);
  if (!b) throw new HttpError(404, `branch id ${id} not found in deployment ${d.id}`);
  return b;
}

/** The caller's open dev-mode branch, if any. */
function sessionBranch(ctx: Ctx, d: DeploymentRec): BranchRec | undefined {
  const name = d.devSessions[ctx.principal.key.id];
  return name ? d.branches[name] : undefined;
}

/** The branch an operation names, else the caller's dev-mode branch, else (when allowed) the deploy branch. */
function targetBranch(
  ctx: Ctx,
  d: DeploymentRec,
  sel: { branchName?: string | null; branchId?: number | null },
  fallback: 'session' | 'session-or-deploy',
): BranchRec {
  if (sel.branchName) return branchByName(d, sel.branchName);
  if (typeof sel.branchId === 'number') return branchById(d, sel.branchId);
  const s = sessionBranch(ctx, d);
  if (s) return s;
  if (fallback === 'session-or-deploy') return branchByName(d, d.deployBranch);
  throw new HttpError(400, 'no branch named and no dev-mode session open: name the branch or start dev mode first');
}

/** File writes only on the caller's own dev-mode branch (spec section 3, rule 1; section 7, rule 7). */
function requireWritable(ctx: Ctx, b: BranchRec): void {
  if (b.kind !== 'dev') {
    throw new HttpError(400, `branch ${JSON.stringify(b.name)} is not a dev-mode branch: file writes are accepted on a personal dev-mode branch only`);
  }
  if (b.owner !== ctx.principal.key.id) {
    throw new HttpError(403, `dev-mode branch ${JSON.stringify(b.name)} belongs to another credential`);
  }
}

function devBranchName(keyId: string, parent: string): string {
  return `dev-${sha1Hex(`${keyId}:${parent}`).slice(0, 12)}`;
}

function commit(d: DeploymentRec, b: BranchRec): void {
  b.head = { ...b.files };
  b.commits += 1;
  b.lastHash = treeHash(b.head, `${d.id}:${b.name}:${b.commits}:${b.id}`);
}

type Merge = { ok: true; files: FileMap } | { ok: false; conflicts: string[] };

/** Three-way merge by file: apply `theirs` changes relative to `base` onto `ours`. */
export function mergeTrees(base: Record<string, string>, theirs: FileMap, ours: FileMap): Merge {
  const theirsH = hashTree(theirs);
  const oursH = hashTree(ours);
  const out: FileMap = { ...ours };
  const conflicts: string[] = [];
  for (const path of new Set([...Object.keys(base), ...Object.keys(theirsH), ...Object.keys(oursH)])) {
    const b = base[path];
    const t = theirsH[path];
    const o = oursH[path];
    if (t === b || t === o) continue;
    if (o === b) {
      if (t === undefined) delete out[path];
      else out[path] = theirs[path] as string;
    } else conflicts.push(path);
  }
  return conflicts.length ? { ok: false, conflicts: conflicts.sort() } : { ok: true, files: out };
}

/** Delete a branch: children move to its parent, sessions and uploads on it end. */
function removeBranch(d: DeploymentRec, b: BranchRec): void {
  for (const child of Object.values(d.branches)) if (child.parent === b.name) child.parent = b.parent;
  for (const [keyId, name] of Object.entries(d.devSessions)) if (name === b.name) delete d.devSessions[keyId];
  for (const [id, up] of Object.entries(d.uploads)) if (up.branch === b.name) delete d.uploads[id];
  delete d.branches[b.name];
}

/** Merge `b` into `into` (3-way on the committed trees); optionally delete `b`. */
function mergeInto(d: DeploymentRec, b: BranchRec, into: BranchRec, deleteAfter: boolean) {
  if (b === into) throw new HttpError(400, `cannot merge branch ${JSON.stringify(b.name)} into itself`);
  if (into.kind === 'dev') throw new HttpError(400, `cannot merge into dev-mode branch ${JSON.stringify(into.name)}`);
  const merged = mergeTrees(b.base, b.head, into.head);
  if (!merged.ok) {
    throw new HttpError(409, `merge conflict merging ${JSON.stringify(b.name)} into ${JSON.stringify(into.name)} in: ${merged.conflicts.join(', ')}`);
  }
  into.files = { ...merged.files };
  commit(d, into);
  // `b` is now an ancestor of `into`: its own head is the merge base of any later merge.
  b.base = hashTree(b.head);
  if (deleteAfter) removeBranch(d, b);
  return { merged: true, branchDeleted: deleteAfter };
}

function paginate<T>(items: T[], q: { first?: number; after?: string }) {
  const start = q.after ? Number.parseInt(q.after, 10) : 0;
  if (!Number.isInteger(start) || start < 0) throw new HttpError(400, `query.after: got ${JSON.stringify(q.after)}, expected a cursor from pageInfo.endCursor`);
  const first = q.first ?? items.length;
  const page = items.slice(start, start + first);
  const end = start + page.length;
  return {
    items: page,
    pageInfo: {
      hasNextPage: end < items.length,
      hasPreviousPage: start > 0,
      startCursor: page.length ? String(start) : null,
      endCursor: page.length ? String(end) : null,
    },
  };
}

export { paginate as cursorPaginate };

function compileBranch(b: BranchRec) {
  const files: Record<string, Buffer> = {};
  for (const [p, b64] of Object.entries(b.files)) files[p] = decodeFile(b64);
  return compileModel(files);
}

export { compileBranch };

export const buildHandlers: HandlerTable = {
  listBranches(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as { first?: number; after?: string };
    const visible = Object.values(d.branches)
      .filter((b) => b.kind !== 'dev' || b.owner === ctx.principal.key.id)
      .sort((a, b) => a.id - b.id)
      .map(branchRecord);
    const page = paginate(visible, q);
    return { ...page, data: page.items };
  },

  createBranch(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { name: string; from?: string | null; activate?: boolean | null };
    checkBranchName(body.name, 'body.name');
    if (body.name.startsWith('dev-')) throw new HttpError(400, `body.name: got ${JSON.stringify(body.name)}, expected a name not starting with "dev-" (reserved for dev-mode branches)`);
    if (d.branches[body.name]) throw new HttpError(409, `branch ${JSON.stringify(body.name)} already exists`);
    const from = branchByName(d, body.from ?? d.deployBranch);
    if (from.kind === 'dev') throw new HttpError(400, `body.from: got ${JSON.stringify(from.name)}, expected a shared branch or the deploy branch`);
    makeBranch(d, body.name, from, 'shared', ctx.clock.iso());
    return { active: false, branchName: body.name, parentBranch: from.name };
  },

  removeBranch(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as { branchName: string };
    const b = branchByName(d, q.branchName);
    if (b.kind === 'deploy') throw new HttpError(400, `branch ${JSON.stringify(b.name)} is the deploy branch and cannot be deleted`);
    if (b.kind === 'dev' && b.owner !== ctx.principal.key.id) {
      throw new HttpError(403, `dev-mode branch ${JSON.stringify(b.name)} belongs to another credential`);
    }
    removeBranch(d, b);
    return { success: true };
  },

  setBranchStagingEnvironment(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { enabled: boolean; branchName?: string | null; branchId?: number | null };
    const b = body.branchName ? branchByName(d, body.branchName) : branchById(d, body.branchId as number);
    if (b.kind === 'dev') throw new HttpError(400, `branch ${JSON.stringify(b.name)} is a personal dev-mode branch: only shared branches have a staging environment`);
    if (b.kind === 'deploy') throw new HttpError(400, `branch ${JSON.stringify(b.name)} is the production (deploy) branch: only shared branches have a staging environment`);
    b.staging = body.enabled;
    return { data: branchRecord(b) };
  },

  startDevMode(ctx) {
    const d = requireDeployment(ctx);
    const body = (ctx.body ?? {}) as { branchName?: string | null };
    const parent = branchByName(d, body.branchName ?? d.deployBranch);
    if (parent.kind === 'dev') {
      throw new HttpError(400, `body.branchName: got ${JSON.stringify(parent.name)}, expected a shared branch or the deploy branch (it is a dev-mode branch)`);
    }
    const keyId = ctx.principal.key.id;
    const name = devBranchName(keyId, parent.name);
    if (!d.branches[name]) makeBranch(d, name, parent, 'dev', ctx.clock.iso(), keyId);
    d.devSessions[keyId] = name;
    return { active: true, branchName: name, parentBranch: parent.name };
  },

  stopDevMode(ctx) {
    const d = requireDeployment(ctx);
    delete d.devSessions[ctx.principal.key.id];
    return { success: true };
  },

  listFiles(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as { branchName?: string; withContent?: boolean; first?: number; after?: string };
    const b = targetBranch(ctx, d, { branchName: q.branchName }, 'session-or-deploy');
    const nodes = Object.keys(b.files)
      .sort()
      .map((path) => {
        const node: Record<string, unknown> = { fileName: path.split('/').pop(), path, type: 'file' };
        if (q.withContent) node.content = decodeFile(b.files[path] as string).toString('utf8');
        return node;
      });
    const page = paginate(nodes, q);
    return { ...page, data: page.items };
  },

  updateFiles(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { branchName?: string; branchId?: number; files: { path: string; content: string }[] };
    const b = targetBranch(ctx, d, body, 'session');
    requireWritable(ctx, b);
    body.files.forEach((f, i) => checkFilePath(f.path, `body.files[${i}].path`));
    for (const f of body.files) b.files[f.path] = encodeFile(f.content);
    return { success: true };
  },

  removeFiles(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { branchName?: string; branchId?: number; files: { path: string }[] };
    const b = targetBranch(ctx, d, body, 'session');
    requireWritable(ctx, b);
    const missing = body.files.filter((f) => !(f.path in b.files)).map((f) => f.path);
    if (missing.length) throw new HttpError(404, `no such file(s) on ${JSON.stringify(b.name)}: ${missing.join(', ')}`);
    for (const f of body.files) delete b.files[f.path];
    return { success: true };
  },

  renameFiles(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { branchName?: string; branchId?: number; files: { path: string; newPath: string }[] };
    const b = targetBranch(ctx, d, body, 'session');
    requireWritable(ctx, b);
    body.files.forEach((f, i) => checkFilePath(f.newPath, `body.files[${i}].newPath`));
    for (const f of body.files) {
      if (!(f.path in b.files)) throw new HttpError(404, `no such file on ${JSON.stringify(b.name)}: ${f.path}`);
      if (f.newPath in b.files && f.newPath !== f.path) throw new HttpError(409, `file already exists on ${JSON.stringify(b.name)}: ${f.newPath}`);
    }
    const next = { ...b.files };
    for (const f of body.files) {
      const content = next[f.path] as string;
      delete next[f.path];
      next[f.newPath] = content;
    }
    b.files = next;
    return { success: true };
  },

  fileHashes(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as { branchName?: string };
    const b = targetBranch(ctx, d, { branchName: q.branchName }, 'session-or-deploy');
    const out: Record<string, { hash: string }> = {};
    for (const [path, hash] of Object.entries(hashTree(b.files))) out[path] = { hash };
    return out;
  },

  startUpload(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as { branchName?: string };
    const b = targetBranch(ctx, d, { branchName: q.branchName }, 'session');
    requireWritable(ctx, b);
    const id = `tx-${randomBytes(8).toString('hex')}`;
    d.uploads[id] = { id, branch: b.name, owner: ctx.principal.key.id, files: {}, startedAt: ctx.clock.now() };
    return { transaction: { id }, deploymentName: d.name };
  },

  uploadFile(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as { branchName?: string };
    const body = ctx.body as { transaction: string; fileName: string; file: Buffer | string };
    const tx = d.uploads[body.transaction];
    if (!tx) throw new HttpError(404, `upload transaction ${JSON.stringify(body.transaction)} not found (finished, or never started)`);
    if (tx.owner !== ctx.principal.key.id) throw new HttpError(403, 'the upload transaction belongs to another credential');
    if (q.branchName && q.branchName !== tx.branch) {
      throw new HttpError(400, `query.branchName: got ${JSON.stringify(q.branchName)}, expected ${JSON.stringify(tx.branch)} (the transaction's branch)`);
    }
    checkFilePath(body.fileName, 'body.fileName');
    tx.files[body.fileName] = encodeFile(typeof body.file === 'string' ? Buffer.from(body.file) : body.file);
    return { success: true };
  },

  finishUpload(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as { branchName?: string };
    const body = ctx.body as {
      transaction: { id: string };
      files: Record<string, { hash: string }>;
      autoRemoveFiles?: boolean | null;
    };
    const tx = d.uploads[body.transaction.id];
    if (!tx) throw new HttpError(404, `upload transaction ${JSON.stringify(body.transaction.id)} not found (finished, or never started)`);
    if (tx.owner !== ctx.principal.key.id) throw new HttpError(403, 'the upload transaction belongs to another credential');
    if (q.branchName && q.branchName !== tx.branch) {
      throw new HttpError(400, `query.branchName: got ${JSON.stringify(q.branchName)}, expected ${JSON.stringify(tx.branch)} (the transaction's branch)`);
    }
    const b = branchByName(d, tx.branch);
    const current = hashTree(b.files);
    const next: FileMap = body.autoRemoveFiles === false ? { ...b.files } : {};
    for (const [path, { hash }] of Object.entries(body.files)) {
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
    const stray = Object.keys(tx.files).filter((p) => !(p in body.files));
    if (stray.length) throw new HttpError(400, `body.files: uploaded but missing from the manifest: ${stray.join(', ')}`);
    b.files = next;
    delete d.uploads[tx.id];
    return { lastHash: b.lastHash };
  },

  validateDataModel(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as { branchName?: string; devMode?: boolean };
    let b: BranchRec;
    if (q.devMode) {
      const s = sessionBranch(ctx, d);
      if (!s) throw new HttpError(400, 'query.devMode: no dev-mode session is open for this credential');
      b = s;
    } else b = branchByName(d, q.branchName ?? d.deployBranch);
    const result = compileBranch(b);
    return {
      deploymentId: d.id,
      branchName: b.name,
      mode: b.kind === 'dev' ? 'dev_mode' : 'production',
      valid: result.valid,
      errors: result.errors.map((e) => ({ message: e.message, fileName: e.fileName })),
      cubesCount: result.cubes.length,
    };
  },

  commitChanges(ctx) {
    const d = requireDeployment(ctx);
    const body = (ctx.body ?? {}) as { branchName?: string; exitDevMode?: boolean | null };
    const b = targetBranch(ctx, d, { branchName: body.branchName }, 'session');
    requireWritable(ctx, b);
    commit(d, b);
    if (body.exitDevMode) delete d.devSessions[ctx.principal.key.id];
    return { success: true };
  },

  pull(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { branchName: string };
    const b = branchByName(d, body.branchName);
    if (!b.parent) return { buildTriggered: true };
    const parent = branchByName(d, b.parent);
    const merged = mergeTrees(b.base, parent.head, b.head);
    if (!merged.ok) throw new HttpError(409, `merge conflict pulling ${JSON.stringify(parent.name)} into ${JSON.stringify(b.name)} in: ${merged.conflicts.join(', ')}`);
    // Uncommitted work on a dev branch stays on top of the pulled tree.
    const working = mergeTrees(hashTree(b.head), b.files, merged.files);
    if (!working.ok) throw new HttpError(409, `pull would overwrite uncommitted changes in: ${working.conflicts.join(', ')}`);
    b.files = working.files;
    b.head = merged.files;
    b.base = hashTree(parent.head);
    b.commits += 1;
    b.lastHash = treeHash(b.head, `${d.id}:${b.name}:${b.commits}:pull`);
    return { buildTriggered: true };
  },

  mergeIntoParentBranch(ctx) {
    const d = requireDeployment(ctx);
    const body = (ctx.body ?? {}) as { branchName?: string; branchId?: number; deleteBranch?: boolean | null };
    const b = targetBranch(ctx, d, body, 'session');
    if (!b.parent) throw new HttpError(400, `branch ${JSON.stringify(b.name)} has no parent to merge into`);
    return mergeInto(d, b, branchByName(d, b.parent), body.deleteBranch ?? true);
  },

  mergeToDefaultBranch(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { branchName?: string; branchId?: number; removeBranchAfterMerge?: boolean | null };
    const b = targetBranch(ctx, d, body, 'session');
    if (b.kind === 'deploy') throw new HttpError(400, `branch ${JSON.stringify(b.name)} is the deploy branch`);
    return mergeInto(d, b, branchByName(d, d.deployBranch), body.removeBranchAfterMerge ?? true);
  },
};
