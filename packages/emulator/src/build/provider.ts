/**
 * Build API: branches, dev mode, files, validation, commit/pull/merge and the branch staging
 * environment (spec sections 3, 4.4, 4.13, 4.15); uploads and hashes are in `uploads.ts`. Every
 * handler checks everything first and changes state last, so a rejected request changes nothing;
 * the runtimes a write starts or stops are reconciled after it.
 */
import { HttpError, profileOn, requireDeployment, type Ctx, type HandlerTable } from '../context.js';
import { deployModeOf } from '../deployments/models.js';
import { addedForDevMode, pullFromRepository, syncRef } from '../deployments/repository.js';
import { cursorPageWithData, type CursorQuery } from '../paging.js';
import {
  branchById,
  branchByName,
  branchRecord,
  checkBranchName,
  checkFilePath,
  commit,
  compileBranch,
  devBranchName,
  makeBranch,
  mergedTree,
  mergeInto,
  removeBranch,
  requireOwner,
  sessionBranch,
  targetBranch,
  writableBranch,
} from './branches.js';
import { allCubes } from '../engine/meta.js';
import type { BranchRec } from './models.js';
import { asleep, isActive, productionFiles, stagingFiles, triggerBuild, withRuntimes } from './runtime.js';
import { decodeFile, encodeFile, hashTree, mergeTrees, treeHash } from './trees.js';
import { uploadHandlers } from './uploads.js';

interface TreeNode {
  fileName: string;
  path: string;
  type: 'file' | 'directory';
  content?: string;
  children?: TreeNode[];
}

/** The vendor's source tree: nodes with absolute paths (`/model/cubes/orders.yml`), directories with `children`. */
function fileTree(paths: string[], content: (path: string) => { content?: string }): TreeNode[] {
  const root: TreeNode[] = [];
  const dirs = new Map<string, TreeNode[]>([['', root]]);
  for (const path of [...paths].sort()) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (dirs.has(dir)) continue;
      const node: TreeNode = { fileName: parts[i - 1] as string, path: `/${dir}`, type: 'directory', children: [] };
      dirs.get(parts.slice(0, i - 1).join('/'))?.push(node);
      dirs.set(dir, node.children as TreeNode[]);
    }
    dirs.get(parts.slice(0, -1).join('/'))?.push({ fileName: parts.at(-1) as string, path: `/${path}`, type: 'file', ...content(path) });
  }
  return root;
}

/** The answer to creating a branch that exists: 409, 400 (`duplicate-branch-400`), or 500 (`create-500-existing`). */
function duplicateBranch(ctx: Ctx, name: string): HttpError {
  // Profile create-500-existing: the store's unique index refuses the row and nothing handles it.
  if (profileOn(ctx, 'create-500-existing'))
    return new HttpError(500, 'Internal Server Error: duplicate key value violates unique constraint "branches_deployment_id_name_key"');
  return new HttpError(profileOn(ctx, 'duplicate-branch-400') ? 400 : 409, `branch ${JSON.stringify(name)} already exists`);
}

const branchHandlers: HandlerTable = {
  listBranches(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as CursorQuery;
    const visible = Object.values(d.branches)
      // Profile dev-branches-listed-for-all: other credentials' dev-mode forks are listed too.
      .filter((b) => b.kind !== 'dev' || b.owner === ctx.principal.key.id || profileOn(ctx, 'dev-branches-listed-for-all'))
      .sort((a, b) => a.id - b.id)
      .map(branchRecord);
    return cursorPageWithData(visible, q);
  },

  createBranch(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { name: string; from?: string | null; activate?: boolean | null };
    checkBranchName(body.name, 'body.name');
    if (body.name.startsWith('dev-'))
      throw new HttpError(400, `body.name: got ${JSON.stringify(body.name)}, expected a name not starting with "dev-" (reserved for dev-mode branches)`);
    // Which status a duplicate name gets is not documented: 409 here, 400 or 500 under a profile.
    if (d.branches[body.name]) throw duplicateBranch(ctx, body.name);
    const from = branchByName(d, body.from ?? d.deployBranch);
    if (from.kind === 'dev') throw new HttpError(400, `body.from: got ${JSON.stringify(from.name)}, expected a shared branch or the deploy branch`);
    const made = makeBranch(d, body.name, from, 'shared', ctx.clock.iso());
    made.createdBy = ctx.principal.key.id;
    // On a connected deployment the new branch is pushed to the repository as a ref.
    syncRef(d, made);
    return { active: false, branchName: body.name, parentBranch: from.name };
  },

  removeBranch(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as { branchName: string; removeOnUpstream?: boolean };
    const b = branchByName(d, q.branchName);
    if (b.kind === 'deploy') throw new HttpError(400, `branch ${JSON.stringify(b.name)} is the deploy branch and cannot be deleted`);
    requireOwner(ctx, b);
    removeBranch(d, b);
    // The ref in the connected repository goes only when asked (the vendor's default keeps it).
    if (q.removeOnUpstream && d.connected) delete d.connected.refs[b.name];
    return { success: true };
  },

  setBranchStagingEnvironment(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { enabled: boolean; branchName?: string | null; branchId?: number | null };
    const b = body.branchName ? branchByName(d, body.branchName) : branchById(d, body.branchId as number);
    if (b.kind === 'dev')
      throw new HttpError(400, `branch ${JSON.stringify(b.name)} is a personal dev-mode branch: only shared branches have a staging environment`);
    if (b.kind === 'deploy')
      throw new HttpError(400, `branch ${JSON.stringify(b.name)} is the production (deploy) branch: only shared branches have a staging environment`);
    b.staging = body.enabled;
    return { data: branchRecord(b) };
  },

  startDevMode(ctx) {
    const d = requireDeployment(ctx);
    const body = (ctx.body ?? {}) as { branchName?: string | null };
    const named = body.branchName ?? d.deployBranch;
    // Profile pull-needs-added-branch: a repository branch not on the platform is added first (the branch switcher).
    const parent = addedForDevMode(ctx, d, named) ?? branchByName(d, named);
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
    const q = ctx.query as CursorQuery & { branchName?: string; withContent?: boolean; showLastCLIUpload?: boolean };
    const b = targetBranch(ctx, d, { branchName: q.branchName }, 'session-or-deploy');
    // In CLI mode production runs the last upload, not the git branch: the flag lists what production serves.
    const lastUpload = q.showLastCLIUpload && b.kind === 'deploy' && deployModeOf(d) === 'cli';
    const files = lastUpload ? productionFiles(b, ctx.clock.now()) : b.files;
    const content = (path: string) => (q.withContent ? { content: decodeFile(files[path] as string).toString('utf8') } : {});
    if (ctx.controls.behaviour.flatFileList) {
      const flat = Object.keys(files)
        .sort()
        .map((path) => ({ fileName: path.split('/').pop(), path, type: 'file', ...content(path) }));
      return cursorPageWithData(flat, q);
    }
    return cursorPageWithData(fileTree(Object.keys(files), content), q);
  },

  updateFiles(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { branchName?: string; branchId?: number; files: { path: string; content: string }[] };
    const b = writableBranch(ctx, d, body);
    body.files.forEach((f, i) => checkFilePath(f.path, `body.files[${i}].path`));
    for (const f of body.files) b.files[f.path] = encodeFile(f.content);
    return { success: true };
  },

  removeFiles(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { branchName?: string; branchId?: number; files: { path: string }[] };
    const b = writableBranch(ctx, d, body);
    const missing = body.files.filter((f) => !(f.path in b.files)).map((f) => f.path);
    if (missing.length) throw new HttpError(404, `no such file(s) on ${JSON.stringify(b.name)}: ${missing.join(', ')}`);
    for (const f of body.files) delete b.files[f.path];
    return { success: true };
  },

  renameFiles(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { branchName?: string; branchId?: number; files: { path: string; newPath: string }[] };
    const b = writableBranch(ctx, d, body);
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

  async validateDataModel(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as { branchName?: string; devMode?: boolean };
    let b: BranchRec;
    if (q.devMode) {
      const s = sessionBranch(ctx, d);
      if (!s) throw new HttpError(400, 'query.devMode: no dev-mode session is open for this credential');
      b = s;
    } else b = branchByName(d, q.branchName ?? d.deployBranch);
    // Validation asks the branch's own runtime: a shared branch with none running cannot answer.
    if (b.kind === 'shared' && (!isActive(d, b) || asleep(ctx, b, ctx.clock.now()))) throw new HttpError(400, 'Branch is not active');
    // A shared branch's runtime compiles what its last finished build serves, not what was uploaded since.
    const result = b.kind === 'shared' ? await ctx.engine.compile(stagingFiles(b, ctx.clock.now())) : await compileBranch(ctx, b);
    return {
      deploymentId: d.id,
      branchName: b.name,
      mode: b.kind === 'dev' ? 'dev_mode' : 'production',
      valid: result.valid,
      // One entry per error of the compiler, in its words; the file as a path in the repository.
      errors: result.errors.map((e) => ({ message: e.message, fileName: e.fileName })),
      cubesCount: result.compilers ? allCubes(result.compilers).length : 0,
    };
  },

  commitChanges(ctx) {
    const d = requireDeployment(ctx);
    const body = (ctx.body ?? {}) as { branchName?: string; exitDevMode?: boolean | null };
    const b = writableBranch(ctx, d, { branchName: body.branchName });
    const parent = b.parent ? branchByName(d, b.parent) : undefined;
    // The vendor's manual: commit pushes the dev branch's edits to the shared branch it was forked from.
    if (parent) mergedTree(b, b.files, parent);
    commit(d, b);
    triggerBuild(ctx, d, b, 'commit');
    if (parent) mergeInto(ctx, d, b, parent, false);
    if (body.exitDevMode) delete d.devSessions[ctx.principal.key.id];
    return { success: true };
  },

  pull(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { branchName: string };
    if (d.connected) return pullFromRepository(ctx, d, body.branchName);
    const b = branchByName(d, body.branchName);
    if (!b.parent) return { buildTriggered: true };
    const parent = branchByName(d, b.parent);
    const merged = mergeTrees(b.base, parent.head, b.head);
    if (!merged.ok)
      throw new HttpError(409, `merge conflict pulling ${JSON.stringify(parent.name)} into ${JSON.stringify(b.name)} in: ${merged.conflicts.join(', ')}`);
    // Uncommitted work on a dev branch stays on top of the pulled tree.
    const working = mergeTrees(hashTree(b.head), b.files, merged.files);
    if (!working.ok) throw new HttpError(409, `pull would overwrite uncommitted changes in: ${working.conflicts.join(', ')}`);
    b.files = working.files;
    b.head = merged.files;
    b.base = hashTree(parent.head);
    b.commits += 1;
    b.lastHash = treeHash(b.head, `${d.id}:${b.name}:${b.commits}:pull`);
    triggerBuild(ctx, d, b, 'merge');
    return { buildTriggered: true };
  },

  mergeIntoParentBranch(ctx) {
    const d = requireDeployment(ctx);
    const body = (ctx.body ?? {}) as { branchName?: string; branchId?: number; deleteBranch?: boolean | null };
    const b = targetBranch(ctx, d, body, 'session');
    if (!b.parent) throw new HttpError(400, `branch ${JSON.stringify(b.name)} has no parent to merge into`);
    return mergeInto(ctx, d, b, branchByName(d, b.parent), body.deleteBranch ?? true);
  },

  mergeToDefaultBranch(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { branchName?: string; branchId?: number; removeBranchAfterMerge?: boolean | null };
    const b = targetBranch(ctx, d, body, 'session');
    if (b.kind === 'deploy') throw new HttpError(400, `branch ${JSON.stringify(b.name)} is the deploy branch`);
    return mergeInto(ctx, d, b, branchByName(d, d.deployBranch), body.removeBranchAfterMerge ?? true);
  },
};

export const buildHandlers: HandlerTable = withRuntimes({ ...branchHandlers, ...uploadHandlers });
