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
import { attest, type BuildProof, type ChangeBuild } from './evidence.js';

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
  /** The status as read, lower-cased; `absent` for a branch this run created after the read (any build is newer). */
  status: string;
  jobId?: string;
  /** ms since the epoch, when the status had a readable time. */
  updatedAt?: number;
  /** The commit the status said the branch serves (a hint only). */
  lastHash?: string;
}

/** The mark of a branch that did not exist before this run created it: every build of it is the change's. */
export const ABSENT: BuildMark = Object.freeze({ status: 'absent' });

/** A mark's status for a build a run already accepted for the same change (a rerun): it, or a later one, is the change's. */
export const ACCEPTED = 'accepted';

/**
 * A mark a later build can be shown newer than, after that build has ended: it has a job id or a time
 * (a blank one, a dev worker's, proves only a run seen to start, so a wait long after it proves nothing).
 */
export function ordersBuilds(mark: BuildMark | undefined): boolean {
  return !!mark && (mark.jobId !== undefined || mark.updatedAt !== undefined);
}

/** A build status as a mark (a branch not running, or not there, is no run in progress: its build comes later). */
export function markOf(s: Pick<BuildStatus, 'status' | 'buildJobId' | 'updatedAt' | 'lastHash'> & { errorText?: string | null }): BuildMark {
  const error = s.errorText ?? '';
  if (error.includes('Bad branch')) return ABSENT;
  const at = s.updatedAt ? Date.parse(s.updatedAt) : Number.NaN;
  return {
    status: error.includes('Branch is not active') ? 'inactive' : s.status.trim().toLowerCase(),
    ...(s.buildJobId != null ? { jobId: String(s.buildJobId) } : {}),
    ...(Number.isNaN(at) ? {} : { updatedAt: at }),
    ...(s.lastHash ? { lastHash: s.lastHash } : {}),
  };
}

/**
 * Read the branch's build status as a mark; undefined when it cannot be read (the wait then needs a run seen
 * to start). `settleMs`: a blank status (no job id, no time) taken while a run is in progress cannot tell
 * that run from the change's, so it is read again until that run has ended, for this long at most.
 */
export async function markBuild(ctx: OpContext, branch: string, options: { settleMs?: number } = {}): Promise<BuildMark | undefined> {
  const read = async () => {
    try {
      return markOf(await ctx.client.deployments.buildStatus({ deploymentId: ctx.deploymentId, query: { branchName: branch } }, { signal: ctx.signal }));
    } catch (e) {
      if (ctx.signal?.aborted) throw e;
      return undefined;
    }
  };
  const until = Date.now() + (options.settleMs ?? 0);
  let mark = await read();
  while (mark && !ordersBuilds(mark) && RUNNING.has(mark.status) && Date.now() < until) {
    await sleep(DEFAULTS.buildMaxPollMs / 5, ctx.signal);
    mark = await read();
  }
  return mark;
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
  /** `lastHash` is exactly the change's commit: a newer build the status says is of another commit is not the change's. */
  exactCommit?: boolean;
  /**
   * The build status before the change landed: only a newer build is the change's. Without one (it could
   * not be read), only a build seen to start during the wait is.
   */
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
  maxPollMs?: number;
  pollMs?: number;
  /** How long `none` or `stopped` is taken as "about to start", ms. */
  idleGraceMs?: number;
  /**
   * With a mark that cannot order builds (blank), how long a new run may take to be seen before the wait
   * ends "not proven" (the caller knows the change may have built before the mark was read).
   */
  unprovenAfterMs?: number;
}

type Status = Pick<BuildStatus, 'status' | 'lastHash' | 'buildJobId' | 'updatedAt'>;

const RUNNING = new Set(['building', 'warmup', 'queued', 'pending', 'deploying', 'starting']);
const FINISHED = new Set(['built', 'failed', 'cancelled']);

/** A build status (lower-cased) that says a run is in progress: what it will serve is not known yet. */
export const buildRunning = (status: string): boolean => RUNNING.has(status);

/** Is this status newer than the mark, and how is that known? undefined when nothing tells. */
function newer(s: Status, since: BuildMark): { newer: boolean; proof: BuildProof } | undefined {
  if (since.status === ABSENT.status) return { newer: true, proof: 'created by this run' };
  const at = s.updatedAt ? Date.parse(s.updatedAt) : Number.NaN;
  // A build already accepted for this very change: that build itself, or a later one, is the change's.
  if (since.status === ACCEPTED) {
    if (s.buildJobId != null && since.jobId !== undefined && String(s.buildJobId) === since.jobId) return { newer: true, proof: 'job id' };
    if (!Number.isNaN(at) && since.updatedAt !== undefined) return { newer: at >= since.updatedAt, proof: 'finish time' };
    return undefined;
  }
  if (s.buildJobId != null && since.jobId !== undefined) return { newer: String(s.buildJobId) !== since.jobId, proof: 'job id' };
  // A running state's time is its start: only a finished state's time orders builds.
  // A branch not running then: its time is when it stopped (or was made), so a build that ended then or later came after.
  if (!Number.isNaN(at) && since.updatedAt !== undefined && since.status === 'inactive') return { newer: at >= since.updatedAt, proof: 'finish time' };
  if (!Number.isNaN(at) && since.updatedAt !== undefined && !RUNNING.has(since.status)) return { newer: at > since.updatedAt, proof: 'finish time' };
  return undefined;
}

/**
 * Where the wait stands with a mark that cannot order builds (no job id, no finish time: a dev worker's
 * blank status, or no mark at all): the change's build is the first one seen to start after the mark.
 * A mark taken while a build ran belongs to that run until it is seen to finish.
 */
class RunWatch {
  private oldRunEnded: boolean;
  sawNewRun = false;

  constructor(since: BuildMark | undefined) {
    this.oldRunEnded = !since || !RUNNING.has(since.status);
  }

  see(status: string, building: boolean, ordered: { newer: boolean } | undefined): void {
    if (ordered) {
      if (building && ordered.newer) this.sawNewRun = true;
      return;
    }
    if (FINISHED.has(status)) this.oldRunEnded = true;
    else if (building && this.oldRunEnded) this.sawNewRun = true;
  }
}

/** Is this finished status the change's build, and by what proof? undefined when it is not (or not yet known). */
function proofOf(s: Status, o: WaitOptions, watch: RunWatch): BuildProof | undefined {
  // With a mark, only a build newer than it is the change's: a tenant may report the pushed commit as
  // `lastHash` as soon as it lands, while the build before it still serves (profile lasthash-at-commit).
  const hint = o.lastHash;
  const got = s.lastHash ?? undefined;
  const otherCommit = !!(hint && got && !sameCommit(hint, got));
  const ordered = o.since ? newer(s, o.since) : undefined;
  if (ordered) return ordered.newer && !(o.exactCommit && otherCommit) ? ordered.proof : undefined;
  // No mark can order it: the hash decides where both say one; with none, only a run seen to start after the mark.
  if (hint && got) return otherCommit ? undefined : 'commit';
  return watch.sawNewRun ? 'new run seen' : undefined;
}

/** The two verdicts the vendor measured, which come as `building` but are no run at all. */
const NOT_BUILDING = ['Branch is not active', 'Bad branch'];

/**
 * Poll the branch's build until the change's build is built, and return it as evidence (a ChangeBuild);
 * throws a BuildError otherwise, a NotProven when builds were seen but none could be shown to be the
 * change's within the deadline. The status is read first (the vendor's CLI does): `built` with an old
 * error text is a healthy build.
 */
export async function waitForBuild(ctx: OpContext, branch: string, options: WaitOptions = {}): Promise<ChangeBuild> {
  const { status, proof } = await waitLoop(ctx, branch, options, false);
  return attest('build', { branch, status, proof: proof! });
}

/**
 * Wait until the branch serves a build, whichever it is: no claim that it is any change's (the `validate`
 * command on a branch no run of the pull request uploaded to says so; it declares nothing of a push).
 */
export async function waitForServedBuild(ctx: OpContext, branch: string, options: Omit<WaitOptions, 'since' | 'lastHash'> = {}): Promise<BuildStatus> {
  return (await waitLoop(ctx, branch, options, true)).status;
}

async function waitLoop(ctx: OpContext, branch: string, options: WaitOptions, served: boolean): Promise<{ status: BuildStatus; proof?: BuildProof }> {
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? DEFAULTS.buildWaitMinutes * 60_000;
  const idleGrace = options.idleGraceMs ?? DEFAULTS.buildIdleGraceMs;
  const wakeGrace = options.wakeGraceMs ?? DEFAULTS.stagingWakeMs;
  let poll = options.pollMs ?? DEFAULTS.buildFirstPollMs;
  const maxPoll = options.maxPollMs ?? DEFAULTS.buildMaxPollMs;
  let wokenAt: number | undefined;
  let wakeAnswered = false;
  let builtUnproven = 0;
  const watch = new RunWatch(options.since);
  for (;;) {
    const s = await ctx.client.deployments.buildStatus({ deploymentId: ctx.deploymentId, query: { branchName: branch } }, { signal: ctx.signal });
    const status = s.status.trim().toLowerCase();
    const error = s.errorText?.trim() ?? '';
    const elapsed = Date.now() - started;
    const building = RUNNING.has(status) && !NOT_BUILDING.some((t) => error.includes(t));
    const ordered = options.since ? newer(s, options.since) : undefined;
    watch.see(status, building, ordered);
    if (served && status === 'built') {
      ctx.reporter.progress('');
      return { status: s };
    }
    const proof = status === 'built' ? proofOf(s, options, watch) : undefined;
    if (proof) {
      ctx.reporter.progress('');
      return { status: s, proof };
    }
    if (status === 'built') builtUnproven += 1;
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
    } else if ((status === 'failed' || status === 'cancelled') && (served || (ordered ? ordered.newer : watch.sawNewRun))) {
      // lastHash is what the branch still serves, not what failed: only the mark (or a run seen) tells an old failure from this change's.
      throw new BuildFailed(`the build of ${branch} ${status}${error ? `: ${error}` : ''}`);
    }
    if ((status === 'none' || status === 'stopped') && !error.includes('Branch is not active') && elapsed > idleGrace) {
      throw new BuildError(`branch ${branch} is ${status} after ${Math.round(elapsed / 1000)} s: enable its staging environment or open it in dev mode`);
    }
    const giveUp = options.unprovenAfterMs !== undefined && !watch.sawNewRun && !ordered && elapsed + poll > options.unprovenAfterMs;
    if (elapsed + poll > timeoutMs || (giveUp && builtUnproven > 0)) {
      if (builtUnproven > 0) throw new NotProven(branch, elapsed, status);
      throw new BuildError(`branch ${branch} was not built within ${Math.round(timeoutMs / 1000)} s (last status: ${status}${error ? `, ${error}` : ''})`);
    }
    const why = status === 'built' ? ` (an earlier build${s.lastHash ? ` ${s.lastHash}` : ''}; waiting for ${options.lastHash ?? 'the newer one'})` : '';
    ctx.reporter.debug(`build of ${branch}: ${status}${error ? ` (${error})` : ''}${why}`);
    ctx.reporter.progress(`build of ${branch}: ${status}`, `${Math.round(elapsed / 1000)} s since the start`);
    await sleep(poll, ctx.signal);
    poll = Math.min(maxPoll, poll * 2);
  }
}

/** The change's build (newer than the mark, or a run seen to start after it) ended failed or cancelled: the branch serves the build before it. */
export class BuildFailed extends BuildError {
  override name = 'BuildFailed';
}

/**
 * The branch kept answering `built`, but nothing showed that build to be the change's within the deadline
 * (no job id, time or hash moved, no run seen to start): the push is "not proven", never declared valid.
 */
export class NotProven extends BuildError {
  override name = 'NotProven';
  constructor(branch: string, elapsedMs: number, status: string) {
    super(
      `not proven: ${branch} answered "${status}" for ${Math.round(elapsedMs / 1000)} s, but its build status carries no job id, time or commit that moved after this change landed, and no new build was seen to start; the platform may still serve the model before it, so it is not declared valid (push again, or rerun once the branch has rebuilt)`,
    );
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
export async function ensureBuilt(ctx: OpContext, branch: string, options: WaitOptions & { deployBranch?: string } = {}): Promise<ChangeBuild | undefined> {
  const deployBranch = options.deployBranch ?? (await deployTarget(ctx)).deployBranch;
  if (branch !== deployBranch && !(await enableBranchStaging(ctx, branch))) return undefined;
  if (ctx.dryRun) return undefined;
  return waitForBuild(ctx, branch, options);
}
