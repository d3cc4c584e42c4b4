/**
 * Embedding: embed tenants, their users and groups, workbook embed access, signed-embedding toggle,
 * embed sessions and dashboard comments (spec 4.15).
 */
import { z } from 'zod';
import { endpoint } from '../endpoint.js';
import { Bool, CursorQuery, Name, PosInt, cursorPage } from '../schemas.js';
import { BulkActionError, NoContent, Unspecified } from './area-helpers.js';
import { UserAttributeType } from './users.js';
import { PublishedDashboard } from './workspace.js';

const TENANTS = '/api/v1/embed-tenants';
const TENANT = `${TENANTS}/{embedTenantName}`;
const DASHBOARD = '/api/v1/embed/dashboard/{publicId}';
const ADMIN = { admin: true } as const;

// ---------------------------------------------------------------------------------------------
// Tenants, users, groups.

export const EmbedTenant = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  displayName: z.string().nullish(),
  userCount: z.number().int().nullish(),
});
export type EmbedTenant = z.infer<typeof EmbedTenant>;

/** An embed user; `externalId` is absent for users provisioned before it was recorded. */
export const EmbedUser = z.looseObject({
  id: z.number().int(),
  username: z.string(),
  externalId: z.string().nullish(),
  email: z.string().nullish(),
});
export type EmbedUser = z.infer<typeof EmbedUser>;

/** A group of one embed tenant (vendor `UserGroupDTO`). */
export const EmbedGroup = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  description: z.string().nullish(),
  userCount: z.number().int().nullish(),
});
export type EmbedGroup = z.infer<typeof EmbedGroup>;

export const EmbedTenantParams = z.object({ embedTenantName: Name });
export const EmbedGroupParams = z.object({ embedTenantName: Name, id: PosInt });
export const SearchQuery = CursorQuery.extend({ search: z.string().optional() });

export const EmbedUserProfile = z.looseObject({
  displayName: z.string().nullish(),
  picture: z.string().nullish(),
});

/** Desired state of one embed user: each group lane replaced when sent, kept when omitted, cleared by []. */
export const ProvisionEmbedUserInput = z.looseObject({
  externalId: z.string().min(1),
  email: z.string().nullish(),
  groups: z.array(z.string()).nullish(),
  tenantGroups: z.array(z.string()).nullish(),
  userProfile: EmbedUserProfile.nullish(),
});

export const ProvisionEmbedUsersInput = z.looseObject({ users: z.array(ProvisionEmbedUserInput).min(1).max(100) });

export const ProvisionEmbedUserFailure = z.looseObject({ externalId: z.string(), error: BulkActionError });

/** Partial success: provisioned users, and failures each with the single-user status and message. */
export const ProvisionEmbedUsersResult = z.looseObject({
  succeeded: z.array(EmbedUser),
  failed: z.array(ProvisionEmbedUserFailure),
});
export type ProvisionEmbedUsersResult = z.infer<typeof ProvisionEmbedUsersResult>;

export const CreateEmbedGroupInput = z.looseObject({
  name: z.string().min(1).refine((n) => !n.startsWith('system:'), 'a name not starting with "system:" (reserved)'),
  description: z.string().nullish(),
});

/** Only the description changes; the name is immutable. An empty description clears it. */
export const UpdateEmbedGroupInput = z.looseObject({ description: z.string().nullish() });

/** Exactly one of `externalId` or `embedUserId`. */
export const EmbedGroupMemberInput = z
  .looseObject({
    externalId: z.string().min(1).nullish(),
    embedUserId: z.number().int().positive().nullish(),
  })
  .refine((m) => (m.externalId != null) !== (m.embedUserId != null), {
    message: 'exactly one of externalId or embedUserId',
    path: ['externalId'],
  });

export const EmbedGroupMembersInput = z.looseObject({ members: z.array(EmbedGroupMemberInput).min(1).max(1000) });

export const EmbedGroupMembersResult = z.looseObject({
  addedMembers: z.array(EmbedUser),
  unchangedMembers: z.array(EmbedUser),
});
export type EmbedGroupMembersResult = z.infer<typeof EmbedGroupMembersResult>;

// ---------------------------------------------------------------------------------------------
// Embed access of a workbook's published dashboard.

export const EmbedAccessAction = z.enum(['read', 'none']);

export const EmbedAccess = z.looseObject({
  allowEmbed: z.boolean(),
  allEmbedUsers: z.looseObject({ action: z.string(), enabled: z.boolean(), groupId: z.number().int().nullish() }),
  tenants: z.array(z.looseObject({ embedTenantName: z.string(), action: z.string(), groupId: z.number().int() })),
});
export type EmbedAccess = z.infer<typeof EmbedAccess>;

/**
 * One target (`embedTenantName` or `allEmbedUsers: true`) with an `action`, and/or `allowEmbed`;
 * a request that changes nothing is refused before it is sent.
 */
export const UpdateEmbedAccessInput = z
  .looseObject({
    embedTenantName: z.string().min(1).nullish(),
    allEmbedUsers: z.boolean().nullish(),
    action: EmbedAccessAction.nullish(),
    allowEmbed: z.boolean().nullish(),
  })
  .superRefine((b, ctx) => {
    const tenant = (b.embedTenantName ?? null) !== null;
    const all = b.allEmbedUsers === true;
    if (tenant && all) {
      ctx.addIssue({ code: 'custom', path: ['allEmbedUsers'], message: 'one target only: embedTenantName or allEmbedUsers' });
    } else if ((tenant || all) && (b.action ?? null) === null) {
      ctx.addIssue({ code: 'custom', path: ['action'], message: '"read" or "none" together with the target' });
    } else if (!tenant && !all && (b.allowEmbed ?? null) === null) {
      ctx.addIssue({ code: 'custom', path: ['allowEmbed'], message: 'a change: a target with an action, or allowEmbed' });
    }
  });

export const WorkbookEmbedParams = z.object({ deploymentId: PosInt, workbookId: PosInt });

// ---------------------------------------------------------------------------------------------
// Embeddable dashboards, python run, comments.

export const PublicIdParams = z.object({ publicId: Name });
export const CommentParams = z.object({ publicId: Name, commentId: PosInt });


export const UpdateDashboardEmbeddingInput = z.looseObject({ allowEmbed: z.boolean() });
export const DashboardEmbedding = z.looseObject({ publicId: z.string(), allowEmbed: z.boolean() });

export const PythonRunInput = z.looseObject({
  reportId: z.number().int(),
  reportVersionId: z.number().int(),
  sqlQuery: z.string().min(1),
});

export const PythonRunResult = z.looseObject({
  at: z.string(),
  inputRowCount: z.number().int(),
  stdout: z.string(),
  stderr: z.string(),
  executionError: z.string().nullish(),
  outputData: z.unknown().optional(),
});
export type PythonRunResult = z.infer<typeof PythonRunResult>;

export const EmbedComment = z.looseObject({
  id: z.number().int(),
  body: z.string(),
  dashboardId: z.string(),
  isOwn: z.boolean(),
  createdAt: z.string(),
  editedAt: z.string().nullish(),
  removedAt: z.string().nullish(),
  userId: z.number().int().nullish(),
});
export type EmbedComment = z.infer<typeof EmbedComment>;

export const EmbedCommentThread = z.looseObject({
  root: EmbedComment,
  replies: z.array(EmbedComment),
  resolvedAt: z.string().nullish(),
  resolvedBy: z.number().int().nullish(),
});
export type EmbedCommentThread = z.infer<typeof EmbedCommentThread>;

export const ListCommentsQuery = CursorQuery.extend({
  includeResolved: Bool.optional(),
  resolvedOnly: Bool.optional(),
});

export const MentionableEmbedUser = z.looseObject({
  id: z.number().int(),
  username: z.string(),
  email: z.string().nullish(),
  firstName: z.string().nullish(),
});

// ---------------------------------------------------------------------------------------------
// Sessions.

const GroupDefinition = z.looseObject({ name: z.string().min(1), description: z.string().nullish() });

export const GenerateSessionInput = z.looseObject({
  deploymentId: z.number().int().positive(),
  externalId: z.string().nullish(),
  email: z.string().nullish(),
  embedTenantName: z.string().nullish(),
  creatorMode: z.boolean().nullish(),
  groups: z.array(z.string()).nullish(),
  tenantGroups: z.array(z.string()).nullish(),
  groupDefinitions: z.array(GroupDefinition).nullish(),
  tenantGroupDefinitions: z.array(GroupDefinition).nullish(),
  userAttributes: z
    .array(
      z.looseObject({
        name: z.string().min(1),
        value: z.union([z.string(), z.number(), z.boolean(), z.array(z.string()), z.array(z.number())]).nullish(),
      }),
    )
    .nullish(),
  userAttributeDefinitions: z
    .array(z.looseObject({ name: z.string().min(1), type: UserAttributeType, defaultValue: z.string().nullish() }))
    .nullish(),
  securityContext: z.record(z.string(), z.unknown()).nullish(),
  userProfile: EmbedUserProfile.nullish(),
  publicDashboardId: z.string().nullish(),
  branchName: z.string().nullish(),
  isEphemeral: z.boolean().nullish(),
});

/** `sessionId` is a one-time credential: the redactor harvests it. */
export const EmbedSession = z.looseObject({ sessionId: z.string() });
export const SessionIdInput = z.looseObject({ sessionId: z.string().min(1) });
/** A signed embed JWT (24 hours): the redactor harvests `token`. */
export const EmbedToken = z.looseObject({ token: z.string() });

// ---------------------------------------------------------------------------------------------

export const embedEndpoints = {
  listTenants: endpoint({
    id: 'listEmbedTenants',
    method: 'GET',
    path: TENANTS,
    section: '4.15',
    summary: 'List embed tenants (search: tenant name)',
    query: SearchQuery,
    response: cursorPage(EmbedTenant),
    pagination: 'cursor',
    access: ADMIN,
  }),
  deleteTenant: endpoint({
    id: 'deleteEmbedTenant',
    method: 'DELETE',
    path: TENANT,
    section: '4.15',
    summary: 'Delete an embed tenant and everything in it (idempotent; canonical lowercase name)',
    params: EmbedTenantParams,
    response: NoContent,
    responseType: 'empty',
    status: 204,
    access: ADMIN,
  }),
  listUsers: endpoint({
    id: 'listEmbedUsers',
    method: 'GET',
    path: `${TENANT}/users`,
    section: '4.15',
    summary: 'List an embed tenant’s users (search: e-mail or external id)',
    params: EmbedTenantParams,
    query: SearchQuery,
    response: cursorPage(EmbedUser),
    pagination: 'cursor',
    access: ADMIN,
  }),
  provisionUsers: endpoint({
    id: 'provisionEmbedUsers',
    method: 'POST',
    path: `${TENANT}/users`,
    section: '4.15',
    summary: 'Provision up to 100 embed users; failures reported per user',
    params: EmbedTenantParams,
    body: ProvisionEmbedUsersInput,
    response: ProvisionEmbedUsersResult,
    idempotent: true,
    access: ADMIN,
  }),
  provisionUser: endpoint({
    id: 'provisionEmbedUser',
    method: 'POST',
    path: `${TENANT}/user`,
    section: '4.15',
    summary: 'Create or update one embed user (idempotent desired state)',
    params: EmbedTenantParams,
    body: ProvisionEmbedUserInput,
    response: EmbedUser,
    idempotent: true,
    access: ADMIN,
  }),
  listGroups: endpoint({
    id: 'getGroups',
    method: 'GET',
    path: `${TENANT}/groups`,
    section: '4.15',
    summary: 'List an embed tenant’s groups, newest first',
    params: EmbedTenantParams,
    query: CursorQuery,
    response: cursorPage(EmbedGroup),
    pagination: 'cursor',
    access: ADMIN,
  }),
  createGroup: endpoint({
    id: 'createGroup',
    method: 'POST',
    path: `${TENANT}/groups`,
    section: '4.15',
    summary: 'Create a group in an embed tenant',
    params: EmbedTenantParams,
    body: CreateEmbedGroupInput,
    response: EmbedGroup,
    access: ADMIN,
  }),
  getGroup: endpoint({
    id: 'getGroup',
    method: 'GET',
    path: `${TENANT}/groups/{id}`,
    section: '4.15',
    summary: 'Get an embed group with its member count',
    params: EmbedGroupParams,
    response: EmbedGroup,
    access: ADMIN,
  }),
  updateGroup: endpoint({
    id: 'updateGroup',
    method: 'PATCH',
    path: `${TENANT}/groups/{id}`,
    section: '4.15',
    summary: 'Update an embed group’s description',
    params: EmbedGroupParams,
    body: UpdateEmbedGroupInput,
    response: EmbedGroup,
    access: ADMIN,
  }),
  deleteGroup: endpoint({
    id: 'deleteGroup',
    method: 'DELETE',
    path: `${TENANT}/groups/{id}`,
    section: '4.15',
    summary: 'Delete an empty embed group',
    params: EmbedGroupParams,
    response: NoContent,
    responseType: 'empty',
    status: 204,
    access: ADMIN,
  }),
  listGroupMembers: endpoint({
    id: 'getGroupMembers',
    method: 'GET',
    path: `${TENANT}/groups/{id}/users`,
    section: '4.15',
    summary: 'List an embed group’s members, most recently added first',
    params: EmbedGroupParams,
    query: CursorQuery,
    response: cursorPage(EmbedUser),
    pagination: 'cursor',
    access: ADMIN,
  }),
  addGroupMembers: endpoint({
    id: 'addGroupMembers',
    method: 'POST',
    path: `${TENANT}/groups/{id}/users`,
    section: '4.15',
    summary: 'Add 1–1000 embed users to a group (idempotent)',
    params: EmbedGroupParams,
    body: EmbedGroupMembersInput,
    response: EmbedGroupMembersResult,
    idempotent: true,
    access: ADMIN,
  }),
  removeGroupMembers: endpoint({
    id: 'removeGroupMembers',
    method: 'DELETE',
    path: `${TENANT}/groups/{id}/users`,
    section: '4.15',
    summary: 'Remove 1–1000 embed users from a group (idempotent)',
    params: EmbedGroupParams,
    body: EmbedGroupMembersInput,
    response: NoContent,
    responseType: 'empty',
    status: 204,
    access: ADMIN,
  }),
  getAccess: endpoint({
    id: 'getEmbedAccess',
    method: 'GET',
    path: '/api/v1/deployments/{deploymentId}/workbooks/{workbookId}/embed-access',
    section: '4.15',
    summary: 'Embed audience of a workbook’s published dashboard',
    params: WorkbookEmbedParams,
    response: EmbedAccess,
  }),
  updateAccess: endpoint({
    id: 'updateEmbedAccess',
    method: 'PUT',
    path: '/api/v1/deployments/{deploymentId}/workbooks/{workbookId}/embed-access',
    section: '4.15',
    summary: 'Grant (read) or remove (none) one embed audience, and/or toggle signed embedding',
    params: WorkbookEmbedParams,
    body: UpdateEmbedAccessInput,
    response: EmbedAccess,
  }),
  getDashboard: endpoint({
    id: 'getDashboard',
    method: 'GET',
    path: DASHBOARD,
    section: '4.15',
    summary: 'Get an embeddable dashboard',
    params: PublicIdParams,
    response: PublishedDashboard,
  }),
  setDashboardEmbedding: endpoint({
    id: 'updateDashboardEmbedding',
    method: 'PATCH',
    path: DASHBOARD,
    section: '4.15',
    summary: 'Enable or disable signed embedding of a dashboard (allowEmbed)',
    params: PublicIdParams,
    body: UpdateDashboardEmbeddingInput,
    response: DashboardEmbedding,
    access: ADMIN,
  }),
  runDashboardPython: endpoint({
    id: 'postDashboardPythonRun',
    method: 'POST',
    path: `${DASHBOARD}/python-run`,
    section: '4.15',
    summary: 'Re-run a report’s Python analysis over dashboard-filtered SQL (not persisted)',
    params: PublicIdParams,
    body: PythonRunInput,
    response: PythonRunResult,
  }),
  listComments: endpoint({
    id: 'listDashboardComments',
    method: 'GET',
    path: `${DASHBOARD}/comments`,
    section: '4.15',
    summary: 'Comment threads of an embeddable dashboard, newest first',
    params: PublicIdParams,
    query: ListCommentsQuery,
    response: cursorPage(EmbedCommentThread),
    pagination: 'cursor',
  }),
  createComment: endpoint({
    id: 'createDashboardComment',
    method: 'POST',
    path: `${DASHBOARD}/comments`,
    section: '4.15',
    summary: 'Start a thread, or reply to one (parentId)',
    params: PublicIdParams,
    body: z.looseObject({ body: z.string().min(1), parentId: z.number().int().nullish() }),
    response: EmbedComment,
  }),
  listMentionableUsers: endpoint({
    id: 'listMentionableEmbedUsers',
    method: 'GET',
    path: `${DASHBOARD}/comments/mentionable-users`,
    section: '4.15',
    summary: 'Fellow embed users for mention autocomplete',
    params: PublicIdParams,
    query: SearchQuery,
    response: cursorPage(MentionableEmbedUser),
    pagination: 'cursor',
  }),
  updateComment: endpoint({
    id: 'updateDashboardComment',
    method: 'PATCH',
    path: `${DASHBOARD}/comments/{commentId}`,
    section: '4.15',
    summary: 'Replace a comment’s body (author only)',
    params: CommentParams,
    body: z.looseObject({ body: z.string().min(1) }),
    response: EmbedComment,
  }),
  removeComment: endpoint({
    id: 'removeDashboardComment',
    method: 'DELETE',
    path: `${DASHBOARD}/comments/{commentId}`,
    section: '4.15',
    summary: 'Soft-delete a comment (author only)',
    params: CommentParams,
    response: Unspecified,
  }),
  resolveComment: endpoint({
    id: 'setDashboardCommentResolved',
    method: 'POST',
    path: `${DASHBOARD}/comments/{commentId}/resolve`,
    section: '4.15',
    summary: 'Resolve or re-open a thread',
    params: CommentParams,
    body: z.looseObject({ resolved: z.boolean() }),
    response: EmbedCommentThread,
  }),
  generateSession: endpoint({
    id: 'generateSession',
    method: 'POST',
    path: '/api/v1/embed/generate-session',
    section: '4.15',
    summary: 'Create a one-time embed session for a deployment',
    body: GenerateSessionInput,
    response: EmbedSession,
    access: ADMIN,
  }),
  sessionToken: endpoint({
    id: 'postTokenBySessionId',
    method: 'POST',
    path: '/api/v1/embed/session/token',
    section: '4.15',
    summary: 'Exchange a session id (single use) for a signed embed JWT',
    body: SessionIdInput,
    response: EmbedToken,
    // The session id is the credential.
    access: { public: true },
  }),
  revokeSession: endpoint({
    id: 'revokeSession',
    method: 'POST',
    path: '/api/v1/embed/session/revoke',
    section: '4.15',
    summary: 'End an embed session server-side (idempotent)',
    body: SessionIdInput,
    response: NoContent,
    responseType: 'empty',
    status: 204,
    idempotent: true,
    access: ADMIN,
  }),
} as const;
