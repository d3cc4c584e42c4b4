/** Embedding records: tenants by canonical name, their users and groups, provisioning, and dashboards by public id. */
import { HttpError, type Ctx } from '../../context.js';
import { findRecord, nextId, putRecord, records, type State } from '../../state.js';
import type { DashboardRec, EmbedGroupRec, EmbedTenantRec, EmbedUserRec, WorkbookRec } from '../models.js';
import { dashboardOf, embedAccessOf } from '../workspace/records.js';

/** Built-in "All embed users" sharing group; a tenant's `system:tenant:{name}` group is 100000 + its id. */
const ALL_EMBED_USERS_GROUP_ID = 100_000;
const TENANT_NAME = /^[a-z0-9][a-z0-9_.-]{0,99}$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export function canonicalTenant(raw: string, input = 'embedTenantName'): string {
  const name = raw.trim().toLowerCase();
  if (!TENANT_NAME.test(name)) {
    throw new HttpError(400, `${input}: got ${JSON.stringify(raw)}, expected lowercase letters, digits, "_", "-" and "." (at most 100)`);
  }
  return name;
}

export function tenantByName(state: State, name: string): EmbedTenantRec | undefined {
  return records(state, 'embedTenants').find((t) => t.name === name);
}

export function tenantOrThrow(state: State, raw: string): EmbedTenantRec {
  const name = canonicalTenant(raw);
  const t = tenantByName(state, name);
  if (!t) throw new HttpError(404, `embed tenant ${JSON.stringify(name)} not found`);
  return t;
}

export function ensureTenant(ctx: Ctx, name: string): EmbedTenantRec {
  const existing = tenantByName(ctx.state, name);
  if (existing) return existing;
  const t: EmbedTenantRec = { id: nextId(ctx.state, 'embedTenant'), name, displayName: null, createdAt: ctx.clock.iso() };
  putRecord(ctx.state, 'embedTenants', t.id, t);
  return t;
}

export function usersOf(state: State, tenant: string): EmbedUserRec[] {
  return records(state, 'embedUsers').filter((u) => u.tenant === tenant);
}

export function groupsOf(state: State, tenant: string): EmbedGroupRec[] {
  return records(state, 'embedGroups').filter((g) => g.tenant === tenant);
}

export function embedUserOut(u: EmbedUserRec) {
  return {
    id: u.id,
    username: u.externalId,
    externalId: u.externalId,
    email: u.email,
    firstName: u.displayName,
    displayName: u.displayName,
    picture: u.picture,
    createdAt: u.createdAt,
    lastLogin: u.lastLogin,
  };
}

export function tenantOut(state: State, t: EmbedTenantRec) {
  return { id: t.id, name: t.name, displayName: t.displayName, userCount: usersOf(state, t.name).length, createdAt: t.createdAt };
}

export function groupOut(g: EmbedGroupRec) {
  return { id: g.id, name: g.name, description: g.description, userCount: g.members.length, createdAt: g.createdAt, embedTenantName: g.tenant };
}

export function groupIn(ctx: Ctx): { tenant: EmbedTenantRec; group: EmbedGroupRec } {
  const tenant = tenantOrThrow(ctx.state, String(ctx.params.embedTenantName));
  const id = ctx.params.id as number;
  const group = findRecord(ctx.state, 'embedGroups', id);
  if (!group || group.tenant !== tenant.name) throw new HttpError(404, `group ${id} not found in embed tenant ${JSON.stringify(tenant.name)}`);
  return { tenant, group };
}

export function normalizeExternalId(raw: string, input: string): string {
  const id = raw.trim().toLowerCase();
  if (!id) throw new HttpError(400, `${input}: got ${JSON.stringify(raw)}, expected a non-empty external id`);
  return id;
}

export interface ProvisionInput {
  externalId: string;
  email?: string | null;
  groups?: string[] | null;
  tenantGroups?: string[] | null;
  userProfile?: { displayName?: string | null; picture?: string | null } | null;
}

/** An e-mail address trimmed and lowercased, or a 400; undefined when none was sent. */
export function normalizeEmail(raw: string | null | undefined, input: string): string | undefined {
  const email = raw?.trim().toLowerCase();
  if (email !== undefined && !EMAIL.test(email)) throw new HttpError(400, `${input}: got ${JSON.stringify(raw)}, expected an e-mail address`);
  return email;
}

/** Embed users name account-wide groups (`state.groups`) by name: every one must exist. */
export function checkAccountGroups(state: State, groups: string[] | null | undefined, input: string): void {
  const known = new Set(state.groups.map((g) => g.name));
  const unknown = (groups ?? []).filter((g) => !known.has(g));
  if (unknown.length) throw new HttpError(400, `${input}: group(s) ${unknown.map((g) => JSON.stringify(g)).join(', ')} do not exist`);
}

/** A new, empty group of an embed tenant, stored. */
export function addEmbedGroup(ctx: Ctx, tenant: string, name: string, description: string | null | undefined): EmbedGroupRec {
  const g: EmbedGroupRec = { id: nextId(ctx.state, 'embedGroup'), tenant, name, description: description || null, createdAt: ctx.clock.iso(), members: [] };
  putRecord(ctx.state, 'embedGroups', g.id, g);
  return g;
}

/** Create or update one embed user (desired state); the tenant is created on demand. */
export function provisionOne(ctx: Ctx, tenantName: string, body: ProvisionInput, input = 'body'): EmbedUserRec {
  const { state } = ctx;
  const externalId = normalizeExternalId(body.externalId, `${input}.externalId`);
  const email = normalizeEmail(body.email, `${input}.email`);
  checkAccountGroups(state, body.groups, `${input}.groups`);
  const tenantGroups = groupsOf(state, tenantName);
  const missing = (body.tenantGroups ?? []).filter((n) => !tenantGroups.some((g) => g.name === n));
  if (missing.length) {
    throw new HttpError(
      400,
      `${input}.tenantGroups: group(s) ${missing.map((g) => JSON.stringify(g)).join(', ')} do not exist in embed tenant ${JSON.stringify(tenantName)}`,
    );
  }
  ensureTenant(ctx, tenantName);
  let u = usersOf(state, tenantName).find((x) => x.externalId === externalId);
  if (!u) {
    u = {
      id: nextId(state, 'embedUser'),
      tenant: tenantName,
      externalId,
      email: email ?? `${externalId}@cubecloud.dev`,
      displayName: null,
      picture: null,
      groups: [],
      createdAt: ctx.clock.iso(),
      lastLogin: null,
    };
    putRecord(state, 'embedUsers', u.id, u);
  } else if (email !== undefined) u.email = email;
  if (body.userProfile?.displayName != null) u.displayName = body.userProfile.displayName;
  if (body.userProfile?.picture != null) u.picture = body.userProfile.picture;
  if (body.groups) u.groups = [...new Set(body.groups)];
  if (body.tenantGroups) {
    const wanted = new Set(body.tenantGroups);
    for (const g of tenantGroups) {
      const member = g.members.some((m) => m.userId === u.id);
      if (wanted.has(g.name) && !member) g.members.push({ userId: u.id, seq: nextId(state, 'embedMembership') });
      if (!wanted.has(g.name) && member) g.members = g.members.filter((m) => m.userId !== u.id);
    }
  }
  return u;
}

/** A published dashboard by public id; a key scoped to other deployments gets a 403 (spec 5 rule 3). */
export function dashboardByPublicId(ctx: Ctx, publicId: string): { wb: WorkbookRec; dash: DashboardRec } {
  for (const wb of records(ctx.state, 'workbooks')) {
    const dash = dashboardOf(wb);
    if (dash && dash.publicId === publicId) {
      const scope = ctx.principal.key.deploymentIds;
      if (scope && !scope.includes(wb.deploymentId)) {
        throw new HttpError(403, `this API key is scoped to deployment(s) ${scope.join(', ')}, not ${wb.deploymentId} (the dashboard's)`);
      }
      return { wb, dash };
    }
  }
  throw new HttpError(404, `dashboard ${JSON.stringify(publicId)} not found`);
}

export function embedAccessOut(state: State, wb: WorkbookRec) {
  const a = embedAccessOf(state, wb.id);
  return {
    allowEmbed: dashboardOf(wb)?.allowEmbed ?? false,
    allEmbedUsers: { action: a.allEmbedUsers ? 'read' : 'none', enabled: a.allEmbedUsers, groupId: ALL_EMBED_USERS_GROUP_ID },
    tenants: a.tenants
      .map((name) => tenantByName(state, name))
      .filter((t): t is EmbedTenantRec => !!t)
      .map((t) => ({ embedTenantName: t.name, action: 'read', groupId: ALL_EMBED_USERS_GROUP_ID + t.id })),
  };
}
