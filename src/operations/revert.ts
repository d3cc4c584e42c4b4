/**
 * revert: restore production to a validated model (docs/production.md, "Revert"). The model (the last
 * validation record's, or a named commit's: revert-source.ts) is uploaded to a fresh branch this run
 * creates, validated as a preview is (its build accepted through the door), and what it changes in
 * production's semantic layer is printed. Only with `confirm` is it merged into the deploy branch, through
 * the door, on the evidence that the branch holds exactly the restored files; production is then proven
 * against them. The branch (its staging, any dev fork) is deleted after, also on failure and cancel.
 */
import { InputError, messageOf } from '../client/errors.js';
import { DEFAULTS } from '../defaults.js';
import { memberChanges, type LayerMember, type MemberChange } from '../impact/layer-digest.js';
import type { LocalFile, PathFilter } from '../model/local-model.js';
import { plural } from '../report/plural.js';
import { deployTarget, markBuild, type BuildMark, type DeployTarget } from './branch-build.js';
import { cleanupBranch } from './cleanup-branch.js';
import type { OpContext } from './context.js';
import { mergeIntoDeployBranch } from './door.js';
import { ledgerOf } from './ledger.js';
import { MergeRefused, mergeRefusal, treeDiff } from './merge-to-default.js';
import { compareFiles, productionLayer, type FileChange, type LayerRead } from './production-state.js';
import { proveProduction } from './revert-proof.js';
import type { RevertSource } from './revert-source.js';
import { branchExists, ensureSharedBranch } from './start-dev-branch.js';
import { runPreview } from './upload-preview.js';
import type { UploadVia } from './upload-model.js';
import { holds, remoteTree, uploadTransaction, walked } from './upload-transaction.js';
import type { ValidateResult } from './validate.js';
import { recordManifest, type ProductionProof } from './validation-record.js';

export interface RevertInput {
  source: RevertSource;
  /** The fresh branch the model goes to (`<prefix>revert-<sha7>`): refused when it exists. */
  branch: string;
  /** Merge into the deploy branch; otherwise validate, show, merge nothing. */
  confirm: boolean;
  /** The checkout's model (exactly the source's files: revert-source.ts checked it). */
  local: LocalFile[];
  modelDir: string;
  excluded: PathFilter;
  via: UploadVia;
  allowModelDeletion: boolean;
  /** The groups the model's policies name: both layers are read whole, with every one. */
  groups: readonly string[];
  /** The members the model's files declare public: what production must serve when it already holds the files. */
  declared: readonly LayerMember[];
  message: string;
  proofTimeoutMs?: number;
  /** How long the clean-up may take after a failure or a cancel, ms. */
  cleanupTimeoutMs?: number;
}

export type RevertStatus = 'dry-run' | 'in-sync' | 'served-differs' | 'validated' | 'invalid' | 'merged' | 'failed';

export interface RevertResult {
  status: RevertStatus;
  commit: string;
  branch: string;
  deployBranch: string;
  /** What production held relative to the restored model before the revert (line endings, dotfiles and `exclude`d files no difference). */
  before: FileChange[];
  /** Production held the model's files but served another layer: what it served relative to the model's declared members. */
  served?: MemberChange[];
  validation?: ValidateResult;
  /** What the revert changes in production's semantic layer: the branch's members relative to production's. */
  members?: MemberChange[];
  /** Why the member diff could not be made. */
  membersProblem?: string;
  merged: boolean;
  proof?: ProductionProof;
  /** What the clean-up deleted, and what it had to leave (named for the user to delete). */
  cleanup?: { deleted: string[]; left: string[] };
  failure?: string;
  /** The error behind `failure` (its exit code and hint). */
  failureCause?: Error;
}

const SIGN = { added: '+', removed: '-', changed: '~' } as const;

/** The member diff as lines: `+ orders.count` (restored), `- orders.extra` (taken away), `~ orders.amount (measure sum → measure count)`. */
export const memberLines = (members: readonly MemberChange[]): string[] =>
  members.map((m) => `${SIGN[m.change]} ${m.member}${m.detail ? ` (${m.detail})` : ''}`);

/** `model/cubes/x.yml added`, `orders.amount changed (measure sum → measure avg)`. */
const changeText = (c: { path?: string; member?: string; change: string; detail?: string }) =>
  `${c.path ?? c.member} ${c.change}${c.detail ? ` (${c.detail})` : ''}`;

export async function runRevert(ctx: OpContext, input: RevertInput): Promise<RevertResult> {
  const { source, branch } = input;
  const sha7 = source.commit.slice(0, 7);
  const ledger = ledgerOf(ctx);
  const target = await deployTarget(ctx);
  // Refused before any write, naming the setting: the revert is a merge into the deploy branch.
  const refused = mergeRefusal(target);
  if (refused)
    throw new InputError(
      'deployment-id',
      String(ctx.deploymentId),
      `a deployment that takes merges into its deploy branch, as a revert merges into it: ${refused}${target.repository ? '; revert the commit in git there instead' : ''}`,
    );
  const before = await compareFiles(ctx, target, input.local, input.excluded);
  const result: RevertResult = { status: 'failed', commit: source.commit, branch, deployBranch: target.deployBranch, before, merged: false };
  if (!before.length) return alreadyHeld(ctx, input, target, result);
  ctx.reporter.info(`production (${target.deployBranch}) differs from ${sha7}'s model in ${plural(before.length, 'file')}:`);
  for (const f of before) ctx.reporter.info(`  ${f.path}: ${f.change} on production`);
  if (await branchExists(ctx, branch))
    throw new Error(
      `${branch} exists on the platform already: another revert to ${sha7} is running, or one was killed before it could delete it. Nothing was written; once no revert runs, delete it (it is no branch this run made) and run again`,
    );
  if (ctx.dryRun) {
    ctx.reporter.info(
      `dry run: would create ${branch} from ${target.deployBranch}, upload ${sha7}'s model to it, validate it, show what it changes in production's semantic layer, ${input.confirm ? `merge it into ${target.deployBranch}` : 'merge nothing (confirm is off)'}, and delete it`,
    );
    return { ...result, status: 'dry-run' };
  }
  try {
    await revertOnBranch(ctx, input, target, result);
  } catch (e) {
    result.status = 'failed';
    result.failure = ctx.signal?.aborted
      ? `cancelled before it ended (${messageOf(e)}); production was ${result.merged ? 'merged into' : 'not touched'}`
      : messageOf(e);
    result.failureCause = e instanceof Error ? e : new Error(String(e));
  } finally {
    if (ledger.created(branch)) result.cleanup = await cleanUp(ctx, branch, input.cleanupTimeoutMs ?? DEFAULTS.operationDeadlineMs);
  }
  return result;
}

/**
 * Production holds the model's files already: nothing to revert when it serves their layer too. When it
 * serves another (its last build failed, or never ran, or it was built from a tree git never held), a
 * merge of the same files would commit nothing and start no build: said, and nothing is done.
 */
async function alreadyHeld(ctx: OpContext, input: RevertInput, target: DeployTarget, result: RevertResult): Promise<RevertResult> {
  const sha7 = input.source.commit.slice(0, 7);
  const served = await productionLayer(ctx, input.groups);
  const off = served.members ? memberChanges(served.members, input.declared) : [];
  if (!off.length) {
    const unread = served.members ? '' : ` (its semantic layer could not be read: ${served.problem ?? 'no /meta'}; only its files are shown to be the model's)`;
    ctx.reporter.info(`production (${target.deployBranch}) already holds the files of ${sha7}: nothing to revert${unread}`);
    return { ...result, status: 'in-sync' };
  }
  ctx.reporter.warning(
    `production (${target.deployBranch}) holds the files of ${sha7} but serves another semantic layer (what it serves relative to them: ${off.map(changeText).join(', ')}): its last build failed or never ran. A merge of the same files would commit nothing and rebuild nothing, so nothing was done; rebuild production on the platform`,
  );
  return { ...result, status: 'served-differs', served: off };
}

/** Create the branch, upload and validate, show the member diff, and (confirmed) merge and prove; fills `result`. */
async function revertOnBranch(ctx: OpContext, input: RevertInput, target: DeployTarget, result: RevertResult): Promise<void> {
  const { source, branch } = input;
  const sha7 = source.commit.slice(0, 7);
  ctx.signal?.throwIfAborted();
  // The create is never cut mid-flight by a cancel: its answer is what makes the branch this run's to delete.
  const whole: OpContext = { ...ctx, ledger: ledgerOf(ctx), signal: AbortSignal.timeout(DEFAULTS.operationDeadlineMs) };
  const created = await ctx.reporter.group('Revert branch', () => ensureSharedBranch(whole, branch, target.deployBranch));
  if (!created) throw new Error(`${branch} appeared while this run was creating it (another revert?): it is not this run's, and nothing was uploaded to it`);
  const flow = await runPreview(
    ctx,
    {
      branch,
      deployBranch: target.deployBranch,
      local: input.local,
      modelDir: input.modelDir,
      concurrency: DEFAULTS.uploadConcurrency,
      commitMessage: input.message,
      via: input.via,
      allowModelDeletion: input.allowModelDeletion,
      excluded: input.excluded,
      headSha: source.commit,
    },
    // No newer push can own a revert: it always goes on.
    { isStale: () => Promise.resolve(false) },
  );
  const o = flow.outcome;
  if (o.failure) throw o.failureCause instanceof Error ? o.failureCause : new Error(o.failure);
  result.validation = o.validation;
  if (!o.validation?.valid) {
    result.status = 'invalid';
    ctx.reporter.warning(`${sha7}'s model does not compile on the platform today (${plural(o.validation?.errors.length ?? 0, 'error')}): nothing is merged`);
    return;
  }
  // Both layers read whole; the branch's is also what production must serve after a merge.
  const ours = await ctx.reporter.group('What the revert changes in the semantic layer', async () => {
    const [production, revert] = await Promise.all([productionLayer(ctx, input.groups), productionLayer(ctx, input.groups, branch)]);
    showMembers(ctx, production, revert, result, sha7);
    return revert;
  });
  if (!input.confirm) {
    result.status = 'validated';
    ctx.reporter.notice(
      `${branch} holds ${sha7}'s model and is valid; confirm is off: nothing merged into ${target.deployBranch} (run again with confirm: true to merge it)`,
    );
    return;
  }
  const mark = await mergeChecked(ctx, input, target);
  result.merged = true;
  result.status = 'merged';
  result.proof = await ctx.reporter.group('The proof', () =>
    proveProduction(ctx, target, {
      commit: source.commit,
      files: source.files,
      excluded: input.excluded,
      mark,
      expected: ours,
      groups: input.groups,
      timeoutMs: input.proofTimeoutMs ?? DEFAULTS.buildWaitMinutes * 60_000,
    }),
  );
  const p = result.proof;
  if (p.status === 'proven') ctx.reporter.info(`proven: production = ${sha7}'s validated model (its files and its semantic layer)`);
  else if (p.status === 'differs')
    ctx.reporter.warning(
      `production differs from ${sha7}'s model after the revert (what it has relative to it): ${[...p.files, ...p.members].map(changeText).join(', ')}${p.reason ? ` (${p.reason})` : ''}`,
    );
  else ctx.reporter.warning(`not proven that production = ${sha7}'s model: ${p.reason ?? 'no reason given'}`);
}

function showMembers(ctx: OpContext, production: LayerRead, branch: LayerRead, result: RevertResult, sha7: string): void {
  if (!production.members || !branch.members) {
    result.membersProblem = [production.problem && `production: ${production.problem}`, branch.problem && `${result.branch}: ${branch.problem}`]
      .filter(Boolean)
      .join('; ');
    ctx.reporter.warning(`the semantic layers were not compared: ${result.membersProblem || 'a /meta could not be read'}`);
    return;
  }
  result.members = memberChanges(branch.members, production.members);
  if (!result.members.length) {
    ctx.reporter.info(`${sha7}'s model serves the same members as production`);
    return;
  }
  ctx.reporter.info(`what reverting to ${sha7} changes in production's semantic layer (+ restored, - taken away, ~ changed):`);
  for (const line of memberLines(result.members)) ctx.reporter.info(`  ${line}`);
}

/**
 * Merge the branch into the deploy branch through the door, on the evidence that it holds exactly the
 * restored files (its `file-hashes` against the source's); in CLI deploy mode, upload the model to the
 * deploy branch after, as the vendor's `deploy` does (a merge alone does not rebuild production there).
 * Returns production's build mark from before the change that rebuilds it.
 */
async function mergeChecked(ctx: OpContext, input: RevertInput, target: DeployTarget): Promise<BuildMark | undefined> {
  const { branch, excluded } = input;
  const remote = walked(await remoteTree(ctx, branch), excluded);
  const restored = walked(recordManifest(input.source), excluded);
  const ready = ledgerOf(ctx).mergeReady(branch, remote, restored);
  if (!ready)
    throw new MergeRefused(
      `not merging ${branch} into ${target.deployBranch}: it does not hold exactly the files of ${input.source.commit.slice(0, 7)} (differs in ${treeDiff(remote, restored).join(', ')}). Production was not touched`,
    );
  const cli = target.deployMode === 'cli';
  let mark = cli ? undefined : await markBuild(ctx, target.deployBranch, { settleMs: DEFAULTS.buildIdleGraceMs });
  const merged = await mergeIntoDeployBranch(ctx, ready, {
    deployBranch: target.deployBranch,
    message: input.message,
    // A merge whose answer was lost is recognised by its effect: the deploy branch holds the branch's files.
    settle: async () => ((await holds(ctx, target.deployBranch, ready.manifest, excluded)) ? { merged: true, branchDeleted: false } : undefined),
  });
  if (!merged?.merged) throw new Error(`the platform did not merge ${branch} into ${target.deployBranch}`);
  ctx.reporter.info(`merged ${branch} into ${target.deployBranch}`);
  if (!cli) return mark;
  const t = await uploadTransaction(ctx, {
    branch: target.deployBranch,
    local: input.local,
    concurrency: DEFAULTS.uploadConcurrency,
    commitMessage: input.message,
    alwaysFinish: true,
    excluded,
    guard: { modelDir: input.modelDir, allow: input.allowModelDeletion },
    beforeFinish: async () => {
      mark = await markBuild(ctx, target.deployBranch, { settleMs: DEFAULTS.buildIdleGraceMs });
    },
  });
  ctx.reporter.info(
    `deployed ${input.source.commit.slice(0, 7)}'s model to ${target.deployBranch} (CLI deploy mode): ${t.sent.length} sent, ${t.removed.length} deleted`,
  );
  return mark;
}

/**
 * Delete what this run made: the branch's staging, any dev fork, the branch (its ref upstream too: a name
 * this run made). On its own bounded signal: a cancelled run (its signal aborted) still cleans up.
 */
async function cleanUp(ctx: OpContext, branch: string, timeoutMs: number): Promise<{ deleted: string[]; left: string[] }> {
  const own: OpContext = { ...ctx, ledger: ledgerOf(ctx), signal: AbortSignal.timeout(timeoutMs) };
  try {
    const r = await ctx.reporter.group(`Delete ${branch}`, () => cleanupBranch(own, { branch, generatedName: true, removeOnUpstream: true }));
    return { deleted: r.deleted, left: r.kept ? [r.kept] : [] };
  } catch (e) {
    const left = [branch, ...ledgerOf(ctx).forks];
    ctx.reporter.warning(`could not delete ${left.join(', ')} (${messageOf(e)}): delete ${left.length === 1 ? 'it' : 'them'} on the platform`);
    return { deleted: [], left };
  }
}
