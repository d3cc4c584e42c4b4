/**
 * The evidence an irreversible step needs (docs/faults.md), as values of types no other code can make:
 * each carries a brand only `attest` gives, and `attest` is called by the evidence makers alone (the run's
 * ledger, the build marks, the upload's manifest plan; test/door.test.ts fails on any other caller). The
 * door (door.ts) takes these values, so a step without its evidence does not compile.
 */
import type { BuildStatus } from '@datamodel-ci/platform-api';
import type { Manifest } from './upload-transaction.js';

declare const brand: unique symbol;

/** A value of kind `K`, made by an evidence maker. */
type Evidence<K extends string, T> = Readonly<T> & { readonly [brand]: K };

/**
 * A run of this pull request created the branch: its comment's ledger says so, or this run's create (it
 * was not listed before), or it is the merge queue entry's own (named from this run's entry and commit).
 */
export type CreatedBranch = Evidence<'created', { branch: string; by: 'ledger' | 'this run' | 'queue entry' }>;

/**
 * A branch no ledger claims (an orphan), which the user's input allows the sweep to delete
 * (`delete-orphans: true`): on the platform only, never upstream.
 */
export type OrphanRelease = Evidence<'orphan', { branch: string }>;

/**
 * The branch's ref in a connected repository may go with it: created as above, a name the toolkit
 * generates (`<prefix>pr-<n>`, `<prefix>mq-…`, the doctor's), and `remove-on-upstream` allows it.
 */
export type UpstreamRef = Evidence<'upstream', { branch: string }>;

/** A run of this pull request turned the branch's staging environment on (it was seen off, or the branch was its own). */
export type StagingTurnedOn = Evidence<'staging', { branch: string }>;

/** A dev-mode fork this run opened, or one the ledger names, forked from `parent`: never a person's session. */
export type OwnFork = Evidence<'fork', { fork: string; parent: string }>;

/** How a build was shown to be the change's: the mark it is newer than, the commit it is of (where no mark orders builds), or a run seen to start after the mark. */
export type BuildProof = 'job id' | 'finish time' | 'commit' | 'new run seen' | 'created by this run';

/** A build of the branch newer than the mark read before the change landed: the change's own build. */
export type ChangeBuild = Evidence<'build', { branch: string; status: BuildStatus; proof: BuildProof }>;

/** The model of a push may be declared valid on this build (made by the door from a ChangeBuild). */
export type AcceptedBuild = Evidence<'accepted', { branch: string; status: BuildStatus; proof: BuildProof }>;

/**
 * The shared branch holds exactly a model the toolkit checked itself: the merge commit's checkout, or
 * the last model a run of this pull request validated (the ledger's digest).
 */
export type MergeReady = Evidence<'merge', { branch: string; manifest: Manifest; source: 'checkout' | 'validated' }>;

/**
 * An upload's finish manifest that prunes only what the walk says was deleted: every remote file it lacks
 * is one the walk reads, not excluded, and not in the checkout. `removed` lists them.
 */
export type PrunePlan = Evidence<'prune', { branch: string; manifest: Manifest; removed: readonly string[] }>;

/** Every kind of evidence, by its brand. */
interface Kinds {
  created: CreatedBranch;
  orphan: OrphanRelease;
  upstream: UpstreamRef;
  staging: StagingTurnedOn;
  fork: OwnFork;
  build: ChangeBuild;
  accepted: AcceptedBuild;
  merge: MergeReady;
  prune: PrunePlan;
}

/** Brand a value as evidence of kind `kind`. Only the evidence makers call it (test/door.test.ts holds the list). */
export function attest<K extends keyof Kinds>(kind: K, value: Omit<Kinds[K], typeof brand>): Kinds[K] {
  // The brand exists only in the type: the value is the plain object, frozen so no one edits it after.
  void kind;
  return Object.freeze({ ...value }) as Kinds[K];
}
