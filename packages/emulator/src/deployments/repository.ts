/**
 * A deployment with a connected GitHub repository (profiles `github-connected`, `connected-later`,
 * `cli-with-repository`, or `github/connect`): the repository's refs. Shared branches made on the
 * platform are pushed there as refs (and stay there unless removed with `removeOnUpstream=true`); in
 * Git mode a push to the production branch builds production (the vendor's continuous deployment), in
 * CLI mode only uploads do; `pull` brings a branch to its ref and rebuilds it when it changed.
 */
import { randomBytes } from 'node:crypto';
import { makeBranch } from '../build/branches.js';
import type { BranchRec, FileMap } from '../build/models.js';
import { isActive, triggerBuild, type BuildEnv } from '../build/runtime.js';
import { filesOf, hashTree, sameTree, treeHash } from '../build/trees.js';
import { HttpError, profileOn } from '../context.js';
import { deployModeOf, type DeploymentRec, type DeployMode } from './models.js';

/** One ref of the connected repository: its commit and the tree at it. */
export interface RefRec {
  sha: string;
  files: FileMap;
}

export interface ConnectedRepo {
  /** `owner/name` of the repository. */
  repository: string;
  /** Where the Cube project sits in the repository (the vendor's `deployProjectRoot`). */
  projectRoot: string;
  refs: Record<string, RefRec>;
  /** The settings the connection changed, as they were before it (restored on disconnect). */
  before?: Record<string, unknown>;
}

/** How a connected deployment is fed: its deploy mode, how its settings say it was made, dotfiles in its repository. */
export interface Feed {
  deployMode: DeployMode;
  creationMethod: 'github' | 'upload';
  /** Profile `cli-with-repository`: the repository holds a workflow and a `.gitignore` beside the model. */
  dotfiles: boolean;
}

/** What `github/connect` (and `github-connected`) make: production built from the repository's pushes. */
export const GIT_FEED: Feed = { deployMode: 'git', creationMethod: 'github', dotfiles: false };

/** The files a repository has beside the model (profile `cli-with-repository`); the vendor's CLI never uploads the workflow. */
export const DOTFILES: Record<string, string> = {
  '.github/workflows/ci.yml': 'name: ci\non: pull_request\njobs:\n  check:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n',
  '.gitignore': 'node_modules/\n.env\n',
};

const FEED_SETTINGS = ['deployMode', 'creationMethod', 'repoType'] as const;

/** Connect a deployment (again, to change its feed): its deploy and shared branches become refs. */
export function connectRepository(d: DeploymentRec, repository: string, feed: Feed = GIT_FEED): void {
  if (!d.connected) {
    const refs: Record<string, RefRec> = {};
    for (const b of Object.values(d.branches)) if (b.kind !== 'dev') refs[b.name] = { sha: b.lastHash, files: { ...b.head } };
    d.connected = { repository, projectRoot: '/', refs, before: Object.fromEntries(FEED_SETTINGS.map((k) => [k, d.settings[k]])) };
  }
  // The repository's dotfiles are on every platform branch, as one commit each, pushed to its ref.
  if (feed.dotfiles) for (const b of Object.values(d.branches)) if (b.kind !== 'dev') addDotfiles(d, b);
  d.settings = { ...d.settings, deployMode: feed.deployMode, creationMethod: feed.creationMethod, repoType: 'git', repository };
}

function addDotfiles(d: DeploymentRec, b: BranchRec): void {
  const missing = filesOf(Object.fromEntries(Object.entries(DOTFILES).filter(([p]) => !(p in b.head))));
  if (Object.keys(missing).length === 0) return;
  b.files = { ...b.files, ...missing };
  b.head = { ...b.head, ...missing };
  // Its parent got them in the same change: they are no difference between the two.
  if (b.parent) b.base = { ...b.base, ...hashTree(missing) };
  b.commits += 1;
  b.lastHash = treeHash(b.head, `${d.id}:${b.name}:${b.commits}:${b.id}`);
  syncRef(d, b);
}

export function disconnectRepository(d: DeploymentRec): void {
  const before = d.connected?.before ?? {};
  delete d.connected;
  // repoType as before the connection: unreported by default, `deployRepo` only as the profile repo-type-deploy-repo reports it.
  d.settings = { ...d.settings, creationMethod: before.creationMethod ?? 'cubecloud' };
  if (before.repoType === undefined) delete d.settings.repoType;
  else d.settings.repoType = before.repoType;
  if (before.deployMode !== undefined) d.settings.deployMode = before.deployMode;
  delete d.settings.repository;
}

/** The repository folder of a project root (`deployProjectRoot`), with a trailing `/`; '' at the root. */
function rootPrefix(projectRoot: string): string {
  const root = projectRoot.replace(/^\/+|\/+$/g, '');
  return root ? `${root}/` : '';
}

/** The project's files in a repository tree: what is under the project root, paths relative to it. */
function projectFiles(projectRoot: string, files: FileMap): FileMap {
  const prefix = rootPrefix(projectRoot);
  if (!prefix) return { ...files };
  return Object.fromEntries(Object.entries(files).flatMap(([p, b]) => (p.startsWith(prefix) ? [[p.slice(prefix.length), b]] : [])));
}

/** A repository tree with the project folder replaced by `project` (what a platform commit pushes). */
function withProject(projectRoot: string, tree: FileMap, project: FileMap): FileMap {
  const prefix = rootPrefix(projectRoot);
  const outside = prefix ? Object.fromEntries(Object.entries(tree).filter(([p]) => !p.startsWith(prefix))) : {};
  return { ...outside, ...Object.fromEntries(Object.entries(project).map(([p, b]) => [prefix + p, b])) };
}

/** The project root of a connected deployment: where in the repository the platform finds the model. */
export function setProjectRoot(d: DeploymentRec, projectRoot: string): void {
  if (!d.connected) throw new HttpError(400, `deployment ${d.id} is not connected to a repository (turn on the github-connected profile)`);
  const root = `/${projectRoot.replace(/^\/+|\/+$/g, '')}`;
  // The refs were the project at the root; they keep that project, now under the new folder.
  const was = d.connected.projectRoot;
  for (const r of Object.values(d.connected.refs)) r.files = withProject(root, {}, projectFiles(was, r.files));
  d.connected.projectRoot = root;
}

/** After a commit on a platform branch of a connected deployment: the commit is pushed to its ref. */
export function syncRef(d: DeploymentRec, b: BranchRec): void {
  if (!d.connected || b.kind === 'dev') return;
  const tree = d.connected.refs[b.name]?.files ?? d.connected.refs[d.deployBranch]?.files ?? {};
  d.connected.refs[b.name] = { sha: b.lastHash, files: withProject(d.connected.projectRoot, tree, b.head) };
}

/** A git-like commit id. */
export function newSha(): string {
  return randomBytes(20).toString('hex');
}

/** What a push did on the platform: `synced` when a platform branch took the pushed commit. */
export interface PushResult {
  ref: RefRec;
  synced: boolean;
}

/**
 * A push to the repository (what GitHub does on a user's push or a merged PR). On the production branch
 * it is deployed at once, as continuous deployment does; other branches wait for a `pull`, unless profile
 * `push-syncs-added-branches` is on: then a branch already added to the platform syncs at once too.
 */
export function pushRef(env: BuildEnv, d: DeploymentRec, branch: string, files: FileMap, sha: string): PushResult {
  if (!d.connected) throw new HttpError(400, `deployment ${d.id} is not connected to a repository (turn on the github-connected profile)`);
  const ref = { sha, files: { ...files } };
  d.connected.refs[branch] = ref;
  const b = d.branches[branch];
  const syncs = b?.kind === 'deploy' || (b?.kind === 'shared' && profileOn(env, 'push-syncs-added-branches'));
  if (b && syncs) bringToRef(env, d, b, ref);
  return { ref, synced: !!b && syncs && b.lastHash === sha };
}

/** Take the ref's tree and commit as the branch's; builds it when it changed and runs. True when it changed. */
function bringToRef(env: BuildEnv, d: DeploymentRec, b: BranchRec, ref: RefRec): boolean {
  // The platform builds only the project folder of the repository (`deployProjectRoot`).
  const project = projectFiles((d.connected as ConnectedRepo).projectRoot, ref.files);
  if (b.lastHash === ref.sha && sameTree(b.head, project)) return false;
  // Profile project-untouched-no-build: production builds only when the project changed; the branch stays at its commit.
  const untouched = b.kind === 'deploy' && deployModeOf(d) === 'git' && sameTree(b.head, project);
  if (untouched && profileOn(env, 'project-untouched-no-build')) return false;
  b.files = { ...project };
  b.head = { ...project };
  b.lastHash = ref.sha;
  b.commits += 1;
  const parent = b.parent ? d.branches[b.parent] : undefined;
  if (parent) b.base = hashTree(parent.head);
  triggerBuild(env, d, b, 'merge');
  return true;
}

type RepoEnv = BuildEnv & { clock: { iso(): string } };

/** `pull` on a connected deployment: the branch (made when the repository has it and the platform not yet) takes its ref. */
export function pullFromRepository(env: RepoEnv, d: DeploymentRec, name: string): { buildTriggered: boolean } {
  const repo = d.connected as ConnectedRepo;
  const ref = repo.refs[name];
  if (!ref) throw new HttpError(404, `branch ${JSON.stringify(name)} not found in the connected repository ${repo.repository}`);
  const b = d.branches[name];
  if (b?.kind === 'dev') throw new HttpError(400, `branch ${JSON.stringify(name)} is a dev-mode branch: it has no remote to pull from`);
  if (!b && profileOn(env, 'pull-needs-added-branch')) {
    throw new HttpError(
      404,
      `branch ${JSON.stringify(name)} is not added to deployment ${d.id}: ${repo.repository} has it, but pull syncs only branches added to the platform; add it with POST …/dev-mode {"branchName":${JSON.stringify(name)}} (the branch switcher)`,
    );
  }
  const target = b ?? makeBranch(d, name, d.branches[d.deployBranch] ?? null, 'shared', env.clock.iso());
  const changed = bringToRef(env, d, target, ref);
  return { buildTriggered: changed && isActive(d, target) };
}

/** Profile `pull-needs-added-branch`: dev mode on a repository branch not on the platform adds it first (the branch switcher). */
export function addedForDevMode(env: RepoEnv, d: DeploymentRec, name: string): BranchRec | undefined {
  const ref = d.connected?.refs[name];
  if (!ref || d.branches[name] || !profileOn(env, 'pull-needs-added-branch')) return undefined;
  // A shared branch from the deploy branch, at the ref (the project's files, as pull gives them).
  const b = makeBranch(d, name, d.branches[d.deployBranch] ?? null, 'shared', env.clock.iso());
  bringToRef(env, d, b, ref);
  return b;
}
