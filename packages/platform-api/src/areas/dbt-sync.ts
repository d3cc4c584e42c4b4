/** dbt sync (spec 4.12 and section 3). */
import { z } from 'zod';
import { endpoint } from '../endpoint.js';
import { CursorQuery, PageInfo, PosInt, cursorPage } from '../schemas.js';

const BASE = '/api/v1/deployments/{deploymentId}/dbt-sync';

export const DbtSyncStatus = z.enum(['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'UNKNOWN']);
export type DbtSyncStatus = z.infer<typeof DbtSyncStatus>;
export const DbtSyncTrigger = z.enum(['manual', 'api', 'webhook', 'agent', 'unknown']);

export const SyncParams = z.object({ deploymentId: PosInt, syncJobId: z.string().min(1) });

/** 4.12: `ref` is a branch or tag (not a SHA) and must not be empty. */
export const StartDbtSyncInput = z.looseObject({
  branchName: z.string().min(1).nullish(),
  ref: z
    .string()
    .trim()
    .min(1, 'expected a non-empty branch or tag name')
    .refine((r) => !/^[0-9a-f]{40}$/i.test(r), 'expected a branch or tag name, not a commit SHA')
    .nullish(),
  source: z.enum(['git', 'manifest']).nullish(),
  output: z.enum(['branch', 'files']).nullish(),
  manifest: z.record(z.string(), z.unknown()).nullish(),
});

export const StartDbtSyncResponse = z.looseObject({
  branchName: z.string(),
  syncJobId: z.string(),
  workflowId: z.string(),
});
export type StartDbtSyncResponse = z.infer<typeof StartDbtSyncResponse>;

export const DbtSyncRunPhase = z.looseObject({
  phase: z.string(),
  startedOffsetMs: z.number().int(),
  durationMs: z.number().int(),
  outcome: z.string(),
});

export const DbtSyncRun = z.looseObject({
  syncJobId: z.string(),
  deploymentId: z.number().int(),
  status: z.string(),
  trigger: z.string(),
  source: z.string(),
  branchName: z.string(),
  startedAt: z.string(),
  completedAt: z.string().nullish(),
  durationMs: z.number().int().nullish(),
  errorMessage: z.string().nullish(),
  failedPhase: z.string().nullish(),
  gitRef: z.string().nullish(),
  lastStage: z.string().nullish(),
  phases: z.array(DbtSyncRunPhase).nullish(),
  stats: z.looseObject({}).nullish(),
  triggerContext: z.looseObject({}).nullish(),
  userId: z.number().int().nullish(),
});
export type DbtSyncRun = z.infer<typeof DbtSyncRun>;

export const DbtSyncProgress = z.looseObject({
  stage: z.string(),
  percentComplete: z.number().int(),
  message: z.string().nullish(),
});

/** Status of a run. A cancelled run reports a failure whose `error` says cancelled (section 3). */
export const DbtSyncStatusResponse = z.looseObject({
  syncJobId: z.string(),
  status: z.string(),
  progress: DbtSyncProgress,
  updatedAt: z.string(),
  error: z.string().nullish(),
});
export type DbtSyncStatusResponse = z.infer<typeof DbtSyncStatusResponse>;

export const DbtSyncResult = z.looseObject({
  syncJobId: z.string(),
  generatedFiles: z.array(z.looseObject({ path: z.string() })),
  manifestStats: z.looseObject({ models: z.number().int(), sources: z.number().int(), macros: z.number().int() }),
  cubeCount: z.number().int(),
  completedAt: z.string(),
  durationMs: z.number().int(),
});
export type DbtSyncResult = z.infer<typeof DbtSyncResult>;

/** One log line: its phase and the phase's duration. */
export const DbtSyncLogEntry = z.looseObject({
  timestamp: z.string(),
  level: z.string(),
  stream: z.string(),
  message: z.string(),
  phase: z.string().nullish(),
  durationMs: z.number().int().nullish(),
});
export type DbtSyncLogEntry = z.infer<typeof DbtSyncLogEntry>;

export const DbtSyncLogs = z.looseObject({ items: z.array(DbtSyncLogEntry), pageInfo: PageInfo.nullish() });
export const DbtSyncCancelResponse = z.looseObject({ message: z.string() });

export const ListDbtSyncsQuery = CursorQuery.extend({
  status: DbtSyncStatus.optional(),
  trigger: DbtSyncTrigger.optional(),
});

export const dbtSyncEndpoints = {
  start: endpoint({
    id: 'startDbtSync',
    method: 'POST',
    path: BASE,
    section: '4.12',
    summary: 'Start a dbt sync; each sync creates a new branch for the generated models',
    params: z.object({ deploymentId: PosInt }),
    body: StartDbtSyncInput.optional(),
    response: StartDbtSyncResponse,
    access: { permissions: ['SchemaRead', 'SchemaUpdate', 'DeploymentRead'] },
  }),
  list: endpoint({
    id: 'listDbtSyncs',
    method: 'GET',
    path: BASE,
    section: '4.12',
    summary: 'Sync history, newest first, at most 100 runs a page',
    params: z.object({ deploymentId: PosInt }),
    query: ListDbtSyncsQuery,
    response: cursorPage(DbtSyncRun),
    pagination: 'cursor',
    access: { permissions: ['SchemaRead'] },
  }),
  status: endpoint({
    id: 'getDbtSyncStatus',
    method: 'GET',
    path: `${BASE}/{syncJobId}`,
    section: '4.12',
    summary: 'Status and progress of a run',
    params: SyncParams,
    response: DbtSyncStatusResponse,
    access: { permissions: ['SchemaRead'] },
  }),
  result: endpoint({
    id: 'getDbtSyncResult',
    method: 'GET',
    path: `${BASE}/{syncJobId}/result`,
    section: '4.12',
    summary: 'Result of a completed run',
    params: SyncParams,
    response: DbtSyncResult,
    access: { permissions: ['SchemaRead'] },
  }),
  logs: endpoint({
    id: 'getDbtSyncLogs',
    method: 'GET',
    path: `${BASE}/{syncJobId}/logs`,
    section: '4.12',
    summary: 'Log lines of a run (one page), each with its phase and the phase duration',
    params: SyncParams,
    response: DbtSyncLogs,
    access: { permissions: ['SchemaRead'] },
  }),
  cancel: endpoint({
    id: 'cancelDbtSync',
    method: 'DELETE',
    path: `${BASE}/{syncJobId}`,
    section: '4.12',
    summary: 'Cancel a running sync (RUNNING -> CANCELLED)',
    params: SyncParams,
    response: DbtSyncCancelResponse,
    access: { permissions: ['SchemaRead', 'SchemaUpdate'] },
  }),
  generatedFiles: endpoint({
    id: 'getDbtSyncGeneratedFiles',
    method: 'GET',
    path: `${BASE}/{syncJobId}/generated-files`,
    section: '4.12',
    summary: 'Files a run generated, with content',
    params: SyncParams,
    query: CursorQuery,
    response: cursorPage(z.looseObject({ path: z.string(), content: z.string() })),
    pagination: 'cursor',
    access: { permissions: ['SchemaRead'] },
  }),
} as const;
