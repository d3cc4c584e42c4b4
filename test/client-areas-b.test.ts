import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../src/client/http.js';
import { InputError, ResponseShapeError } from '../src/client/errors.js';
import { collect } from '../src/client/pagination.js';
import { usersApi } from '../src/client/areas/users.js';
import { tenantApi } from '../src/client/areas/tenant.js';
import { githubApi } from '../src/client/areas/github.js';
import { embedApi } from '../src/client/areas/embed.js';
import { workspaceApi } from '../src/client/areas/workspace.js';
import { appApi } from '../src/client/areas/app.js';
import { json, startTestServer, type TestServer } from './support/https-server.js';

let server: TestServer;
const clients: HttpClient[] = [];

function client(): HttpClient {
  const http = new HttpClient({ baseUrl: server.baseUrl, apiKey: 'test-key-123456', ca: server.ca, retry: { maxAttempts: 1 } });
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

const user = (id: number) => ({ id, email: `u${id}@example.com`, username: `user${id}`, isAdmin: false, notifications: {} });
const lastRequest = () => server.requests.at(-1);

describe('users', () => {
  it('iterates the users list across cursor pages, passing search through on every page', async () => {
    const pages: Record<string, { items: unknown[]; pageInfo: unknown }> = {
      '': { items: [user(1), user(2)], pageInfo: { hasNextPage: true, hasPreviousPage: false, endCursor: 'c2' } },
      c2: { items: [user(3), user(4)], pageInfo: { hasNextPage: true, hasPreviousPage: true, endCursor: 'c4' } },
      c4: { items: [user(5)], pageInfo: { hasNextPage: false, hasPreviousPage: true, endCursor: 'c5' } },
    };
    server.handle((q, r) => json(r, 200, pages[q.query.get('after') ?? '']));
    const users = usersApi(client());
    const all = await collect(users.iterate({ query: { search: 'Ann', first: 2 } }));
    expect(all.map((u) => u.id)).toEqual([1, 2, 3, 4, 5]);
    expect(server.requests.map((q) => q.path)).toEqual(['/api/v1/users', '/api/v1/users', '/api/v1/users']);
    expect(server.requests.map((q) => q.query.get('search'))).toEqual(['Ann', 'Ann', 'Ann']);
    expect(server.requests.map((q) => q.query.get('first'))).toEqual(['2', '2', '2']);
    expect(server.requests.map((q) => q.query.get('after'))).toEqual([null, 'c2', 'c4']);
  });

  it('lists groups at GET /api/v1/groups with search', async () => {
    server.handle((_q, r) => json(r, 200, { items: [{ id: 9, name: 'Analysts' }], pageInfo: null }));
    const groups = await collect(usersApi(client()).iterateGroups({ query: { search: 'ana' } }));
    expect(groups).toEqual([{ id: 9, name: 'Analysts' }]);
    expect(lastRequest()?.url).toBe('/api/v1/groups?search=ana');
  });

  it('returns the caller with userPolicies', async () => {
    const policies = [{ resourceType: 'Deployment', actions: ['DeploymentRead'], resources: ['12'] }];
    server.handle((_q, r) => json(r, 200, { ...user(7), userPolicies: policies }));
    const me = await usersApi(client()).me();
    expect(me.userPolicies).toEqual(policies);
    expect(lastRequest()?.method).toBe('GET');
    expect(lastRequest()?.path).toBe('/api/v1/users/me');
  });

  it('sends the settings merge patch exactly as given, explicit nulls included', async () => {
    server.handle((_q, r) => json(r, 200, user(7)));
    const users = usersApi(client());
    const patch = { sheets: null, defaultDeploymentId: null, locale: 'de-DE', theme: 'dark', lastSeenChangelogId: 42 };
    await users.updateMySettings({ body: patch });
    expect(lastRequest()?.method).toBe('PATCH');
    expect(lastRequest()?.path).toBe('/api/v1/users/me/settings');
    expect(lastRequest()?.body.toString('utf8')).toBe(JSON.stringify(patch));

    await users.updateMySettings({ body: { sheets: { revealSheetOnOpen: true, showAppliedFilters: null } } });
    expect(lastRequest()?.json).toEqual({ sheets: { revealSheetOnOpen: true, showAppliedFilters: null } });
  });

  it('parses per-user failures of a bulk action', async () => {
    server.handle((_q, r) =>
      json(r, 200, {
        action: 'DEACTIVATE',
        succeeded: [1],
        failed: [
          { userId: 2, error: { status: 404, message: 'User not found' } },
          { userId: 7, error: { status: 403, message: 'Cannot deactivate yourself' } },
        ],
      }),
    );
    const r = await usersApi(client()).bulkAction({ body: { action: 'DEACTIVATE', userIds: [1, 2, 7] } });
    expect(r.succeeded).toEqual([1]);
    expect(r.failed.map((f) => [f.userId, f.error.status, f.error.message])).toEqual([
      [2, 404, 'User not found'],
      [7, 403, 'Cannot deactivate yourself'],
    ]);
    expect(lastRequest()?.json).toEqual({ action: 'DEACTIVATE', userIds: [1, 2, 7] });
  });

  it('refuses an unknown bulk action before sending anything', async () => {
    const users = usersApi(client());
    const err = await users.bulkAction({ body: { action: 'SUSPEND' as 'DELETE', userIds: [1] } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).input).toBe('body.action');
    expect(server.requests).toHaveLength(0);
  });

  it('sends numeric attribute-value ids as text, as the vendor types them', async () => {
    server.handle((_q, r) => json(r, 200, { userAttributeId: 3, userId: 4, name: 'region', type: 'string', value: 'EU' }));
    const v = await usersApi(client()).upsertAttributeValue({ body: { userAttributeId: 3, userId: 4, value: 'EU' } });
    expect(v.value).toBe('EU');
    expect(lastRequest()?.json).toEqual({ userAttributeId: '3', userId: '4', value: 'EU' });
  });
});

describe('tenant', () => {
  it('harvests a client secret from an OAuth integration response', async () => {
    const secret = 'cs-0123456789-abcdef';
    server.handle((_q, r) =>
      json(r, 200, {
        id: 5,
        name: 'Snowflake',
        type: 'snowflake',
        clientId: 'client-1',
        clientSecret: secret,
        authUrl: 'https://idp.example/auth',
        tokenUrl: 'https://idp.example/token',
        redirectUri: 'https://app.example/cb',
        createdAt: '2024-01-01T00:00:00Z',
        updatedAt: '2024-01-01T00:00:00Z',
      }),
    );
    const http = client();
    expect(http.redactor.redactText(secret)).toBe(secret);
    const integration = await tenantApi(http).getOAuthIntegration({ id: 5 });
    expect(integration.clientSecret).toBe(secret);
    expect(http.redactor.redactText(`echo ${secret}`)).not.toContain(secret);
    expect(lastRequest()?.path).toBe('/api/v1/oauth-integrations/5');
  });

  it('knows the client secret of a create request before it is sent', async () => {
    const secret = 'sent-secret-44556677';
    server.handle((_q, r) => json(r, 400, { error: `invalid client secret ${secret}` }));
    const http = client();
    const err = await tenantApi(http)
      .createOAuthIntegration({
        body: {
          name: 'Okta',
          type: 'okta',
          clientId: 'cid',
          clientSecret: secret,
          authUrl: 'https://idp.example/auth',
          tokenUrl: 'https://idp.example/token',
          redirectUri: 'https://app.example/cb',
        },
      })
      .catch((e: unknown) => e as Error);
    expect(err.message).not.toContain(secret);
    expect(http.redactor.redactText(secret)).not.toContain(secret);
    expect(lastRequest()?.json).toMatchObject({ clientSecret: secret });
  });

  it('harvests tokens carried by a user OAuth token record', async () => {
    const accessToken = 'at-zyxwvu-987654321';
    server.handle((_q, r) => json(r, 200, [{ id: 1, integrationId: 5, userId: 7, status: 'active', accessToken, createdAt: 'x', updatedAt: 'y' }]));
    const http = client();
    const tokens = await tenantApi(http).listUserOAuthTokens();
    expect(tokens[0]?.integrationId).toBe(5);
    expect(http.redactor.redactText(accessToken)).not.toContain(accessToken);
  });
});

describe('github', () => {
  it('encodes owner and repo and requires installationId', async () => {
    server.handle((_q, r) => json(r, 200, { items: [{ name: 'main', isDefault: true }], data: [], pageInfo: null }));
    const gh = githubApi(client());
    const page = await gh.branches({ owner: 'acme', repo: 'data.model', query: { installationId: 77 } });
    expect(page.items).toEqual([{ name: 'main', isDefault: true }]);
    expect(lastRequest()?.url).toBe('/api/v1/github/repositories/acme/data.model/branches?installationId=77');
    const err = await gh.branches({ owner: 'acme', repo: 'x' } as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).input).toBe('query.installationId');
    expect(server.requests).toHaveLength(1);
  });
});

describe('embed', () => {
  it('deletes an embed tenant answering 204 with an empty body, at the path without a trailing slash', async () => {
    server.handle((_q, r) => {
      r.writeHead(204);
      r.end();
    });
    const embed = embedApi(client());
    await expect(embed.deleteTenant({ embedTenantName: 'acme' })).resolves.toBeUndefined();
    expect(lastRequest()?.method).toBe('DELETE');
    expect(lastRequest()?.url).toBe('/api/v1/embed-tenants/acme');
    await expect(embed.deleteGroup({ embedTenantName: 'acme', id: 4 })).resolves.toBeUndefined();
    expect(lastRequest()?.url).toBe('/api/v1/embed-tenants/acme/groups/4');
  });

  it('sends embed access changes and refuses one that changes nothing', async () => {
    const access = { allowEmbed: true, allEmbedUsers: { action: 'none', enabled: false }, tenants: [] };
    server.handle((_q, r) => json(r, 200, access));
    const embed = embedApi(client());
    await embed.updateAccess({ deploymentId: 3, workbookId: 8, body: { embedTenantName: 'acme', action: 'read' } });
    expect(lastRequest()?.url).toBe('/api/v1/deployments/3/workbooks/8/embed-access');
    expect(lastRequest()?.json).toEqual({ embedTenantName: 'acme', action: 'read' });
    const before = server.requests.length;
    await expect(embed.updateAccess({ deploymentId: 3, workbookId: 8, body: {} })).rejects.toBeInstanceOf(InputError);
    await expect(embed.updateAccess({ deploymentId: 3, workbookId: 8, body: { embedTenantName: 'acme', action: 'write' as 'read' } })).rejects.toBeInstanceOf(
      InputError,
    );
    expect(server.requests.length).toBe(before);
  });

  it('harvests the session id and the embed token', async () => {
    const sessionId = 'sess-1234567890abc';
    const token = 'eyJhbGciOi.embed.jwt-value';
    server.handle((q, r) => json(r, 200, q.path.endsWith('generate-session') ? { sessionId } : { token }));
    const http = client();
    const embed = embedApi(http);
    const s = await embed.generateSession({ body: { deploymentId: 3, externalId: 'ext-1' } });
    const t = await embed.sessionToken({ body: { sessionId: s.sessionId } });
    expect(t.token).toBe(token);
    expect(http.redactor.redactText(`${sessionId} ${token}`)).toBe('*** ***');
  });
});

describe('workspace', () => {
  it('reports per-item failures of a bulk move', async () => {
    server.handle((_q, r) =>
      json(r, 200, {
        moved: [{ id: 11, name: 'Sales', type: 'WORKBOOK', calculatedFields: {} }],
        failed: [
          { type: 'FOLDER', id: 4, error: { status: 400, message: 'Cannot move a folder into its own descendant' } },
          { type: 'REPORT', id: 99, error: { status: 404, message: 'Not found' } },
        ],
      }),
    );
    const ws = workspaceApi(client());
    const items = [
      { type: 'WORKBOOK' as const, id: 11 },
      { type: 'FOLDER' as const, id: 4 },
      { type: 'REPORT' as const, id: 99 },
    ];
    const r = await ws.bulkMove({ deploymentId: 3, body: { items, folderId: 4 } });
    expect(r.moved.map((m) => m.id)).toEqual([11]);
    expect(r.failed.map((f) => `${f.type}:${f.id}:${f.error.status}`)).toEqual(['FOLDER:4:400', 'REPORT:99:404']);
    expect(lastRequest()?.url).toBe('/api/v1/deployments/3/workspace/bulk-move');
    expect(lastRequest()?.json).toEqual({ items, folderId: 4 });
  });

  it('reports per-item failures of a bulk delete and refuses an unknown item type', async () => {
    server.handle((_q, r) =>
      json(r, 200, { deleted: [{ type: 'REPORT', id: 1 }], failed: [{ type: 'FOLDER', id: 2, error: { status: 400, message: 'has sub-folders' } }] }),
    );
    const ws = workspaceApi(client());
    const r = await ws.bulkDelete({
      deploymentId: 3,
      body: {
        items: [
          { type: 'REPORT', id: 1 },
          { type: 'FOLDER', id: 2 },
        ],
      },
    });
    expect(r.deleted).toEqual([{ type: 'REPORT', id: 1 }]);
    expect(r.failed[0]?.error.message).toBe('has sub-folders');
    const err = await ws.bulkDelete({ deploymentId: 3, body: { items: [{ type: 'DASHBOARD' as 'REPORT', id: 1 }] } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).input).toBe('body.items[0].type');
    expect(server.requests).toHaveLength(1);
  });

  it('refuses to iterate reports sorted by lastViewedAt, sending nothing', async () => {
    const ws = workspaceApi(client());
    const err = await collect(ws.iterateReports({ deploymentId: 3, query: { sortBy: 'lastViewedAt' } })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).input).toBe('query.sortBy');
    await expect(ws.listReports({ deploymentId: 3, query: { sortBy: 'lastViewedAt', after: 'c1' } })).rejects.toBeInstanceOf(InputError);
    expect(server.requests).toHaveLength(0);
  });

  it('iterates reports across pages, reading a legacy data-only page as items', async () => {
    const report = (id: number) => ({ id, name: `r${id}`, publicId: `abcdefghij${String(id).padStart(2, '0')}` });
    server.handle((q, r) =>
      q.query.get('after') === 'p2'
        ? json(r, 200, { data: [report(3)], count: 3, pageInfo: { hasNextPage: false, hasPreviousPage: true } })
        : json(r, 200, { items: [report(1), report(2)], data: [], pageInfo: { hasNextPage: true, hasPreviousPage: false, endCursor: 'p2' } }),
    );
    const all = await collect(workspaceApi(client()).iterateReports({ deploymentId: 3, query: { sortBy: 'name' } }));
    expect(all.map((r) => r.id)).toEqual([1, 2, 3]);
    expect(server.requests.map((q) => q.query.get('sortBy'))).toEqual(['name', 'name']);
  });

  it('encodes a slug holding a slash and a space in the upsert path', async () => {
    server.handle((_q, r) => json(r, 200, { id: 21, name: 'Q1', slug: 'team/sales q1' }));
    const wb = await workspaceApi(client()).upsertWorkbookBySlug({
      deploymentId: 3,
      slug: 'team/sales q1',
      body: { name: 'Q1' },
    });
    expect(wb.id).toBe(21);
    expect(lastRequest()?.method).toBe('PUT');
    expect(lastRequest()?.url).toBe('/api/v1/deployments/3/workbooks/by-slug/team%2Fsales%20q1');
    expect(lastRequest()?.json).toEqual({ name: 'Q1' });
  });

  it('checks a report publicId before the upsert is sent', async () => {
    server.handle((_q, r) => json(r, 200, { id: 1, name: 'r', publicId: 'AbC123xyz789' }));
    const ws = workspaceApi(client());
    await ws.upsertReportByPublicId({ deploymentId: 3, publicId: 'AbC123xyz789', body: { name: 'r' } });
    expect(lastRequest()?.url).toBe('/api/v1/deployments/3/reports/by-public-id/AbC123xyz789');
    await expect(ws.upsertReportByPublicId({ deploymentId: 3, publicId: 'short', body: {} })).rejects.toBeInstanceOf(InputError);
    expect(server.requests).toHaveLength(1);
  });

  it('sends a placement refresh with its spreadsheet host', async () => {
    server.handle((_q, r) => json(r, 200, { id: 6, name: 'r', publicId: 'AbC123xyz789' }));
    await workspaceApi(client()).refreshReport({
      deploymentId: 3,
      reportId: 6,
      body: { placementId: 'pl-1', host: 'EXCEL' },
    });
    expect(lastRequest()?.url).toBe('/api/v1/deployments/3/reports/6/refresh');
    expect(lastRequest()?.json).toEqual({ placementId: 'pl-1', host: 'EXCEL' });
  });

  it('names the missing field path when a folder comes back without an id', async () => {
    server.handle((_q, r) => json(r, 200, { items: [{ id: 1, name: 'A' }, { name: 'no id' }], pageInfo: null }));
    const ws = workspaceApi(client());
    const err = await ws.listFolders({ deploymentId: 3 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseShapeError);
    expect((err as ResponseShapeError).message).toContain('items[1].id');

    server.handle((_q, r) => json(r, 200, { name: 'created' }));
    const err2 = await ws.createFolder({ deploymentId: 3, body: { name: 'created' } }).catch((e: unknown) => e);
    expect(err2).toBeInstanceOf(ResponseShapeError);
    expect((err2 as ResponseShapeError).issues[0]).toMatch(/^id: /);
  });

  it('streams a dashboard export download (binary, Accept: */*)', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    server.handle((_q, r) => {
      r.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
      r.end(png);
    });
    const res = await workspaceApi(client()).downloadDashboardExport({ deploymentId: 3, jobId: 'job-1', query: { filename: 'board' } });
    const chunks: Buffer[] = [];
    for await (const c of res.body) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks)).toEqual(png);
    expect(res.headers['content-type']).toBe('image/png');
    expect(lastRequest()?.url).toBe('/api/v1/deployments/3/dashboard-exports/job-1/download?filename=board');
    expect(lastRequest()?.headers.accept).toBe('*/*');
  });
});

describe('app', () => {
  it('fetches the OpenAPI document', async () => {
    server.handle((_q, r) => json(r, 200, { openapi: '3.1.0', info: { title: 'Cube Platform API', version: '1.0.0' }, paths: {} }));
    const doc = await appApi(client()).spec();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths).toEqual({});
    expect(lastRequest()?.path).toBe('/api/v1/spec');
  });

  it('rejects a spec document without paths', async () => {
    server.handle((_q, r) => json(r, 200, { openapi: '3.1.0' }));
    const err = await appApi(client())
      .spec()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseShapeError);
    expect((err as ResponseShapeError).message).toContain('paths');
  });

  it('reads a theme with palette and logoUrl and without the deprecated light/dark', async () => {
    server.handle((_q, r) => json(r, 200, { palette: { pastel: true }, logoUrl: 'https://cdn.example/logo.svg' }));
    const theme = await appApi(client()).theme();
    expect(theme.logoUrl).toBe('https://cdn.example/logo.svg');
    expect(theme.light).toBeUndefined();
    expect(lastRequest()?.path).toBe('/api/v1/app-theme');
  });
});
