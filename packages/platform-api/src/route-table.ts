/** Every endpoint of the contract, by area: the client binds it, the emulator serves it. */
import type { Endpoint } from './endpoint.js';
import { appEndpoints } from './areas/app.js';
import { auditLogEndpoints } from './areas/audit-logs.js';
import { branchEndpoints } from './areas/branches.js';
import { dataModelEndpoints } from './areas/data-model.js';
import { dbtSyncEndpoints } from './areas/dbt-sync.js';
import { deploymentEndpoints } from './areas/deployments.js';
import { embedEndpoints } from './areas/embed.js';
import { githubEndpoints } from './areas/github.js';
import { notificationEndpoints } from './areas/notifications.js';
import { scimEndpoints } from './areas/scim.js';
import { tenantEndpoints } from './areas/tenant.js';
import { usageAnalyticsEndpoints } from './areas/usage-analytics.js';
import { userEndpoints } from './areas/users.js';
import { workspaceEndpoints } from './areas/workspace.js';

export const routeTable = {
  deployments: deploymentEndpoints,
  branches: branchEndpoints,
  dataModel: dataModelEndpoints,
  dbtSync: dbtSyncEndpoints,
  notifications: notificationEndpoints,
  auditLogs: auditLogEndpoints,
  usageAnalytics: usageAnalyticsEndpoints,
  scim: scimEndpoints,
  users: userEndpoints,
  tenant: tenantEndpoints,
  github: githubEndpoints,
  embed: embedEndpoints,
  workspace: workspaceEndpoints,
  app: appEndpoints,
} as const satisfies Record<string, Record<string, Endpoint>>;

/** All endpoints as a flat list. */
export function allEndpoints(): Endpoint[] {
  return Object.values(routeTable).flatMap((area) => Object.values(area) as Endpoint[]);
}
