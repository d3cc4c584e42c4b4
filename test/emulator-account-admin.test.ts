/**
 * Emulator handlers of the account areas, part two: audit-log export, usage-analytics token, SCIM, users,
 * settings, groups, user attributes and roles, driven through the real client over HTTPS.
 */
import { readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuthenticationError, BadRequestError, ConflictError, NotFoundError, PermissionDeniedError, collect } from '../src/client/index.js';
import { verifyJwt } from '../packages/emulator/src/jwt.js';
import { csvField } from '../packages/emulator/src/account/audit-log.js';
import {
  em,
  admin,
  member,
  scoped,
  scim,
  scimApiKey,
  scimWithAdminKey,
  dir,
  rejection,
  rejectsUnchanged,
  useAccountEmulator,
} from './support/account-fixture.js';

useAccountEmulator();

/** RFC 4180 parser (quoted fields, doubled quotes, CRLF or LF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || (c === '\r' && text[i + 1] === '\n')) {
      if (c === '\r') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

describe('audit-log export', () => {
  it('streams the whole log to a file as CSV with proper quoting', async () => {
    const file = join(dir, 'all.csv');
    const result = await admin.auditLogs.exportToFile({}, file);
    expect(result.fileName).toBe('audit-log-2025-03-14.csv');
    expect(result.contentType).toBe('text/csv; charset=utf-8');
    const text = await readFile(file, 'utf8');
    expect(result.bytes).toBe(Buffer.byteLength(text));
    const rows = parseCsv(text);
    expect(rows[0]).toEqual(['id', 'createdAt', 'eventName', 'userEmail', 'data']);
    expect(rows).toHaveLength(1 + em.state.auditEvents.length);
    expect(rows.slice(1).every((r) => r.length === 5)).toBe(true);
    // The seeded event with a comma, quotes and a line break survives the round trip.
    const tricky = rows.find((r) => r[2] === 'report.exported') as string[];
    expect(JSON.parse(tricky[4] as string)).toEqual({ deploymentId: 1, detail: 'Board "Q3, EMEA"\nexported as CSV' });
    expect(text).toContain('"{""deploymentId"":1,""detail"":""Board \\""Q3, EMEA\\""\\nexported as CSV""}"');
    // Chronological.
    const times = rows.slice(1).map((r) => r[1] as string);
    expect([...times].sort()).toEqual(times);
  });

  it('quotes fields with a comma, a quote or a line break (RFC 4180)', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\r')).toBe('"cr\r"');
    expect(parseCsv(`${['x,y', 'q"', 'l\nm'].map(csvField).join(',')}\r\n`)).toEqual([['x,y', 'q"', 'l\nm']]);
  });

  it('applies the filters', async () => {
    const rows = async (query: Record<string, string>) => parseCsv(await admin.auditLogs.export({ query })).slice(1);
    expect((await rows({ eventName: 'user.login' })).map((r) => r[2])).toEqual(Array(6).fill('user.login'));
    const maxRows = await rows({ userEmail: 'MAX@example.com' });
    expect(maxRows).toHaveLength(15);
    expect(new Set(maxRows.map((r) => r[3]))).toEqual(new Set(['max@example.com']));
    // Case-insensitive substring of the data JSON or the name.
    expect(await rows({ search: 'EVENT 1' })).toHaveLength(11); // event 1, 10..19
    expect((await rows({ search: 'EXPORTED' })).map((r) => r[2])).toEqual(['report.exported']);
    expect((await rows({ search: '"q3' })).map((r) => r[2])).toEqual(['report.exported']);
    // Inclusive start, exclusive end.
    const seeded = em.state.auditEvents.filter((e) => e.eventName !== 'report.exported' && e.id <= 30);
    const start = seeded[10]?.createdAt as string;
    const end = seeded[20]?.createdAt as string;
    const window = await rows({ start, end });
    expect(window.map((r) => Number(r[0]))).toEqual(seeded.slice(10, 20).map((e) => e.id));
    // Dates: a whole day.
    expect(await rows({ start: '2025-03-14', end: '2025-03-15' })).toHaveLength(
      em.state.auditEvents.filter((e) => e.createdAt.startsWith('2025-03-14')).length,
    );
    expect(await rows({ start: '2030-01-01' })).toEqual([]);
    await rejectsUnchanged(() => admin.auditLogs.export({ query: { start: '2025-02-30' } }), BadRequestError, 400);
    await rejectsUnchanged(() => admin.auditLogs.export({ query: { start: '2025-03-02', end: '2025-03-01' } }), BadRequestError, 400);
  });

  it('needs AuditLogManage: a member gets 403 and no file', async () => {
    const file = join(dir, 'member.csv');
    const e = await rejectsUnchanged(() => member.auditLogs.exportToFile({}, file), PermissionDeniedError, 403);
    expect(e.platformMessage).toContain('AuditLogManage');
    expect(existsSync(file)).toBe(false);
    expect((await readdir(dir)).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('answers 403 when the audit log is disabled', async () => {
    em.state.tenant.auditLogEnabled = false;
    try {
      const file = join(dir, 'disabled.csv');
      const e = await rejectsUnchanged(() => admin.auditLogs.exportToFile({}, file), PermissionDeniedError, 403);
      expect(e.platformMessage).toContain('audit log is not enabled');
      expect(existsSync(file)).toBe(false);
    } finally {
      em.state.tenant.auditLogEnabled = true;
    }
  });
});

// =============================================================================================

describe('usage-analytics token', () => {
  it('issues a one-hour JWT, the same one while it is valid', async () => {
    const a = await admin.usageAnalytics.createToken();
    expect(a.apiUrl).toBe(`${em.baseUrl}/usage-analytics/cubejs-api/v1`);
    expect(Number.isInteger(a.deploymentId)).toBe(true);
    expect(a.expiresAt).toBe(new Date(em.clock.now() + 3600_000).toISOString().replace(/\.\d{3}Z$/, '.000Z'));
    const check = verifyJwt(a.token, em.state.secret, em.clock.now());
    if (!check.ok) throw new Error(`usage-analytics token does not verify: ${check.reason}`);
    expect(Number(check.payload.exp) - Number(check.payload.iat)).toBe(3600);

    em.clock.advance(30 * 60_000);
    const b = await admin.usageAnalytics.createToken();
    expect(b).toEqual(a);

    em.clock.advance(31 * 60_000);
    const c = await admin.usageAnalytics.createToken();
    expect(c.token).not.toBe(a.token);
    expect(Date.parse(c.expiresAt as string)).toBeGreaterThan(Date.parse(a.expiresAt as string));
  });

  it('is admin only and 404 when usage analytics is disabled', async () => {
    await rejectsUnchanged(() => member.usageAnalytics.createToken(), PermissionDeniedError, 403);
    em.state.tenant.usageAnalyticsEnabled = false;
    try {
      const e = await rejectsUnchanged(() => admin.usageAnalytics.createToken(), NotFoundError, 404);
      expect(e.platformMessage).toContain('not enabled');
    } finally {
      em.state.tenant.usageAnalyticsEnabled = true;
    }
  });
});

// =============================================================================================

describe('SCIM', () => {
  it('accepts the SCIM token as Bearer and as Api-Key, and refuses an API key with 401', async () => {
    const bearer = await scim.scim.listUsers();
    const apiKey = await scimApiKey.scim.listUsers();
    expect(apiKey).toEqual(bearer);
    expect(bearer.totalResults).toBe(em.state.users.length);
    const e = await rejectsUnchanged(() => scimWithAdminKey.scim.listGroups(), AuthenticationError, 401);
    expect(e.platformMessage).toContain('SCIM token');
    // And the SCIM token is no API key.
    await rejection(scim.users.me(), PermissionDeniedError, 403);
  });

  it('lists users with startIndex/count paging', async () => {
    const page = await scim.scim.listUsers({ query: { startIndex: 2, count: 2 } });
    expect(page).toMatchObject({ totalResults: 4, startIndex: 2, itemsPerPage: 2 });
    expect(page.Resources.map((u) => u.id)).toEqual(['2', '3']);
    const max = page.Resources[0];
    expect(max).toMatchObject({
      userName: 'max@example.com',
      active: true,
      name: { givenName: 'Max', familyName: 'Member' },
      emails: [{ value: 'max@example.com', primary: true }],
    });
    const totals = await scim.scim.listUsers({ query: { count: 0 } });
    expect(totals).toMatchObject({ totalResults: 4, itemsPerPage: 0, Resources: [] });
    const all = await collect(scimApiKey.scim.iterateUsers({ count: 3 }));
    expect(all.map((u) => u.userName)).toEqual(['ada@example.com', 'max@example.com', 'scim@example.com', 'lin@example.com']);
    const filtered = await scim.scim.listUsers({ query: { filter: 'userName eq "LIN@example.com"' } });
    expect(filtered.Resources.map((u) => u.id)).toEqual(['4']);
    const lin = await scim.scim.getUser({ id: '4' });
    expect(lin.groups?.map((g) => g.display)).toEqual(['Analytics', 'Marketing']);
    await rejection(scim.scim.getUser({ id: '404' }), NotFoundError, 404);
    await rejection(scim.scim.listUsers({ query: { filter: 'userName co "a"' } }), BadRequestError, 400);
  });

  it('creates a group (201), refuses a duplicate (409), gets, lists and deletes it', async () => {
    const raw = await scim.http.send({
      method: 'POST',
      path: '/api/scim/v2/Groups',
      json: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Finance', members: [{ value: '4' }] },
    });
    expect(raw.status).toBe(201);
    const created = JSON.parse(raw.text as string);
    expect(created).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: 'Finance',
      id: '3',
      members: [{ value: '4', display: 'Lin Analyst' }],
      meta: { resourceType: 'Group', location: `${em.baseUrl}/api/scim/v2/Groups/3` },
    });

    const dup = await rejectsUnchanged(
      () => scimApiKey.scim.createGroup({ body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'finance' } }),
      ConflictError,
      409,
    );
    expect(dup.platformMessage).toContain('already exists');
    const body = JSON.parse(dup.responseBody as string);
    expect(body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '409', scimType: 'uniqueness' });
    expect(typeof body.error).toBe('string');

    await rejectsUnchanged(
      () => scim.scim.createGroup({ body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Ghosts', members: [{ value: '99' }] } }),
      BadRequestError,
      400,
    );

    const made = await scim.scim.createGroup({ body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Ops' } });
    expect(made.members).toEqual([]);
    expect(await scim.scim.getGroup({ id: made.id })).toEqual(made);
    const list = await scim.scim.listGroups({ query: { startIndex: 2, count: 10 } });
    expect(list).toMatchObject({ totalResults: 4, startIndex: 2, itemsPerPage: 3 });
    expect(list.Resources.map((g) => g.displayName)).toEqual(['Marketing', 'Finance', 'Ops']);
    expect((await scim.scim.listGroups({ query: { filter: 'displayName eq "ops"' } })).Resources.map((g) => g.id)).toEqual([made.id]);

    await scim.scim.deleteGroup({ id: '3' });
    await rejection(scim.scim.getGroup({ id: '3' }), NotFoundError, 404);
    await rejection(scim.scim.deleteGroup({ id: '3' }), NotFoundError, 404);
    expect(em.state.users.find((u) => u.id === 4)?.groupIds).toEqual([1, 2]);
    // The account's groups list sees SCIM groups too.
    expect((await admin.users.listGroups({ query: { search: 'OP' } })).items).toEqual([{ id: Number(made.id), name: 'Ops', description: null, userCount: 0 }]);
  });
});

// =============================================================================================

describe('users', () => {
  it('returns the caller with userPolicies', async () => {
    const me = await admin.users.me();
    expect(me).toMatchObject({ id: 1, email: 'ada@example.com', username: 'ada', isAdmin: true, isDeactivated: false });
    expect(me.userPolicies).toEqual([{ resourceType: 'Global', actions: ['All'], resources: ['*'] }]);
    const max = await member.users.me();
    expect(max.isAdmin).toBe(false);
    expect(max.userPolicies?.[0]).toMatchObject({ resourceType: 'Deployment', actions: expect.arrayContaining(['SchemaRead']) });
  });

  it('merges settings: sheets field by field, null clears, lastSeenChangelogId ignored', async () => {
    let u = await member.users.updateMySettings({
      body: { sheets: { autoRunQueryOnChange: true, showAppliedFilters: false }, locale: 'de-DE', theme: 'dark' },
    });
    expect(u.settings).toEqual({ sheets: { autoRunQueryOnChange: true, showAppliedFilters: false }, locale: 'de-DE', theme: 'dark' });
    u = await member.users.updateMySettings({
      body: { sheets: { revealSheetOnOpen: true, showAppliedFilters: null }, lastSeenChangelogId: 7, defaultDeploymentId: 2 },
    });
    expect(u.settings).toEqual({ sheets: { autoRunQueryOnChange: true, revealSheetOnOpen: true }, locale: 'de-DE', theme: 'dark', defaultDeploymentId: 2 });
    u = await member.users.updateMySettings({ body: { sheets: null, defaultDeploymentId: null } });
    expect(u.settings).toEqual({ locale: 'de-DE', theme: 'dark' });
    expect((await member.users.me()).settings).toEqual({ locale: 'de-DE', theme: 'dark' });
    // Admin settings untouched.
    expect((await admin.users.me()).settings).toEqual({});
    await rejectsUnchanged(() => member.users.updateMySettings({ body: { defaultDeploymentId: 42, locale: 'fr-FR' } }), BadRequestError, 400);
    // The scoped key may not default to a deployment outside its scope.
    await rejectsUnchanged(() => scoped.users.updateMySettings({ body: { defaultDeploymentId: 2 } }), BadRequestError, 400);
  });

  it('lists and searches users and groups', async () => {
    const names = async (search?: string) => (await admin.users.list(search === undefined ? {} : { query: { search } })).items.map((u) => u.username);
    expect(await names()).toEqual(['ada', 'max', 'scim', 'lin']);
    expect(await names('AD')).toEqual(['ada']); // first name, username, e-mail
    expect(await names('lin@EXAMPLE')).toEqual(['lin']);
    expect(await names('member')).toEqual([]); // last names are not searched
    expect(await names('example.com')).toEqual(['ada', 'max', 'scim', 'lin']);
    const paged = await collect(member.users.iterate({ query: { first: 3, search: 'example' } }));
    expect(paged.map((u) => u.id)).toEqual([1, 2, 3, 4]);
    const groups = await admin.users.listGroups({ query: { search: 'market' } });
    expect(groups.items).toEqual([{ id: 2, name: 'Marketing', description: null, userCount: 1 }]);
  });

  let u1 = 0;
  let u2 = 0;

  it('creates, updates and deletes users', async () => {
    const a = await admin.users.create({ body: { email: 'kim@example.com', username: 'kim', firstName: 'Kim, "K" Lee' } });
    u1 = a.id;
    expect(a).toMatchObject({ email: 'kim@example.com', username: 'kim', isAdmin: false, isDeactivated: false });
    const b = await admin.users.create({ body: { email: 'joe@example.com', username: 'joe', defaultRoles: ['Report viewer'] } });
    u2 = b.id;
    expect((await admin.users.getRole({ roleId: 1 })).userIds).toEqual([4, u2]);
    await rejectsUnchanged(() => admin.users.create({ body: { email: 'KIM@example.com', username: 'kim2' } }), ConflictError, 409);
    await rejectsUnchanged(() => admin.users.create({ body: { email: 'new@example.com', username: 'new', defaultRoles: ['Nope'] } }), BadRequestError, 400);
    const up = await admin.users.update({ id: u1, body: { title: 'Analyst', firstName: 'Kim' } });
    expect(up).toMatchObject({ firstName: 'Kim', title: 'Analyst' });
    await rejectsUnchanged(() => admin.users.update({ id: 999, body: { title: 'x' } }), NotFoundError, 404);
    await rejectsUnchanged(() => admin.users.update({ id: 1, body: { isDeactivated: true } }), BadRequestError, 400);
    await rejectsUnchanged(() => admin.users.remove({ id: 1 }), BadRequestError, 400);
    // The creation was audited, and the odd first name is quoted in the CSV.
    const csv = parseCsv(await admin.auditLogs.export({ query: { eventName: 'user.created' } })).slice(1);
    expect(JSON.parse(csv[0]?.[4] as string)).toMatchObject({ email: 'kim@example.com', firstName: 'Kim, "K" Lee' });
  });

  it('applies bulk actions with per-item failures', async () => {
    await rejectsUnchanged(() => member.users.bulkAction({ body: { action: 'DEACTIVATE', userIds: [u1] } }), PermissionDeniedError, 403);
    const r = await admin.users.bulkAction({ body: { action: 'DEACTIVATE', userIds: [u1, 999, 1, u2, u1] } });
    expect(r.succeeded).toEqual([u1, u2]);
    expect(r.failed).toEqual([
      { userId: 999, error: { status: 404, message: 'user 999 not found' } },
      { userId: 1, error: { status: 400, message: 'you cannot deactivate your own user (ada@example.com)' } },
    ]);
    const listed = (await admin.users.list({ query: { search: 'example.com' } })).items;
    expect(listed.filter((u) => u.isDeactivated).map((u) => u.id)).toEqual([u1, u2]);
    const act = await admin.users.bulkAction({ body: { action: 'ACTIVATE', userIds: [u1, 1] } });
    expect(act).toEqual({ action: 'ACTIVATE', succeeded: [u1, 1], failed: [] });
    const del = await admin.users.bulkAction({ body: { action: 'DELETE', userIds: [u2, 1] } });
    expect(del.succeeded).toEqual([u2]);
    expect(del.failed.map((f) => [f.userId, f.error.status])).toEqual([[1, 400]]);
    expect(em.state.users.some((u) => u.id === u2)).toBe(false);
    expect((await admin.users.getRole({ roleId: 1 })).userIds).toEqual([4]);
    expect(await admin.users.remove({ id: u1 })).toEqual({ id: u1, deleted: true });
    await rejection(admin.users.remove({ id: u1 }), NotFoundError, 404);
  });

  it('manages attributes and type-checked values', async () => {
    const list = await admin.users.listAttributes();
    expect(list.items.map((a) => a.name)).toEqual(['max_rows', 'region']);
    em.clock.advance(1000);
    const tags = await admin.users.createAttribute({ body: { name: 'tags', type: 'string_array', defaultValue: '["all"]' } });
    expect(tags).toMatchObject({ name: 'tags', type: 'string_array', defaultValue: '["all"]' });
    expect((await admin.users.listAttributes({ query: { first: 1 } })).items.map((a) => a.name)).toEqual(['tags']);
    expect((await admin.users.listAttributes({ query: { type: 'number' } })).items.map((a) => a.name)).toEqual(['max_rows']);
    await rejectsUnchanged(() => admin.users.createAttribute({ body: { name: 'tags', type: 'string' } }), ConflictError, 409);
    await rejectsUnchanged(() => admin.users.createAttribute({ body: { name: 'limit', type: 'number', defaultValue: 'lots' } }), BadRequestError, 400);
    await rejectsUnchanged(() => admin.users.createAttribute({ body: { name: 'has space', type: 'string' } }), BadRequestError, 400);
    const upd = await admin.users.updateAttribute({ id: 2, body: { defaultValue: '1000', description: 'Rows per query' } });
    expect(upd).toMatchObject({ id: 2, defaultValue: '1000', description: 'Rows per query', displayName: 'Row limit' });
    await rejectsUnchanged(() => admin.users.updateAttribute({ id: 2, body: { defaultValue: 'many' } }), BadRequestError, 400);

    // Type mismatch: 400 and nothing changes.
    const e = await rejectsUnchanged(() => admin.users.upsertAttributeValue({ body: { userAttributeId: 2, userId: 4, value: 'abc' } }), BadRequestError, 400);
    expect(e.platformMessage).toContain('expected a number');
    await rejectsUnchanged(() => admin.users.upsertAttributeValue({ body: { userAttributeId: tags.id, userId: 4, value: [1, 2] } }), BadRequestError, 400);
    await rejectsUnchanged(() => admin.users.upsertAttributeValue({ body: { userAttributeId: 1, userId: 4, value: true } }), BadRequestError, 400);
    await rejectsUnchanged(() => admin.users.upsertAttributeValue({ body: { userAttributeId: 99, userId: 4, value: 'x' } }), NotFoundError, 404);
    await rejectsUnchanged(() => admin.users.upsertAttributeValue({ body: { userAttributeId: 1, userId: 99, value: 'x' } }), NotFoundError, 404);

    expect(await admin.users.upsertAttributeValue({ body: { userAttributeId: 2, userId: 4, value: 500 } })).toMatchObject({ name: 'max_rows', value: 500 });
    await admin.users.upsertAttributeValue({ body: { userAttributeId: String(tags.id), userId: '4', value: ['eu', 'us'] } });
    const values = await admin.users.attributeValues({ userId: 4 });
    expect(values.map((v) => [v.name, v.value])).toEqual([
      ['region', 'APAC'],
      ['max_rows', 500],
      ['tags', ['eu', 'us']],
    ]);
    // Defaults apply where no value is set; null clears a value.
    await admin.users.upsertAttributeValue({ body: { userAttributeId: 1, userId: 4, value: null } });
    expect((await admin.users.attributeValues({ userId: 2 })).map((v) => [v.name, v.value])).toEqual([
      ['region', 'EMEA'],
      ['max_rows', 1000],
      ['tags', ['all']],
    ]);
    expect((await admin.users.attributeValues({ userId: 4 }))[0]).toMatchObject({ name: 'region', value: 'EMEA' });
    await rejection(admin.users.attributeValues({ userId: 99 }), NotFoundError, 404);
  });

  it('manages roles and their assignments', async () => {
    await rejection(member.users.listRoles(), PermissionDeniedError, 403);
    const role = await admin.users.createRole({
      body: { name: 'Deployer', description: 'Deploys', policies: [{ resourceType: 'Deployment', actions: ['DeploymentUpdate'], resources: ['2'] }] },
    });
    await rejectsUnchanged(() => admin.users.createRole({ body: { name: 'deployer', policies: [] } }), ConflictError, 409);
    await rejectsUnchanged(() => admin.users.updateRole({ roleId: role.id, body: { name: 'Report viewer' } }), ConflictError, 409);
    expect((await admin.users.listRoles()).items.map((r) => r.name)).toEqual(['Deployer', 'Report viewer']);
    await admin.users.assignRole({ roleId: role.id, userId: 2 });
    await admin.users.assignRole({ roleId: role.id, userId: 2 }); // idempotent
    expect((await member.users.me()).userPolicies).toContainEqual({ resourceType: 'Deployment', actions: ['DeploymentUpdate'], resources: ['2'] });
    await rejectsUnchanged(() => admin.users.assignRole({ roleId: role.id, userId: 99 }), NotFoundError, 404);
    const up = await admin.users.updateRole({ roleId: role.id, body: { policies: [], description: null } });
    expect(up).toMatchObject({ name: 'Deployer', description: null, policies: [] });
    await admin.users.unassignRole({ roleId: role.id, userId: 2 });
    expect((await admin.users.getRole({ roleId: role.id })).userIds).toEqual([]);
    await admin.users.deleteRole({ roleId: role.id });
    await rejection(admin.users.getRole({ roleId: role.id }), NotFoundError, 404);
  });
});
