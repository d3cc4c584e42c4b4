/**
 * State of the build API: a deployment's branches (working and committed trees, runtime and builds)
 * and its upload transactions.
 */

/** POSIX path -> base64 of the raw bytes (base64 so hashes are of the exact bytes). */
export type FileMap = Record<string, string>;

export interface BranchRec {
  id: number;
  name: string;
  /** Parent branch name (null for the deploy branch). */
  parent: string | null;
  kind: 'deploy' | 'shared' | 'dev';
  /** Credential id that owns a dev branch. */
  owner?: string;
  /** Credential id that made a shared branch (`POST …/branches`, a seed); not in the API's answers. */
  createdBy?: string;
  /** Working tree (what validation of a dev branch compiles). */
  files: FileMap;
  /** Committed tree (what merges carry). */
  head: FileMap;
  /** Hashes of the parent's committed tree when this branch forked or last synced: the merge base. */
  base: Record<string, string>;
  lastHash: string;
  commits: number;
  staging: boolean;
  createdAt: string;
  runtime: RuntimeRec;
}

/** One build of a branch (or its runtime warming up): a plan from its start, read off the clock. */
export interface BuildRec {
  jobId: number;
  /** `warmup`: a runtime starting (staging enabled, dev mode entered); `build`: a commit, finish or merge. */
  kind: 'build' | 'warmup';
  /** The branch's commit hash (`lastHash`) this build serves once built. */
  hash: string;
  /** The committed tree it builds (what production's data API serves). */
  files: FileMap;
  startedAt: number;
  /** When it ends: the build or warmup duration after its start. */
  endsAt: number;
  /** How it ends (decided at start, seen once the clock reaches `endsAt`). */
  outcome: 'success' | 'failed' | 'cancelled';
  errorText?: string;
}

/** A branch's runtime: whether it runs, when it last stopped, and its recent builds (oldest first). */
export interface RuntimeRec {
  running: boolean;
  /** Set when a running runtime stopped (staging disabled, dev session ended); cleared on start. */
  stoppedAt?: number;
  /** The last successful build and what came after it. */
  builds: BuildRec[];
  /** Profile `staging-cold`: the staging environment sleeps until then (a data request wakes it sooner). */
  wakesAt?: number;
  /** Profile `staging-cold`: the last data request it served (it falls asleep after `idleMs` without one). */
  usedAt?: number;
  /** Profiles `stale-build-status`, `lasthash-at-commit`: build-status reads still answered with the previous build. */
  staleReads?: number;
  /** Profile `blank-build-status`: the next read after the stale ones answers `building` once (the worker's swap, seen). */
  showBuilding?: boolean;
  /** Profile `staging-needs-second-wake`: when a data request last reached it asleep (the next one in that sleep wakes it). */
  knockedAt?: number;
}

export interface UploadRec {
  id: string;
  branch: string;
  owner: string;
  /** Files received so far in this transaction. */
  files: FileMap;
  startedAt: number;
}

/** The build state a deployment carries. */
export interface BuildState {
  branches: Record<string, BranchRec>;
  nextBranchId: number;
  nextBuildJobId: number;
  /** Credential id -> dev branch name of the open dev-mode session. */
  devSessions: Record<string, string>;
  uploads: Record<string, UploadRec>;
}
