/**
 * State of the workspace content (folders, workbooks and their dashboards, reports, exports, metric
 * views), embedding (tenants, users, groups, sessions, comments) and tenant integrations (OAuth, OIDC).
 */
import type { JsonObject } from '../json.js';

export interface FolderRec {
  id: number;
  deploymentId: number;
  name: string;
  parentId: number | null;
  position: number;
  createdAt: string;
  updatedAt: string;
  createdBy: number;
}

export interface DashboardRec {
  id: number;
  publicId: string;
  allowEmbed: boolean;
  title: string | null;
  description: string | null;
  config: JsonObject;
  publishedAt: string;
  aiWidgetThreads: Record<string, { threadId: string; checksum: string | null }>;
  /** Report snapshots taken at publish time (python-run checks against them). */
  reportSnapshots: { reportId: number; reportVersionId: number }[];
}

export interface WorkbookRec {
  id: number;
  deploymentId: number;
  name: string;
  slug?: string | null;
  /** Public id of the published dashboard (the seed sets it without a `dashboard` record). */
  publicId?: string;
  folderId?: number | null;
  meta?: JsonObject | null;
  createdAt: string;
  updatedAt?: string;
  createdBy?: number;
  dashboardDraft?: JsonObject | null;
  dashboard?: DashboardRec | null;
}

/** Where a report's result is placed in an external spreadsheet. */
export interface PlacementRec {
  id: string;
  externalWorkbookId: string;
  resultLocation: string;
  host: string | null;
  sheetId: string | null;
  sheetName: string | null;
  anchorCell: string | null;
  endResultCell: string | null;
  workbookName: string | null;
  placedAt: string;
  placedByUserId: number;
  refreshedAt: string | null;
  refreshedByUserId: number | null;
  resultChecksum: unknown;
}

export interface ReportRec {
  id: number;
  deploymentId: number;
  name: string;
  publicId: string;
  workbookId: number | null;
  folderId: number | null;
  sqlQuery: string | null;
  jsonQuery: string | null;
  meta: JsonObject | null;
  source: string | null;
  placements: PlacementRec[];
  createdAt: string;
  updatedAt: string;
  createdBy: number;
  refreshedAt: string | null;
}

/** Who may see a workbook through embedding (keyed by workbook id). */
export interface EmbedAccessRec {
  workbookId: number;
  allEmbedUsers: boolean;
  tenants: string[];
}

export interface ExportRec {
  jobId: string;
  deploymentId: number;
  userId: number;
  workbookId: number;
  dashboardId: number;
  format: 'png' | 'pdf';
  startedAt: number;
  expiresAt: number;
  failure: string | null;
}

/** A Databricks metric-view integration of a data source (keyed `deploymentId:dataSourceName`). */
export interface MetricViewIntegrationRec {
  publicId: string;
  deploymentId: number;
  dataSourceName: string;
  configurationVersion: number;
  /** The configuration as last saved, over the defaults. */
  configuration: JsonObject;
  accessTest: null;
  createdAt: string;
  updatedAt: string;
}

export interface PreviewRec {
  previewId: string;
  /** Hash of the request and the deploy branch's head: an identical running preview is reused. */
  contentKey: string;
  deploymentId: number;
  dataSourceName: string;
  buildJobId: number;
  selectionMode: string;
  startedAt: number;
  cancelledAt: number | null;
  commit: string | null;
  failure: string | null;
  views: { cubeViewName: string; dimensions: number; measures: number }[];
}

export interface EmbedTenantRec {
  id: number;
  name: string;
  displayName: string | null;
  createdAt: string;
}

export interface EmbedUserRec {
  id: number;
  tenant: string;
  externalId: string;
  email: string;
  displayName: string | null;
  picture: string | null;
  /** Account-wide groups (names of `state.groups`). */
  groups: string[];
  createdAt: string;
  lastLogin: string | null;
}

export interface EmbedGroupRec {
  id: number;
  tenant: string;
  name: string;
  description: string | null;
  createdAt: string;
  /** `seq` orders members newest first. */
  members: { userId: number; seq: number }[];
}

export interface SessionRec {
  sessionId: string;
  deploymentId: number;
  tenant: string | null;
  externalId: string | null;
  email: string | null;
  creatorMode: boolean;
  groups: string[];
  tenantGroups: string[];
  branchName: string | null;
  securityContext: JsonObject | null;
  userAttributes: unknown;
  createdAt: number;
  expiresAt: number;
  redeemedAt: number | null;
  revokedAt: number | null;
}

export interface CommentRec {
  id: number;
  /** Public id of the dashboard it is on. */
  publicId: string;
  userId: number;
  body: string;
  parentId: number | null;
  createdAt: string;
  editedAt: string | null;
  removedAt: string | null;
  resolvedAt: string | null;
  resolvedBy: number | null;
}

export interface OAuthIntegrationRec {
  id: number;
  name: string;
  type: string;
  clientId: string;
  /** Write-only: never returned. */
  clientSecret: string;
  authUrl: string;
  tokenUrl: string;
  redirectUri: string;
  scopes: string[];
  config: JsonObject;
  createdAt: string;
  updatedAt: string;
}

export interface UserTokenRec {
  id: number;
  integrationId: number;
  userId: number;
  status: string;
  accessTokenExpiresAt: string | null;
  refreshTokenExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** An OAuth authorization started and not yet finished (keyed by its `state`). */
export interface OAuthFlowRec {
  state: string;
  integrationId: number;
  userId: number;
  startedAt: string;
}

export interface OidcRec {
  id: number;
  name: string;
  audienceType: string;
  customAudience: string | null;
  audience: string;
  isEnabled: boolean;
  subFormat: string | null;
  targetEnvVar: string | null;
  customClaims: JsonObject | null;
  createdAt: string;
  updatedAt: string;
}

/** Content records, by collection then id; a collection exists once something was written to it. */
export interface ContentCollections {
  folders?: Record<string, FolderRec>;
  workbooks?: Record<string, WorkbookRec>;
  reports?: Record<string, ReportRec>;
  embedAccess?: Record<string, EmbedAccessRec>;
  dashboardExports?: Record<string, ExportRec>;
  metricViewIntegrations?: Record<string, MetricViewIntegrationRec>;
  metricViewPreviews?: Record<string, PreviewRec>;
  embedTenants?: Record<string, EmbedTenantRec>;
  embedUsers?: Record<string, EmbedUserRec>;
  embedGroups?: Record<string, EmbedGroupRec>;
  embedSessions?: Record<string, SessionRec>;
  dashboardComments?: Record<string, CommentRec>;
  oauthIntegrations?: Record<string, OAuthIntegrationRec>;
  userOAuthTokens?: Record<string, UserTokenRec>;
  oauthFlows?: Record<string, OAuthFlowRec>;
  oidcTokenConfigs?: Record<string, OidcRec>;
}
