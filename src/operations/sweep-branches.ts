/**
 * The sweep (`cleanup-branch` with `mode: sweep`): the preview branches that closed pull requests left on
 * the platform, deleted only where a ledger of this repository says a run of the pull request created
 * them (docs/faults.md). A name is no evidence: two repositories previewing into one deployment use the
 * same names. A branch no ledger claims (an orphan) is listed and kept, and deleted only when the input
 * `delete-orphans` says so, once it has not built for `min-age`, and never upstream.
 */
import { branchForQueue, prOfBranch, prOfQueueBranch } from '../branch-names.js';
import type { OpContext } from './context.js';
import { deleteBranch, turnStagingOff } from './door.js';
import type { CreatedBranch, OrphanRelease } from './evidence.js';
import { RunLedger, type LedgerFacts } from './ledger.js';

export interface SweepRow {
  branch: string;
  pr: number;
  /** `open`, `closed`, `merged` or `missing`. */
  state: string;
  closedAt: string | null;
  action: 'deleted' | 'would delete' | 'kept';
  reason: string;
  /** No ledger of this repository claims the branch (another repository's, or a person's). */
  orphan?: boolean;
}

/** What the sweep needs to know of this repository (the GitHub side, behind a port). */
export interface PullLookup {
  /** The PR, or undefined when it does not exist. */
  getPull(number: number): Promise<{ state: 'open' | 'closed'; merged: boolean; closedAt: string | null } | undefined>;
  /** What pull request `number`'s comment's ledger records (undefined: no comment of ours). */
  ledgerOf?(number: number): Promise<LedgerFacts | undefined>;
  /** The commit (a prefix of 7 characters or more) is one of this repository's: a queue branch's name holds it. */
  hasCommit?(sha: string): Promise<boolean>;
}

export interface SweepInput {
  prefix: string;
  minAgeMs: number;
  pulls: PullLookup;
  removeOnUpstream: boolean;
  /** Delete the branches no ledger claims (once idle for `min-age`; never upstream). */
  deleteOrphans: boolean;
  now?: () => number;
}

/** When the branch last built (its build status's time), as evidence of its age; undefined when the platform does not say. */
async function lastBuiltAt(ctx: OpContext, branch: string): Promise<number | undefined> {
  const s = await ctx.client.deployments
    .buildStatus({ deploymentId: ctx.deploymentId, query: { branchName: branch } }, { signal: ctx.signal })
    .catch(() => undefined);
  const at = s?.updatedAt ? Date.parse(s.updatedAt) : Number.NaN;
  return Number.isNaN(at) ? undefined : at;
}

const hours = (ms: number) => `${Math.round(ms / 3_600_000)} h`;

interface Candidate {
  name: string;
  pr: number;
  /** The commit a queue branch's name holds (`<prefix>mq-<n>-<sha>`). */
  queueSha?: string;
}

/** A verdict on one branch: the evidence to delete it with (and upstream), or why it is kept. */
type Verdict = { remove: CreatedBranch; upstream: boolean; reason: string } | { orphan: string } | { keep: string };

/** Whose branch this is, from this repository's evidence only. */
async function verdict(c: Candidate, pull: Awaited<ReturnType<PullLookup['getPull']>>, input: SweepInput): Promise<Verdict> {
  const now = (input.now ?? Date.now)();
  if (!pull) return { orphan: `no pull request #${c.pr} in this repository` };
  if (pull.state === 'open') return { keep: 'the pull request is open' };
  const age = pull.closedAt ? now - Date.parse(pull.closedAt) : Number.POSITIVE_INFINITY;
  if (age < input.minAgeMs) return { keep: `closed less than ${Math.round(input.minAgeMs / 60_000)} min ago` };
  if (c.queueSha !== undefined) {
    // A queue branch is named from its entry's commit: one of this repository's commits makes it this repository's.
    const ofThisRepository = (await input.pulls.hasCommit?.(c.queueSha).catch(() => false)) ?? false;
    const created = RunLedger.of().queueEntry(c.name, { expected: branchForQueue(input.prefix, c.pr, c.queueSha), ofThisRepository });
    if (!created) return { orphan: `no commit ${c.queueSha} in this repository: another repository's merge queue branch` };
    return { remove: created, upstream: input.removeOnUpstream, reason: `closed ${hours(age)} ago; its queue entry's commit is this repository's` };
  }
  const created = RunLedger.of((await input.pulls.ledgerOf?.(c.pr)) ?? {}).created(c.name);
  if (!created) return { orphan: `closed, but no comment of the toolkit on pull request #${c.pr} says a run of it created this branch` };
  return { remove: created, upstream: input.removeOnUpstream, reason: `closed ${hours(age)} ago; its ledger says a run of it created the branch` };
}

/** An orphan: released when the input says so and it has not built for `min-age`; else kept, with why. */
async function orphanRelease(ctx: OpContext, c: Candidate, why: string, input: SweepInput): Promise<OrphanRelease | string> {
  if (!input.deleteOrphans) return `orphan: ${why}; kept (delete-orphans: true deletes such branches)`;
  const builtAt = await lastBuiltAt(ctx, c.name);
  if (builtAt === undefined) return `orphan: ${why}; the platform does not say when it last built, so its age is unknown: kept`;
  const idle = (input.now ?? Date.now)() - builtAt;
  if (idle < 0) return `orphan: ${why}; the platform's clock is ahead of this machine's, so its age is unknown: kept`;
  if (idle < input.minAgeMs) return `orphan: ${why}; last built ${hours(idle)} ago (less than min-age): kept`;
  return RunLedger.of().orphan(c.name, { deleteOrphans: true });
}

/** Delete one branch on its evidence: a branch the pull request created goes with its staging (and upstream when allowed). */
async function remove(ctx: OpContext, evidence: CreatedBranch | OrphanRelease, upstream: boolean): Promise<void> {
  if ('by' in evidence) {
    const ledger = RunLedger.of();
    await turnStagingOff(ctx, ledger.stagingOf(evidence)).catch(() => undefined);
    await deleteBranch(ctx, evidence, ledger.upstream(evidence, true, upstream));
  } else await deleteBranch(ctx, evidence);
}

export async function sweepBranches(ctx: OpContext, input: SweepInput): Promise<SweepRow[]> {
  const rows: SweepRow[] = [];
  const candidates: Candidate[] = [];
  for await (const b of ctx.client.branches.iterate({ deploymentId: ctx.deploymentId, query: { first: 100 } }, { signal: ctx.signal })) {
    const pr = prOfBranch(input.prefix, b.name);
    const queued = pr === undefined ? prOfQueueBranch(input.prefix, b.name) : undefined;
    if (pr !== undefined) candidates.push({ name: b.name, pr });
    else if (queued !== undefined) candidates.push({ name: b.name, pr: queued, queueSha: b.name.slice(b.name.lastIndexOf('-') + 1) });
  }
  for (const c of candidates) {
    const pull = await input.pulls.getPull(c.pr);
    const state = !pull ? 'missing' : pull.merged ? 'merged' : pull.state;
    const v = await verdict(c, pull, input);
    const row: SweepRow = { branch: c.name, pr: c.pr, state, closedAt: pull?.closedAt ?? null, action: 'kept', reason: '' };
    let evidence: CreatedBranch | OrphanRelease | undefined;
    let upstream = false;
    if ('keep' in v) row.reason = v.keep;
    else if ('orphan' in v) {
      row.orphan = true;
      const released = await orphanRelease(ctx, c, v.orphan, input);
      if (typeof released === 'string') row.reason = released;
      else {
        evidence = released;
        row.reason = `orphan: ${v.orphan}; deleted under delete-orphans (its ref upstream, if any, kept)`;
      }
    } else {
      evidence = v.remove;
      upstream = v.upstream;
      row.reason = `${v.reason}${upstream ? '' : '; its ref upstream (if any) kept'}`;
    }
    if (evidence) {
      if (!ctx.dryRun) await remove(ctx, evidence, upstream);
      row.action = ctx.dryRun ? 'would delete' : 'deleted';
    }
    rows.push(row);
  }
  return rows;
}
