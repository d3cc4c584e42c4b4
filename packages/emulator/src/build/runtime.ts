/**
 * Branch runtimes and builds on the emulator's clock. The deploy branch always runs; a shared branch
 * runs while its staging environment is on or someone is in dev mode on it (a session on it or on one
 * of its forks); a dev branch while its session is open. Starting a runtime warms it up; a commit,
 * finish or merge on a running branch builds it. A build is a plan from its start and its state is
 * read off the clock, like a dbt run: no timers, a test advances the clock.
 */
import { profileOn, type Ctx, type HandlerTable } from '../context.js';
import { deployModeOf, upgradeOnDeploy, type DeploymentRec } from '../deployments/models.js';
import type { BranchRec, BuildRec, FileMap } from './models.js';

/** What builds read: the clock, the durations and the failures tests asked for. */
export type BuildEnv = Pick<Ctx, 'clock' | 'controls'>;

/** Why a build starts; in `cli` deploy mode only an upload `finish` rebuilds the deploy branch. */
export type BuildReason = 'commit' | 'finish' | 'merge';

export function isActive(d: DeploymentRec, b: BranchRec): boolean {
  if (b.kind === 'deploy') return true;
  const sessions = Object.values(d.devSessions);
  if (b.kind === 'dev') return sessions.includes(b.name);
  return b.staging || sessions.some((name) => name === b.name || d.branches[name]?.parent === b.name);
}

/** A fresh runtime: the deploy branch runs from the start, others when something starts them. */
export function newRuntime(kind: BranchRec['kind']) {
  return { running: kind === 'deploy', builds: [] as BuildRec[] };
}

function failureKey(d: DeploymentRec, branch: string): string {
  return `${d.id}:${branch}`;
}

/** The last build that succeeded and has finished by `now`: what the branch serves. */
export function servedBuild(b: BranchRec, now: number): BuildRec | undefined {
  return b.runtime.builds.findLast((x) => x.outcome === 'success' && x.endsAt <= now);
}

/** The builds worth keeping once all have ended: the last success and the newest failure after it. */
function keep(builds: BuildRec[]): BuildRec[] {
  const i = builds.findLastIndex((x) => x.outcome === 'success');
  const after = builds.slice(i + 1).slice(-1);
  return i >= 0 ? [builds[i] as BuildRec, ...after] : after;
}

/** What a build builds when it is not the branch's commit: a tree git does not hold, under a commit id of its own. */
export interface OffGitTree {
  files: FileMap;
  hash: string;
}

function startBuild(env: BuildEnv, d: DeploymentRec, b: BranchRec, kind: BuildRec['kind'], tree?: OffGitTree): void {
  const now = env.clock.now();
  const key = failureKey(d, b.name);
  const failure = env.controls.failNextBuild[key];
  delete env.controls.failNextBuild[key];
  // A slow build (control route builds/slow-next) is a build's, never a warm-up's.
  const slow = kind === 'build' ? env.controls.slowNextBuild?.[key] : undefined;
  if (slow !== undefined) delete env.controls.slowNextBuild?.[key];
  const { buildMs, warmupMs } = env.controls.behaviour;
  // Deploying production is what triggers an automatic patch upgrade (the vendor's update-channels page).
  if (b.kind === 'deploy' && kind === 'build') upgradeOnDeploy(d);
  const build: BuildRec = {
    jobId: d.nextBuildJobId++,
    kind,
    hash: tree?.hash ?? b.lastHash,
    files: { ...(tree?.files ?? b.head) },
    startedAt: now,
    endsAt: now + (kind === 'warmup' ? warmupMs : (slow ?? buildMs)),
    outcome: failure?.status ?? 'success',
  };
  if (failure) build.errorText = failure.errorText;
  // A newer build supersedes one still running: the older one never finishes.
  b.runtime.builds = [...keep(b.runtime.builds.filter((x) => x.endsAt <= now)), build];
  // Profile lasthash-at-commit: the new commit is reported before its build is seen, as stale-build-status does.
  if (kind === 'build' && (profileOn(env, 'stale-build-status') || profileOn(env, 'lasthash-at-commit'))) b.runtime.staleReads = STALE_READS;
  // Profile blank-build-status: the worker keeps reporting the model it serves for longer.
  if (kind === 'build' && profileOn(env, 'blank-build-status')) {
    b.runtime.staleReads = BLANK_STALE_READS;
    // The worker's swap is seen once: after the old model's answers, one `building` before the new `built`.
    b.runtime.showBuilding = true;
  }
}

/** Profiles `stale-build-status`, `lasthash-at-commit`: reads after a change that still show the build before it. */
const STALE_READS = 2;
/** Profile `blank-build-status`: reads after a change that answer `built` while the new build runs (the old model serving). */
export const BLANK_STALE_READS = 4;

/** Profiles `staging-cold` and `staging-needs-second-wake` (which implies its sleep). */
function sleepsWhenIdle(env: BuildEnv): boolean {
  return profileOn(env, 'staging-cold') || profileOn(env, 'staging-needs-second-wake');
}

/** Profile `staging-cold`: a staging environment asleep (just enabled, or idle) until a data request or its wake time. */
export function asleep(env: BuildEnv, b: BranchRec, now: number): boolean {
  const { wakesAt, usedAt } = b.runtime;
  if (!sleepsWhenIdle(env) || b.kind !== 'shared' || !b.staging || wakesAt === undefined) return false;
  return now < wakesAt || now - Math.max(wakesAt, usedAt ?? 0) > env.controls.behaviour.idleMs;
}

/** Profile `staging-needs-second-wake`: a request already reached the environment in this sleep (enabling clears it). */
function knocked(env: BuildEnv, b: BranchRec, now: number): boolean {
  const { knockedAt, wakesAt, usedAt } = b.runtime;
  if (knockedAt === undefined || wakesAt === undefined) return false;
  if (now < wakesAt) return true;
  return knockedAt > Math.max(wakesAt, usedAt ?? 0) + env.controls.behaviour.idleMs;
}

/**
 * A data request reached the branch's runtime: an asleep one starts (warms up), an awake one stays so.
 * True when the request is answered 503 (asleep). Under `staging-needs-second-wake` the first request
 * of a sleep is answered so and leaves it asleep (not counted as use, or it would count as awake).
 */
export function touch(env: BuildEnv, d: DeploymentRec, b: BranchRec): boolean {
  if (!sleepsWhenIdle(env)) return false;
  const now = env.clock.now();
  const wasAsleep = asleep(env, b, now);
  if (wasAsleep && profileOn(env, 'staging-needs-second-wake') && !knocked(env, b, now)) {
    b.runtime.knockedAt = now;
    return true;
  }
  if (wasAsleep) {
    b.runtime.wakesAt = Math.min(b.runtime.wakesAt ?? now, now);
    delete b.runtime.knockedAt;
    startBuild(env, d, b, 'warmup');
  }
  b.runtime.usedAt = now;
  return wasAsleep;
}

/** Build a branch after a change landed on it, if its runtime runs (and, in `cli` mode, production only on finish). */
export function triggerBuild(env: BuildEnv, d: DeploymentRec, b: BranchRec, reason: BuildReason): void {
  if (!isActive(d, b)) return;
  if (b.kind === 'deploy' && deployModeOf(d) === 'cli' && reason !== 'finish') return;
  startBuild(env, d, b, 'build');
}

/** Start the runtimes that became active and stop those that did not stay so. */
export function reconcileRuntimes(env: BuildEnv, d: DeploymentRec): void {
  const now = env.clock.now();
  for (const b of Object.values(d.branches)) {
    const active = isActive(d, b);
    if (active === b.runtime.running) continue;
    b.runtime.running = active;
    if (active) {
      delete b.runtime.stoppedAt;
      startBuild(env, d, b, 'warmup');
      // Profile staging-cold: a staging environment just enabled sleeps a while first.
      if (sleepsWhenIdle(env) && b.kind === 'shared' && b.staging) {
        b.runtime.wakesAt = now + env.controls.behaviour.coldMs;
        delete b.runtime.usedAt;
        delete b.runtime.knockedAt;
      }
    } else {
      b.runtime.stoppedAt = now;
      b.runtime.builds = keep(b.runtime.builds.filter((x) => x.endsAt <= now));
    }
  }
}

/** Handlers that reconcile the runtimes of their deployment after every successful write. */
export function withRuntimes(table: HandlerTable): HandlerTable {
  const out: HandlerTable = {};
  for (const [id, handler] of Object.entries(table)) {
    out[id] = async (ctx) => {
      const result = await handler(ctx);
      if (ctx.endpoint.method !== 'GET' && ctx.deployment && ctx.state.deployments.includes(ctx.deployment)) {
        reconcileRuntimes(ctx, ctx.deployment);
      }
      return result;
    };
  }
  return out;
}

/** The tree production serves: the deploy branch's last finished production build (empty before the first). */
export function productionFiles(b: BranchRec, now: number): FileMap {
  return servedBuild(b, now)?.files ?? {};
}

/** What a shared branch's staging environment serves: its last finished build, else the branch's files. */
export function stagingFiles(b: BranchRec, now: number): FileMap {
  return servedBuild(b, now)?.files ?? b.files;
}

/**
 * Build status as the vendor reports it: `built`, `building`, `warmup`, `failed`, `cancelled`,
 * `stopped`, `none`. `filesHash` is the branch's commit, `lastHash` what its last finished build serves
 * (the commit too under `lasthash-at-commit`). `env` brings the profiles in: an asleep staging
 * environment, a stale answer, the hash form.
 */
export function buildStatusOf(d: DeploymentRec, name: string, now: number, env: BuildEnv) {
  const s = rawBuildStatus(d, name, now, env);
  if (profileOn(env, 'blank-build-status')) {
    // Profile blank-build-status: nothing says which build or commit the status is of.
    const { buildJobId: _job, updatedAt: _at, lastHash: _last, filesHash: _files, ...blank } = s;
    return blank;
  }
  if (profileOn(env, 'no-hash')) return { ...s, filesHash: null, lastHash: null };
  if (profileOn(env, 'short-hash')) return { ...s, filesHash: s.filesHash?.slice(0, 7) ?? null, lastHash: s.lastHash?.slice(0, 7) ?? null };
  return s;
}

function rawBuildStatus(d: DeploymentRec, name: string, now: number, env: BuildEnv) {
  const at = (ms: number) => new Date(ms).toISOString();
  const b = d.branches[name];
  const base = { deploymentId: d.id, branchName: name, deploymentStatus: 'running' };
  // Measured by the vendor on live deployments: an unknown branch "builds" forever with this text.
  if (!b)
    return { ...base, mode: 'production', status: 'building', errorText: 'Bad branch', filesHash: null, lastHash: null, buildJobId: null, updatedAt: at(now) };
  const builds = b.runtime.builds;
  const last = builds.at(-1);
  const atCommit = profileOn(env, 'lasthash-at-commit');
  const known = {
    ...base,
    mode: b.kind === 'dev' ? 'dev_mode' : 'production',
    filesHash: b.lastHash,
    lastHash: atCommit ? b.lastHash : (servedBuild(b, now)?.hash ?? null),
    buildJobId: last?.jobId ?? null,
  };
  // Profiles stale-build-status, lasthash-at-commit: the build before the newest one, still shown as built
  // (under lasthash-at-commit with the new commit's hashes: the new build has not shown yet).
  const previous = builds.slice(0, -1).findLast((x) => x.outcome === 'success' && x.endsAt <= now);
  // Profile blank-build-status: only while the new build runs (once it ends, `built` is the truth).
  const stillOld = !profileOn(env, 'blank-build-status') || (last !== undefined && now < last.endsAt);
  if ((b.runtime.staleReads ?? 0) > 0 && previous && stillOld) {
    b.runtime.staleReads = (b.runtime.staleReads ?? 1) - 1;
    const hash = atCommit ? b.lastHash : previous.hash;
    return {
      ...known,
      filesHash: hash,
      lastHash: hash,
      buildJobId: previous.jobId,
      status: 'built',
      errorText: previous.errorText ?? null,
      updatedAt: at(previous.endsAt),
    };
  }
  // Profile blank-build-status: the one `building` read between the old model's answers and the new one's.
  if (profileOn(env, 'blank-build-status') && b.runtime.showBuilding && last?.kind === 'build' && isActive(d, b)) {
    delete b.runtime.showBuilding;
    delete b.runtime.staleReads;
    return { ...known, status: 'building', errorText: null, updatedAt: at(last.startedAt) };
  }
  const sleeping = asleep(env, b, now);
  if (!isActive(d, b) || sleeping) {
    const stoppedAt = b.runtime.stoppedAt;
    return {
      ...known,
      status: stoppedAt === undefined && !sleeping ? 'building' : 'stopped',
      errorText: 'Branch is not active',
      updatedAt: at(stoppedAt ?? Date.parse(b.createdAt)),
    };
  }
  if (!last) return { ...known, status: 'none', errorText: null, updatedAt: at(Date.parse(b.createdAt)) };
  if (now < last.endsAt) {
    // A failed build's text stays while the next one runs (the vendor's CLI waits through it).
    const before = builds.at(-2);
    const leftover = before && before.outcome !== 'success' ? (before.errorText ?? null) : null;
    return { ...known, status: last.kind === 'warmup' ? 'warmup' : 'building', errorText: leftover, updatedAt: at(last.startedAt) };
  }
  const status = last.outcome === 'success' ? 'built' : last.outcome;
  return { ...known, status, errorText: last.errorText ?? null, updatedAt: at(last.endsAt) };
}

/** Build the deploy branch from a tree its git does not hold (a scenario of the control API: production rebuilt off git). */
export function buildOffGit(env: BuildEnv, d: DeploymentRec, b: BranchRec, tree: OffGitTree): void {
  startBuild(env, d, b, 'build', tree);
}

/** Make the next build of a branch take `ms` (control route `builds/slow-next`); it ends as it would have. */
export function slowNextBuild(env: BuildEnv, d: DeploymentRec, branch: string, ms: number): void {
  env.controls.slowNextBuild = { ...env.controls.slowNextBuild, [failureKey(d, branch)]: ms };
}

/** Make the next build of a branch end badly (control route). */
export function failNextBuild(env: BuildEnv, d: DeploymentRec, branch: string, status: 'failed' | 'cancelled', errorText: string): void {
  env.controls.failNextBuild[failureKey(d, branch)] = { status, errorText };
}
