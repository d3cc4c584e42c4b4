/**
 * The validation record (issue 37): what a push that validated was, so production can later be proven to
 * serve exactly it. The commit, the SHA-1 of every model file as the upload hashed it, the platform's
 * build marks, the Cube version, and a digest of the semantic layer read from the validated preview (the
 * whole layer, never one empty security context's view). Written when a push validates (the PR comment's
 * ledger keeps it compact, the change-set file and `--json` whole); the close carries the last one to
 * the merge (docs/production.md says where). The proof after a merge, the drift watch and the revert
 * read it.
 */
import type { BuildStatus } from '@datamodel-ci/platform-api';
import type { MemberChange } from '../impact/layer-digest.js';
import type { FileChange } from './production-state.js';
import { digestOf, type Manifest } from './upload-transaction.js';

export interface ValidationRecord {
  version: 1;
  deploymentId: number;
  /** The branch validated: the PR's shared branch, or its head branch on a repository-fed deployment. */
  branch: string;
  /** The commit validated (the checkout of the push). */
  commit: string;
  /** Every model file as the upload hashed it: path -> SHA-1 (files the walk never reads, and `exclude`d ones, left out). */
  files: Record<string, string>;
  /** `digestOf` those files (the ledger's `validated.digest`). */
  digest: string;
  /** The platform's marks of the validated build, as its build status gave them. */
  build: { filesHash?: string; jobId?: string; updatedAt?: string; lastHash?: string };
  /** The Cube version the preview ran, when the platform said. */
  cubeVersion?: string;
  /** The validated preview's semantic layer, read whole: its digest and member count. */
  layer?: { digest: string; members: number };
  /** ISO time of the validation. */
  validatedAt: string;
}

/** The record's files as a manifest (path -> `{ hash }`). */
export const recordManifest = (r: Pick<ValidationRecord, 'files'>): Manifest => Object.fromEntries(Object.entries(r.files).map(([p, hash]) => [p, { hash }]));

/** A record of a validated push: its files (as a manifest), build status, and what else is known. */
export function makeRecord(input: {
  deploymentId: number;
  branch: string;
  commit: string;
  files: Manifest;
  status: Pick<BuildStatus, 'filesHash' | 'buildJobId' | 'updatedAt' | 'lastHash'>;
  cubeVersion?: string;
  layer?: { digest: string; members: number };
  now?: Date;
}): ValidationRecord {
  const files = Object.fromEntries(
    Object.keys(input.files)
      .sort()
      .map((p) => [p, input.files[p]!.hash]),
  );
  const s = input.status;
  const build = {
    ...(s.filesHash ? { filesHash: s.filesHash } : {}),
    ...(s.buildJobId != null ? { jobId: String(s.buildJobId) } : {}),
    ...(s.updatedAt ? { updatedAt: s.updatedAt } : {}),
    ...(s.lastHash ? { lastHash: s.lastHash } : {}),
  };
  return {
    version: 1,
    deploymentId: input.deploymentId,
    branch: input.branch,
    commit: input.commit,
    files,
    digest: digestOf(input.files),
    build,
    ...(input.cubeVersion ? { cubeVersion: input.cubeVersion } : {}),
    ...(input.layer ? { layer: input.layer } : {}),
    validatedAt: (input.now ?? new Date()).toISOString(),
  };
}

/** A record read back (a ledger, a GitHub deployment's payload: outside text): its well-typed fields, or undefined. */
export function readRecord(raw: unknown): ValidationRecord | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const r = raw as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  if (r.version !== 1 || typeof r.deploymentId !== 'number' || !str(r.branch) || !str(r.commit) || !str(r.digest) || !str(r.validatedAt)) return undefined;
  const files = r.files && typeof r.files === 'object' && !Array.isArray(r.files) ? (r.files as Record<string, unknown>) : undefined;
  if (!files || !Object.values(files).every((h) => typeof h === 'string')) return undefined;
  const b = (r.build && typeof r.build === 'object' ? r.build : {}) as Record<string, unknown>;
  const build = Object.fromEntries(['filesHash', 'jobId', 'updatedAt', 'lastHash'].flatMap((k) => (str(b[k]) ? [[k, str(b[k])!]] : [])));
  const l = r.layer as { digest?: unknown; members?: unknown } | undefined;
  const layer = l && str(l.digest) && typeof l.members === 'number' ? { digest: l.digest as string, members: l.members } : undefined;
  return {
    version: 1,
    deploymentId: r.deploymentId,
    branch: r.branch as string,
    commit: r.commit as string,
    files: files as Record<string, string>,
    digest: r.digest as string,
    build,
    ...(str(r.cubeVersion) ? { cubeVersion: r.cubeVersion as string } : {}),
    ...(layer ? { layer } : {}),
    validatedAt: r.validatedAt as string,
  };
}

/**
 * The record as the PR comment's ledger keeps it: everything but the per-file hashes (their digest pins
 * them, and the close takes them back from the merge commit's checkout when its digest is the record's),
 * so the ledger stays the same size whatever the model's (docs/production.md).
 */
export type LedgerRecord = Omit<ValidationRecord, 'files'> & { fileCount: number };

/** A record without its per-file hashes, for the ledger. */
export function leanRecord(record: ValidationRecord): LedgerRecord {
  const { files, ...rest } = record;
  return { ...rest, fileCount: Object.keys(files).length };
}

/** A ledger's record read back (outside text): its well-typed fields, or undefined. */
export function readLeanRecord(raw: unknown): LedgerRecord | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const fileCount = (raw as { fileCount?: unknown }).fileCount;
  if (typeof fileCount !== 'number' || !Number.isSafeInteger(fileCount) || fileCount < 0) return undefined;
  const read = readRecord({ ...raw, files: {} });
  if (!read) return undefined;
  const { files: _none, ...rest } = read;
  return { ...rest, fileCount };
}

/** The whole record again from a checkout's files (a manifest): only when they are the record's (same digest). */
export function wholeRecord(lean: LedgerRecord, files: Manifest): ValidationRecord | undefined {
  if (digestOf(files) !== lean.digest) return undefined;
  const { fileCount: _count, ...rest } = lean;
  const hashes = Object.fromEntries(
    Object.keys(files)
      .sort()
      .map((p) => [p, files[p]!.hash]),
  );
  return { ...rest, files: hashes };
}

/** What production serves against a validated model: proven equal, different (which files, which members), or not proven (why). */
export interface ProductionProof {
  status: 'proven' | 'differs' | 'not-proven';
  /** The validated commit the proof compared with. */
  commit?: string;
  files: FileChange[];
  members: MemberChange[];
  reason?: string;
}
