/**
 * The emulator's embedding, tenant integrations, GitHub discovery and app config through the real client
 * over HTTPS (spec 4.15, shapes from the vendor reference).
 */
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InputError,
  NotFoundError,
  PermissionDeniedError,
  PlatformClient,
  collect,
} from '../src/client/index.js';
import { em, c, member, D, rejectedUnchanged, useContentEmulator } from './support/content-fixture.js';

useContentEmulator();

describe('embed tenants, users and groups', () => {
  it('lists tenants (admin only); provisions one user idempotently (externalId trimmed and lowercased)', async () => {
    const tenants = await c.embed.listTenants({ query: { search: 'AC' } });
    expect(tenants.items).toEqual([expect.objectContaining({ name: 'acme', userCount: 1 })]);
    await rejectedUnchanged(() => member.embed.listTenants(), PermissionDeniedError);

    const u = await c.embed.provisionUser({ embedTenantName: 'Globex', body: { externalId: ' User-1 ', groups: ['Analytics'] } });
    expect(u).toMatchObject({ externalId: 'user-1', email: 'user-1@cubecloud.dev' });
    const again = await c.embed.provisionUser({ embedTenantName: 'globex', body: { externalId: 'user-1', email: 'U1@Globex.Example' } });
    expect(again).toMatchObject({ id: u.id, email: 'u1@globex.example' });
    const users = await c.embed.listUsers({ embedTenantName: 'globex', query: { search: 'globex' } });
    expect(users.items.map((x) => x.id)).toEqual([u.id]);
    await rejectedUnchanged(() => c.embed.provisionUser({ embedTenantName: 'newco', body: { externalId: 'x', groups: ['No such group'] } }), BadRequestError);
    await expect(c.embed.listUsers({ embedTenantName: 'newco' })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('bulk provisioning reports per-user failures with the single-user status', async () => {
    const out = await c.embed.provisionUsers({
      embedTenantName: 'globex',
      body: {
        users: [
          { externalId: 'bulk-1' },
          { externalId: 'BULK-2', email: 'not-an-email' },
          { externalId: 'bulk-3', tenantGroups: ['missing'] },
          { externalId: 'bulk-4' },
        ],
      },
    });
    expect(out.succeeded.map((x) => x.externalId)).toEqual(['bulk-1', 'bulk-4']);
    expect(out.failed).toEqual([
      { externalId: 'bulk-2', error: { status: 400, message: expect.stringMatching(/email/) } },
      { externalId: 'bulk-3', error: { status: 400, message: expect.stringMatching(/missing/) } },
    ]);
  });

  it('groups: create, 400 for a taken name, get, update description, members add/list/remove, delete 204 only when empty', async () => {
    const g = await c.embed.createGroup({ embedTenantName: 'acme', body: { name: 'analysts', description: 'Data people' } });
    expect(g).toMatchObject({ name: 'analysts', userCount: 0 });
    await rejectedUnchanged(() => c.embed.createGroup({ embedTenantName: 'acme', body: { name: 'analysts' } }), BadRequestError, /already exists/);
    const listed = await c.embed.listGroups({ embedTenantName: 'acme' });
    expect(listed.items[0]?.id).toBe(g.id); // newest first

    const updated = await c.embed.updateGroup({ embedTenantName: 'acme', id: g.id, body: { description: '' } });
    expect(updated.description).toBeNull();

    const ext42 = (await c.embed.listUsers({ embedTenantName: 'acme' })).items.find((u) => u.externalId === 'ext-42');
    const added = await c.embed.addGroupMembers({
      embedTenantName: 'acme',
      id: g.id,
      body: { members: [{ embedUserId: ext42?.id }, { externalId: 'Brand-New' }, { externalId: 'ext-42' }] },
    });
    expect(added.addedMembers.map((u) => u.externalId)).toEqual(['ext-42', 'brand-new']);
    expect(added.unchangedMembers.map((u) => u.externalId)).toEqual(['ext-42']);
    await rejectedUnchanged(
      () => c.embed.addGroupMembers({ embedTenantName: 'acme', id: g.id, body: { members: [{ externalId: 'late-comer' }, { embedUserId: 99999 }] } }),
      NotFoundError,
    );
    const members = await c.embed.listGroupMembers({ embedTenantName: 'acme', id: g.id });
    expect(members.items.map((u) => u.externalId)).toEqual(['brand-new', 'ext-42']); // most recently added first
    expect((await c.embed.getGroup({ embedTenantName: 'ACME', id: g.id })).userCount).toBe(2);

    await rejectedUnchanged(() => c.embed.deleteGroup({ embedTenantName: 'acme', id: g.id }), BadRequestError, /still has/);
    await c.embed.removeGroupMembers({
      embedTenantName: 'acme',
      id: g.id,
      body: { members: [{ externalId: 'brand-new' }, { embedUserId: ext42?.id }, { externalId: 'never-there' }] },
    });
    expect((await c.embed.listGroupMembers({ embedTenantName: 'acme', id: g.id })).items).toEqual([]);
    await expect(c.embed.deleteGroup({ embedTenantName: 'acme', id: g.id })).resolves.toBeUndefined();
    await expect(c.embed.getGroup({ embedTenantName: 'acme', id: g.id })).rejects.toBeInstanceOf(NotFoundError);
    await expect(c.embed.deleteGroup({ embedTenantName: 'acme', id: g.id })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('delete tenant: 204, idempotent, canonical name only', async () => {
    await c.embed.provisionUser({ embedTenantName: 'doomed', body: { externalId: 'd1' } });
    await rejectedUnchanged(() => c.embed.deleteTenant({ embedTenantName: 'Doomed' }), BadRequestError, /canonical/);
    await expect(c.embed.deleteTenant({ embedTenantName: 'doomed' })).resolves.toBeUndefined();
    await expect(c.embed.deleteTenant({ embedTenantName: 'doomed' })).resolves.toBeUndefined();
    await expect(c.embed.listUsers({ embedTenantName: 'doomed' })).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('embed access, embeddable dashboards, comments, sessions', () => {
  it('embed access: grant a tenant and all embed users, toggle allowEmbed; shared workspace and tenant workbooks follow', async () => {
    const before = await c.embed.getAccess({ deploymentId: D, workbookId: 3 });
    expect(before).toMatchObject({ allowEmbed: false, allEmbedUsers: { enabled: false, action: 'none' }, tenants: [] });
    const granted = await c.embed.updateAccess({ deploymentId: D, workbookId: 3, body: { embedTenantName: 'ACME', action: 'read', allowEmbed: true } });
    expect(granted).toMatchObject({ allowEmbed: true, tenants: [{ embedTenantName: 'acme', action: 'read' }] });
    await c.embed.updateAccess({ deploymentId: D, workbookId: 2, body: { allEmbedUsers: true, action: 'read' } });

    const tenantWbs = await c.workspace.listEmbedTenantWorkbooks({ deploymentId: D, embedTenantName: 'acme' });
    expect(tenantWbs.items.map((w) => w.id).sort()).toEqual([2, 3]);
    const direct = await c.workspace.listEmbedTenantWorkbooks({ deploymentId: D, embedTenantName: 'acme', query: { accessSource: 'tenant' } });
    expect(direct.items.map((w) => w.id)).toEqual([3]);
    const shared = await c.workspace.listSharedWorkspace({ deploymentId: D });
    expect(shared.items.map((i) => i.id).sort()).toEqual([2, 3]);

    const revoked = await c.embed.updateAccess({ deploymentId: D, workbookId: 3, body: { embedTenantName: 'acme', action: 'none' } });
    expect(revoked.tenants).toEqual([]);
    await rejectedUnchanged(() => c.embed.updateAccess({ deploymentId: D, workbookId: 3, body: { embedTenantName: 'nobody', action: 'read' } }), NotFoundError);
    const bare = await c.workspace.createWorkbook({ deploymentId: D, body: { name: 'Unpublished' } });
    await rejectedUnchanged(() => c.embed.updateAccess({ deploymentId: D, workbookId: bare.id, body: { allowEmbed: true } }), BadRequestError);
  });

  it('dashboard get and signed-embedding toggle (admin only); python run only over a published snapshot', async () => {
    expect(await c.embed.getDashboard({ publicId: 'wb-pub-1' })).toMatchObject({ publicId: 'wb-pub-1', workbookId: 1 });
    expect(await c.embed.setDashboardEmbedding({ publicId: 'wb-pub-1', body: { allowEmbed: true } })).toEqual({ publicId: 'wb-pub-1', allowEmbed: true });
    expect((await c.embed.getDashboard({ publicId: 'wb-pub-1' })).allowEmbed).toBe(true);
    await rejectedUnchanged(() => member.embed.setDashboardEmbedding({ publicId: 'wb-pub-1', body: { allowEmbed: false } }), PermissionDeniedError);
    await expect(c.embed.getDashboard({ publicId: 'nope' })).rejects.toBeInstanceOf(NotFoundError);
    // The path names no deployment: a key scoped to deployment 1 is refused a dashboard of deployment 2.
    const other = await c.workspace.createWorkbook({ deploymentId: 2, body: { name: 'Other deployment' } });
    const otherDash = await c.workspace.publishDashboard({ deploymentId: 2, workbookId: other.id, body: { workbookId: other.id } });
    const scoped = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.scoped, ca: em.ca });
    try {
      expect((await scoped.embed.getDashboard({ publicId: 'wb-pub-1' })).workbookId).toBe(1);
      await rejectedUnchanged(() => scoped.embed.setDashboardEmbedding({ publicId: otherDash.publicId, body: { allowEmbed: true } }), PermissionDeniedError);
    } finally {
      await scoped.close();
    }

    const wb = await c.workspace.createWorkbook({ deploymentId: D, body: { name: 'Python board' } });
    const report = await c.workspace.createReport({ deploymentId: D, body: { name: 'Py', workbookId: wb.id } });
    const dash = await c.workspace.publishDashboard({ deploymentId: D, workbookId: wb.id, body: { workbookId: wb.id } });
    const snapshots = (await c.embed.getDashboard({ publicId: dash.publicId })) as { publicId: string };
    expect(snapshots.publicId).toBe(dash.publicId);
    await rejectedUnchanged(
      () => c.embed.runDashboardPython({ publicId: dash.publicId, body: { reportId: report.id, reportVersionId: 99999, sqlQuery: 'SELECT 1' } }),
      PermissionDeniedError,
    );
    const versionId = (em.state.collections.workbooks?.[String(wb.id)] as { dashboard: { reportSnapshots: { reportVersionId: number }[] } }).dashboard
      .reportSnapshots[0]?.reportVersionId as number;
    const run = await c.embed.runDashboardPython({ publicId: dash.publicId, body: { reportId: report.id, reportVersionId: versionId, sqlQuery: 'SELECT 1' } });
    expect(run).toMatchObject({ inputRowCount: 0, stderr: '', executionError: null });
  });

  it('comments: thread, reply, edit, resolve (root only), soft delete; author only; mentionable users', async () => {
    const root = await c.embed.createComment({ publicId: 'wb-pub-2', body: { body: 'Why did revenue drop?' } });
    expect(root).toMatchObject({ dashboardId: 'wb-pub-2', isOwn: true });
    const reply = await c.embed.createComment({ publicId: 'wb-pub-2', body: { body: 'Holidays', parentId: root.id } });
    await rejectedUnchanged(() => c.embed.createComment({ publicId: 'wb-pub-2', body: { body: 'nested', parentId: reply.id } }), BadRequestError);
    await rejectedUnchanged(() => c.embed.createComment({ publicId: 'wb-pub-3', body: { body: 'elsewhere', parentId: root.id } }), NotFoundError);
    await rejectedUnchanged(() => member.embed.updateComment({ publicId: 'wb-pub-2', commentId: root.id, body: { body: 'hijack' } }), PermissionDeniedError);

    const edited = await c.embed.updateComment({ publicId: 'wb-pub-2', commentId: reply.id, body: { body: 'Holidays, mostly' } });
    expect(edited.editedAt).toEqual(expect.any(String));
    await expect(c.embed.resolveComment({ publicId: 'wb-pub-2', commentId: reply.id, body: { resolved: true } })).rejects.toBeInstanceOf(BadRequestError);
    const resolved = await c.embed.resolveComment({ publicId: 'wb-pub-2', commentId: root.id, body: { resolved: true } });
    expect(resolved).toMatchObject({ resolvedAt: expect.any(String), replies: [expect.objectContaining({ body: 'Holidays, mostly' })] });

    expect((await c.embed.listComments({ publicId: 'wb-pub-2' })).items).toEqual([]);
    expect((await c.embed.listComments({ publicId: 'wb-pub-2', query: { includeResolved: true } })).items).toHaveLength(1);
    expect((await c.embed.listComments({ publicId: 'wb-pub-2', query: { resolvedOnly: true } })).items).toHaveLength(1);

    await c.embed.removeComment({ publicId: 'wb-pub-2', commentId: reply.id });
    const thread = (await c.embed.listComments({ publicId: 'wb-pub-2', query: { includeResolved: true } })).items[0];
    expect(thread?.replies[0]).toMatchObject({ body: '', removedAt: expect.any(String) });
    await c.embed.removeComment({ publicId: 'wb-pub-2', commentId: root.id });
    expect((await c.embed.listComments({ publicId: 'wb-pub-2', query: { includeResolved: true } })).items).toEqual([]);

    await c.embed.updateAccess({ deploymentId: D, workbookId: 1, body: { embedTenantName: 'acme', action: 'read' } });
    const mentionable = await c.embed.listMentionableUsers({ publicId: 'wb-pub-1', query: { search: 'ext' } });
    expect(mentionable.items.map((u) => u.username)).toEqual(['ext-42']);
  });

  it('sessions: generate (admin), exchange once for a 24 h JWT, revoke is idempotent 204', async () => {
    const { sessionId } = await c.embed.generateSession({
      body: {
        deploymentId: D,
        embedTenantName: 'acme',
        externalId: 'session-user',
        creatorMode: true,
        tenantGroups: ['editors'],
        tenantGroupDefinitions: [{ name: 'editors' }],
      },
    });
    expect(sessionId).toMatch(/^[0-9a-f]{32}$/);
    expect((await c.embed.listGroups({ embedTenantName: 'acme' })).items.map((g) => g.name)).toContain('editors');
    const { token } = await c.embed.sessionToken({ body: { sessionId } });
    const payload = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString('utf8')) as {
      exp: number;
      iat: number;
      iss: string;
      sub: string;
    };
    expect(payload).toMatchObject({ iss: 'cubecloud', sub: 'session-user' });
    expect(payload.exp - payload.iat).toBe(24 * 3600);
    await rejectedUnchanged(() => c.embed.sessionToken({ body: { sessionId } }), AuthenticationError);

    const second = await c.embed.generateSession({ body: { deploymentId: D } });
    await expect(c.embed.revokeSession({ body: { sessionId: second.sessionId } })).resolves.toBeUndefined();
    await expect(c.embed.revokeSession({ body: { sessionId: second.sessionId } })).resolves.toBeUndefined();
    await expect(c.embed.revokeSession({ body: { sessionId: 'f'.repeat(32) } })).resolves.toBeUndefined();
    await expect(c.embed.sessionToken({ body: { sessionId: second.sessionId } })).rejects.toBeInstanceOf(AuthenticationError);

    await rejectedUnchanged(() => c.embed.generateSession({ body: { deploymentId: 99 } }), NotFoundError);
    await rejectedUnchanged(() => c.embed.generateSession({ body: { deploymentId: D, branchName: 'no-such-branch' } }), NotFoundError);
    await rejectedUnchanged(
      () => c.embed.generateSession({ body: { deploymentId: D, embedTenantName: 'acme', tenantGroups: ['editors'] } }),
      BadRequestError,
      /creatorMode/,
    );
    await rejectedUnchanged(() => member.embed.generateSession({ body: { deploymentId: D } }), PermissionDeniedError);
  });
});

describe('tenant settings and integrations', () => {
  it('settings: GET, PUT merges the fields sent', async () => {
    const s = await c.tenant.getSettings();
    expect(s).toMatchObject({ auditLogEnabled: true, maintenanceWindowEnabled: false });
    const u = await c.tenant.updateSettings({ body: { maintenanceWindowEnabled: true, maintenanceWindowDay: 'saturday', maintenanceWindowTime: '03:30' } });
    expect(u).toMatchObject({
      auditLogEnabled: true,
      maintenanceWindowEnabled: true,
      maintenanceWindowDay: 'SATURDAY',
      maintenanceWindowTime: '03:30',
      oidcEnabled: false,
    });
    const v = await c.tenant.updateSettings({ body: { oidcEnabled: true } });
    expect(v).toMatchObject({ maintenanceWindowDay: 'SATURDAY', oidcEnabled: true });
    await rejectedUnchanged(() => c.tenant.updateSettings({ body: { maintenanceWindowTime: '25:00', oidcEnabled: false } }), BadRequestError);
  });

  it('OAuth integrations: CRUD; the client secret never comes back; 409 for a taken name', async () => {
    const input = {
      name: 'BigQuery',
      type: 'bigquery',
      clientId: 'bq-client',
      clientSecret: 'super-secret-value',
      authUrl: 'https://accounts.example/auth',
      tokenUrl: 'https://accounts.example/token',
      redirectUri: 'https://cube.example/callback',
      scopes: ['read'],
    };
    const created = await c.tenant.createOAuthIntegration({ body: input });
    expect(created).toMatchObject({ name: 'BigQuery', clientId: 'bq-client' });
    expect(created.clientSecret).toBeUndefined();
    await rejectedUnchanged(() => c.tenant.createOAuthIntegration({ body: input }), ConflictError);
    const updated = await c.tenant.updateOAuthIntegration({ id: created.id, body: { ...input, clientSecret: undefined, name: 'BigQuery prod' } });
    expect(updated.name).toBe('BigQuery prod');
    const stored = em.state.collections.oauthIntegrations?.[String(created.id)] as { clientSecret: string };
    expect(stored.clientSecret).toBe('super-secret-value'); // omitted secret kept
    const listed = await c.tenant.listOAuthIntegrations();
    expect(JSON.stringify(listed)).not.toMatch(/secret-value|seed-secret/);
    expect(await c.tenant.getOAuthIntegration({ id: created.id })).toMatchObject({ name: 'BigQuery prod' });
    await c.tenant.deleteOAuthIntegration({ id: created.id });
    await expect(c.tenant.getOAuthIntegration({ id: created.id })).rejects.toBeInstanceOf(NotFoundError);
  });

  it("user OAuth tokens: the caller's list, get, initiate (authorization URL), revoke", async () => {
    const tokens = await c.tenant.listUserOAuthTokens();
    expect(tokens).toEqual([expect.objectContaining({ integrationId: 1, status: 'ACTIVE' })]);
    expect(await member.tenant.listUserOAuthTokens()).toEqual([]);
    expect(await c.tenant.getUserOAuthToken({ integrationId: 1 })).toMatchObject({ integrationId: 1 });
    await expect(member.tenant.getUserOAuthToken({ integrationId: 1 })).rejects.toBeInstanceOf(NotFoundError);
    const flow = (await c.tenant.initiateOAuthFlow({ integrationId: 1 })) as { authorizationUrl: string };
    const url = new URL(flow.authorizationUrl);
    expect(url.origin + url.pathname).toBe('https://acme.snowflakecomputing.com/oauth/authorize');
    expect(url.searchParams.get('client_id')).toBe('snowflake-client-id');
    expect(url.searchParams.get('state')).toMatch(/^[0-9a-f]{32}$/);
    await expect(c.tenant.initiateOAuthFlow({ integrationId: 999 })).rejects.toBeInstanceOf(NotFoundError);
    await c.tenant.revokeUserOAuthToken({ integrationId: 1 });
    await expect(c.tenant.getUserOAuthToken({ integrationId: 1 })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('OIDC token configs: CRUD, audience derived, 409 for a taken name, 400 for a bad env var name', async () => {
    const seeded = await c.tenant.listOidcTokenConfigs();
    expect(seeded.map((o) => o.name)).toEqual(['aws-default']);
    const created = await c.tenant.createOidcTokenConfig({ body: { audienceType: 'custom', customAudience: 'https://vault.example', name: 'vault' } });
    expect(created).toMatchObject({ audience: 'https://vault.example', isEnabled: true });
    await rejectedUnchanged(() => c.tenant.createOidcTokenConfig({ body: { audienceType: 'aws', name: 'vault' } }), ConflictError);
    // The vendor's pattern is checked before sending; the emulator refuses the same value with a 400.
    await rejectedUnchanged(() => c.tenant.createOidcTokenConfig({ body: { audienceType: 'aws', targetEnvVar: 'lower-case' } }), InputError);
    const raw = { method: 'POST' as const, path: '/api/v1/oidc-token-configs', json: { audienceType: 'aws', targetEnvVar: 'lower-case' } };
    await rejectedUnchanged(() => c.http.send(raw), BadRequestError);
    const updated = await c.tenant.updateOidcTokenConfig({ id: created.id, body: { isEnabled: false, targetEnvVar: 'VAULT_TOKEN' } });
    expect(updated).toMatchObject({ isEnabled: false, targetEnvVar: 'VAULT_TOKEN', name: 'vault' });
    expect(await c.tenant.getOidcTokenConfig({ id: created.id })).toEqual(updated);
    await c.tenant.deleteOidcTokenConfig({ id: created.id });
    await expect(c.tenant.getOidcTokenConfig({ id: created.id })).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('GitHub discovery and app config', () => {
  it('status, installations, repositories, branches; unknown installation is a 404', async () => {
    expect(await c.github.status()).toMatchObject({ connected: true });
    const installations = await collect(c.github.iterateInstallations({ query: { first: 1 } }));
    expect(installations.map((i) => i.login)).toEqual(['acme-analytics', 'ada']);
    const repos = await c.github.repositories({ installationId: 1001 });
    expect(repos.items.map((r) => r.name)).toEqual(['data-model', 'dbt-project', 'dashboards']);
    const branches = await c.github.branches({ owner: 'acme-analytics', repo: 'data-model', query: { installationId: 1001 } });
    expect(branches.items.filter((b) => b.isDefault).map((b) => b.name)).toEqual(['main']);
    await expect(c.github.repositories({ installationId: 4242 })).rejects.toBeInstanceOf(NotFoundError);
    await expect(c.github.branches({ owner: 'acme-analytics', repo: 'data-model', query: { installationId: 4242 } })).rejects.toBeInstanceOf(NotFoundError);
    await expect(c.github.branches({ owner: 'ada', repo: 'data-model', query: { installationId: 1002 } })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('app config and theme (palette and logoUrl)', async () => {
    const config = await c.app.config();
    expect(config).toMatchObject({ applyThemeGlobally: false, restrictDataDownload: false, sheetsAgentChatEnabled: false });
    const theme = await c.app.theme();
    expect(theme.palette).toMatchObject({ accent: { color: expect.any(String) } });
    expect(theme.logoUrl).toBe(`${em.baseUrl}/static/logo.svg`);
  });
});
