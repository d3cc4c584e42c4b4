/**
 * A branch's build: validation asks the branch's own running instance, so a shared branch must be
 * running (its staging environment on) and built before it is validated. The states and the verdicts
 * follow the vendor's CLI, which measured them on live deployments: `built` is success, `failed` and
 * `cancelled` are failure, `Branch is not active` and `Bad branch` in `errorText` mean it will never
 * build, `none` and `stopped` get a short grace, and any other state is progress.
 */
import { messageOf } from '../client/errors.js';
import type { BuildStatus, DeploymentSettings } from '@datamodel-ci/platform-api';
import { sleep } from '../client/retry.js';
import { DEFAULTS } from '../defaults.js';
import { mutate, type OpContext } from './context.js';

/** What a deployment's settings say about where production comes from (read once per run). */
export interface DeployTarget {
  /** The production (deploy) branch. */
  deployBranch: string;
  /** `cli`: production changes only when a model is uploaded to the deploy branch; merges do not rebuild it. */
  deployMode: string;
  /**
   * A repository is connected (any deploy mode): the platform's branches are refs there too, so a branch
   * the toolkit did not create is never removed upstream; `evidence` names the settings that said so.
   */
  connected?: { name: string | undefined; evidence: string };
  /**
   * Set when production is built from pushes to that repository (connected, not in CLI mode): the
   * repository's branches are the platform's, and GitHub's merge deploys.
   */
  repository?: { name: string | undefined; evidence: string };
  /** `deployProjectRoot`: where the Cube project sits in that repository (`/` for its root). */
  projectRoot: string;
  /** `deployBranchMergeAllowed`: the platform takes merges into the deploy branch. */
  mergeAllowed: boolean;
  /** `deployBranchReadOnly`: the platform refuses uploads to the deploy branch. */
  readOnly: boolean;
}

/**
 * Which settings say a repository is connected: `repoType: git` (one connected after the deployment was
 * made says only this), a GitHub or SSH `creationMethod`, a repository named. Any one is enough: taking a
 * connected deployment for an uploaded one would deploy a merged pull request twice.
 */
function connectionEvidence(s: DeploymentSettings): string[] {
  const method = typeof s.creationMethod === 'string' ? s.creationMethod : '';
  const repo = (s as { repository?: unknown }).repository;
  const said = [s.repoType === 'git' ? 'repoType: git' : '', method === 'github' || method === 'ssh' ? `creationMethod: ${method}` : ''].filter(Boolean);
  return said.length || typeof repo !== 'string' || !repo ? said : ['a repository named in the settings'];
}

/** Read a deployment's settings as a DeployTarget (the fields the vendor does not describe are read leniently). */
export function targetOf(s: DeploymentSettings): DeployTarget {
  const deployMode = s.deployMode ?? 'git';
  const evidence = connectionEvidence(s);
  const repo = (s as { repository?: unknown }).repository;
  const connected = evidence.length ? { name: typeof repo === 'string' && repo ? repo : undefined, evidence: evidence.join(', ') } : undefined;
  return {
    deployBranch: s.deployBranchName,
    deployMode,
    ...(connected ? { connected } : {}),
    ...(connected && deployMode !== 'cli' ? { repository: connected } : {}),
    projectRoot: typeof s.deployProjectRoot === 'string' && s.deployProjectRoot ? s.deployProjectRoot : '/',
    mergeAllowed: s.deployBranchMergeAllowed !== false,
    readOnly: s.deployBranchReadOnly === true,
  };
}

export async function deployTarget(ctx: OpContext): Promise<DeployTarget> {
  return targetOf(await ctx.client.deployments.settings({ deploymentId: ctx.deploymentId }, { signal: ctx.signal }));
}

export class BuildError extends Error {
  override name = 'BuildError';
}

/**
 * What build status showed just before a change landed (an upload's finish, a commit, a pull): a build
 * newer than this is the change's. The hash the change reported is only a hint: tenants word it in
 * other forms (7 characters, none at all), and some still show the previous build for a while.
 */
export interface BuildMark {
  status: string;
  jobId?: string;
  /** ms since the epoch, when the status had a readable time. */
  updatedAt?: number;
}

/** Read the branch's build status as a mark; undefined when it cannot be read (the hash then decides alone). */
export async function markBuild(ctx: OpContext, branch: string): Promise<BuildMark | undefined> {
  try {
    const s = await ctx.client.deployments.buildStatus({ deploymentId: ctx.deploymentId, query: { branchName: branch } }, { signal: ctx.signal });
    const at = s.updatedAt ? Date.parse(s.updatedAt) : Number.NaN;
    return {
      status: s.status.trim().toLowerCase(),
      ...(s.buildJobId != null ? { jobId: String(s.buildJobId) } : {}),
      ...(Number.isNaN(at) ? {} : { updatedAt: at }),
    };
  } catch (e) {
    if (ctx.signal?.aborted) throw e;
    return undefined;
  }
}

/** Two commit ids name the same commit: equal, or one a prefix (7 characters at least) of the other. */
export function sameCommit(a: string, b: string): boolean {
  const x = a.trim().toLowerCase();
  const y = b.trim().toLowerCase();
  return Math.min(x.length, y.length) >= 7 && (x.startsWith(y) || y.startsWith(x));
}

export interface WaitOptions {
  /** The commit the build should be of (from `upload/finish`, or the pushed head), when known: a hint. */
  lastHash?: string;
  /** The build status before the change landed: only a newer build is the change's. */
  since?: BuildMark;
  /**
   * Wake the branch's staging environment (one data request; true when it answered). Given, `Branch is
   * not active` is final only after `wakeGraceMs` of waking: again at the next poll when a wake got no
   * answer, and every `DEFAULTS.stagingWakeRepeatMs` (staging environments sleep when idle, and the
   * vendor does not promise that the first request resumes one).
   */
  wake?: () => Promise<boolean>;
  wakeGraceMs?: number;
  timeoutMs?: number;
  /** First poll interval, ms (it grows to `maxPollMs`). */
  pollMs?: number;
  maxPollMs?: number;
  /** How long `none` or `stopped` is taken as "about to start", ms. */
  idleGraceMs?: number;
}

type Status = Pick<BuildStatus, 'status' | 'lastHash' | 'buildJobId' | 'updatedAt'>;

/** Is this status newer than the mark? undefined when nothing tells. */
function newer(s: Status, since: BuildMark): boolean | undefined {
  if (s.buildJobId != null && since.jobId !== undefined) return String(s.buildJobId) !== since.jobId;
  // A running state's time is its start: only a finished state's time orders builds.
  const at = s.updatedAt ? Date.parse(s.updatedAt) : Number.NaN;
  if (!Number.isNaN(at) && since.updatedAt !== undefined && !RUNNING.has(since.status)) return at > since.updatedAt;
  return undefined;
}

const RUNNING = new Set(['building', 'warmup', 'queued', 'pending', 'deploying', 'starting']);

/** Does this (finished) status belong to the change being waited for? */
function ofTheChange(s: Status, o: WaitOptions, sawNewRun: boolean): boolean {
  // With a mark, only a build newer than it is the change's: a tenant may report the pushed commit as
  // `lastHash` as soon as it lands, while the build before it still serves (profile lasthash-at-commit).
  if (o.since) {
    const n = newer(s, o.since);
    if (n !== undefined) return n;
    if (sawNewRun) return true;
  }
  // The hash decides only where the marks cannot; with neither, the first `built` is taken.
  const hint = o.lastHash;
  const got = s.lastHash ?? undefined;
  return hint && got ? sameCommit(hint, got) : true;
}

/** The two verdicts the vendor measured, which come as `building` but are no run at all. */
const NOT_BUILDING = ['Branch is not active', 'Bad branch'];

/**
 * Poll the branch's build until the change's build is built; throws a BuildError otherwise. The status
 * is read first (the vendor's CLI does): `built` with an old error text is a healthy build.
 */
export async function waitForBuild(ctx: OpContext, branch: string, options: WaitOptions = {}): Promise<BuildStatus> {
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? DEFAULTS.buildWaitMinutes * 60_000;
  const idleGrace = options.idleGraceMs ?? DEFAULTS.buildIdleGraceMs;
  const wakeGrace = options.wakeGraceMs ?? DEFAULTS.stagingWakeMs;
  let poll = options.pollMs ?? DEFAULTS.buildFirstPollMs;
  const maxPoll = options.maxPollMs ?? DEFAULTS.buildMaxPollMs;
  let wokenAt: number | undefined;
  let wakeAnswered = false;
  let sawNewRun = false;
  for (;;) {
    const s = await ctx.client.deployments.buildStatus({ deploymentId: ctx.deploymentId, query: { branchName: branch } }, { signal: ctx.signal });
    const status = s.status.trim().toLowerCase();
    const error = s.errorText?.trim() ?? '';
    const elapsed = Date.now() - started;
    const ours = ofTheChange(s, options, sawNewRun);
    if (status === 'built' && ours) {
      ctx.reporter.progress('');
      return s;
    }
    if (RUNNING.has(status) && !NOT_BUILDING.some((t) => error.includes(t)) && (!options.since || newer(s, options.since) !== false)) sawNewRun = true;
    if (status !== 'built' && error.includes('Bad branch')) throw new BuildError(`branch ${branch} does not exist on the platform (build status: Bad branch)`);
    if (status !== 'built' && error.includes('Branch is not active')) {
      if (options.wake && elapsed < wakeGrace) {
        if (wokenAt === undefined) {
          ctx.reporter.info(
            `${branch} is not active yet (its staging environment may be asleep or starting): waking it, waiting up to ${Math.round(wakeGrace / 1000)} s`,
          );
        }
        if (wokenAt === undefined || !wakeAnswered || Date.now() - wokenAt >= DEFAULTS.stagingWakeRepeatMs) {
          wokenAt = Date.now();
          wakeAnswered = await options.wake().catch((e: unknown) => {
            ctx.reporter.debug(`waking ${branch}: ${messageOf(e)}`);
            return false;
          });
        }
      } else {
        throw new BuildError(
          `branch ${branch} is not running: nothing compiles it until its staging environment is enabled or someone opens it in dev mode (build status: Branch is not active${options.wake ? `, still after waking it for ${Math.round(elapsed / 1000)} s` : ''})`,
        );
      }
    } else if ((status === 'failed' || status === 'cancelled') && (!options.since || newer(s, options.since) !== false)) {
      // lastHash is what the branch still serves, not what failed: only the mark tells an old failure from this change's.
      throw new BuildError(`the build of ${branch} ${status}${error ? `: ${error}` : ''}`);
    }
    if ((status === 'none' || status === 'stopped') && !error.includes('Branch is not active') && elapsed > idleGrace) {
      throw new BuildError(`branch ${branch} is ${status} after ${Math.round(elapsed / 1000)} s: enable its staging environment or open it in dev mode`);
    }
    if (elapsed + poll > timeoutMs) {
      throw new BuildError(`branch ${branch} was not built within ${Math.round(timeoutMs / 1000)} s (last status: ${status}${error ? `, ${error}` : ''})`);
    }
    const why = ours ? '' : ` (an earlier build${s.lastHash ? ` ${s.lastHash}` : ''}; waiting for ${options.lastHash ?? 'the newer one'})`;
    ctx.reporter.debug(`build of ${branch}: ${status}${error ? ` (${error})` : ''}${why}`);
    ctx.reporter.progress(`build of ${branch}: ${status}`, `${Math.round(elapsed / 1000)} s since the start`);
    await sleep(poll, ctx.signal);
    poll = Math.min(maxPoll, poll * 2);
  }
}

/** Turn on the always-on staging environment of a shared branch (the deploy branch runs anyway). */
export async function enableBranchStaging(ctx: OpContext, branch: string): Promise<boolean> {
  const done = await mutate(ctx, `enable the staging environment of ${branch}`, () =>
    ctx.client.branches.setStagingEnvironment({ deploymentId: ctx.deploymentId, body: { enabled: true, branchName: branch } }, { signal: ctx.signal }),
  );
  return done !== undefined;
}

/** Make sure `branch` runs and is built (of `lastHash`, when given) before it is validated. */
export async function ensureBuilt(ctx: OpContext, branch: string, options: WaitOptions & { deployBranch?: string } = {}): Promise<void> {
  const deployBranch = options.deployBranch ?? (await deployTarget(ctx)).deployBranch;
  if (branch !== deployBranch && !(await enableBranchStaging(ctx, branch))) return;
  if (ctx.dryRun) return;
  await waitForBuild(ctx, branch, options);
}
