/** State of the build API: a deployment's branches (working and committed trees) and its upload transactions. */

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
  /** Credential id -> dev branch name of the open dev-mode session. */
  devSessions: Record<string, string>;
  uploads: Record<string, UploadRec>;
}
