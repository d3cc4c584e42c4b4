/**
 * SCIM 2.0 groups and users (spec 2.11, 4.11; RFC 7643/7644 where the spec is silent). Groups are
 * `state.groups`; members are the users whose `groupIds` hold the group.
 */
import { SCIM_GROUP_SCHEMA, SCIM_LIST_SCHEMA, SCIM_USER_SCHEMA } from '@datamodel-ci/platform-api';
import { HttpError, reply, type Ctx, type Handler, type HandlerTable } from '../context.js';
import { nextId } from '../state.js';
import type { GroupRec, UserRec } from './models.js';
import { given, userById } from './records.js';

const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** A SCIM error (RFC 7644 3.12), with the control plane's `error` string too. */
class ScimFailure extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly scimType?: string,
  ) {
    super(detail);
  }
  reply() {
    const body = {
      schemas: [SCIM_ERROR_SCHEMA],
      status: String(this.status),
      ...(this.scimType ? { scimType: this.scimType } : {}),
      detail: this.detail,
      error: this.detail,
    };
    // Raw: a SCIM error body is not the endpoint's success schema.
    return reply({ status: this.status, raw: JSON.stringify(body), headers: { 'content-type': 'application/scim+json' } });
  }
}

function scimHandler(h: Handler): Handler {
  return (ctx) => {
    try {
      return h(ctx);
    } catch (error) {
      if (error instanceof ScimFailure) return error.reply();
      if (error instanceof HttpError) return new ScimFailure(error.status, error.message).reply();
      throw error;
    }
  };
}

function scimGroupOut(ctx: Ctx, g: GroupRec) {
  const members = ctx.state.users.filter((u) => u.groupIds.includes(g.id)).map((u) => ({ value: String(u.id), display: displayName(u) }));
  return {
    schemas: [SCIM_GROUP_SCHEMA],
    id: String(g.id),
    displayName: g.name,
    ...(g.externalId ? { externalId: g.externalId } : {}),
    members,
    meta: {
      resourceType: 'Group',
      created: g.createdAt,
      lastModified: g.lastModified ?? g.createdAt,
      location: `${ctx.origin}/api/scim/v2/Groups/${g.id}`,
    },
  };
}

function displayName(u: UserRec): string {
  return [u.firstName, u.lastName].filter(Boolean).join(' ') || u.username;
}

function scimUserOut(ctx: Ctx, u: UserRec) {
  return {
    schemas: [SCIM_USER_SCHEMA],
    id: String(u.id),
    userName: u.email,
    ...(u.externalId ? { externalId: u.externalId } : {}),
    displayName: displayName(u),
    active: u.active,
    name: { formatted: displayName(u), givenName: u.firstName, familyName: u.lastName },
    emails: [{ value: u.email, type: 'work', primary: true }],
    groups: ctx.state.groups.filter((g) => u.groupIds.includes(g.id)).map((g) => ({ value: String(g.id), display: g.name })),
    meta: {
      resourceType: 'User',
      created: u.createdAt,
      lastModified: u.updatedAt ?? u.createdAt,
      location: `${ctx.origin}/api/scim/v2/Users/${u.id}`,
    },
  };
}

/** The `attr eq "value"` filters (the only form the emulator understands). */
function scimFilter(filter: string | undefined, attrs: string[]): { attr: string; value: string } | undefined {
  if (filter === undefined) return undefined;
  const m = /^\s*([A-Za-z.]+)\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$/i.exec(filter);
  const attr = m ? attrs.find((a) => a.toLowerCase() === (m[1] as string).toLowerCase()) : undefined;
  if (!m || !attr) {
    throw new ScimFailure(400, `filter: got ${JSON.stringify(filter)}, expected <attribute> eq "<value>" with attribute ${attrs.join(', ')}`, 'invalidFilter');
  }
  return { attr, value: (m[2] as string).replace(/\\(.)/g, '$1') };
}

function scimList<T>(ctx: Ctx, rows: T[]) {
  const q = ctx.query as { startIndex?: number; count?: number };
  const startIndex = q.startIndex ?? 1;
  const count = Math.min(q.count ?? 100, 1000);
  const page = rows.slice(startIndex - 1, startIndex - 1 + count);
  return { schemas: [SCIM_LIST_SCHEMA], totalResults: rows.length, startIndex, itemsPerPage: page.length, Resources: page };
}

function scimGroupById(ctx: Ctx): GroupRec {
  const raw = String(ctx.params.id);
  const g = /^\d+$/.test(raw) ? ctx.state.groups.find((x) => x.id === Number(raw)) : undefined;
  if (!g) throw new ScimFailure(404, `group ${JSON.stringify(raw)} not found`);
  return g;
}

export const scimHandlers: HandlerTable = {
  createScimGroup: scimHandler((ctx) => {
    const body = ctx.body as { displayName: string; externalId?: string | null; members?: { value: string }[] };
    const name = body.displayName.trim();
    if (!name) throw new ScimFailure(400, 'displayName: got an empty name, expected a non-empty display name', 'invalidValue');
    const clash = ctx.state.groups.find((g) => g.name.toLowerCase() === name.toLowerCase());
    if (clash) throw new ScimFailure(409, `a group named ${JSON.stringify(clash.name)} already exists (id ${clash.id})`, 'uniqueness');
    const members = (body.members ?? []).map((m, i) => {
      const u = /^\d+$/.test(m.value) ? userById(ctx.state, Number(m.value)) : undefined;
      if (!u) throw new ScimFailure(400, `members[${i}].value: got ${JSON.stringify(m.value)}, expected the id of an existing user`, 'invalidValue');
      return u;
    });
    const now = ctx.clock.iso();
    const g: GroupRec = { id: nextId(ctx.state, 'group'), name, createdAt: now, lastModified: now };
    if (given(body.externalId)) g.externalId = body.externalId;
    ctx.state.groups.push(g);
    for (const u of members) if (!u.groupIds.includes(g.id)) u.groupIds.push(g.id);
    return scimGroupOut(ctx, g);
  }),

  listScimGroups: scimHandler((ctx) => {
    const f = scimFilter((ctx.query as { filter?: string }).filter, ['displayName', 'externalId']);
    let rows = [...ctx.state.groups].sort((a, b) => a.id - b.id);
    if (f?.attr === 'displayName') rows = rows.filter((g) => g.name.toLowerCase() === f.value.toLowerCase());
    if (f?.attr === 'externalId') rows = rows.filter((g) => g.externalId === f.value);
    return scimList(
      ctx,
      rows.map((g) => scimGroupOut(ctx, g)),
    );
  }),

  getScimGroup: scimHandler((ctx) => scimGroupOut(ctx, scimGroupById(ctx))),

  deleteScimGroup: scimHandler((ctx) => {
    const g = scimGroupById(ctx);
    ctx.state.groups = ctx.state.groups.filter((x) => x.id !== g.id);
    for (const u of ctx.state.users) u.groupIds = u.groupIds.filter((id) => id !== g.id);
    return undefined;
  }),

  listScimUsers: scimHandler((ctx) => {
    const f = scimFilter((ctx.query as { filter?: string }).filter, ['userName', 'externalId', 'emails.value']);
    let rows = [...ctx.state.users].sort((a, b) => a.id - b.id);
    if (f && f.attr !== 'externalId') rows = rows.filter((u) => u.email.toLowerCase() === f.value.toLowerCase());
    if (f?.attr === 'externalId') rows = rows.filter((u) => u.externalId === f.value);
    return scimList(
      ctx,
      rows.map((u) => scimUserOut(ctx, u)),
    );
  }),

  getScimUser: scimHandler((ctx) => {
    const raw = String(ctx.params.id);
    const u = /^\d+$/.test(raw) ? userById(ctx.state, Number(raw)) : undefined;
    if (!u) throw new ScimFailure(404, `user ${JSON.stringify(raw)} not found`);
    return scimUserOut(ctx, u);
  }),
};
