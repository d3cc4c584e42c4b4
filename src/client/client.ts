import { HttpClient, type ClientOptions } from './http.js';
import type { Endpoint } from './endpoint.js';
import { appApi, appEndpoints } from './areas/app.js';
import { auditLogEndpoints, auditLogsApi } from './areas/audit-logs.js';
import { branchEndpoints, branchesApi } from './areas/branches.js';
import { dataModelApi, dataModelEndpoints } from './areas/data-model.js';
import { dbtSyncApi, dbtSyncEndpoints } from './areas/dbt-sync.js';
import { deploymentEndpoints, deploymentsApi } from './areas/deployments.js';
import { embedApi, embedEndpoints } from './areas/embed.js';
import { githubApi, githubEndpoints } from './areas/github.js';
import { notificationEndpoints, notificationsApi } from './areas/notifications.js';
import { scimApi, scimEndpoints } from './areas/scim.js';
import { tenantApi, tenantEndpoints } from './areas/tenant.js';
import { usageAnalyticsApi, usageAnalyticsEndpoints } from './areas/usage-analytics.js';
import { userEndpoints, usersApi } from './areas/users.js';
import { workspaceApi, workspaceEndpoints } from './areas/workspace.js';

/** Every endpoint the client knows, by area: the route table (the emulator serves the same one). */
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

/** The platform API client: one HTTP core, one object per API area. */
export class PlatformClient {
  readonly http: HttpClient;
  readonly deployments: ReturnType<typeof deploymentsApi>;
  readonly branches: ReturnType<typeof branchesApi>;
  readonly dataModel: ReturnType<typeof dataModelApi>;
  readonly dbtSync: ReturnType<typeof dbtSyncApi>;
  readonly notifications: ReturnType<typeof notificationsApi>;
  readonly auditLogs: ReturnType<typeof auditLogsApi>;
  readonly usageAnalytics: ReturnType<typeof usageAnalyticsApi>;
  readonly scim: ReturnType<typeof scimApi>;
  readonly users: ReturnType<typeof usersApi>;
  readonly tenant: ReturnType<typeof tenantApi>;
  readonly github: ReturnType<typeof githubApi>;
  readonly embed: ReturnType<typeof embedApi>;
  readonly workspace: ReturnType<typeof workspaceApi>;
  readonly app: ReturnType<typeof appApi>;

  constructor(options: ClientOptions) {
    const http = new HttpClient(options);
    this.http = http;
    this.deployments = deploymentsApi(http);
    this.branches = branchesApi(http);
    this.dataModel = dataModelApi(http);
    this.dbtSync = dbtSyncApi(http);
    this.notifications = notificationsApi(http);
    this.auditLogs = auditLogsApi(http);
    this.usageAnalytics = usageAnalyticsApi(http);
    this.scim = scimApi(http);
    this.users = usersApi(http);
    this.tenant = tenantApi(http);
    this.github = githubApi(http);
    this.embed = embedApi(http);
    this.workspace = workspaceApi(http);
    this.app = appApi(http);
  }

  /** Close the keep-alive pool. */
  close(): Promise<void> {
    return this.http.close();
  }
}
