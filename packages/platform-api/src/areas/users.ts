/** Users, groups, user attributes and custom roles (spec 4.14 and 4.15). */
import { z } from 'zod';
import { endpoint } from '../endpoint.js';
import { CursorQuery, IdLike, IdParams, NonNegInt, PosInt, cursorPage } from '../schemas.js';
import { BulkActionError, NoContent, Unspecified } from './area-helpers.js';

// ---------------------------------------------------------------------------------------------
// Policies and roles.

export const PolicyResourceType = z.enum([
  'Global',
  'Deployment',
  'Report',
  'ReportFolder',
  'Agent',
  'AgentSpace',
  'Workbook',
  'Dashboard',
  'Folder',
  'ChatThread',
]);

/** Actions a policy can grant (vendor `Policy.actions`). */
export const PolicyAction = z.enum([
  'All',
  'DeploymentsManage',
  'DeploymentCreate',
  'DeploymentRead',
  'DeploymentUpdate',
  'DeploymentDelete',
  'SecretsManage',
  'DownloadData',
  'PlaygroundRead',
  'SchemaRead',
  'SchemaUpdate',
  'SchemaUpdateDevBranches',
  'APMRead',
  'ChatHistoryRead',
  'PreAggregationBuild',
  'AlertsCreate',
  'AlertsRead',
  'AlertsUpdate',
  'AlertsDelete',
  'AuditLogManage',
  'BillingRead',
  'SqlRunnerRead',
  'DataAssetsRead',
  'DataAssetsManage',
  'CubeNetworkConnect',
  'ReportRead',
  'ReportEdit',
  'ReportManage',
  'WorkbookManage',
  'WorkbookRead',
  'WorkbookEdit',
  'ChatThreadRead',
  'AgentManage',
  'AgentRead',
  'AgentSpaceManage',
  'AgentAdmin',
  'DeploymentAgentRead',
  'OAuthIntegrationsManage',
  'OAuthIntegrationsIssueTokens',
  'McpToolsManage',
  'AIBIDevelop',
  'AIBIExplore',
  'AIBIView',
  'ChartPalettesManage',
  'DashboardThemesManage',
  'AIBIDeveloper',
  'AIBIUser',
  'AIBIViewer',
  'EmbedDeploymentRead',
  'EmbedDashboardRead',
  'FolderRead',
  'FolderEdit',
  'FolderManage',
]);

/** A resource policy as received: values kept as text so a new action does not break parsing. */
export const Policy = z.looseObject({
  resourceType: z.string(),
  actions: z.array(z.string()),
  resources: z.array(z.string()),
});
export type Policy = z.infer<typeof Policy>;

/** A resource policy as sent: checked against the vendor's enumerations. */
export const PolicyInput = z.looseObject({
  resourceType: PolicyResourceType,
  actions: z.array(PolicyAction),
  resources: z.array(z.string()),
});

export const Role = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  description: z.string().nullish(),
  policies: z.array(Policy),
});
export type Role = z.infer<typeof Role>;

export const CreateRoleInput = z.looseObject({
  name: z.string().min(1),
  description: z.string().nullish(),
  policies: z.array(PolicyInput),
});

/** Fields present are changed; `policies` replaces the role's policies outright. */
export const UpdateRoleInput = z.looseObject({
  name: z.string().min(1).optional(),
  description: z.string().nullish(),
  policies: z.array(PolicyInput).optional(),
});

export const RoleParams = z.object({ roleId: PosInt });
export const RoleUserParams = z.object({ roleId: PosInt, userId: PosInt });

// ---------------------------------------------------------------------------------------------
// Users and settings.

/** 4.14 sheets settings: each field merged on its own. */
export const SheetsUserSettingsInput = z.looseObject({
  autoRunQueryOnChange: z.boolean().nullish(),
  openExplorationFromSheet: z.boolean().nullish(),
  revealSheetOnOpen: z.boolean().nullish(),
  showAppliedFilters: z.boolean().nullish(),
  suppressDuplicateValues: z.boolean().nullish(),
});

/**
 * 4.14 merge patch of the caller's settings: omitted fields are unchanged, `sheets: null` clears the
 * sheets settings, `defaultDeploymentId: null` inherits the account default. `lastSeenChangelogId` is
 * accepted and ignored by the platform.
 */
export const UserSettingsInput = z.looseObject({
  sheets: SheetsUserSettingsInput.nullish(),
  defaultDeploymentId: z.number().int().nullish(),
  locale: z.string().nullish(),
  theme: z.string().nullish(),
  timezone: z.string().nullish(),
  alternatingRowColors: z.boolean().nullish(),
  lastSeenChangelogId: z.number().int().nullish(),
});
export type UserSettingsInput = z.input<typeof UserSettingsInput>;

/** A console user (vendor `User`; required there: id, email, username, isAdmin, notifications). */
export const User = z.looseObject({
  id: z.number().int(),
  email: z.string(),
  username: z.string(),
  isAdmin: z.boolean(),
  firstName: z.string().nullish(),
  isDeactivated: z.boolean().nullish(),
  settings: z.looseObject({}).nullish(),
  userPolicies: z.array(Policy).nullish(),
});
export type User = z.infer<typeof User>;

/**
 * 4.14 `GET /users/me` (not in the vendor file): the user record, whose `userPolicies` holds the
 * effective policies from direct, organization-wide and group grants.
 */
export const CurrentUser = User.extend({ userPolicies: z.array(Policy).nullish() });
export type CurrentUser = z.infer<typeof CurrentUser>;

export const CreateUserInput = z.looseObject({
  email: z.string().min(1),
  username: z.string().min(1),
  firstName: z.string().nullish(),
  isAdmin: z.boolean().nullish(),
  externalId: z.string().nullish(),
  defaultRoles: z.array(z.string()).nullish(),
  /** A secret: known to the redactor before the request is sent. */
  password: z.string().nullish(),
  settings: z.record(z.string(), z.unknown()).nullish(),
});

export const UpdateUserInput = z.looseObject({
  firstName: z.string().nullish(),
  title: z.string().nullish(),
  isAdmin: z.boolean().nullish(),
  isDeactivated: z.boolean().nullish(),
  /** A secret: known to the redactor before the request is sent. */
  password: z.string().nullish(),
  notifications: z.array(z.string()).nullish(),
  settings: z.record(z.string(), z.unknown()).nullish(),
});

/** 4.14: `search` is a case-insensitive substring of first name, username or e-mail. */
export const SearchCursorQuery = CursorQuery.extend({ search: z.string().optional() });

export const BulkUserAction = z.enum(['DEACTIVATE', 'ACTIVATE', 'DELETE']);

/** Up to 100 users a request; repeated ids are collapsed by the platform. */
export const BulkUserActionInput = z.looseObject({
  action: BulkUserAction,
  userIds: z.array(z.number().int().positive()).min(1).max(100),
});

export const BulkUserActionFailure = z.looseObject({ userId: z.number().int(), error: BulkActionError });
export type BulkUserActionFailure = z.infer<typeof BulkUserActionFailure>;

/** Partial success: `succeeded` ids, `failed` entries each with the single-user status and message. */
export const BulkUserActionResult = z.looseObject({
  action: z.string(),
  succeeded: z.array(z.number().int()),
  failed: z.array(BulkUserActionFailure),
});
export type BulkUserActionResult = z.infer<typeof BulkUserActionResult>;

// ---------------------------------------------------------------------------------------------
// Groups (4.14 "the groups list"; no path in the spec or the vendor file).

export const AccountGroup = z.looseObject({
  id: IdLike,
  name: z.string(),
  description: z.string().nullish(),
  userCount: z.number().int().nullish(),
});
export type AccountGroup = z.infer<typeof AccountGroup>;

// ---------------------------------------------------------------------------------------------
// User attributes.

export const UserAttributeType = z.enum(['string', 'number', 'boolean', 'string_array', 'number_array']);

export const UserAttribute = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  type: z.string(),
  displayName: z.string().nullish(),
  description: z.string().nullish(),
  defaultValue: z.string().nullish(),
});
export type UserAttribute = z.infer<typeof UserAttribute>;

export const CreateUserAttributeInput = z.looseObject({
  name: z.string().min(1),
  type: UserAttributeType,
  displayName: z.string().nullish(),
  description: z.string().nullish(),
  defaultValue: z.string().nullish(),
});

export const UpdateUserAttributeInput = z.looseObject({
  displayName: z.string().nullish(),
  description: z.string().nullish(),
  defaultValue: z.string().nullish(),
});

/** Newest first; the legacy `offset`/`limit` are deprecated in favour of `first`/`after`. */
export const ListUserAttributesQuery = CursorQuery.extend({
  name: z.string().optional(),
  type: UserAttributeType.optional(),
  offset: NonNegInt.optional(),
  limit: PosInt.optional(),
});

export const UserAttributeValue = z.looseObject({
  userAttributeId: z.number().int(),
  userId: z.number().int(),
  name: z.string(),
  type: z.string(),
  value: z.unknown().optional(),
});
export type UserAttributeValue = z.infer<typeof UserAttributeValue>;

/** The vendor types both ids as strings; a number is accepted and sent as its text. */
const IdText = z.union([z.number().int(), z.string().min(1)]).transform((v) => String(v));

export const UpsertUserAttributeValueInput = z.looseObject({
  userAttributeId: IdText,
  userId: IdText,
  value: z.union([z.string(), z.number(), z.boolean(), z.array(z.string()), z.array(z.number())]).nullish(),
});

// ---------------------------------------------------------------------------------------------

const ADMIN = { admin: true } as const;

export const userEndpoints = {
  me: endpoint({
    id: 'getCurrentUser',
    method: 'GET',
    path: '/api/v1/users/me',
    section: '4.14',
    summary: 'The caller, with its effective resource policies (userPolicies)',
    response: CurrentUser,
  }),
  updateMySettings: endpoint({
    id: 'updateMySettings',
    method: 'PATCH',
    path: '/api/v1/users/me/settings',
    section: '4.14',
    summary: 'Merge a partial patch into the caller’s settings (sheets merged field by field; null clears)',
    body: UserSettingsInput,
    response: User,
  }),
  list: endpoint({
    id: 'listUsers',
    method: 'GET',
    path: '/api/v1/users',
    section: '4.14',
    summary: 'List users (search: first name, username or e-mail)',
    query: SearchCursorQuery,
    response: cursorPage(User),
    pagination: 'cursor',
  }),
  listGroups: endpoint({
    id: 'listGroups',
    method: 'GET',
    path: '/api/v1/groups',
    section: '4.14',
    summary: 'List the account’s user groups (search: group name)',
    query: SearchCursorQuery,
    response: cursorPage(AccountGroup),
    pagination: 'cursor',
  }),
  create: endpoint({
    id: 'createUser',
    method: 'POST',
    path: '/api/v1/users',
    section: '4.15',
    summary: 'Create a user',
    body: CreateUserInput,
    response: User,
    access: ADMIN,
  }),
  update: endpoint({
    id: 'updateUser',
    method: 'PUT',
    path: '/api/v1/users/{id}',
    section: '4.15',
    summary: 'Update a user',
    params: IdParams,
    body: UpdateUserInput,
    response: User,
    access: ADMIN,
  }),
  remove: endpoint({
    id: 'deleteUser',
    method: 'DELETE',
    path: '/api/v1/users/{id}',
    section: '4.15',
    summary: 'Delete a user',
    params: IdParams,
    response: Unspecified,
    access: ADMIN,
  }),
  bulkAction: endpoint({
    id: 'bulkUserAction',
    method: 'POST',
    path: '/api/v1/users/bulk',
    section: '4.15',
    summary: 'Apply DEACTIVATE, ACTIVATE or DELETE to up to 100 users; failures reported per user',
    body: BulkUserActionInput,
    response: BulkUserActionResult,
    access: ADMIN,
  }),
  listAttributes: endpoint({
    id: 'getUserAttributes',
    method: 'GET',
    path: '/api/v1/user-attributes',
    section: '4.15',
    summary: 'List user attributes, newest first',
    query: ListUserAttributesQuery,
    response: cursorPage(UserAttribute),
    pagination: 'cursor',
  }),
  createAttribute: endpoint({
    id: 'createUserAttribute',
    method: 'POST',
    path: '/api/v1/user-attributes',
    section: '4.15',
    summary: 'Create a user attribute (string, number, boolean, string_array, number_array)',
    body: CreateUserAttributeInput,
    response: UserAttribute,
    access: ADMIN,
  }),
  updateAttribute: endpoint({
    id: 'updateUserAttribute',
    method: 'PUT',
    path: '/api/v1/user-attributes/{id}',
    section: '4.15',
    summary: 'Update a user attribute',
    params: IdParams,
    body: UpdateUserAttributeInput,
    response: UserAttribute,
    access: ADMIN,
  }),
  attributeValues: endpoint({
    id: 'getUserAttributeValues',
    method: 'GET',
    path: '/api/v1/user-attribute-values/{userId}',
    section: '4.15',
    summary: 'Attribute values of a user',
    params: z.object({ userId: PosInt }),
    response: z.array(UserAttributeValue),
  }),
  upsertAttributeValue: endpoint({
    id: 'upsertUserAttributeValue',
    method: 'POST',
    path: '/api/v1/user-attribute-values',
    section: '4.15',
    summary: 'Set the value of one attribute for one user',
    body: UpsertUserAttributeValueInput,
    response: UserAttributeValue,
    access: ADMIN,
  }),
  listRoles: endpoint({
    id: 'getRoles',
    method: 'GET',
    path: '/api/v1/roles',
    section: '4.15',
    summary: 'List custom roles, newest first',
    query: CursorQuery,
    response: cursorPage(Role),
    pagination: 'cursor',
    access: ADMIN,
  }),
  createRole: endpoint({
    id: 'createRole',
    method: 'POST',
    path: '/api/v1/roles',
    section: '4.15',
    summary: 'Create a custom role (409 when the name exists)',
    body: CreateRoleInput,
    response: Role,
    access: ADMIN,
  }),
  getRole: endpoint({
    id: 'getRole',
    method: 'GET',
    path: '/api/v1/roles/{roleId}',
    section: '4.15',
    summary: 'Get a custom role',
    params: RoleParams,
    response: Role,
    access: ADMIN,
  }),
  updateRole: endpoint({
    id: 'updateRole',
    method: 'PUT',
    path: '/api/v1/roles/{roleId}',
    section: '4.15',
    summary: 'Update a custom role (policies, when sent, replace the old ones)',
    params: RoleParams,
    body: UpdateRoleInput,
    response: Role,
    access: ADMIN,
  }),
  deleteRole: endpoint({
    id: 'deleteRole',
    method: 'DELETE',
    path: '/api/v1/roles/{roleId}',
    section: '4.15',
    summary: 'Delete a custom role and all its assignments',
    params: RoleParams,
    response: NoContent,
    responseType: 'empty',
    status: 204,
    access: ADMIN,
  }),
  assignRole: endpoint({
    id: 'assignRoleToUser',
    method: 'PUT',
    path: '/api/v1/roles/{roleId}/users/{userId}',
    section: '4.15',
    summary: 'Assign a role to a user (idempotent)',
    params: RoleUserParams,
    response: NoContent,
    responseType: 'empty',
    status: 204,
    access: ADMIN,
  }),
  unassignRole: endpoint({
    id: 'removeRoleFromUser',
    method: 'DELETE',
    path: '/api/v1/roles/{roleId}/users/{userId}',
    section: '4.15',
    summary: 'Remove a role from a user (idempotent)',
    params: RoleUserParams,
    response: NoContent,
    responseType: 'empty',
    status: 204,
    access: ADMIN,
  }),
} as const;
