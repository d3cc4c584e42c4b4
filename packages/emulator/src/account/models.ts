/** State of the account: users, groups, keys, the tenant, the audit log and the account-wide records. */
import type { Permission } from '@datamodel-ci/platform-api';
import type { JsonObject } from '../json.js';

export const ALL_PERMISSIONS: Permission[] = ['SchemaRead', 'SchemaUpdate', 'SchemaUpdateDevBranches', 'DeploymentRead', 'AuditLogManage'];

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
  /** The user's settings as last merged (any key the client sends). */
  settings: JsonObject;
  /** Identity in the customer's directory (SCIM, user creation). */
  externalId?: string;
  title?: string;
  notifications?: string[];
  updatedAt?: string;
}

export interface GroupRec {
  id: number;
  name: string;
  createdAt: string;
  description?: string;
  /** Identity in the customer's directory (SCIM). */
  externalId?: string;
  lastModified?: string;
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

export interface AuditEvent {
  id: number;
  eventName: string;
  userEmail: string;
  createdAt: string;
  data: JsonObject;
}

export interface TenantSettings {
  name?: string;
  defaultDeploymentId?: number;
  /** When the audit log was last switched, ms since epoch. */
  auditLogEnabledTimestamp?: number;
  hasSupportAccess?: boolean;
  maintenanceWindowDay?: string;
  maintenanceWindowEnabled?: boolean;
  maintenanceWindowTime?: string;
  oidcEnabled?: boolean;
  useAIBIUserInterface?: boolean;
}

export interface TenantRec {
  auditLogEnabled: boolean;
  usageAnalyticsEnabled: boolean;
  settings: TenantSettings;
}

export type ScheduleType = 'HOURLY' | 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'CUSTOM';

/** The inputs a notification's cron expression was made from. */
export interface Schedule {
  scheduleType: ScheduleType;
  customCron?: string | null;
  minute?: number | null;
  hour?: number | null;
  dayOfWeek?: number | null;
  dayOfMonth?: number | null;
}

export interface RecipientRec {
  /** USER, EMBED_USER or SLACK; seeded recipients have none (it follows from their fields). */
  type?: string;
  userId?: number;
  email?: string;
  username?: string;
  embedTenantName?: string;
  externalId?: string;
  securityContext?: JsonObject | null;
  userAttributes?: unknown[] | null;
  groups?: string[] | null;
  channelId?: string;
  channelName?: string;
  createdAt?: string;
}

/** A scheduled dashboard notification. `schedule` and `recipients` are never returned with it. */
export interface NotificationRec {
  id: number;
  dashboardId: number;
  dashboardPublicId: string | null;
  deploymentId: number;
  cronExpression: string;
  timezone: string;
  isEnabled: boolean;
  humanReadableSchedule: string;
  notificationEnabled: boolean;
  notificationFormat: string;
  notificationAiSummary: boolean;
  filters: unknown[] | null;
  timeGrains: unknown[] | null;
  memberSwitchers?: unknown[] | null;
  createdAt: string;
  updatedAt?: string;
  /** Seed records have none: their cron expression stands as a CUSTOM schedule. */
  schedule?: Schedule;
  /** Oldest first. */
  recipients: RecipientRec[];
}

export type AttributeType = 'string' | 'number' | 'boolean' | 'string_array' | 'number_array';

export interface AttributeRec {
  id: number;
  name: string;
  type: AttributeType;
  displayName: string | null;
  description: string | null;
  /** The default as text (`"42"`, `'["a"]'`), parsed by type when read. */
  defaultValue: string | null;
  createdAt: string;
}

/** A user's own value of an attribute (keyed `userId:attributeId`). */
export interface AttributeValueRec {
  userAttributeId: number;
  userId: number;
  value: unknown;
  updatedAt: string;
}

export interface PolicyRec {
  resourceType: string;
  actions: string[];
  resources: string[];
}

export interface RoleRec {
  id: number;
  name: string;
  description: string | null;
  policies: PolicyRec[];
  userIds: number[];
  createdAt: string;
}

/** The usage-analytics token of a user (keyed by user id); `exp` in seconds. */
export interface UsageTokenRec {
  token: string;
  exp: number;
}

/** The account's top-level state. */
export interface AccountState {
  users: UserRec[];
  groups: GroupRec[];
  apiKeys: ApiKeyRec[];
  tenant: TenantRec;
  auditEvents: AuditEvent[];
}

/** Account records, by collection then id; a collection exists once something was written to it. */
export interface AccountCollections {
  notifications?: Record<string, NotificationRec>;
  userAttributes?: Record<string, AttributeRec>;
  userAttributeValues?: Record<string, AttributeValueRec>;
  roles?: Record<string, RoleRec>;
  usageAnalyticsTokens?: Record<string, UsageTokenRec>;
}

/** The key of a user's value of an attribute in `userAttributeValues`. */
export function attributeValueKey(userId: number, attributeId: number): string {
  return `${userId}:${attributeId}`;
}
