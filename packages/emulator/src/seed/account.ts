/** Seeded account: people and their keys, groups, the tenant, audit events, notifications, attributes and a role. */
import { randomBytes } from 'node:crypto';
import { ALL_PERMISSIONS, attributeValueKey, type UserRec } from '../account/models.js';
import type { Clock } from '../clock.js';
import { nextId, putRecord, type State } from '../state.js';

/** The users every seed has: an admin, a member and the SCIM provisioner, each with a key (and a scoped admin key). */
export interface SeedPeople {
  admin: UserRec;
  member: UserRec;
}

function key(label: string): string {
  return `dmci_${label}_${randomBytes(18).toString('hex')}`;
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

export function seedPeople(state: State, clock: Clock): SeedPeople {
  const admin = user(
    state,
    { email: 'ada@example.com', username: 'ada', firstName: 'Ada', lastName: 'Admin', isAdmin: true, permissions: [...ALL_PERMISSIONS] },
    clock,
  );
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
  const scimUser = user(
    state,
    { email: 'scim@example.com', username: 'scim', firstName: 'SCIM', lastName: 'Provisioner', isAdmin: false, permissions: [] },
    clock,
  );
  state.apiKeys.push(
    { id: 'key-admin', key: key('admin'), userId: admin.id, kind: 'api', label: 'admin' },
    { id: 'key-member', key: key('member'), userId: member.id, kind: 'api', label: 'member' },
    { id: 'key-scoped', key: key('scoped'), userId: admin.id, kind: 'api', label: 'scoped', deploymentIds: [1] },
    { id: 'key-scim', key: key('scim'), userId: scimUser.id, kind: 'scim', label: 'scim' },
  );
  return { admin, member };
}

/** The demo's analyst `lin`, in groups Analytics and Marketing; the tenant with audit log and usage analytics on. */
export function seedDemoTeam(state: State, clock: Clock, { admin }: SeedPeople): UserRec {
  const analyst = user(
    state,
    { email: 'lin@example.com', username: 'lin', firstName: 'Lin', lastName: 'Analyst', isAdmin: false, permissions: ['SchemaRead', 'DeploymentRead'] },
    clock,
  );
  for (const name of ['Analytics', 'Marketing']) {
    state.groups.push({ id: nextId(state, 'group'), name, createdAt: new Date(clock.now() - 30 * 86400_000).toISOString() });
  }
  admin.groupIds = [1];
  analyst.groupIds = [1, 2];
  state.tenant = { auditLogEnabled: true, usageAnalyticsEnabled: true, settings: { name: 'Demo tenant', defaultDeploymentId: 1 } };
  return analyst;
}

/** Thirty audit events, every two hours, alternating between the admin and the member. */
export function seedAuditEvents(state: State, clock: Clock, { admin, member }: SeedPeople): void {
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
}

/** Five scheduled notifications on the seeded dashboards, with user, member and embed-user recipients. */
export function seedNotifications(state: State, clock: Clock, { admin, member }: SeedPeople): void {
  for (let i = 1; i <= 5; i++) {
    const id = nextId(state, 'notification');
    putRecord(state, 'notifications', id, {
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
      filters:
        i === 1
          ? [{ member: 'orders.status', operator: 'equals', value: ['completed'] }]
          : i === 3
            ? [{ member: 'orders_view.customers_country', operator: 'equals', value: ['DE'] }]
            : null,
      // The notification of dashboard 1 sends it weekly.
      timeGrains: i === 3 ? [{ member: 'orders_view.created_at', grain: 'week' }] : null,
      createdAt: new Date(clock.now() - i * 3600_000).toISOString(),
      recipients: [
        { userId: admin.id, email: admin.email, username: admin.username },
        ...(i % 2 ? [{ userId: member.id, email: member.email, username: member.username }] : []),
        ...(i === 3 ? [{ embedTenantName: 'acme', externalId: 'ext-42', email: 'buyer@acme.example' }] : []),
      ],
    });
  }
}

/**
 * User attributes (one value set for the analyst), a custom role the analyst holds, and an audit
 * event whose data needs CSV quoting (comma, quote, line break).
 */
export function seedAttributesAndRoles(state: State, clock: Clock, analyst: UserRec): void {
  const attributeIds: Record<string, number> = {};
  for (const [name, type, defaultValue] of [
    ['region', 'string', 'EMEA'],
    ['max_rows', 'number', null],
  ] as const) {
    const id = nextId(state, 'userAttribute');
    attributeIds[name] = id;
    putRecord(state, 'userAttributes', id, {
      id,
      name,
      type,
      displayName: name === 'region' ? 'Sales region' : 'Row limit',
      description: null,
      defaultValue,
      createdAt: new Date(clock.now() - (10 - id) * 86400_000).toISOString(),
    });
  }
  const regionId = attributeIds.region as number;
  putRecord(state, 'userAttributeValues', attributeValueKey(analyst.id, regionId), {
    userAttributeId: regionId,
    userId: analyst.id,
    value: 'APAC',
    updatedAt: new Date(clock.now() - 86400_000).toISOString(),
  });
  const roleId = nextId(state, 'role');
  putRecord(state, 'roles', roleId, {
    id: roleId,
    name: 'Report viewer',
    description: 'Reads reports and workbooks of deployment 1',
    policies: [{ resourceType: 'Deployment', actions: ['ReportRead', 'WorkbookRead'], resources: ['1'] }],
    userIds: [analyst.id],
    createdAt: new Date(clock.now() - 20 * 86400_000).toISOString(),
  });
  state.auditEvents.push({
    id: nextId(state, 'audit'),
    eventName: 'report.exported',
    userEmail: analyst.email,
    createdAt: new Date(clock.now() - 1800_000).toISOString(),
    data: { deploymentId: 1, detail: 'Board "Q3, EMEA"\nexported as CSV' },
  });
}
