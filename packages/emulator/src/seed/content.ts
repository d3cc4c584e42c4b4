/** Seeded workspace and embedding content of the demo: dashboards, folders, a report, an embed tenant, OAuth and OIDC. */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import { nextId, putRecord, type State } from '../state.js';

/** Three workbooks of deployment 1 with published dashboards `wb-pub-1` to `wb-pub-3` (the notifications' dashboards). */
export function seedDashboards(state: State, clock: Clock): void {
  for (let i = 1; i <= 3; i++) {
    putRecord(state, 'workbooks', i, {
      id: i,
      deploymentId: 1,
      name: `Revenue board ${i}`,
      slug: `revenue-${i}`,
      publicId: `wb-pub-${i}`,
      createdAt: new Date(clock.now() - i * 86400_000).toISOString(),
    });
  }
}

/**
 * Workspace and embedding content of the demo: folders Finance > Quarterly, a
 * report in workbook 1, the embed tenant `acme` (its user `ext-42` in group `buyers`, the one the
 * notification recipients name), an OAuth integration with the admin's token, an OIDC token config.
 */
export function seedContent(state: State, clock: Clock, adminId: number): void {
  const at = (daysAgo: number) => new Date(clock.now() - daysAgo * 86400_000).toISOString();
  const finance = nextId(state, 'folder');
  const quarterly = nextId(state, 'folder');
  for (const [id, name, parentId] of [
    [finance, 'Finance', null],
    [quarterly, 'Quarterly', finance],
  ] as const) {
    putRecord(state, 'folders', id, { id, deploymentId: 1, name, parentId, position: 0, createdAt: at(20), updatedAt: at(20), createdBy: adminId });
  }
  const reportId = nextId(state, 'report');
  putRecord(state, 'reports', reportId, {
    id: reportId,
    deploymentId: 1,
    name: 'Revenue by month',
    publicId: 'RevByMonth01',
    workbookId: 1,
    folderId: null,
    sqlQuery: 'SELECT status, SUM(amount) FROM orders GROUP BY 1',
    jsonQuery: JSON.stringify({ measures: ['orders_view.total_amount'], timeDimensions: [{ dimension: 'orders_view.created_at', granularity: 'month' }] }),
    meta: null,
    source: 'PLAYGROUND',
    placements: [],
    createdAt: at(15),
    updatedAt: at(15),
    createdBy: adminId,
    refreshedAt: null,
  });
  const tenantId = nextId(state, 'embedTenant');
  putRecord(state, 'embedTenants', tenantId, { id: tenantId, name: 'acme', displayName: 'Acme Corp', createdAt: at(40) });
  const userId = nextId(state, 'embedUser');
  putRecord(state, 'embedUsers', userId, {
    id: userId,
    tenant: 'acme',
    externalId: 'ext-42',
    email: 'buyer@acme.example',
    displayName: 'Acme Buyer',
    picture: null,
    groups: [],
    createdAt: at(40),
    lastLogin: null,
  });
  const groupId = nextId(state, 'embedGroup');
  putRecord(state, 'embedGroups', groupId, {
    id: groupId,
    tenant: 'acme',
    name: 'buyers',
    description: 'Procurement team',
    createdAt: at(30),
    members: [{ userId, seq: nextId(state, 'embedMembership') }],
  });
  const integrationId = nextId(state, 'oauthIntegration');
  putRecord(state, 'oauthIntegrations', integrationId, {
    id: integrationId,
    name: 'Snowflake OAuth',
    type: 'snowflake',
    clientId: 'snowflake-client-id',
    clientSecret: `seed-secret-${randomBytes(8).toString('hex')}`,
    authUrl: 'https://acme.snowflakecomputing.com/oauth/authorize',
    tokenUrl: 'https://acme.snowflakecomputing.com/oauth/token-request',
    redirectUri: 'https://cube.example/oauth/callback',
    scopes: ['session:role:analyst'],
    config: {},
    createdAt: at(25),
    updatedAt: at(25),
  });
  const tokenId = nextId(state, 'userOAuthToken');
  putRecord(state, 'userOAuthTokens', tokenId, {
    id: tokenId,
    integrationId,
    userId: adminId,
    status: 'ACTIVE',
    accessTokenExpiresAt: new Date(clock.now() + 3600_000).toISOString(),
    refreshTokenExpiresAt: new Date(clock.now() + 90 * 86400_000).toISOString(),
    createdAt: at(2),
    updatedAt: at(2),
  });
  const oidcId = nextId(state, 'oidcTokenConfig');
  putRecord(state, 'oidcTokenConfigs', oidcId, {
    id: oidcId,
    name: 'aws-default',
    audienceType: 'aws',
    customAudience: null,
    audience: 'sts.amazonaws.com',
    isEnabled: true,
    subFormat: '{deployment_id}:{component}',
    targetEnvVar: 'AWS_WEB_IDENTITY_TOKEN',
    customClaims: null,
    createdAt: at(12),
    updatedAt: at(12),
  });
}
