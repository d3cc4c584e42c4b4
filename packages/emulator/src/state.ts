/**
 * The emulator's whole state: plain JSON, so `--state-dir` can persist it and a restart keeps
 * branches, files and runs. File contents are base64 so hashes are of the exact bytes.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Permission } from '@datamodel-ci/platform-api';

export const ALL_PERMISSIONS: Permission[] = [
  'SchemaRead',
  'SchemaUpdate',
  'SchemaUpdateDevBranches',
  'DeploymentRead',
  'AuditLogManage',
];

export interface UserRec {
  id: number;
  email: string;
  username: string;
  firstName: string;
  lastName: string;
  isAdmin: boolean;
  permissions: Permission[];
  active: boolean;
  createdAt: string;
  groupIds: number[];
  settings: Record<string, unknown>;
}

export interface GroupRec {
  id: number;
  name: string;
  createdAt: string;
}

export interface ApiKeyRec {
  /** Stable id of the credential (dev-mode sessions are per credential). */
  id: string;
  key: string;
  userId: number;
  kind: 'api' | 'scim';
  /** Deployments the key may touch; absent = all. */
  deploymentIds?: number[];
  /** Expiry, ms since epoch (emulated clock). */
  expiresAt?: number;
  label: string;
}

/** POSIX path -> base64 of the raw bytes. */
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

export interface DbtPhasePlan {
  phase: string;
  durationMs: number;
}

export interface DbtRunRec {
  syncJobId: string;
  workflowId: string;
  deploymentId: number;
  branchName: string;
  ref: string;
  source: string;
  trigger: string;
  userId: number | null;
  startedAt: number;
  plan: DbtPhasePlan[];
  /** When set, the run fails in this phase with this message. */
  failure?: { phase: string; message: string };
  cancelledAt?: number;
  /** The branch of generated models was created (on completion). */
  materialized?: boolean;
  /** Generated files, path -> content. */
  generated: Record<string, string>;
}

export interface DeploymentRec {
  id: number;
  name: string;
  createdAt: string;
  deployBranch: string;
  creationStep: string;
  settings: Record<string, unknown>;
  releaseChannel: string;
  version: string;
  templateVariables: Record<string, unknown>;
  envVars: { name: string; value: string }[];
  branches: Record<string, BranchRec>;
  nextBranchId: number;
  /** Credential id -> dev branch name of the open dev-mode session. */
  devSessions: Record<string, string>;
  uploads: Record<string, UploadRec>;
  dbtRuns: DbtRunRec[];
}

export interface AuditEvent {
  id: number;
  eventName: string;
  userEmail: string;
  createdAt: string;
  data: Record<string, unknown>;
}

export interface State {
  version: 1;
  /** HMAC secret for minted JWTs. */
  secret: string;
  seq: Record<string, number>;
  users: UserRec[];
  groups: GroupRec[];
  apiKeys: ApiKeyRec[];
  deployments: DeploymentRec[];
  tenant: {
    auditLogEnabled: boolean;
    usageAnalyticsEnabled: boolean;
    settings: Record<string, unknown>;
  };
  auditEvents: AuditEvent[];
  /** Records of the other API areas, by collection name then id. */
  collections: Record<string, Record<string, Record<string, unknown>>>;
}

export function emptyState(): State {
  return {
    version: 1,
    secret: randomBytes(32).toString('hex'),
    seq: {},
    users: [],
    groups: [],
    apiKeys: [],
    deployments: [],
    tenant: { auditLogEnabled: false, usageAnalyticsEnabled: false, settings: {} },
    auditEvents: [],
    collections: {},
  };
}

/** Next id of a sequence (1, 2, …). */
export function nextId(state: State, name: string): number {
  const n = (state.seq[name] ?? 0) + 1;
  state.seq[name] = n;
  return n;
}

export function sha1Hex(data: Buffer | string): string {
  return createHash('sha1').update(data).digest('hex');
}

export function decodeFile(b64: string): Buffer {
  return Buffer.from(b64, 'base64');
}

export function encodeFile(data: Buffer | string): string {
  return Buffer.from(data).toString('base64');
}

/** SHA-1 of every file of a tree, keyed by path. */
export function hashTree(files: FileMap): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, b64] of Object.entries(files)) out[path] = sha1Hex(decodeFile(b64));
  return out;
}

/** A commit-like hash of a tree and a counter. */
export function treeHash(files: FileMap, salt: string): string {
  const h = createHash('sha1');
  h.update(salt);
  for (const path of Object.keys(files).sort()) h.update(`${path}\0${sha1Hex(decodeFile(files[path] as string))}\n`);
  return h.digest('hex');
}
