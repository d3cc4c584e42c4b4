/** Seeds: `demo` (two deployments with a small valid model, users, runs, events) and `empty`. */
import { randomBytes } from 'node:crypto';
import type { Clock } from './clock.js';
import { dbtPlan } from './dbt.js';
import {
  ALL_PERMISSIONS,
  emptyState,
  encodeFile,
  hashTree,
  nextId,
  treeHash,
  type BranchRec,
  type DeploymentRec,
  type FileMap,
  type State,
  type UserRec,
} from './state.js';

export type SeedName = 'demo' | 'empty';
export const SEEDS: readonly SeedName[] = ['demo', 'empty'];

/** The demo data model: two cubes joined, a view, and cube.js. */
export const DEMO_MODEL: Record<string, string> = {
  'cube.js': `// Cube configuration\nmodule.exports = {\n  contextToAppId: ({ securityContext }) => \`app_\${securityContext.tenant ?? 'default'}\`,\n};\n`,
  'model/cubes/orders.yml': `cubes:
  - name: orders
    sql_table: public.orders
    joins:
      - name: customers
        relationship: many_to_one
        sql: "{CUBE}.customer_id = {customers}.id"
    measures:
      - name: count
        type: count
      - name: total_amount
        type: sum
        sql: amount
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: status
        sql: status
        type: string
      - name: created_at
        sql: created_at
        type: time
`,
  'model/cubes/customers.yml': `cubes:
  - name: customers
    sql_table: public.customers
    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: name
        sql: name
        type: string
      - name: country
        sql: country
        type: string
`,
  'model/views/orders_view.yml': `views:
  - name: orders_view
    cubes:
      - join_path: orders
        includes:
          - count
          - total_amount
          - status
          - created_at
      - join_path: orders.customers
        prefix: true
        includes:
          - name
          - country
`,
};

function key(label: string): string {
  return `dmci_${label}_${randomBytes(18).toString('hex')}`;
}

export function filesOf(model: Record<string, string>): FileMap {
  const out: FileMap = {};
  for (const [path, text] of Object.entries(model)) out[path] = encodeFile(text);
  return out;
}

/** A new branch record (committed tree = working tree). */
export function makeBranch(
  d: DeploymentRec,
  name: string,
  parent: BranchRec | null,
  kind: BranchRec['kind'],
  createdAt: string,
  owner?: string,
): BranchRec {
  const files = parent ? { ...parent.head } : {};
  const b: BranchRec = {
    id: d.nextBranchId++,
    name,
    parent: parent?.name ?? null,
    kind,
    files,
    head: { ...files },
    base: parent ? hashTree(parent.head) : {},
    lastHash: parent ? parent.lastHash : treeHash(files, `${d.id}:${name}:0`),
    commits: 0,
    staging: false,
    createdAt,
  };
  if (owner) b.owner = owner;
  d.branches[name] = b;
  return b;
}

function deployment(state: State, name: string, clock: Clock, model: Record<string, string>): DeploymentRec {
  const id = nextId(state, 'deployment');
  const d: DeploymentRec = {
    id,
    name,
    createdAt: new Date(clock.now() - 90 * 86400_000).toISOString(),
    deployBranch: 'main',
    creationStep: 'ready',
    settings: { cloudProvider: 'aws', region: 'us-east-1', deployMode: 'git', creationMethod: 'github', template: 'single' },
    releaseChannel: 'release',
    version: '1.6.28',
    templateVariables: {},
    envVars: [{ name: 'CUBEJS_DB_TYPE', value: 'postgres' }],
    branches: {},
    nextBranchId: 1,
    devSessions: {},
    uploads: {},
    dbtRuns: [],
  };
  const main = makeBranch(d, 'main', null, 'deploy', d.createdAt);
  main.files = filesOf(model);
  main.head = { ...main.files };
  main.lastHash = treeHash(main.head, `${id}:main:1`);
  main.commits = 1;
  state.deployments.push(d);
  return d;
}

function user(state: State, u: Omit<UserRec, 'id' | 'createdAt' | 'active' | 'groupIds' | 'settings'>, clock: Clock): UserRec {
  const rec: UserRec = {
    ...u,
    id: nextId(state, 'user'),
    active: true,
    createdAt: new Date(clock.now() - 60 * 86400_000).toISOString(),
    groupIds: [],
    settings: {},
  };
  state.users.push(rec);
  return rec;
}

export function seedState(seed: SeedName, clock: Clock): State {
  const state = emptyState();
  const admin = user(state, { email: 'ada@example.com', username: 'ada', firstName: 'Ada', lastName: 'Admin', isAdmin: true, permissions: [...ALL_PERMISSIONS] }, clock);
  const member = user(
    state,
    {
      email: 'max@example.com',
      username: 'max',
      firstName: 'Max',
      lastName: 'Member',
      isAdmin: false,
      permissions: ['SchemaRead', 'SchemaUpdate', 'SchemaUpdateDevBranches', 'DeploymentRead'],
    },
    clock,
  );
  const scimUser = user(state, { email: 'scim@example.com', username: 'scim', firstName: 'SCIM', lastName: 'Provisioner', isAdmin: false, permissions: [] }, clock);
  state.apiKeys.push(
    { id: 'key-admin', key: key('admin'), userId: admin.id, kind: 'api', label: 'admin' },
    { id: 'key-member', key: key('member'), userId: member.id, kind: 'api', label: 'member' },
    { id: 'key-scoped', key: key('scoped'), userId: admin.id, kind: 'api', label: 'scoped', deploymentIds: [1] },
    { id: 'key-scim', key: key('scim'), userId: scimUser.id, kind: 'scim', label: 'scim' },
  );

  if (seed === 'empty') {
    deployment(state, 'empty', clock, {});
    return state;
  }

  const analyst = user(state, { email: 'lin@example.com', username: 'lin', firstName: 'Lin', lastName: 'Analyst', isAdmin: false, permissions: ['SchemaRead', 'DeploymentRead'] }, clock);
  for (const name of ['Analytics', 'Marketing']) {
    state.groups.push({ id: nextId(state, 'group'), name, createdAt: new Date(clock.now() - 30 * 86400_000).toISOString() });
  }
  admin.groupIds = [1];
  analyst.groupIds = [1, 2];
  state.tenant = { auditLogEnabled: true, usageAnalyticsEnabled: true, settings: { name: 'Demo tenant', defaultDeploymentId: 1 } };

  for (const name of ['analytics', 'marketing']) {
    const d = deployment(state, name, clock, DEMO_MODEL);
    makeBranch(d, 'feature-revenue', d.branches.main as BranchRec, 'shared', new Date(clock.now() - 5 * 86400_000).toISOString());
  }

  // Past dbt syncs: enough for several pages (a page holds at most 100).
  const d1 = state.deployments[0] as DeploymentRec;
  const triggers = ['api', 'webhook', 'manual', 'agent'];
  for (let i = 0; i < 120; i++) {
    const startedAt = clock.now() - (121 - i) * 3600_000;
    const plan = dbtPlan();
    const run = {
      syncJobId: `sync-${String(i + 1).padStart(4, '0')}`,
      workflowId: `wf-${String(i + 1).padStart(4, '0')}`,
      deploymentId: d1.id,
      branchName: `dbt-sync-${String(i + 1).padStart(4, '0')}`,
      ref: 'main',
      source: 'git',
      trigger: triggers[i % triggers.length] as string,
      userId: admin.id,
      startedAt,
      plan,
      generated: {},
      materialized: true,
    } as DeploymentRec['dbtRuns'][number];
    if (i % 10 === 3) run.failure = { phase: 'parse', message: 'dbt parse failed: model "stg_orders" not found' };
    if (i % 17 === 5) run.cancelledAt = startedAt + 5_000;
    d1.dbtRuns.push(run);
  }

  // Audit events.
  const names = ['user.login', 'deployment.updated', 'branch.merged', 'api_key.created', 'model.validated'];
  for (let i = 0; i < 30; i++) {
    state.auditEvents.push({
      id: nextId(state, 'audit'),
      eventName: names[i % names.length] as string,
      userEmail: i % 2 ? admin.email : member.email,
      createdAt: new Date(clock.now() - (30 - i) * 7200_000).toISOString(),
      data: { deploymentId: 1 + (i % 2), detail: `event ${i + 1}` },
    });
  }

  // Dashboards and scheduled notifications with recipients.
  const coll = (name: string) => (state.collections[name] ??= {});
  for (let i = 1; i <= 3; i++) {
    coll('workbooks')[String(i)] = {
      id: i,
      deploymentId: 1,
      name: `Revenue board ${i}`,
      slug: `revenue-${i}`,
      publicId: `wb-pub-${i}`,
      createdAt: new Date(clock.now() - i * 86400_000).toISOString(),
    };
  }
  for (let i = 1; i <= 5; i++) {
    const id = nextId(state, 'notification');
    coll('notifications')[String(id)] = {
      id,
      dashboardId: 1 + (i % 3),
      dashboardPublicId: `wb-pub-${1 + (i % 3)}`,
      deploymentId: 1,
      cronExpression: `0 ${6 + i} * * 1-5`,
      timezone: 'Europe/Berlin',
      isEnabled: i !== 4,
      humanReadableSchedule: `At ${String(6 + i).padStart(2, '0')}:00, Monday through Friday`,
      notificationEnabled: true,
      notificationFormat: i % 2 ? 'png' : 'pdf',
      notificationAiSummary: i === 2,
      filters: i === 1 ? [{ member: 'orders.status', operator: 'equals', value: ['completed'] }] : null,
      timeGrains: null,
      createdAt: new Date(clock.now() - i * 3600_000).toISOString(),
      recipients: [
        { userId: admin.id, email: admin.email, username: admin.username },
        ...(i % 2 ? [{ userId: member.id, email: member.email, username: member.username }] : []),
        ...(i === 3 ? [{ embedTenantName: 'acme', externalId: 'ext-42', email: 'buyer@acme.example' }] : []),
      ],
    };
  }

  // Account areas: user attributes (one value set for lin), a custom role held by lin, and an audit
  // event whose data needs CSV quoting (comma, quote, line break).
  const attributeIds: Record<string, number> = {};
  for (const [name, type, defaultValue] of [['region', 'string', 'EMEA'], ['max_rows', 'number', null]] as const) {
    const id = nextId(state, 'userAttribute');
    attributeIds[name] = id;
    coll('userAttributes')[String(id)] = {
      id,
      name,
      type,
      displayName: name === 'region' ? 'Sales region' : 'Row limit',
      description: null,
      defaultValue,
      createdAt: new Date(clock.now() - (10 - id) * 86400_000).toISOString(),
    };
  }
  const regionId = attributeIds.region as number;
  coll('userAttributeValues')[`${analyst.id}:${regionId}`] = { userAttributeId: regionId, userId: analyst.id, value: 'APAC', updatedAt: new Date(clock.now() - 86400_000).toISOString() };
  const roleId = nextId(state, 'role');
  coll('roles')[String(roleId)] = {
    id: roleId,
    name: 'Report viewer',
    description: 'Reads reports and workbooks of deployment 1',
    policies: [{ resourceType: 'Deployment', actions: ['ReportRead', 'WorkbookRead'], resources: ['1'] }],
    userIds: [analyst.id],
    createdAt: new Date(clock.now() - 20 * 86400_000).toISOString(),
  };
  state.auditEvents.push({
    id: nextId(state, 'audit'),
    eventName: 'report.exported',
    userEmail: analyst.email,
    createdAt: new Date(clock.now() - 1800_000).toISOString(),
    data: { deploymentId: 1, detail: 'Board "Q3, EMEA"\nexported as CSV' },
  });
  seedContent(state, clock, admin.id);
  return state;
}

/**
 * Workspace and embedding content of the demo (handlers/content.ts): folders Finance > Quarterly, a
 * report in workbook 1, the embed tenant `acme` (its user `ext-42` in group `buyers`, the one the
 * notification recipients name), an OAuth integration with the admin's token, an OIDC token config.
 */
function seedContent(state: State, clock: Clock, adminId: number): void {
  const coll = (name: string) => (state.collections[name] ??= {});
  const at = (daysAgo: number) => new Date(clock.now() - daysAgo * 86400_000).toISOString();
  const finance = nextId(state, 'folder');
  const quarterly = nextId(state, 'folder');
  for (const [id, name, parentId] of [[finance, 'Finance', null], [quarterly, 'Quarterly', finance]] as const) {
    coll('folders')[String(id)] = { id, deploymentId: 1, name, parentId, position: 0, createdAt: at(20), updatedAt: at(20), createdBy: adminId };
  }
  const reportId = nextId(state, 'report');
  coll('reports')[String(reportId)] = {
    id: reportId,
    deploymentId: 1,
    name: 'Revenue by month',
    publicId: 'RevByMonth01',
    workbookId: 1,
    folderId: null,
    sqlQuery: 'SELECT status, SUM(amount) FROM orders GROUP BY 1',
    jsonQuery: null,
    meta: null,
    source: 'PLAYGROUND',
    placements: [],
    createdAt: at(15),
    updatedAt: at(15),
    createdBy: adminId,
    refreshedAt: null,
  };
  const tenantId = nextId(state, 'embedTenant');
  coll('embedTenants')[String(tenantId)] = { id: tenantId, name: 'acme', displayName: 'Acme Corp', createdAt: at(40) };
  const userId = nextId(state, 'embedUser');
  coll('embedUsers')[String(userId)] = {
    id: userId,
    tenant: 'acme',
    externalId: 'ext-42',
    email: 'buyer@acme.example',
    displayName: 'Acme Buyer',
    picture: null,
    groups: [],
    createdAt: at(40),
    lastLogin: null,
  };
  const groupId = nextId(state, 'embedGroup');
  coll('embedGroups')[String(groupId)] = {
    id: groupId,
    tenant: 'acme',
    name: 'buyers',
    description: 'Procurement team',
    createdAt: at(30),
    members: [{ userId, seq: nextId(state, 'embedMembership') }],
  };
  const integrationId = nextId(state, 'oauthIntegration');
  coll('oauthIntegrations')[String(integrationId)] = {
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
  };
  const tokenId = nextId(state, 'userOAuthToken');
  coll('userOAuthTokens')[String(tokenId)] = {
    id: tokenId,
    integrationId,
    userId: adminId,
    status: 'ACTIVE',
    accessTokenExpiresAt: new Date(clock.now() + 3600_000).toISOString(),
    refreshTokenExpiresAt: new Date(clock.now() + 90 * 86400_000).toISOString(),
    createdAt: at(2),
    updatedAt: at(2),
  };
  const oidcId = nextId(state, 'oidcTokenConfig');
  coll('oidcTokenConfigs')[String(oidcId)] = {
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
  };
}
