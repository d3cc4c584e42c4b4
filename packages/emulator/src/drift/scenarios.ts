/**
 * The ways production can differ from the model a team validated (issue 37), each one call: a merge
 * in the platform's UI (on a CLI deployment it never reaches production; or production rebuilt from a
 * tree git never held), another credential's upload to the deploy branch, a failed production build,
 * a dbt sync's branch merged, a merge production never rebuilt; and the controls a correct watcher
 * must read as no drift: a file stored with CRLF, files the model walk never reads, a slow build.
 * The control routes (`drift/routes.ts`) and in-process tests call the same functions; docs/emulator.md
 * ("Production drift") gives what each answers afterwards and the evidence it is plausible.
 */
import { randomBytes } from 'node:crypto';
import { checkBranchName, checkFilePath, commit, makeBranch, mergeInto } from '../build/branches.js';
import type { BranchRec, BuildRec, FileMap } from '../build/models.js';
import { buildOffGit, failNextBuild, servedBuild, slowNextBuild, triggerBuild } from '../build/runtime.js';
import { decodeFile, encodeFile, hashTree, sha1Hex, treeHash } from '../build/trees.js';
import type { Clock } from '../clock.js';
import { HttpError, type Controls } from '../context.js';
import type { DbtRunRec } from '../dbt/models.js';
import { dbtBranchName, dbtPlan, generatedModels } from '../dbt/runs.js';
import { deployModeOf, fedFromRepository, type DeploymentRec } from '../deployments/models.js';
import { newSha, pushRef } from '../deployments/repository.js';
import type { State } from '../state.js';

/** What the scenarios read and change: an emulator (`startEmulator`'s answer has all three). */
export interface DriftEnv {
  state: State;
  clock: Clock;
  controls: Controls;
}

/** Changes over the deploy branch's tree: path -> its new text, or null to delete it. */
export type FileChanges = Record<string, string | null>;

/** A production build a scenario started, as the build status will report it once it ends. */
export interface StartedBuild {
  jobId: number;
  /** The commit it builds (build status's `lastHash` once it has served); off git, a commit the branch never held. */
  hash: string;
  endsAt: string;
  outcome: BuildRec['outcome'];
}

/** What a scenario did to the deploy branch and to production. */
export interface DriftResult {
  scenario: string;
  deploymentId: number;
  /** The deploy branch's name. */
  branch: string;
  /** Its commit afterwards (build status's `filesHash`). */
  head: string;
  /** The paths whose bytes changed, on the deploy branch (`file-hashes`), in what production builds, or both. */
  changed: string[];
  /** The production build the scenario started; null when none started. */
  build: StartedBuild | null;
  /** The shared branch merged into the deploy branch (ui-merge, dbt-merge). */
  mergedBranch?: string;
  /** The dbt sync whose branch was merged (dbt-merge). */
  syncJobId?: string;
  /** Per path, the SHA-1 of git's bytes (LF) and of the platform's (CRLF) (crlf). */
  hashes?: Record<string, { git: string; platform: string }>;
}

/** The cube a scenario adds when the caller gives no files: a new cube named after it, which /meta shows once served. */
export function driftCube(name: string): string {
  return `cubes:\n  - name: ${name}\n    sql_table: public.orders\n    measures:\n      - name: count\n        type: count\n`;
}

const changesOr = (files: FileChanges | undefined, cube: string): FileChanges => files ?? { [`model/cubes/${cube}.yml`]: driftCube(cube) };

function deploymentOf(env: DriftEnv, id: number): DeploymentRec {
  const d = env.state.deployments.find((x) => x.id === id);
  if (!d)
    throw new HttpError(400, `deploymentId: got ${JSON.stringify(id)}, expected the id of a deployment (${env.state.deployments.map((x) => x.id).join(', ')})`);
  return d;
}

const deployBranchOf = (d: DeploymentRec): BranchRec => d.branches[d.deployBranch] as BranchRec;

/** `tree` with `files` applied; every path checked first. */
function applied(tree: FileMap, files: FileChanges): FileMap {
  Object.keys(files).forEach((p) => checkFilePath(p, `files[${JSON.stringify(p)}]`));
  const next = { ...tree };
  for (const [path, text] of Object.entries(files)) {
    if (text === null) delete next[path];
    else next[path] = encodeFile(text);
  }
  return next;
}

/** The paths whose bytes differ between two trees. */
function differing(a: FileMap, b: FileMap): string[] {
  const ha = hashTree(a);
  const hb = hashTree(b);
  return [...new Set([...Object.keys(ha), ...Object.keys(hb)])].filter((p) => ha[p] !== hb[p]).sort();
}

/** The build started since `before` (the last job id then), as reported. */
function startedSince(b: BranchRec, before: number | undefined): StartedBuild | null {
  const last = b.runtime.builds.at(-1);
  if (!last || last.jobId === before) return null;
  return { jobId: last.jobId, hash: last.hash, endsAt: new Date(last.endsAt).toISOString(), outcome: last.outcome };
}

function refuseFed(d: DeploymentRec, what: string): void {
  if (fedFromRepository(d)) {
    throw new HttpError(
      400,
      `deployment ${d.id} is fed from ${d.connected.repository}: ${what} is refused there (deployBranchMergeAllowed: false, deployBranchReadOnly: true); its production changes with a push (POST /_emulator/repository/push)`,
    );
  }
}

function result(d: DeploymentRec, scenario: string, changed: string[], before: number | undefined, extra: Partial<DriftResult> = {}): DriftResult {
  const main = deployBranchOf(d);
  return { scenario, deploymentId: d.id, branch: main.name, head: main.lastHash, changed, build: startedSince(main, before), ...extra };
}

/**
 * A merge in the platform's UI: a shared branch (`branchName`, default `ui-edit-<n>`) with `files`
 * merged into the deploy branch, which builds it in Git mode and not in CLI mode. `neverInGit`: the
 * UI's change reaches production with no commit: production rebuilt from the deploy branch's tree
 * with `files` applied, under a commit id git does not hold, while the branch keeps its files.
 */
export function uiMerge(env: DriftEnv, input: { deploymentId: number; files?: FileChanges; branchName?: string; neverInGit?: boolean }): DriftResult {
  const d = deploymentOf(env, input.deploymentId);
  refuseFed(d, 'a merge into the deploy branch');
  const main = deployBranchOf(d);
  const before = main.runtime.builds.at(-1)?.jobId;
  if (input.neverInGit) {
    const files = applied(main.head, changesOr(input.files, 'drift_never_in_git'));
    buildOffGit(env, d, main, { files, hash: treeHash(files, `${d.id}:${main.name}:off-git:${d.nextBuildJobId}`) });
    return result(d, 'ui-merge-never-in-git', differing(main.head, files), before);
  }
  const name = input.branchName ?? `ui-edit-${d.nextBranchId}`;
  checkBranchName(name, 'branchName');
  if (d.branches[name]) throw new HttpError(400, `branchName: got ${JSON.stringify(name)}, expected a branch that does not exist yet`);
  const next = applied(main.head, changesOr(input.files, 'drift_ui_merge'));
  const was = { ...main.head };
  const edit = makeBranch(d, name, main, 'shared', env.clock.iso());
  edit.files = next;
  commit(d, edit);
  // As the UI's merge: in CLI mode it moves the branch only (the vendor's note, cube-js/cube #10907).
  mergeInto(env, d, edit, main, true);
  return result(d, 'ui-merge', differing(was, main.head), before, { mergedBranch: name });
}

/**
 * Another credential's `cube deploy` to the deploy branch: its upload's finish commits the deploy
 * branch's tree with `files` applied and builds production (in either deploy mode, as a finish does).
 */
export function outOfBandUpload(env: DriftEnv, input: { deploymentId: number; files?: FileChanges }): DriftResult {
  const d = deploymentOf(env, input.deploymentId);
  refuseFed(d, 'an upload to the deploy branch');
  if (!env.controls.behaviour.directUploads) {
    throw new HttpError(
      400,
      `deployment ${d.id}: this tenant accepts uploads on a personal dev-mode branch only (directUploads: false), so no upload reaches the deploy branch`,
    );
  }
  const main = deployBranchOf(d);
  const before = main.runtime.builds.at(-1)?.jobId;
  const was = { ...main.head };
  main.files = applied(main.head, changesOr(input.files, 'drift_out_of_band'));
  commit(d, main);
  triggerBuild(env, d, main, 'finish');
  return result(d, 'out-of-band-upload', differing(was, main.head), before);
}

/**
 * The deploy branch moves (a commit lands with `files`; on a repository-fed deployment, a push to its
 * production branch) and the production build that follows fails: production keeps serving the old model.
 */
export function failedProductionBuild(env: DriftEnv, input: { deploymentId: number; files?: FileChanges; errorText?: string }): DriftResult {
  const d = deploymentOf(env, input.deploymentId);
  const main = deployBranchOf(d);
  const before = main.runtime.builds.at(-1)?.jobId;
  const was = { ...main.head };
  const next = applied(main.head, changesOr(input.files, 'drift_failed_build'));
  failNextBuild(env, d, main.name, 'failed', input.errorText ?? `Build failed: production build of ${main.name} failed`);
  if (fedFromRepository(d)) {
    // The repository's tree at the production branch, with the change (the project at its root, as refs are kept).
    pushRef(env, d, main.name, next, newSha());
  } else {
    main.files = next;
    commit(d, main);
    // The change builds production in either mode here (a merge in Git mode, an upload's finish in CLI mode).
    triggerBuild(env, d, main, deployModeOf(d) === 'cli' ? 'finish' : 'merge');
  }
  return result(d, 'failed-build', differing(was, main.head), before);
}

/**
 * A dbt sync's branch merged in the UI: a completed sync of `ref` (in the sync history) whose branch
 * `dbt-sync/<ref>-<time>-<hex>` holds the generated files, merged into the deploy branch (built in Git
 * mode, not in CLI mode); the branch is deleted after unless `keepBranch`.
 */
export function dbtMerge(env: DriftEnv, input: { deploymentId: number; ref?: string; keepBranch?: boolean }): DriftResult {
  const d = deploymentOf(env, input.deploymentId);
  refuseFed(d, 'a merge into the deploy branch');
  const main = deployBranchOf(d);
  const before = main.runtime.builds.at(-1)?.jobId;
  const was = { ...main.head };
  const plan = dbtPlan();
  const now = env.clock.now();
  const startedAt = now - plan.reduce((a, p) => a + p.durationMs, 0) - 60_000;
  const hex = randomBytes(4).toString('hex');
  const ref = input.ref ?? d.dbtSavedRef ?? 'main';
  const run: DbtRunRec = {
    syncJobId: `sync-${randomBytes(6).toString('hex')}`,
    workflowId: `wf-${randomBytes(6).toString('hex')}`,
    deploymentId: d.id,
    branchName: dbtBranchName(ref, startedAt, hex),
    ref,
    source: 'git',
    trigger: 'manual',
    userId: null,
    startedAt,
    plan,
    generated: generatedModels({ ref }),
    materialized: true,
  };
  d.dbtRuns.push(run);
  const b = makeBranch(d, run.branchName, main, 'shared', new Date(now - 60_000).toISOString());
  b.files = applied(b.files, run.generated);
  commit(d, b);
  mergeInto(env, d, b, main, !input.keepBranch);
  return result(d, 'dbt-merge', differing(was, main.head), before, { mergedBranch: run.branchName, syncJobId: run.syncJobId });
}

/**
 * A merge production never rebuilt: a merge commit with `files` lands on the deploy branch (pushed to
 * the ref on a connected deployment) and no build starts, in either deploy mode.
 */
export function mergeWithoutBuild(env: DriftEnv, input: { deploymentId: number; files?: FileChanges }): DriftResult {
  const d = deploymentOf(env, input.deploymentId);
  const main = deployBranchOf(d);
  const before = main.runtime.builds.at(-1)?.jobId;
  const was = { ...main.head };
  // The merge commit: the deploy branch's tree with the merged branch's changes; nothing builds it.
  main.files = applied(main.head, changesOr(input.files, 'drift_never_redeployed'));
  commit(d, main);
  return result(d, 'merge-without-build', differing(was, main.head), before);
}

/** Text with every line ending CRLF. */
const crlf = (text: string) => text.replace(/\r?\n/g, '\r\n');

/** Rewrite a path's bytes in place on the deploy branch and in every build of it that holds it: as if always so. */
function rewriteInPlace(main: BranchRec, path: string, bytes: string, only?: string): void {
  for (const tree of [main.files, main.head, ...main.runtime.builds.map((x) => x.files)]) {
    if (only === undefined || tree[path] === only) tree[path] = bytes;
  }
}

/**
 * Control: the platform stores `paths` (default: every text file under `model/` of the deploy branch)
 * with CRLF line endings where git holds LF. No commit, no build: the branch and production's build
 * hold the CRLF bytes as if they always had; the model is the same, `file-hashes` is not.
 */
export function crlfOnPlatform(env: DriftEnv, input: { deploymentId: number; paths?: string[] }): DriftResult {
  const d = deploymentOf(env, input.deploymentId);
  const main = deployBranchOf(d);
  const text = (p: string) => decodeFile(main.head[p] as string).toString('utf8');
  const paths = input.paths ?? Object.keys(main.head).filter((p) => p.startsWith('model/') && text(p).includes('\n') && !text(p).includes('\r'));
  const missing = paths.filter((p) => !(p in main.head) || !(p in main.files));
  if (missing.length) throw new HttpError(400, `paths: got ${JSON.stringify(missing)}, expected files of the deploy branch ${main.name}`);
  const hashes: Record<string, { git: string; platform: string }> = {};
  for (const p of paths) {
    const lf = text(p).replace(/\r\n/g, '\n');
    hashes[p] = { git: sha1Hex(lf), platform: sha1Hex(crlf(lf)) };
    rewriteInPlace(main, p, encodeFile(crlf(lf)), main.head[p]);
  }
  return result(d, 'crlf', paths.filter((p) => hashes[p]!.git !== hashes[p]!.platform).sort(), main.runtime.builds.at(-1)?.jobId, { hashes });
}

/** Files a repository has beside the model that neither Cube nor the model walk reads (`.github`, `node_modules`, a `.gitignore`). */
export const UNWALKED_FILES: Record<string, string> = {
  '.gitignore': 'node_modules/\n.env\n',
  '.github/workflows/deploy.yml': 'name: deploy\non: push\njobs:\n  deploy:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n',
  'node_modules/left-pad/index.js': 'module.exports = (s, n) => String(s).padStart(n);\n',
  'model/node_modules/left-pad/index.js': 'module.exports = (s, n) => String(s).padStart(n);\n',
};

/**
 * Control: files only the platform has on the deploy branch (default `UNWALKED_FILES`), which Cube
 * never compiles and the toolkit's walk never reads. No commit, no build: the branch and production's
 * build hold them as if they always had; `/meta` is unchanged.
 */
export function unwalkedFiles(env: DriftEnv, input: { deploymentId: number; files?: Record<string, string> }): DriftResult {
  const d = deploymentOf(env, input.deploymentId);
  const main = deployBranchOf(d);
  const files = input.files ?? UNWALKED_FILES;
  Object.keys(files).forEach((p) => checkFilePath(p, `files[${JSON.stringify(p)}]`));
  for (const [p, t] of Object.entries(files)) rewriteInPlace(main, p, encodeFile(t));
  return result(d, 'unwalked-files', Object.keys(files).sort(), main.runtime.builds.at(-1)?.jobId);
}

/** Control: the next build of `branchName` (default the deploy branch) takes `ms` emulated ms and ends as it would have. */
export function slowBuild(env: DriftEnv, input: { deploymentId: number; branchName?: string; ms: number }) {
  const d = deploymentOf(env, input.deploymentId);
  const branch = input.branchName ?? d.deployBranch;
  if (!d.branches[branch]) throw new HttpError(400, `branchName: got ${JSON.stringify(branch)}, expected a branch of deployment ${d.id}`);
  if (!(input.ms >= 0) || !Number.isFinite(input.ms)) throw new HttpError(400, `ms: got ${JSON.stringify(input.ms)}, expected a non-negative number of ms`);
  slowNextBuild(env, d, branch, input.ms);
  return { deploymentId: d.id, branchName: branch, ms: input.ms };
}

/** A push to a connected repository (as `POST /_emulator/repository/push`): to the production branch, deployed in Git mode. */
export function pushToRepository(env: DriftEnv, input: { deploymentId: number; branch: string; files: Record<string, string>; sha?: string }) {
  const d = deploymentOf(env, input.deploymentId);
  const sha = input.sha ?? newSha();
  const tree = Object.fromEntries(Object.entries(input.files).map(([p, t]) => [p, encodeFile(t)]));
  const { synced } = pushRef(env, d, input.branch, tree, sha);
  return { branch: input.branch, sha, synced };
}

/** What production serves beside what the deploy branch holds, by path (SHA-1 of the bytes): the emulator's own view. */
export function productionView(env: DriftEnv, deploymentId: number) {
  const d = deploymentOf(env, deploymentId);
  const main = deployBranchOf(d);
  const served = servedBuild(main, env.clock.now());
  const files = hashTree(main.files);
  const servedFiles = served ? hashTree(served.files) : {};
  return {
    deploymentId: d.id,
    branch: main.name,
    deployMode: deployModeOf(d),
    head: main.lastHash,
    files,
    served: served ? { jobId: served.jobId, hash: served.hash, files: servedFiles } : null,
    differ: differing(main.files, served?.files ?? {}),
  };
}
