/** Embed tenants, their users (provisioned by external id) and their groups with members. */
import { HttpError, reply, settleEach, type HandlerTable } from '../../context.js';
import { cursorPaginate, type CursorQuery } from '../../paging.js';
import { deleteRecord, findRecord, nextId, records } from '../../state.js';
import { tooLong } from '../fields.js';
import type { EmbedUserRec } from '../models.js';
import {
  addEmbedGroup,
  canonicalTenant,
  embedUserOut,
  groupIn,
  groupOut,
  groupsOf,
  normalizeExternalId,
  provisionOne,
  tenantByName,
  tenantOrThrow,
  tenantOut,
  usersOf,
  type ProvisionInput,
} from './records.js';

export const embedTenantHandlers: HandlerTable = {
  listEmbedTenants(ctx) {
    const q = ctx.query as CursorQuery & { search?: string };
    const s = q.search?.toLowerCase();
    const list = records(ctx.state, 'embedTenants')
      .filter((t) => !s || t.name.includes(s))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((t) => tenantOut(ctx.state, t));
    return cursorPaginate(list, q);
  },

  deleteEmbedTenant(ctx) {
    const raw = String(ctx.params.embedTenantName);
    if (raw !== raw.trim().toLowerCase()) {
      throw new HttpError(400, `embedTenantName: got ${JSON.stringify(raw)}, expected the canonical lowercase name (delete does not lowercase it)`);
    }
    const name = canonicalTenant(raw);
    const t = tenantByName(ctx.state, name);
    if (!t) return reply({ status: 204 });
    const { state } = ctx;
    for (const u of usersOf(state, name)) deleteRecord(state, 'embedUsers', u.id);
    for (const g of groupsOf(state, name)) deleteRecord(state, 'embedGroups', g.id);
    for (const s of records(state, 'embedSessions')) if (s.tenant === name) deleteRecord(state, 'embedSessions', s.sessionId);
    for (const a of records(state, 'embedAccess')) if (a.tenants.includes(name)) a.tenants = a.tenants.filter((x) => x !== name);
    deleteRecord(state, 'embedTenants', t.id);
    return reply({ status: 204 });
  },

  listEmbedUsers(ctx) {
    const t = tenantOrThrow(ctx.state, String(ctx.params.embedTenantName));
    const q = ctx.query as CursorQuery & { search?: string };
    const s = q.search?.trim().toLowerCase();
    const list = usersOf(ctx.state, t.name)
      .filter((u) => !s || u.email.includes(s) || u.externalId.includes(s))
      .sort((a, b) => a.email.localeCompare(b.email) || a.id - b.id)
      .map(embedUserOut);
    return cursorPaginate(list, q);
  },

  provisionEmbedUser(ctx) {
    const tenant = canonicalTenant(String(ctx.params.embedTenantName));
    return embedUserOut(provisionOne(ctx, tenant, ctx.body as ProvisionInput));
  },

  provisionEmbedUsers(ctx) {
    const tenant = canonicalTenant(String(ctx.params.embedTenantName));
    const body = ctx.body as { users: ProvisionInput[] };
    const { succeeded, failed } = settleEach(body.users, (u, i) => embedUserOut(provisionOne(ctx, tenant, u, `body.users[${i}]`)));
    return {
      succeeded: succeeded.map(({ result }) => result),
      failed: failed.map(({ item, error }) => ({ externalId: item.externalId.trim().toLowerCase(), error })),
    };
  },

  getGroups(ctx) {
    const t = tenantOrThrow(ctx.state, String(ctx.params.embedTenantName));
    const list = groupsOf(ctx.state, t.name)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id)
      .map(groupOut);
    return cursorPaginate(list, ctx.query as CursorQuery);
  },

  createGroup(ctx) {
    const t = tenantOrThrow(ctx.state, String(ctx.params.embedTenantName));
    const body = ctx.body as { name: string; description?: string | null };
    tooLong(body.name, 100, 'body.name');
    tooLong(body.description, 500, 'body.description');
    // The vendor answers 400 (not 409) for a name already taken in the tenant.
    if (groupsOf(ctx.state, t.name).some((g) => g.name === body.name)) {
      throw new HttpError(400, `body.name: a group named ${JSON.stringify(body.name)} already exists in embed tenant ${JSON.stringify(t.name)}`);
    }
    return groupOut(addEmbedGroup(ctx, t.name, body.name, body.description));
  },

  getGroup(ctx) {
    return groupOut(groupIn(ctx).group);
  },

  updateGroup(ctx) {
    const { group } = groupIn(ctx);
    const body = ctx.body as { description?: string | null; name?: unknown };
    if (body.name !== undefined && body.name !== group.name) {
      throw new HttpError(
        400,
        `body.name: a group's name is immutable (got ${JSON.stringify(body.name)}, the group is ${JSON.stringify(group.name)}): create a new group instead`,
      );
    }
    tooLong(body.description, 500, 'body.description');
    if (body.description !== undefined) group.description = body.description || null;
    return groupOut(group);
  },

  deleteGroup(ctx) {
    const { group } = groupIn(ctx);
    if (group.members.length) throw new HttpError(400, `group ${group.id} still has ${group.members.length} member(s): remove them first`);
    deleteRecord(ctx.state, 'embedGroups', group.id);
    return reply({ status: 204 });
  },

  getGroupMembers(ctx) {
    const { group } = groupIn(ctx);
    const list = [...group.members]
      .sort((a, b) => b.seq - a.seq)
      .map((m) => findRecord(ctx.state, 'embedUsers', m.userId))
      .filter((u): u is EmbedUserRec => !!u)
      .map(embedUserOut);
    return cursorPaginate(list, ctx.query as CursorQuery);
  },

  addGroupMembers(ctx) {
    const { tenant, group } = groupIn(ctx);
    const body = ctx.body as { members: { externalId?: string | null; embedUserId?: number | null }[] };
    const users = usersOf(ctx.state, tenant.name);
    // Resolve everything first: an unknown embedUserId is a 404 and changes nothing.
    const resolved = body.members.map((m, i) => {
      if (m.embedUserId != null) {
        const u = users.find((x) => x.id === m.embedUserId);
        if (!u)
          throw new HttpError(404, `body.members[${i}].embedUserId: embed user ${m.embedUserId} not found in embed tenant ${JSON.stringify(tenant.name)}`);
        return { user: u, externalId: u.externalId };
      }
      const externalId = normalizeExternalId(m.externalId as string, `body.members[${i}].externalId`);
      return { user: users.find((x) => x.externalId === externalId), externalId };
    });
    const added: EmbedUserRec[] = [];
    const unchanged: EmbedUserRec[] = [];
    for (const r of resolved) {
      // An external id that never signed in is provisioned.
      const u =
        r.user ?? usersOf(ctx.state, tenant.name).find((x) => x.externalId === r.externalId) ?? provisionOne(ctx, tenant.name, { externalId: r.externalId });
      if (group.members.some((m) => m.userId === u.id)) unchanged.push(u);
      else {
        group.members.push({ userId: u.id, seq: nextId(ctx.state, 'embedMembership') });
        added.push(u);
      }
    }
    return { addedMembers: added.map(embedUserOut), unchangedMembers: unchanged.map(embedUserOut) };
  },

  removeGroupMembers(ctx) {
    const { tenant, group } = groupIn(ctx);
    const body = ctx.body as { members: { externalId?: string | null; embedUserId?: number | null }[] };
    const users = usersOf(ctx.state, tenant.name);
    const drop = new Set<number>();
    body.members.forEach((m, i) => {
      const u =
        m.embedUserId != null
          ? users.find((x) => x.id === m.embedUserId)
          : users.find((x) => x.externalId === normalizeExternalId(m.externalId as string, `body.members[${i}].externalId`));
      if (u) drop.add(u.id);
    });
    if (group.members.some((m) => drop.has(m.userId))) group.members = group.members.filter((m) => !drop.has(m.userId));
    return reply({ status: 204 });
  },
};
