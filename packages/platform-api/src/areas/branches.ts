/** Branches, dev mode, git workflow and the branch staging environment (build API, spec 4.4, 4.13, 4.15). */
import { z } from 'zod';
import { endpoint } from '../endpoint.js';
import { Bool, Branch, CursorQuery, DeploymentParams, WriteResponse, cursorPage, dataOf } from '../schemas.js';

const BUILD = '/build/api/v1/deployments/{deploymentId}';
const WRITE: ['SchemaRead', 'SchemaUpdate', 'DeploymentRead'] = ['SchemaRead', 'SchemaUpdate', 'DeploymentRead'];

export const CreateBranchInput = z.looseObject({
  name: z.string().min(1),
  from: z.string().min(1).nullish(),
  activate: z.boolean().nullish(),
});

/** Dev-mode state of the caller (`DevBranchResponse`). */
export const DevBranch = z.looseObject({
  active: z.boolean(),
  branchName: z.string().nullish(),
  parentBranch: z.string().nullish(),
});
export type DevBranch = z.infer<typeof DevBranch>;

export const StartDevModeInput = z.looseObject({ branchName: z.string().min(1).nullish() });

/** 4.4: `enabled` plus `branchName` or `branchId` (one of the two). */
export const StagingEnvironmentInput = z
  .looseObject({
    enabled: z.boolean(),
    branchName: z.string().min(1).nullish(),
    branchId: z.number().int().nullish(),
  })
  .refine((b) => (b.branchName ?? null) !== null || (b.branchId ?? null) !== null, {
    message: 'one of branchName or branchId is required',
    path: ['branchName'],
  });

export const RemoveBranchQuery = z.object({
  branchName: z.string().min(1),
  removeOnUpstream: Bool.optional(),
});

/** `branchName` is our extension (see docs/api-assumptions.md): the vendor's schema allows extra fields. */
export const CommitInput = z.looseObject({
  branchName: z.string().min(1).optional(),
  message: z.string().nullish(),
  exitDevMode: z.boolean().nullish(),
  resolveMergeConflict: z.boolean().nullish(),
});

export const PullInput = z.looseObject({ branchName: z.string().min(1) });
export const PullResponse = z.looseObject({ buildTriggered: z.boolean() });

export const MergeInput = z.looseObject({
  branchName: z.string().min(1).optional(),
  branchId: z.number().int().optional(),
  deleteBranch: z.boolean().nullish(),
  message: z.string().nullish(),
  squashCommits: z.boolean().nullish(),
  switchToParentBranch: z.boolean().nullish(),
});

export const MergeToDefaultInput = z.looseObject({
  message: z.string(),
  branchName: z.string().min(1).optional(),
  branchId: z.number().int().optional(),
  removeBranchAfterMerge: z.boolean().nullish(),
});

export const MergeResponse = z.looseObject({ merged: z.boolean(), branchDeleted: z.boolean() });
export type MergeResponse = z.infer<typeof MergeResponse>;

export const branchEndpoints = {
  list: endpoint({
    id: 'listBranches',
    method: 'GET',
    path: `${BUILD}/branches`,
    section: '4.15',
    summary: 'List branches',
    params: DeploymentParams,
    query: CursorQuery,
    response: cursorPage(Branch),
    pagination: 'cursor',
    access: { permissions: ['SchemaRead', 'DeploymentRead'] },
  }),
  create: endpoint({
    id: 'createBranch',
    method: 'POST',
    path: `${BUILD}/branches`,
    section: '4.15',
    summary: 'Create a shared branch (from another branch, default the deploy branch)',
    params: DeploymentParams,
    body: CreateBranchInput,
    response: DevBranch,
    access: { permissions: WRITE },
  }),
  remove: endpoint({
    id: 'removeBranch',
    method: 'DELETE',
    path: `${BUILD}/branches`,
    section: '4.13',
    summary: 'Delete a branch and its git ref; children move to its parent',
    params: DeploymentParams,
    query: RemoveBranchQuery,
    response: WriteResponse,
    access: { permissions: WRITE },
  }),
  setStagingEnvironment: endpoint({
    id: 'setBranchStagingEnvironment',
    method: 'PUT',
    path: `${BUILD}/branches/staging-environment`,
    section: '4.4',
    summary: 'Enable or disable the always-on staging environment of a shared branch',
    params: DeploymentParams,
    body: StagingEnvironmentInput,
    response: dataOf(Branch),
    access: { permissions: WRITE },
  }),
  startDevMode: endpoint({
    id: 'startDevMode',
    method: 'POST',
    path: `${BUILD}/dev-mode`,
    section: '4.15',
    summary: 'Start dev mode: fork a personal dev branch and return its real name',
    params: DeploymentParams,
    body: StartDevModeInput.optional(),
    response: DevBranch,
    access: { permissions: ['SchemaRead', 'SchemaUpdateDevBranches', 'DeploymentRead'] },
  }),
  stopDevMode: endpoint({
    id: 'stopDevMode',
    method: 'DELETE',
    path: `${BUILD}/dev-mode`,
    section: '4.15',
    summary: 'End the caller’s dev-mode session',
    params: DeploymentParams,
    response: WriteResponse,
    access: { permissions: ['SchemaRead', 'DeploymentRead'] },
  }),
  commit: endpoint({
    id: 'commitChanges',
    method: 'POST',
    path: `${BUILD}/commit`,
    section: '4.15',
    summary: 'Commit the dev branch’s changes',
    params: DeploymentParams,
    body: CommitInput.optional(),
    response: WriteResponse,
    access: { permissions: ['SchemaRead', 'SchemaUpdate', 'SchemaUpdateDevBranches', 'DeploymentRead'] },
  }),
  pull: endpoint({
    id: 'pull',
    method: 'POST',
    path: `${BUILD}/pull`,
    section: '4.15',
    summary: 'Pull a branch from its upstream',
    params: DeploymentParams,
    body: PullInput,
    response: PullResponse,
    access: { permissions: WRITE },
  }),
  merge: endpoint({
    id: 'mergeIntoParentBranch',
    method: 'POST',
    path: `${BUILD}/merge`,
    section: '4.15',
    summary: 'Merge a branch into its parent (deleted unless told to keep it)',
    params: DeploymentParams,
    body: MergeInput.optional(),
    response: MergeResponse,
    access: { permissions: WRITE },
  }),
  mergeToDefault: endpoint({
    id: 'mergeToDefaultBranch',
    method: 'POST',
    path: `${BUILD}/merge-to-default`,
    section: '4.15',
    summary: 'Merge a branch into the deploy branch',
    params: DeploymentParams,
    body: MergeToDefaultInput,
    response: MergeResponse,
    access: { permissions: WRITE },
  }),
} as const;
