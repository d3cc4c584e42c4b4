/**
 * The run's ledger: what this pull request's runs made on the platform, as its comment's ledger remembers
 * it (read by the pull request's side and handed down as plain facts), plus what this run makes. It is
 * one of the two makers of evidence for the door (docs/faults.md): a branch is this pull request's to
 * delete only when a run of it created the branch, a staging environment to turn off only when a run
 * turned it on, a fork to delete only when a run opened it, a branch to merge without a checkout only
 * when it holds the model a run validated.
 */
import { isDevBranch } from '@datamodel-ci/platform-api';
import { ordersBuilds, type BuildMark } from './branch-build.js';
import type { OpContext } from './context.js';
import { attest, type CreatedBranch, type MergeReady, type OrphanRelease, type OwnFork, type StagingTurnedOn, type UpstreamRef } from './evidence.js';
import { digestOf, sameTree, type Manifest } from './upload-transaction.js';

/** A build as a run saw it: the mark a later change's build must be newer than. */
export type BuildRecord = BuildMark & { lastHash?: string };

/** What the runs of one pull request remember (the comment's ledger carries these fields as they are). */
export interface LedgerFacts {
  /** The branch a run of this pull request created. */
  created?: string;
  /** The branch whose staging environment a run of this pull request turned on. */
  stagingOn?: string;
  /** Dev-mode forks runs of this pull request opened (the last one first). */
  forks?: string[];
  /** The last model a run landed on the branch: its digest and the build status read just before it landed. */
  landed?: { branch: string; digest: string; mark?: BuildRecord };
  /** The last build a run accepted as its change's and validated: its model's digest (when uploaded) and marks. */
  validated?: { branch: string; headSha: string; valid: boolean; digest?: string; build?: BuildRecord };
  /** Production's build status as a preview read it: a build after GitHub's merge is newer than this. */
  production?: { branch: string; mark: BuildRecord };
}

export class RunLedger {
  /** Branches, stagings and forks this run made itself (evidence `by: 'this run'`). */
  private readonly mine = new Set<string>();

  private constructor(private readonly facts: LedgerFacts) {}

  /** The ledger of a run whose pull request's comment remembers `facts` (none: nothing is ours yet). */
  static of(facts: LedgerFacts = {}): RunLedger {
    return new RunLedger(structuredClone(facts));
  }

  /** The facts to write back into the comment's ledger at the end of the run. */
  toFacts(): LedgerFacts {
    return structuredClone(this.facts);
  }

  /** A run of this pull request created `branch`. */
  created(branch: string): CreatedBranch | undefined {
    if (!branch || this.facts.created !== branch) return undefined;
    return attest('created', { branch, by: this.mine.has(`created:${branch}`) ? 'this run' : 'ledger' });
  }

  /**
   * `branch` is a merge queue entry's own: named from the entry (`expected`: its number and commit, as
   * this run has them), and that commit is one of this repository's (`ofThisRepository`, asked of GitHub).
   */
  queueEntry(branch: string, proof: { expected: string; ofThisRepository: boolean }): CreatedBranch | undefined {
    return branch && branch === proof.expected && proof.ofThisRepository ? attest('created', { branch, by: 'queue entry' }) : undefined;
  }

  /** A branch no ledger claims, released by the user's `delete-orphans: true` (the literal: a caller must have checked the input). */
  orphan(branch: string, consent: { deleteOrphans: true }): OrphanRelease {
    void consent;
    return attest('orphan', { branch });
  }

  /** Its upstream ref may go too: a name the toolkit generates (the caller's `generated`), with `remove-on-upstream`. */
  upstream(created: CreatedBranch, generated: boolean, allowed: boolean): UpstreamRef | undefined {
    return generated && allowed ? attest('upstream', { branch: created.branch }) : undefined;
  }

  /** A run of this pull request turned the staging environment of `branch` on (a branch it created counts). */
  stagingOn(branch: string): StagingTurnedOn | undefined {
    return branch && (this.facts.stagingOn === branch || this.facts.created === branch) ? attest('staging', { branch }) : undefined;
  }

  /** The staging environment of a branch this pull request created (a queue entry's, say) is its own too. */
  stagingOf(created: CreatedBranch): StagingTurnedOn {
    return attest('staging', { branch: created.branch });
  }

  /** `fork` (forked from `parent`, as the branch list says) is one a run of this pull request opened. */
  fork(fork: string, parent: string): OwnFork | undefined {
    if (!isDevBranch(fork) || fork === parent || !this.facts.forks?.includes(fork)) return undefined;
    return attest('fork', { fork, parent });
  }

  /** The forks a run of this pull request opened. */
  get forks(): readonly string[] {
    return this.facts.forks ?? [];
  }

  /**
   * `remote` (the shared branch's files, of those the walk reads) may be merged: it is exactly the
   * merge commit's checkout, or (no checkout) exactly the model the last validation of this branch accepted.
   */
  mergeReady(branch: string, remote: Manifest, checkout?: Manifest): MergeReady | undefined {
    if (checkout) return sameTree(remote, checkout) ? attest('merge', { branch, manifest: remote, source: 'checkout' }) : undefined;
    const v = this.facts.validated;
    if (!v?.valid || v.branch !== branch || !v.digest || v.digest !== digestOf(remote)) return undefined;
    return attest('merge', { branch, manifest: remote, source: 'validated' });
  }

  /**
   * The mark read before the same model (`digest`) last landed on `branch`, when it can still prove a build
   * after it (it orders builds): a wait that lands nothing may use it; else the caller lands again.
   */
  landingMark(branch: string, digest: string): BuildMark | undefined {
    const l = this.facts.landed;
    return l?.branch === branch && l.digest === digest && ordersBuilds(l.mark) ? l.mark : undefined;
  }

  /** What the ledger says of the branch's last landing and validation (marks for the next build wait). */
  get landed(): LedgerFacts['landed'] {
    return this.facts.landed;
  }

  get validated(): LedgerFacts['validated'] {
    return this.facts.validated;
  }

  get production(): LedgerFacts['production'] {
    return this.facts.production;
  }

  // Recorders: what this run did itself. Only the code that did it calls them (test/door.test.ts).

  /** This run created `branch` (it was not listed before the create). */
  recordCreated(branch: string): void {
    this.facts.created = branch;
    this.mine.add(`created:${branch}`);
  }

  /** This run turned the staging environment of `branch` on (seen off before). */
  recordStagingOn(branch: string): void {
    this.facts.stagingOn = branch;
  }

  /** This run opened dev mode and the platform answered with `fork`. */
  recordFork(fork: string): void {
    this.facts.forks = [fork, ...(this.facts.forks ?? []).filter((f) => f !== fork)].slice(0, 10);
  }

  /** Files landed on `branch` (its model's digest is `digest`), after the build status read as `mark`. */
  recordLanded(branch: string, digest: string, mark: BuildRecord | undefined): void {
    this.facts.landed = { branch, digest, ...(mark ? { mark } : {}) };
  }

  /** A build of `branch` was accepted as the change's and validated. */
  recordValidated(v: NonNullable<LedgerFacts['validated']>): void {
    this.facts.validated = v;
  }

  /** `branch` (or a fork) is gone: nothing of it is this pull request's any more (a later branch of that name is someone's else). */
  forget(branch: string): void {
    if (this.facts.created === branch) delete this.facts.created;
    if (this.facts.stagingOn === branch) delete this.facts.stagingOn;
    if (this.facts.forks?.includes(branch)) this.facts.forks = this.facts.forks.filter((f) => f !== branch);
    this.mine.delete(`created:${branch}`);
  }

  /** Production's build status before a merge (a later build after GitHub's merge is newer). */
  recordProduction(branch: string, mark: BuildRecord): void {
    this.facts.production = { branch, mark };
  }
}

/** The run's ledger of an operation context (an empty one when the command gave none: nothing is ours). */
export function ledgerOf(ctx: OpContext): RunLedger {
  ctx.ledger ??= RunLedger.of();
  return ctx.ledger;
}
