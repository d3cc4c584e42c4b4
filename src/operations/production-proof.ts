/**
 * The proof after a merge (issue 37): once the close has merged (or, on a repository-fed deployment,
 * GitHub's merge has reached the platform), wait, bounded, for production's build newer than the mark read
 * before the merge, then compare what production holds (its files: the deploy branch's, or in CLI mode its
 * last upload) with the merge commit's checkout and what it serves (its semantic layer, read whole) with the
 * validation record. "proven" needs all three: a newer build, equal files, an equal layer digest. Files or
 * members that differ make it "differs" (the close fails and says so; nothing is merged or uploaded again to
 * "fix" it); what cannot be shown either way is "not-proven", with the reason. Nothing here writes.
 */
import { messageOf } from '../client/errors.js';
import { policyGroups } from '../impact/access/layer.js';
import { modelDefinition } from '../impact/definition/source.js';
import { memberChanges, membersOfModel, type MemberChange } from '../impact/layer-digest.js';
import type { LocalFile, PathFilter } from '../model/local-model.js';
import type { FileTexts } from '../model/model-files.js';
import { plural } from '../report/plural.js';
import { BuildFailed, NotProven, waitForBuild, type BuildMark, type DeployTarget } from './branch-build.js';
import type { OpContext } from './context.js';
import type { ChangeBuild } from './evidence.js';
import { ledgerOf } from './ledger.js';
import type { MergeResult } from './merge-to-default.js';
import { branchModelFiles } from './impact.js';
import { compareFiles, productionLayer, type FileChange, type LayerRead } from './production-state.js';
import { manifestOf } from './upload-transaction.js';
import { wholeRecord, type LedgerRecord, type ProductionProof, type ValidationRecord } from './validation-record.js';

/** Production's build after the merge: built (newer than the mark), failed (it serves the build before), or none to prove (why). */
export type BuildAfterMerge = { built: ChangeBuild } | { failed: string } | { none: string };

/** The merge commit's model as the proof reads it: the walk's files (`exclude`d left out) and its model files' texts. */
export interface CheckoutForProof {
  local: readonly LocalFile[];
  excluded?: PathFilter;
  files: FileTexts;
}

export interface ProofInput {
  target: DeployTarget;
  /** The last validation record (the PR comment's ledger keeps it without per-file hashes). */
  record?: LedgerRecord;
  /** The merge commit's model; without it production's files cannot be compared. */
  checkout?: CheckoutForProof;
  build: BuildAfterMerge;
}

/** The proof, and the whole record (its hashes from the checkout) when the checkout is the record's model: what the close carries to the merge. */
export interface ProofOutcome extends ProductionProof {
  record?: ValidationRecord;
}

/** The mark read before the merge (the close's, or on a repository-fed deployment the preview's): the ledger keeps it. */
export function productionMark(ctx: OpContext, deployBranch: string): BuildMark | undefined {
  const p = ledgerOf(ctx).production;
  return p?.branch === deployBranch ? p.mark : undefined;
}

/** Wait, at most `waitMs`, for production's build newer than `since` (`lastHash`: the merge commit, a hint). */
export async function buildAfterMerge(
  ctx: OpContext,
  deployBranch: string,
  since: BuildMark | undefined,
  waitMs: number,
  lastHash?: string,
): Promise<BuildAfterMerge> {
  if (!since) return { none: `no build status of ${deployBranch} was read before the merge, so no build can be shown to be newer than it` };
  try {
    return { built: await waitForBuild(ctx, deployBranch, { since, timeoutMs: waitMs, ...(lastHash ? { lastHash } : {}) }) };
  } catch (e) {
    if (ctx.signal?.aborted) throw e;
    if (e instanceof BuildFailed) return { failed: messageOf(e) };
    const why = e instanceof NotProven ? `${deployBranch} answered "built" throughout, but nothing showed a build newer than the merge` : messageOf(e);
    return { none: `no build of ${deployBranch} newer than the merge within ${Math.round(waitMs / 1000)} s (${why})` };
  }
}

/**
 * The members the merged model declares public: the checkout's files, and production's own model files that
 * `exclude` leaves out (a folder the platform writes stays in production, its cubes with it: no difference).
 */
async function declaredMembers(ctx: OpContext, target: DeployTarget, checkout: CheckoutForProof) {
  const theirs = checkout.excluded ? await branchModelFiles(ctx, target.deployBranch, target.deployMode === 'cli').catch(() => undefined) : undefined;
  const kept = [...(theirs ?? [])].filter(([p]) => checkout.excluded!(p) && !checkout.files.has(p));
  return membersOfModel(modelDefinition(kept.length ? new Map([...checkout.files, ...kept]) : checkout.files));
}

const listed = (files: readonly FileChange[], members: readonly MemberChange[]) =>
  [
    files.length ? `files: ${files.map((f) => `${f.path} (${f.change})`).join(', ')}` : '',
    members.length ? `members: ${members.map((m) => `${m.member} (${m.change}${m.detail ? `: ${m.detail}` : ''})`).join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ');

/** Compare production with the validated model; never throws for the platform (a read that fails is "not proven"). */
export async function proveProduction(ctx: OpContext, input: ProofInput): Promise<ProofOutcome> {
  const { target, record, checkout, build } = input;
  const at = record ? ` (commit ${record.commit.slice(0, 7)})` : '';
  const verdict = (status: ProductionProof['status'], reason?: string, files: FileChange[] = [], members: MemberChange[] = []): ProofOutcome => {
    const whole = record && checkout ? wholeRecord(record, manifestOf(checkout.local)) : undefined;
    const out: ProofOutcome = {
      status,
      ...(record ? { commit: record.commit } : {}),
      files,
      members,
      ...(reason ? { reason } : {}),
      ...(whole ? { record: whole } : {}),
    };
    if (status === 'proven') ctx.reporter.info(`production = the validated model${at}: ${reason}`);
    else if (status === 'differs')
      ctx.reporter.warning(`production differs from the validated model${at}: ${reason}${files.length + members.length ? ` (${listed(files, members)})` : ''}`);
    else ctx.reporter.warning(`production is not proven to be the validated model${at}: ${reason}`);
    return out;
  };
  if (!checkout)
    return verdict(
      'not-proven',
      "no checkout of the merge commit in model-dir to compare production's files with (the comment's ledger keeps the record's digest, not its per-file hashes)",
    );
  try {
    const def = modelDefinition(checkout.files);
    let layer: LayerRead | undefined;
    const readLayer = async () => (layer ??= await productionLayer(ctx, policyGroups(def)));
    const whole = record ? wholeRecord(record, manifestOf(checkout.local)) : undefined;
    // The members production serves against those the merge commit's files declare public (none listed when its digest is the record's).
    const membersThatDiffer = async () => {
      const l = await readLayer();
      if (!l.members || (whole?.layer && l.digest === whole.layer.digest)) return [];
      return memberChanges(l.members, await declaredMembers(ctx, target, checkout));
    };
    const files = await compareFiles(ctx, target, checkout.local, checkout.excluded);
    if (files.length)
      return verdict(
        'differs',
        `production holds ${plural(files.length, 'file')} other than the merge commit's${'none' in build ? ` (${build.none})` : ' (an out-of-band upload or merge, a later merge, or a change made on the platform)'}`,
        files,
        await membersThatDiffer(),
      );
    if ('failed' in build)
      return verdict(
        'differs',
        `production's build after the merge failed (${build.failed}): it still serves the model before it`,
        [],
        await membersThatDiffer(),
      );
    if ('none' in build) return verdict('not-proven', build.none);
    if (!record) return verdict('not-proven', "no validation record: the comment's ledger holds no push of this pull request validated on a build of its own");
    if (!whole)
      return verdict(
        'not-proven',
        `the merge commit's model is not the one validated (their digests differ: a push after the last valid preview, or the base branch's changes in the merge), so no record is of what was merged`,
      );
    if (!whole.layer)
      return verdict(
        'not-proven',
        'the record has no layer digest (the preview did not read the whole layer: the impact was off, or its read with every group failed)',
      );
    const l = await readLayer();
    if (!l.digest || !l.members) return verdict('not-proven', `production's semantic layer could not be read (${l.problem ?? 'no read'})`);
    if (l.partial) return verdict('not-proven', l.partial);
    if (l.digest !== whole.layer.digest) {
      const changed = memberChanges(l.members, await declaredMembers(ctx, target, checkout));
      const layers = `production's semantic layer (${plural(l.members.length, 'member')}, digest ${l.digest.slice(0, 12)}) is not the validated preview's (${plural(whole.layer.members, 'member')}, digest ${whole.layer.digest.slice(0, 12)})`;
      // Production serves exactly the members the merge commit's files declare: the record's read of the preview may
      // have been of an older build (a staging environment still serving it), so nothing shows production wrong.
      if (!changed.length)
        return verdict(
          'not-proven',
          `${layers}, though it serves exactly the members the merge commit's files declare: the preview's layer may have been read from an older build`,
        );
      return verdict('differs', layers, [], changed);
    }
    const job = build.built.status.buildJobId != null ? ` (job ${String(build.built.status.buildJobId)})` : '';
    return verdict(
      'proven',
      `a build newer than the merge${job}, ${plural(Object.keys(whole.files).length, 'file')} and the semantic layer (${plural(l.members.length, 'member')}, digest ${l.digest.slice(0, 12)}) equal to the validated ones`,
    );
  } catch (e) {
    if (ctx.signal?.aborted) throw e;
    return verdict('not-proven', `production could not be read (${messageOf(e)})`);
  }
}

export interface MergeProofInput {
  target: DeployTarget;
  merge: MergeResult;
  record?: LedgerRecord;
  checkout?: CheckoutForProof;
  /** How long to wait for production's newer build, ms (input `proof-wait`). */
  waitMs: number;
}

/** The proof after the toolkit's own merge into the deploy branch; undefined when nothing was merged (or a dry run). */
export async function proveMerge(ctx: OpContext, input: MergeProofInput): Promise<ProofOutcome | undefined> {
  const { merge: m, target } = input;
  if (!m.merged || ctx.dryRun) return undefined;
  return ctx.reporter.group('Production proof', async () => {
    const build: BuildAfterMerge = m.notRebuilt
      ? { none: m.notRebuilt }
      : await buildAfterMerge(ctx, target.deployBranch, productionMark(ctx, target.deployBranch), input.waitMs);
    return proveProduction(ctx, { target, build, ...(input.record ? { record: input.record } : {}), ...(input.checkout ? { checkout: input.checkout } : {}) });
  });
}
