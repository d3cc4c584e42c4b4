/**
 * The drift watch (issue 37): what production holds and serves against the deploy branch's model in git
 * (the job's checkout) and against the last validation record, read without writing anything to the
 * platform (no upload, no branch, no build: the watch compares what is there). Production's files are
 * its deploy branch's tree (CLI mode: its last upload, what it runs), its layer `/meta` read whole; a
 * production build still running is waited for, bounded, and past the bound nothing is claimed ("not
 * proven"). When production differs, `likelyCause` names what the platform's builds and branches show.
 */
import { sleep } from '../client/retry.js';
import { DEFAULTS } from '../defaults.js';
import { policyGroups } from '../impact/access/layer.js';
import { modelDefinition } from '../impact/definition/source.js';
import { memberChanges, membersOfModel, type MemberChange } from '../impact/layer-digest.js';
import type { LocalFile, PathFilter } from '../model/local-model.js';
import type { FileTexts } from '../model/model-files.js';
import { buildRunning, deployTarget, type DeployTarget } from './branch-build.js';
import type { OpContext } from './context.js';
import { likelyCause, type LikelyCause } from './drift-cause.js';
import { compareFiles, compareWithHashes, productionBuild, productionLayer, type FileChange } from './production-state.js';
import type { ValidationRecord } from './validation-record.js';

export type DriftStatus = 'in-sync' | 'drift' | 'not-proven';

/** Production's build status as the watch read it last (times as ISO text). */
export interface DriftBuild {
  status: string;
  jobId?: string;
  updatedAt?: string;
  /** The commit the build status says production serves. */
  lastHash?: string;
  /** The deploy branch's head, as build status says it. */
  filesHash?: string;
  errorText?: string;
}

/** Production against the last validation record: its files (by hash) and its layer's digest. */
export interface RecordCheck {
  commit: string;
  validatedAt: string;
  /** What production has relative to the record's files (line endings alone are no change). */
  files: FileChange[];
  /** Production's layer digest against the record's: `not-recorded` when the record kept none, `not-read` when /meta was not read. */
  layer: 'same' | 'differs' | 'not-recorded' | 'not-read';
}

export interface DriftReport {
  status: DriftStatus;
  /** What production has relative to the model in model-dir (paths as inside it). */
  files: FileChange[];
  /** Production's layer (/meta read whole) against the members the files of model-dir declare public. */
  members: MemberChange[];
  /** Why production could be shown neither equal nor different (`not-proven` only). */
  reason?: string;
  deployBranch: {
    name: string;
    deployMode: string;
    /** The connected repository production is built from, when it is. */
    repository?: string;
    /** CLI mode: the deploy branch's tree on the platform against model-dir (production runs its last upload, not this tree). */
    files?: FileChange[];
  };
  build?: DriftBuild;
  /** Production against the last record, when one was given. */
  record?: RecordCheck;
  /** What likely made production differ, and what that was read from (only when it differs and the platform shows it). */
  cause?: LikelyCause;
  /** What could not be read, said once each (a layer read that failed, a build status missing). */
  notes: string[];
}

export interface DriftInput {
  /** The checkout's model as the walk read it (`exclude` honoured). */
  local: readonly LocalFile[];
  /** Its model files' texts (what Cube compiles): the members they declare are what production should serve. */
  texts: FileTexts;
  excluded?: PathFilter;
  /** The last validation record of the deployment, when a later job could read one. */
  record?: ValidationRecord;
  /** How long a production build in progress is waited for, ms. */
  buildWaitMs: number;
  /** First poll of a running build, ms (it doubles up to `DEFAULTS.buildMaxPollMs`). */
  pollMs?: number;
  /** The commit the checkout holds (`GITHUB_SHA`), when known: named beside production's in a cause. */
  checkoutCommit?: string;
}

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/** Production's build status, waited for while a run is in progress, up to `waitMs`; `running` when the wait ended on one. */
async function settledBuild(ctx: OpContext, target: DeployTarget, waitMs: number, firstPollMs: number): Promise<{ build?: DriftBuild; running: boolean }> {
  const started = Date.now();
  let poll = firstPollMs;
  for (;;) {
    const b = await productionBuild(ctx, target);
    const build: DriftBuild | undefined = b && {
      status: b.status,
      ...(b.jobId ? { jobId: b.jobId } : {}),
      ...(b.updatedAt !== undefined ? { updatedAt: iso(b.updatedAt) } : {}),
      ...(b.lastHash ? { lastHash: b.lastHash } : {}),
      ...(b.filesHash ? { filesHash: b.filesHash } : {}),
      ...(b.errorText ? { errorText: b.errorText } : {}),
    };
    if (!build || !buildRunning(build.status)) return { build, running: false };
    const elapsed = Date.now() - started;
    if (elapsed + poll > waitMs) return { build, running: true };
    ctx.reporter.progress(
      `production's build on ${target.deployBranch}: ${build.status}`,
      `${Math.round(elapsed / 1000)} s of at most ${Math.round(waitMs / 1000)} s`,
    );
    await sleep(poll, ctx.signal);
    poll = Math.min(DEFAULTS.buildMaxPollMs, poll * 2);
  }
}

/** A model file's path as the comparisons count it: dot-segments (`.gitignore` too) are none. */
const counted = (path: string) => !path.split('/').some((s) => s.startsWith('.'));

/** The record holds exactly the checkout's files (same paths, same bytes): production against it is production against the checkout. */
function recordIsCheckout(record: ValidationRecord, local: readonly LocalFile[], excluded?: PathFilter): boolean {
  const keep = (p: string) => counted(p) && !excluded?.(p);
  const mine = new Map(local.filter((f) => keep(f.path)).map((f) => [f.path, f.sha1]));
  const theirs = Object.entries(record.files).filter(([p]) => keep(p));
  return theirs.length === mine.size && theirs.every(([p, h]) => mine.get(p) === h);
}

/**
 * Production against the record's files. A hash that differs only because production holds the file with
 * other line endings is no change: the checkout bridges it (its bytes are the record's, and production's
 * text equals the checkout's with LF endings, as `compareFiles` found).
 */
async function againstRecord(ctx: OpContext, target: DeployTarget, input: DriftInput, files: FileChange[]): Promise<FileChange[]> {
  const record = input.record!;
  if (recordIsCheckout(record, input.local, input.excluded)) return files;
  const byHash = await compareWithHashes(ctx, target, record.files, input.excluded);
  const local = new Map(input.local.map((f) => [f.path, f.sha1]));
  const differs = new Set(files.map((f) => f.path));
  return byHash.filter((c) => !(c.change === 'changed' && local.get(c.path) === record.files[c.path] && !differs.has(c.path)));
}

/** Read production (files, layer, build) and compare it with the checkout and the record. Writes nothing. */
export async function checkDrift(ctx: OpContext, input: DriftInput): Promise<DriftReport> {
  const target = await deployTarget(ctx);
  const deployBranch = {
    name: target.deployBranch,
    deployMode: target.deployMode,
    ...(target.repository?.name ? { repository: target.repository.name } : {}),
  };
  const notes: string[] = [];
  const { build, running } = await settledBuild(ctx, target, input.buildWaitMs, input.pollMs ?? DEFAULTS.buildFirstPollMs);
  if (!build) notes.push(`production's build status on ${target.deployBranch} could not be read`);
  if (running) {
    const since = build!.updatedAt ? ` since ${build!.updatedAt}` : '';
    const reason = `production's build on ${target.deployBranch} is still ${build!.status}${build!.jobId ? ` (job ${build!.jobId})` : ''}${since}, past the watch's bound of ${Math.round(input.buildWaitMs / 1000)} s: what production will serve is not known yet`;
    return { status: 'not-proven', files: [], members: [], reason, deployBranch, ...(build ? { build } : {}), notes };
  }
  const def = modelDefinition(input.texts);
  const cli = target.deployMode === 'cli';
  const [files, layer, branchFiles] = await Promise.all([
    compareFiles(ctx, target, input.local, input.excluded),
    productionLayer(ctx, policyGroups(def)),
    // CLI mode: production runs its last upload; the deploy branch's own tree (merges land there) is read too.
    cli ? compareFiles(ctx, { ...target, deployMode: 'git' }, input.local, input.excluded) : undefined,
  ]);
  const members = layer.members ? memberChanges(layer.members, membersOfModel(def)) : [];
  if (layer.problem) notes.push(`production's /meta could not be read: ${layer.problem}`);
  let record: RecordCheck | undefined;
  if (input.record) {
    const r = input.record;
    const digest = r.layer?.digest;
    record = {
      commit: r.commit,
      validatedAt: r.validatedAt,
      files: await againstRecord(ctx, target, input, files),
      layer: !digest ? 'not-recorded' : !layer.digest ? 'not-read' : digest === layer.digest ? 'same' : 'differs',
    };
  }
  const differs = files.length > 0 || members.length > 0 || !!branchFiles?.length || !!record?.files.length || record?.layer === 'differs';
  const report: DriftReport = {
    status: differs ? 'drift' : layer.members ? 'in-sync' : 'not-proven',
    files,
    members,
    deployBranch: { ...deployBranch, ...(branchFiles ? { files: branchFiles } : {}) },
    ...(build ? { build } : {}),
    ...(record ? { record } : {}),
    notes,
  };
  if (report.status === 'not-proven') report.reason = `production's files match the model, but its layer could not be read: ${layer.problem ?? 'no /meta'}`;
  if (report.status === 'drift') {
    const cause = await likelyCause(ctx, { target, build, files, members, branchFiles, record, checkoutCommit: input.checkoutCommit });
    if (cause) report.cause = cause;
  }
  return report;
}
