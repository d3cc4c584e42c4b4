/**
 * The contract's records under the names the product has always used (aliases of generated
 * schemas), and the few helpers that are code rather than shape.
 */
import type { z } from 'zod';
import type { ArgsOf } from './endpoint.js';
import { auditLogEndpoints, dataModelEndpoints, deploymentEndpoints } from './generated/areas.js';
import * as S from './generated/schemas.js';

export const SCIM_GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const SCIM_USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const SCIM_LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

export { PageInfo, DeploymentsPagination as Pagination, DeploymentEnvironment as Environment, BranchResponse as Branch } from './generated/schemas.js';
export { DbtSyncLogEntry, DbtSyncStatusResponse, DeploymentVersion, Deployment, DeploymentSettings, User, ScimGroup, ScimUser } from './generated/schemas.js';
export { BuildStatusResponse as BuildStatus } from './generated/schemas.js';
export { NotificationDto as Notification, UsageAnalyticsTokenResponse as UsageAnalyticsToken } from './generated/schemas.js';
export { GetDeploymentEnvironmentsQueryType as EnvironmentType } from './generated/schemas.js';

/** `file-hashes`: POSIX path -> `{ hash }` (SHA-1 hex of the raw bytes). */
export const FileHashes = dataModelEndpoints.fileHashes.response;
export type FileHashes = z.infer<typeof FileHashes>;

export type EnvironmentsPage = z.infer<typeof deploymentEndpoints.environments.response>;
export type AuditLogExportArgs = ArgsOf<(typeof auditLogEndpoints)['export']>;

/** The environments of a list answer, whichever form it took (`items` is filled from either). */
export function environmentsOf(page: EnvironmentsPage): S.DeploymentEnvironment[] {
  return page.items;
}

/** The REST URL of an environment, whichever form its credentials take (spec object or vendor array). */
export function environmentRestUrl(env: S.DeploymentEnvironment): string | undefined {
  const creds = env.api_credentials;
  if (!creds) return undefined;
  if (Array.isArray(creds)) return creds.find((c) => c.type === 'rest')?.url ?? undefined;
  return creds.rest?.url ?? undefined;
}
