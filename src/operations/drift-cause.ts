/**
 * What likely made production differ from the model in git, named only where the platform shows it:
 * build status (a failed build, a build of another commit than the deploy branch's head), the deploy mode
 * and the connected repository (settings), the deploy branch's tree beside production's last upload (CLI
 * mode), and the dbt sync history (a change made of the files a sync generated). Each cause says
 * "likely" and what it was read from; where the evidence fits two causes, both are named. Reads only.
 */
import { messageOf } from '../client/errors.js';
import { DEFAULTS } from '../defaults.js';
import type { MemberChange } from '../impact/layer-digest.js';
import { sameCommit, type DeployTarget } from './branch-build.js';
import type { OpContext } from './context.js';
import type { DriftBuild, RecordCheck } from './drift.js';
import type { FileChange } from './production-state.js';

export type CauseKind = 'failed-build' | 'not-redeployed' | 'platform-merge' | 'dbt-branch' | 'out-of-band-upload' | 'repository-push' | 'unvalidated-change';

export interface LikelyCause {
  kind: CauseKind;
  /** One or two sentences, starting with what likely happened. */
  text: string;
  /** What the cause was read from. */
  evidence: string;
}

export interface CauseEvidence {
  target: DeployTarget;
  build?: DriftBuild;
  files: FileChange[];
  members: MemberChange[];
  branchFiles?: FileChange[];
  record?: RecordCheck;
  checkoutCommit?: string;
}

const short = (sha: string) => (/^[0-9a-f]{12,}$/i.test(sha) ? sha.slice(0, 7) : sha);

/** The build as a phrase: `job 41, built 2026-…`. */
function buildPhrase(b: DriftBuild | undefined): string {
  if (!b) return 'build status unread';
  return [b.jobId ? `job ${b.jobId}` : '', `${b.status}${b.updatedAt ? ` at ${b.updatedAt}` : ''}`].filter(Boolean).join(', ');
}

/** Build status says production serves another commit than the deploy branch's head (both said, and not the same). */
function servesOlder(b: DriftBuild | undefined): boolean {
  return !!(b?.lastHash && b.filesHash && !sameCommit(b.lastHash, b.filesHash));
}

function servesHead(b: DriftBuild | undefined): boolean {
  return !!(b?.lastHash && b.filesHash && sameCommit(b.lastHash, b.filesHash));
}

const hashes = (b: DriftBuild | undefined) =>
  b?.lastHash && b.filesHash ? ` (build status: the deploy branch is at ${short(b.filesHash)}, production's build is of ${short(b.lastHash)})` : '';

/** A dbt sync whose generated files are every path of the change: its branch was merged. */
interface DbtMatch {
  branchName: string;
  syncJobId: string;
  gitRef?: string;
  completedAt?: string;
}

/** The newest completed dbt syncs whose generated files hold every one of `paths`; undefined when none (or the history cannot be read). */
async function dbtSyncOf(ctx: OpContext, paths: readonly string[]): Promise<DbtMatch | undefined> {
  if (!paths.length) return undefined;
  try {
    const page = await ctx.client.dbtSync.list(
      { deploymentId: ctx.deploymentId, query: { status: 'COMPLETED', first: DEFAULTS.driftDbtRuns } },
      { signal: ctx.signal },
    );
    const runs = page.items.slice(0, DEFAULTS.driftDbtRuns);
    const results = await Promise.all(
      runs.map((r) =>
        ctx.client.dbtSync.result({ deploymentId: ctx.deploymentId, syncJobId: r.syncJobId }, { signal: ctx.signal }).then(
          (x) => x.generatedFiles.map((f) => f.path),
          () => [] as string[],
        ),
      ),
    );
    // A sync names files from the project root; the watch from model-dir: one may end with the other.
    const holds = (generated: string[], p: string) => generated.some((g) => g === p || g.endsWith(`/${p}`) || p.endsWith(`/${g}`));
    const i = results.findIndex((generated) => paths.every((p) => holds(generated, p)));
    const run = runs[i];
    return run
      ? {
          branchName: run.branchName,
          syncJobId: run.syncJobId,
          ...(run.gitRef ? { gitRef: run.gitRef } : {}),
          ...(run.completedAt ? { completedAt: run.completedAt } : {}),
        }
      : undefined;
  } catch (e) {
    if (ctx.signal?.aborted) throw e;
    ctx.reporter.debug(`the dbt sync history could not be read: ${messageOf(e)}`);
    return undefined;
  }
}

/** The paths a change brought (added or changed), of production or of the deploy branch. */
const brought = (changes: readonly FileChange[] | undefined) => (changes ?? []).filter((c) => c.change !== 'removed').map((c) => c.path);

function dbtCause(m: DbtMatch, deployed: boolean, target: DeployTarget): LikelyCause {
  const run = `sync ${m.syncJobId}${m.gitRef ? ` of ${m.gitRef}` : ''}${m.completedAt ? `, completed ${m.completedAt}` : ''}`;
  const where = deployed
    ? 'production built it'
    : `production does not run it (CLI mode deploys nothing on a merge; the next upload from git overwrites it: cube-js/cube #10907)`;
  return {
    kind: 'dbt-branch',
    text: `Likely a dbt sync's branch ${m.branchName} (${run}) merged into ${target.deployBranch} in the platform: the files that differ are the files it generated; ${where}.`,
    evidence: 'the dbt sync history and the files each sync generated, against the deploy branch',
  };
}

/** What likely made production differ, from what the platform shows; undefined when nothing it shows explains it. */
export async function likelyCause(ctx: OpContext, e: CauseEvidence): Promise<LikelyCause | undefined> {
  const { target, build: b, files, members } = e;
  const branch = target.deployBranch;
  if (b && (b.status === 'failed' || b.status === 'cancelled')) {
    return {
      kind: 'failed-build',
      text: `Likely a production build that ${b.status}${b.errorText ? ` (${b.errorText})` : ''}: the model before it still serves${hashes(b)}.`,
      evidence: `build status of ${branch} (${buildPhrase(b)})`,
    };
  }
  if (target.deployMode === 'cli') return cliCause(ctx, e);
  if (!files.length && members.length) {
    return {
      kind: 'not-redeployed',
      text: `Likely a production never rebuilt after ${branch} changed: ${branch} holds this model, but production's /meta serves another${hashes(b)}.`,
      evidence: `/meta against the files of ${branch}, and its build status (${buildPhrase(b)})`,
    };
  }
  if (files.length) {
    const dbt = await dbtSyncOf(ctx, brought(files));
    if (dbt) return dbtCause(dbt, true, target);
    if (target.repository) {
      const at = b?.lastHash ? `commit ${short(b.lastHash)}` : `the head of ${branch}`;
      const mine = e.checkoutCommit ? ` (the checkout is at ${short(e.checkoutCommit)})` : '';
      return {
        kind: 'repository-push',
        text: `Likely a push to ${branch} of the connected repository${target.repository.name ? ` ${target.repository.name}` : ''} that this checkout does not hold: production serves ${at}, whose model differs from this checkout${mine}.`,
        evidence: `the deployment's settings (${target.repository.evidence}) and build status (${buildPhrase(b)})`,
      };
    }
    if (servesHead(b) || !servesOlder(b)) {
      const built = servesHead(b) ? ', which production built' : '';
      return {
        kind: 'platform-merge',
        text: `Likely a change made in the platform to ${branch}: a merge in its UI or an upload with another key (the platform's API does not say which)${built}; ${branch} no longer holds this checkout's model.`,
        evidence: `the files of ${branch} against the checkout, and its build status (${buildPhrase(b)})`,
      };
    }
  }
  return unvalidated(e);
}

/** CLI mode: production runs its last upload; merges move only the deploy branch (the vendor's note, cube-js/cube #10907). */
async function cliCause(ctx: OpContext, e: CauseEvidence): Promise<LikelyCause | undefined> {
  const { target, build: b, files } = e;
  const branch = target.deployBranch;
  const onBranch = e.branchFiles ?? [];
  if (onBranch.length && !files.length) {
    const dbt = await dbtSyncOf(ctx, brought(onBranch));
    if (dbt) return dbtCause(dbt, false, target);
    return {
      kind: 'platform-merge',
      text: `Likely a merge made in the platform into ${branch}: the branch holds changes that are neither in git nor in production (CLI mode deploys nothing on a merge, and the next upload from git overwrites them: cube-js/cube #10907).`,
      evidence: `the files of ${branch} against production's last upload and the checkout (deploy mode cli)`,
    };
  }
  if (files.length && !onBranch.length) {
    // The last record's time tells the two apart: a build older than it was never redeployed; a newer one was deployed off git.
    const built = b?.updatedAt ? Date.parse(b.updatedAt) : Number.NaN;
    const validated = e.record ? Date.parse(e.record.validatedAt) : Number.NaN;
    if (e.record && !Number.isNaN(built) && !Number.isNaN(validated)) {
      const evidence = `production's build time (${b!.updatedAt}) against the last validation record's (${e.record.validatedAt}), and production's last upload against the files of ${branch} (deploy mode cli)`;
      if (built < validated) {
        return {
          kind: 'not-redeployed',
          text: `Likely a production not redeployed after ${branch} changed: production runs a build older than the last validated model (commit ${short(e.record.commit)}), which ${branch} holds (CLI mode: a merge deploys nothing until an upload).`,
          evidence,
        };
      }
      return {
        kind: 'platform-merge',
        text: `Likely a change made in the platform's UI and deployed without reaching git (cube-js/cube #10907): production was built after the last validated model (commit ${short(e.record.commit)}) from files that neither git nor ${branch} holds.`,
        evidence,
      };
    }
    return {
      kind: 'not-redeployed',
      text: `Likely a production not redeployed after ${branch} changed: the branch holds this checkout's model, production runs another upload${hashes(b)} (CLI mode: a merge deploys nothing until an upload). A change made in the platform's UI and deployed without reaching git looks the same.`,
      evidence: `production's last upload against the files of ${branch} (deploy mode cli), and its build status (${buildPhrase(b)})`,
    };
  }
  if (files.length) {
    const dbt = await dbtSyncOf(ctx, brought(files));
    if (dbt) return dbtCause(dbt, true, target);
    if (servesHead(b)) {
      return {
        kind: 'out-of-band-upload',
        text: `Likely an upload to ${branch} from outside this repository's flow (another \`cube deploy\`, or another key's): production runs it, and it is not this checkout's model.`,
        evidence: `production's last upload and the files of ${branch}, both unlike the checkout, and build status (${buildPhrase(b)}: production serves the branch's head)`,
      };
    }
  }
  return unvalidated(e);
}

/** Production matches the checkout, not the last record: the deploy branch changed outside the pull-request flow. */
function unvalidated(e: CauseEvidence): LikelyCause | undefined {
  const r = e.record;
  if (!r || e.files.length || e.members.length || (!r.files.length && r.layer !== 'differs')) return undefined;
  const fed = e.target.repository;
  return {
    kind: fed ? 'repository-push' : 'unvalidated-change',
    text: fed
      ? `Likely a push to ${e.target.deployBranch} of the connected repository outside the pull-request flow: production serves this checkout's model, which is not the last validated one (commit ${short(r.commit)}, validated ${r.validatedAt}).`
      : `Likely a change to ${e.target.deployBranch} outside the pull-request flow: production serves this checkout's model, which is not the last validated one (commit ${short(r.commit)}, validated ${r.validatedAt}).`,
    evidence: `the last validation record against production's files${r.layer === 'differs' ? ' and layer digest' : ''}`,
  };
}
