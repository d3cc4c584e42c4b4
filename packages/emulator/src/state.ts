/**
 * The emulator's whole state, composed from each area's models: plain JSON, so `--state-dir` can
 * persist it and a restart keeps branches, files and runs.
 */
import { randomBytes } from 'node:crypto';
import type { AccountCollections, AccountState } from './account/models.js';
import type { ContentCollections } from './content/models.js';
import type { DeploymentRec } from './deployments/models.js';

/** Records of the account and content areas, by collection name then id. */
export interface Collections extends AccountCollections, ContentCollections {}

/** The id sequences (`nextId`); seeded and created records draw from the same one. */
export type SequenceName =
  | 'deployment'
  | 'user'
  | 'group'
  | 'audit'
  | 'notification'
  | 'userAttribute'
  | 'role'
  | 'folder'
  | 'workbook'
  | 'report'
  | 'reportVersion'
  | 'buildJob'
  | 'metricViewPreview'
  | 'embedTenant'
  | 'embedUser'
  | 'embedGroup'
  | 'embedMembership'
  | 'dashboardComment'
  | 'oauthIntegration'
  | 'userOAuthToken'
  | 'oidcTokenConfig';

export interface State extends AccountState {
  version: 1;
  /** HMAC secret for minted JWTs. */
  secret: string;
  /** Last id issued, by sequence. */
  seq: Partial<Record<SequenceName, number>>;
  deployments: DeploymentRec[];
  collections: Collections;
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
export function nextId(state: State, name: SequenceName): number {
  const n = (state.seq[name] ?? 0) + 1;
  state.seq[name] = n;
  return n;
}

// Reads never create a collection: a rejected request must leave the state text unchanged.

export type CollectionName = keyof Collections;
/** The record type a collection holds. */
export type RecordOf<K extends CollectionName> = NonNullable<Collections[K]>[string];

function collection<K extends CollectionName>(state: State, name: K): Record<string, RecordOf<K>> | undefined {
  return state.collections[name] as Record<string, RecordOf<K>> | undefined;
}

/** Every record of a collection (in insertion order). */
export function records<K extends CollectionName>(state: State, name: K): RecordOf<K>[] {
  return Object.values(collection(state, name) ?? {});
}

export function findRecord<K extends CollectionName>(state: State, name: K, id: string | number): RecordOf<K> | undefined {
  return collection(state, name)?.[String(id)];
}

export function putRecord<K extends CollectionName>(state: State, name: K, id: string | number, rec: RecordOf<K>): void {
  const all: Record<string, RecordOf<K>> = collection(state, name) ?? {};
  all[String(id)] = rec;
  (state.collections as Record<K, Record<string, RecordOf<K>>>)[name] = all;
}

export function deleteRecord(state: State, name: CollectionName, id: string | number): void {
  const all = collection(state, name);
  if (all) delete all[String(id)];
}

/** Next free id of a collection (seeded records may hold ids the sequence never issued). */
export function allocId(state: State, name: CollectionName, seq: SequenceName): number {
  for (;;) {
    const id = nextId(state, seq);
    if (!findRecord(state, name, id)) return id;
  }
}
