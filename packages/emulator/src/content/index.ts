/**
 * Workspace content, embedding, tenant integrations, GitHub discovery and app config (spec 4.15;
 * shapes from the vendor reference where the spec says "not shown"). Every handler checks everything
 * first and changes state last, so a rejected request changes nothing; reads never create a collection.
 */
import type { HandlerTable } from '../context.js';
import { appHandlers } from './app.js';
import { embedDashboardHandlers } from './embed/dashboards.js';
import { embedSessionHandlers } from './embed/sessions.js';
import { embedTenantHandlers } from './embed/tenants.js';
import { githubDiscoveryHandlers } from './github-discovery.js';
import { oauthHandlers } from './tenant/oauth.js';
import { oidcHandlers } from './tenant/oidc.js';
import { tenantSettingsHandlers } from './tenant/settings.js';
import { exportHandlers } from './workspace/exports.js';
import { folderHandlers } from './workspace/folders.js';
import { workspaceItemHandlers } from './workspace/items.js';
import { metricViewHandlers } from './workspace/metric-views.js';
import { reportHandlers } from './workspace/reports.js';
import { workbookHandlers } from './workspace/workbooks.js';

export const contentHandlers: HandlerTable = {
  ...folderHandlers,
  ...workbookHandlers,
  ...reportHandlers,
  ...workspaceItemHandlers,
  ...exportHandlers,
  ...metricViewHandlers,
  ...embedTenantHandlers,
  ...embedDashboardHandlers,
  ...embedSessionHandlers,
  ...tenantSettingsHandlers,
  ...oauthHandlers,
  ...oidcHandlers,
  ...githubDiscoveryHandlers,
  ...appHandlers,
};
