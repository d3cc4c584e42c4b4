import { HttpClient, type ClientOptions } from './http.js';
import { appApi } from './areas/app.js';
import { auditLogsApi } from './areas/audit-logs.js';
import { branchesApi } from './areas/branches.js';
import { dataModelApi } from './areas/data-model.js';
import { dbtSyncApi } from './areas/dbt-sync.js';
import { deploymentsApi } from './areas/deployments.js';
import { evaluationsApi } from './areas/evaluations.js';
import { embedApi } from './areas/embed.js';
import { githubApi } from './areas/github.js';
import { notificationsApi } from './areas/notifications.js';
import { scimApi } from './areas/scim.js';
import { tenantApi } from './areas/tenant.js';
import { usageAnalyticsApi } from './areas/usage-analytics.js';
import { usersApi } from './areas/users.js';
import { workspaceApi } from './areas/workspace.js';

export { allEndpoints, routeTable } from '@datamodel-ci/platform-api';

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
  readonly evaluations: ReturnType<typeof evaluationsApi>;

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
    this.evaluations = evaluationsApi(http);
  }

  /** Close the keep-alive pool. */
  close(): Promise<void> {
    return this.http.close();
  }
}
