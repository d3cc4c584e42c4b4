/** A deployment's branches: naming rules, lookup, creation, commit, merge and removal. */
import { branchNameProblem } from '@datamodel-ci/platform-api';
import { HttpError, type Ctx } from '../context.js';
import { fedFromRepository, type DeploymentRec } from '../deployments/models.js';
import { syncRef } from '../deployments/repository.js';
import type { CompiledModel } from '../engine/index.js';
import type { BranchRec, FileMap } from './models.js';
import { newRuntime, triggerBuild, type BuildEnv } from './runtime.js';
import { hashTree, mergeTrees, sameTree, sha1Hex, treeHash } from './trees.js';

/** A branch name the platform takes: the contract's one rule (`dev-` forks are the platform's own). */
export function checkBranchName(name: string, input = 'name'): void {
  const problem = branchNameProblem(name);
  if (problem) throw new HttpError(400, `${input}: got ${JSON.stringify(name)}, expected ${problem}`);
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

/** A new branch record (committed tree = working tree), added to the deployment. */
export function makeBranch(d: DeploymentRec, name: string, parent: BranchRec | null, kind: BranchRec['kind'], createdAt: string, owner?: string): BranchRec {
  const files = parent ? { ...parent.head } : {};
  const b: BranchRec = {
    id: d.nextBranchId++,
    name,
    parent: parent?.name ?? null,
    kind,
    files,
    head: { ...files },
    base: parent ? hashTree(parent.head) : {},
    lastHash: parent ? parent.lastHash : treeHash(files, `${d.id}:${name}:0`),
    commits: 0,
    staging: false,
    createdAt,
    runtime: newRuntime(kind),
  };
  if (owner) b.owner = owner;
  d.branches[name] = b;
  return b;
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

export function branchByName(d: DeploymentRec, name: string): BranchRec {
  const b = d.branches[name];
  if (!b) throw new HttpError(404, `branch ${JSON.stringify(name)} not found in deployment ${d.id}`);
  return b;
}

export function branchById(d: DeploymentRec, id: number): BranchRec {
  const b = Object.values(d.branches).find((x) => x.id === id);
  if (!b) throw new HttpError(404, `branch id ${id} not found in deployment ${d.id}`);
  return b;
}

/** The caller's open dev-mode branch, if any. */
export function sessionBranch(ctx: Ctx, d: DeploymentRec): BranchRec | undefined {
  const name = d.devSessions[ctx.principal.key.id];
  return name ? d.branches[name] : undefined;
}

/** The branch an operation names, else the caller's dev-mode branch, else (when allowed) the deploy branch. */
export function targetBranch(
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

/**
 * The branch a write names, else the caller's dev-mode branch: file writes only on the caller's own
 * dev-mode branch (spec section 3, rule 1; section 7, rule 7).
 */
export function writableBranch(ctx: Ctx, d: DeploymentRec, sel: { branchName?: string | null; branchId?: number | null }): BranchRec {
  const b = targetBranch(ctx, d, sel, 'session');
  if (b.kind !== 'dev') {
    throw new HttpError(400, `branch ${JSON.stringify(b.name)} is not a dev-mode branch: file writes are accepted on a personal dev-mode branch only`);
  }
  requireOwner(ctx, b);
  return b;
}

/** A dev-mode branch is its credential's alone. */
export function requireOwner(ctx: Ctx, b: BranchRec): void {
  if (b.kind === 'dev' && b.owner !== ctx.principal.key.id) {
    throw new HttpError(403, `dev-mode branch ${JSON.stringify(b.name)} belongs to another credential`);
  }
}

export function devBranchName(keyId: string, parent: string): string {
  return `dev-${sha1Hex(`${keyId}:${parent}`).slice(0, 12)}`;
}

export function commit(d: DeploymentRec, b: BranchRec): void {
  b.head = { ...b.files };
  b.commits += 1;
  b.lastHash = treeHash(b.head, `${d.id}:${b.name}:${b.commits}:${b.id}`);
  // On a connected deployment the commit is pushed to the branch's ref.
  syncRef(d, b);
}

/** Delete a branch: children move to its parent, sessions and uploads on it end. */
export function removeBranch(d: DeploymentRec, b: BranchRec): void {
  for (const child of Object.values(d.branches)) if (child.parent === b.name) child.parent = b.parent;
  for (const [keyId, name] of Object.entries(d.devSessions)) if (name === b.name) delete d.devSessions[keyId];
  for (const [id, up] of Object.entries(d.uploads)) if (up.branch === b.name) delete d.uploads[id];
  delete d.branches[b.name];
}

/** The tree merging `theirs` (a tree of `b`) into `into` gives: 409 naming the files on a conflict. */
export function mergedTree(b: BranchRec, theirs: FileMap, into: BranchRec): FileMap {
  const merged = mergeTrees(b.base, theirs, into.head);
  if (!merged.ok) {
    throw new HttpError(409, `merge conflict merging ${JSON.stringify(b.name)} into ${JSON.stringify(into.name)} in: ${merged.conflicts.join(', ')}`);
  }
  return merged.files;
}

/** Merge `b` into `into` (3-way on the committed trees), build `into`; optionally delete `b`. */
export function mergeInto(env: BuildEnv, d: DeploymentRec, b: BranchRec, into: BranchRec, deleteAfter: boolean) {
  if (b === into) throw new HttpError(400, `cannot merge branch ${JSON.stringify(b.name)} into itself`);
  if (into.kind === 'dev') throw new HttpError(400, `cannot merge into dev-mode branch ${JSON.stringify(into.name)}`);
  if (into.kind === 'deploy' && fedFromRepository(d)) {
    throw new HttpError(
      403,
      `merging into ${JSON.stringify(into.name)} is not allowed (deployBranchMergeAllowed: false): production is built from pushes to ${d.connected.repository}`,
    );
  }
  const files = mergedTree(b, b.head, into);
  // Already merged: like git, no new commit and no build.
  if (!sameTree(files, into.head)) {
    into.files = { ...files };
    commit(d, into);
    triggerBuild(env, d, into, 'merge');
  }
  // `b` is now an ancestor of `into`: its own head is the merge base of any later merge.
  b.base = hashTree(b.head);
  if (deleteAfter) removeBranch(d, b);
  return { merged: true, branchDeleted: deleteAfter };
}

/** Compile a branch's working tree with Cube's compiler. */
export function compileBranch(ctx: Pick<Ctx, 'engine'>, b: BranchRec): Promise<CompiledModel> {
  return ctx.engine.compile(b.files);
}
