import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient, type ClientOptions } from '../src/client/http.js';
import { InputError, PermissionDeniedError } from '../src/client/errors.js';
import { collect } from '../src/client/pagination.js';
import { SCIM_GROUP_SCHEMA, SCIM_LIST_SCHEMA, environmentRestUrl } from '@datamodel-ci/platform-api';
import { deploymentsApi } from '../src/client/areas/deployments.js';
import { environmentsOf } from '@datamodel-ci/platform-api';
import { notificationsApi } from '../src/client/areas/notifications.js';
import { auditLogsApi } from '../src/client/areas/audit-logs.js';
import { usageAnalyticsApi } from '../src/client/areas/usage-analytics.js';
import { scimApi } from '../src/client/areas/scim.js';
import { json, startTestServer, type TestServer } from './support/https-server.js';

let server: TestServer;
const clients: HttpClient[] = [];

function client(extra: Partial<ClientOptions> = {}): HttpClient {
  const http = new HttpClient({ baseUrl: server.baseUrl, apiKey: 'test-key-123456', ca: server.ca, ...extra });
  clients.push(http);
  return http;
}

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.splice(0);
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

const deployment = (i: number) => ({ id: i, name: `dep-${i}`, deploymentUrl: `https://d${i}.example`, creationStep: 'ready' });
const version = (v: string) => ({
  releaseChannelVersion: `cube:v${v}`,
  version: v,
  releaseChannel: 'release',
  isLatestInChannel: false,
  isCurrent: v === '1.0.0',
});
const notification = (i: number) => ({
  id: i,
  dashboardId: 7,
  deploymentId: 1,
  cronExpression: '0 9 * * *',
  timezone: 'UTC',
  isEnabled: true,
  humanReadableSchedule: 'every day at 09:00',
  notificationEnabled: true,
  notificationFormat: 'png',
  notificationAiSummary: false,
});

/** Serve 7 deployments in offset pages, in the spec's or the vendor's response form. */
function serveDeployments(form: 'spec' | 'vendor') {
  const all = Array.from({ length: 7 }, (_, i) => deployment(i + 1));
  server.handle((q, r) => {
    const offset = Number(q.query.get('offset') ?? 0);
    const limit = Number(q.query.get('limit') ?? 20);
    const page = all.slice(offset, offset + limit);
    const pagination = { offset, limit, total: all.length };
    if (form === 'spec') json(r, 200, { data: { deployments: page }, pagination });
    else json(r, 200, { items: page, data: page, pagination, count: all.length });
  });
}

describe('deployments', () => {
  for (const form of ['spec', 'vendor'] as const) {
    it(`iterates three offset pages (${form} form)`, async () => {
      serveDeployments(form);
      const api = deploymentsApi(client());
      const items = await collect(api.iterate({ limit: 3 }));
      expect(items.map((d) => d.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(items[0]?.name).toBe('dep-1');
      expect(server.requests.map((q) => q.url)).toEqual([
        '/api/v1/deployments?offset=0&limit=3',
        '/api/v1/deployments?offset=3&limit=3',
        '/api/v1/deployments?offset=6&limit=3',
      ]);
    });
  }

  it('reads environments in both forms, with object and array credentials', async () => {
    const api = deploymentsApi(client());
    server.handle((_q, r) =>
      json(r, 200, {
        data: {
          environments: [
            {
              id: '10',
              name: 'prod',
              type: 'production',
              api_credentials: { rest: { url: 'https://prod.example/cubejs-api/v1' }, sql: { host: 'sql', port: 5432 } },
            },
          ],
        },
        pagination: null,
      }),
    );
    const spec = await api.environments({ deploymentId: 1, query: { type: 'production' } });
    const specEnvs = environmentsOf(spec);
    expect(specEnvs).toHaveLength(1);
    expect(environmentRestUrl(specEnvs[0]!)).toBe('https://prod.example/cubejs-api/v1');
    expect(server.requests.at(-1)?.url).toBe('/api/v1/deployments/1/environments?type=production');

    const vendorEnv = {
      id: '11',
      type: 'staging',
      branch: 'feature/x',
      api_credentials: [
        { type: 'sql', host: 'sql', port: 5432, version: 1 },
        { type: 'rest', url: 'https://staging.example/cubejs-api/v1', version: 1 },
      ],
    };
    server.handle((_q, r) => json(r, 200, { items: [vendorEnv], data: [vendorEnv], pageInfo: null, pagination: { offset: 0, limit: 20, total: 1 } }));
    const vendor = await api.environments({ deploymentId: 1 });
    const vendorEnvs = environmentsOf(vendor);
    expect(vendorEnvs[0]?.branch).toBe('feature/x');
    expect(environmentRestUrl(vendorEnvs[0]!)).toBe('https://staging.example/cubejs-api/v1');
  });

  it('reads versions in both forms', async () => {
    const api = deploymentsApi(client());
    server.handle((_q, r) => json(r, 200, { data: [version('1.0.0'), version('1.1.0')] }));
    const legacy = await api.versions({ deploymentId: 3 });
    expect(legacy.items.map((v) => v.version)).toEqual(['1.0.0', '1.1.0']);

    server.handle((_q, r) => json(r, 200, { items: [version('1.2.0')], pageInfo: { hasNextPage: false, hasPreviousPage: false, endCursor: null } }));
    const current = await api.versions({ deploymentId: 3 });
    expect(current.items[0]?.releaseChannelVersion).toBe('cube:v1.2.0');
    expect(current.pageInfo?.hasNextPage).toBe(false);
  });

  it('rejects an out-of-range token lifetime before sending anything', async () => {
    const api = deploymentsApi(client());
    for (const expiresIn of [30, 86401, 1.5]) {
      const error = await api.token({ deploymentId: 1, body: { expiresIn } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).input).toBe('body.expiresIn');
    }
    expect(server.requests).toHaveLength(0);
  });

  it('mints a data-API token, reading `token` as `cubeApiToken`', async () => {
    const api = deploymentsApi(client());
    server.handle((_q, r) => json(r, 200, { cubeApiToken: 'jwt-aaaaaaaa' }));
    expect((await api.token({ deploymentId: 4, body: { expiresIn: 3600 } })).cubeApiToken).toBe('jwt-aaaaaaaa');
    expect(server.requests.at(-1)?.json).toEqual({ expiresIn: 3600 });
    server.handle((_q, r) => json(r, 200, { token: 'jwt-bbbbbbbb' }));
    expect((await api.token({ deploymentId: 4 })).cubeApiToken).toBe('jwt-bbbbbbbb');
    expect(server.requests.at(-1)?.body.length).toBe(0);
  });

  it('updates a deployment with the spec and vendor spellings of enumerations', async () => {
    const api = deploymentsApi(client());
    const settings = {
      id: 4,
      name: 'dep',
      template: 'single',
      cloudProvider: 'platform',
      creationStep: 'ready',
      deploymentUrl: 'https://d4.example',
      releaseChannel: 'release',
      deployBranchName: 'main',
      deployBranchReadOnly: false,
      deployBranchMergeAllowed: true,
      deployProjectRoot: '/',
      isCubeSqlEnabled: true,
      isSupportPreAggregations: true,
      futureField: 1,
    };
    server.handle((_q, r) => json(r, 200, settings));
    const out = await api.update({
      deploymentId: 4,
      body: { cloudProvider: 'platform', creationMethod: 'cubecloud', releaseChannelVersion: 'v1.7.20', templateVariables: { a: 1 } },
    });
    expect(out.cloudProvider).toBe('platform');
    expect((out as Record<string, unknown>).futureField).toBe(1);
    expect(server.requests.at(-1)?.method).toBe('PUT');
    const bad = await api.update({ deploymentId: 4, body: { deployMode: 'ftp' as 'git' } }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(InputError);
    expect(server.requests).toHaveLength(1);
  });
});

describe('notifications', () => {
  const conflicts: [string, Record<string, unknown>, string[]][] = [
    ['dashboard ids', { dashboardId: 1, dashboardPublicId: 'pub' }, ['dashboardId', 'dashboardPublicId']],
    ['user and e-mail', { recipientUserId: 2, recipientEmail: 'a@example.com' }, ['recipientUserId', 'recipientEmail']],
    ['half an embed filter', { recipientEmbedTenantName: 'tenant' }, ['recipientEmbedTenantName', 'recipientExternalId']],
    [
      'e-mail and embed user',
      { recipientEmail: 'a@example.com', recipientEmbedTenantName: 't', recipientExternalId: 'x' },
      ['recipientEmail', 'recipientEmbedTenantName'],
    ],
    ['dashboard id below 1', { dashboardId: 0 }, ['dashboardId']],
  ];
  for (const [name, query, names] of conflicts) {
    it(`rejects ${name} before sending`, async () => {
      const api = notificationsApi(client());
      const error = await api.list({ deploymentId: 1, query }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InputError);
      for (const n of names) expect((error as InputError).message).toContain(n);
      expect((error as InputError).input).toMatch(/^query\./);
      expect(server.requests).toHaveLength(0);
    });
  }

  it('sends a valid filter as the query string', async () => {
    server.handle((_q, r) => json(r, 200, { items: [notification(1)], pageInfo: null }));
    const api = notificationsApi(client());
    const page = await api.list({
      deploymentId: 1,
      query: { dashboardPublicId: 'pub-1', recipientEmbedTenantName: 'acme', recipientExternalId: 'u@acme.io', first: 5 },
    });
    expect(page.items[0]?.humanReadableSchedule).toBe('every day at 09:00');
    const q = server.requests[0]!;
    expect(q.path).toBe('/api/v1/deployments/1/notifications');
    expect(Object.fromEntries(q.query)).toEqual({
      first: '5',
      dashboardPublicId: 'pub-1',
      recipientEmbedTenantName: 'acme',
      recipientExternalId: 'u@acme.io',
    });
  });

  it('iterates the cursor list to the end', async () => {
    const pages: Record<string, { items: unknown[]; next: string | null }> = {
      '': { items: [notification(1), notification(2)], next: 'c1' },
      c1: { items: [notification(3), notification(4)], next: 'c2' },
      c2: { items: [notification(5)], next: null },
    };
    server.handle((q, r) => {
      const p = pages[q.query.get('after') ?? '']!;
      json(r, 200, {
        items: p.items,
        pageInfo: { hasNextPage: p.next !== null, hasPreviousPage: false, endCursor: p.next },
      });
    });
    const api = notificationsApi(client());
    const all = await collect(api.iterate({ deploymentId: 1, query: { first: 2, recipientUserId: 9 } }));
    expect(all.map((n) => n.id)).toEqual([1, 2, 3, 4, 5]);
    expect(server.requests.map((q) => q.query.get('after'))).toEqual([null, 'c1', 'c2']);
    expect(server.requests.every((q) => q.query.get('recipientUserId') === '9')).toBe(true);
  });

  it('needs exactly one dashboard identifier to create', async () => {
    const api = notificationsApi(client());
    const none = await api.create({ deploymentId: 1, body: { scheduleType: 'DAILY' } }).catch((e: unknown) => e);
    expect(none).toBeInstanceOf(InputError);
    const both = await api.create({ deploymentId: 1, body: { scheduleType: 'DAILY', dashboardId: 1, dashboardPublicId: 'p' } }).catch((e: unknown) => e);
    expect((both as InputError).message).toContain('dashboardPublicId');
    expect(server.requests).toHaveLength(0);

    server.handle((_q, r) => json(r, 200, { ...notification(8), notificationAiSummary: true }));
    const created = await api.create({
      deploymentId: 1,
      body: { scheduleType: 'DAILY', dashboardPublicId: 'p', notificationAiSummary: true, timeGrains: [{ member: 'o.at', grain: 'day' }] },
    });
    expect(created.notificationAiSummary).toBe(true);
    server.handle((_q, r) => {
      r.writeHead(204);
      r.end();
    });
    await api.remove({ deploymentId: 1, id: 8 });
    expect(server.requests.at(-1)?.method).toBe('DELETE');
  });
});

describe('audit logs', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'audit-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('streams a multi-chunk CSV export to a file', async () => {
    const header = Buffer.from('timestamp,event,user\n');
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const chunks = [header, ...Array.from({ length: 16 }, (_, i) => Buffer.concat([chunk.subarray(0, chunk.length - 1), Buffer.from(String(i % 10))]))];
    const expected = Buffer.concat(chunks);
    server.handle(async (_q, r) => {
      r.writeHead(200, { 'content-type': 'text/csv', 'content-disposition': 'attachment; filename="audit-log.csv"' });
      for (const c of chunks) {
        r.write(c);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      r.end();
    });
    const api = auditLogsApi(client());
    const target = join(dir, 'out.csv');
    const result = await api.exportToFile({ query: { start: '2024-01-01', eventName: 'login' } }, target);
    expect(result.bytes).toBe(expected.length);
    expect(result.fileName).toBe('audit-log.csv');
    const written = await readFile(target);
    expect(written.length).toBe(expected.length);
    expect(written.equals(expected)).toBe(true);
    expect(await readdir(dir)).toEqual(['out.csv']);
    expect(server.requests[0]?.url).toBe('/api/v1/audit-logs/export?start=2024-01-01&eventName=login');
    expect(server.requests[0]?.headers.accept).toBe('text/csv');
  });

  it('leaves no file behind on a 403', async () => {
    server.handle((_q, r) => json(r, 403, { error: 'AuditLogManage permission required' }));
    const api = auditLogsApi(client());
    const error = await api.exportToFile({}, join(dir, 'out.csv')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect((error as Error).message).toContain('GET /api/v1/audit-logs/export -> 403: AuditLogManage permission required');
    expect(await readdir(dir)).toEqual([]);
  });

  it('rejects a start that is not an ISO date before sending', async () => {
    const api = auditLogsApi(client());
    await expect(api.exportToFile({ query: { start: 'yesterday' } }, join(dir, 'x.csv'))).rejects.toBeInstanceOf(InputError);
    expect(server.requests).toHaveLength(0);
  });
});

describe('usage analytics', () => {
  it('retries the idempotent token POST after a 503', async () => {
    let n = 0;
    server.handle((_q, r) => {
      n += 1;
      if (n === 1) json(r, 503, { error: 'unavailable' });
      else json(r, 200, { apiUrl: 'https://ua.example/cubejs-api/v1', deploymentId: 99, token: 'ua-token-123', expiresAt: '2030-01-01T00:00:00Z' });
    });
    const api = usageAnalyticsApi(client({ retry: { baseDelayMs: 1 } }));
    const token = await api.createToken();
    expect(token.deploymentId).toBe(99);
    expect(server.requests).toHaveLength(2);
    expect(server.requests.every((q) => q.method === 'POST' && q.path === '/api/v1/usage-analytics/token')).toBe(true);
    expect(server.requests[0]?.body.length).toBe(0);
  });
});

describe('scim', () => {
  it('creates a group (201) with the Api-Key scheme', async () => {
    server.handle((q, r) => json(r, 201, { ...(q.json as object), id: 'g-1', members: [], meta: { resourceType: 'Group', location: '/Groups/g-1' } }));
    const api = scimApi(client({ authScheme: 'api-key' }));
    const group = await api.createGroup({ body: { schemas: [SCIM_GROUP_SCHEMA], displayName: 'Analysts' } });
    expect(group.id).toBe('g-1');
    expect(group.displayName).toBe('Analysts');
    const q = server.requests[0]!;
    expect(q.method).toBe('POST');
    expect(q.path).toBe('/api/scim/v2/Groups');
    expect(q.headers.authorization).toBe('Api-Key test-key-123456');
    expect(q.json).toEqual({ schemas: [SCIM_GROUP_SCHEMA], displayName: 'Analysts' });
  });

  it('rejects a group body without the group schema urn', async () => {
    const api = scimApi(client());
    await expect(api.createGroup({ body: { schemas: [], displayName: 'x' } })).rejects.toBeInstanceOf(InputError);
    expect(server.requests).toHaveLength(0);
  });

  it('iterates users with startIndex and count until totalResults', async () => {
    const users = Array.from({ length: 5 }, (_, i) => ({ id: `u${i + 1}`, userName: `user${i + 1}@example.com`, active: true }));
    server.handle((q, r) => {
      const startIndex = Number(q.query.get('startIndex') ?? 1);
      const count = Number(q.query.get('count') ?? 100);
      const page = users.slice(startIndex - 1, startIndex - 1 + count);
      json(r, 200, { schemas: [SCIM_LIST_SCHEMA], totalResults: users.length, startIndex, itemsPerPage: page.length, Resources: page });
    });
    const api = scimApi(client());
    const all = await collect(api.iterateUsers({ count: 2 }));
    expect(all.map((u) => u.userName)).toEqual(users.map((u) => u.userName));
    expect(server.requests.map((q) => q.url)).toEqual([
      '/api/scim/v2/Users?startIndex=1&count=2',
      '/api/scim/v2/Users?startIndex=3&count=2',
      '/api/scim/v2/Users?startIndex=5&count=2',
    ]);
  });
});
