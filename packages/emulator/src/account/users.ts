/** Users, their settings and groups (spec 4.14, 4.15). */
import { HttpError, type HandlerTable } from '../context.js';
import type { JsonObject } from '../json.js';
import { cursorPaginate, type CursorQuery } from '../paging.js';
import { deleteRecord, nextId, records, type State } from '../state.js';
import { ALL_PERMISSIONS, attributeValueKey, type PolicyRec, type UserRec } from './models.js';
import { recipientType } from './notifications.js';
import { given, recordAudit, requireUser, userById } from './records.js';
import { copyPolicy } from './roles.js';

/** Effective policies: the admin role or the direct permissions, plus the custom roles assigned. */
function policiesOf(state: State, u: UserRec) {
  const out: PolicyRec[] = [];
  if (u.isAdmin) out.push({ resourceType: 'Global', actions: ['All'], resources: ['*'] });
  else if (u.permissions.length) out.push({ resourceType: 'Deployment', actions: [...u.permissions], resources: ['*'] });
  for (const r of records(state, 'roles').sort((a, b) => a.id - b.id)) {
    if (r.userIds.includes(u.id)) out.push(...r.policies.map(copyPolicy));
  }
  return out;
}

function userOut(u: UserRec) {
  return {
    id: u.id,
    email: u.email,
    username: u.username,
    isAdmin: u.isAdmin,
    firstName: u.firstName,
    lastName: u.lastName,
    isDeactivated: !u.active,
    createdAt: u.createdAt,
    permissions: u.isAdmin ? [...ALL_PERMISSIONS] : [...u.permissions],
    groupIds: [...u.groupIds],
    settings: u.settings,
    ...(u.title !== undefined ? { title: u.title } : {}),
    ...(u.externalId !== undefined ? { externalId: u.externalId } : {}),
    ...(u.notifications !== undefined ? { notifications: u.notifications } : {}),
  };
}

function searchable(search: string | undefined): ((...fields: (string | undefined)[]) => boolean) | undefined {
  const s = search?.trim().toLowerCase();
  if (!s) return undefined;
  return (...fields) => fields.some((f) => f?.toLowerCase().includes(s));
}

/** Why `actor` may not deactivate or delete `target`, as the single-user answer (status, message). */
function selfGuard(actor: UserRec, target: UserRec, verb: 'deactivate' | 'delete'): { status: number; message: string } | undefined {
  if (actor.id === target.id) return { status: 400, message: `you cannot ${verb} your own user (${target.email})` };
  return undefined;
}

/** Remove a user and everything that points at it. */
function deleteUserRecord(state: State, id: number): void {
  state.users = state.users.filter((u) => u.id !== id);
  state.apiKeys = state.apiKeys.filter((k) => k.userId !== id);
  for (const r of records(state, 'roles')) r.userIds = r.userIds.filter((x) => x !== id);
  for (const v of records(state, 'userAttributeValues'))
    if (v.userId === id) deleteRecord(state, 'userAttributeValues', attributeValueKey(v.userId, v.userAttributeId));
  for (const n of records(state, 'notifications')) n.recipients = n.recipients.filter((r) => !(recipientType(r) === 'USER' && r.userId === id));
  deleteRecord(state, 'usageAnalyticsTokens', id);
}

/** Apply a merge patch to settings: null deletes, objects merge one level down for `sheets`. */
function mergeSettings(settings: JsonObject, patch: JsonObject): JsonObject {
  const out: JsonObject = { ...settings };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined || k === 'lastSeenChangelogId') continue;
    if (v === null) {
      delete out[k];
    } else if (k === 'sheets' && typeof v === 'object' && !Array.isArray(v)) {
      const sheets: JsonObject = { ...((out.sheets as JsonObject | undefined) ?? {}) };
      for (const [sk, sv] of Object.entries(v as JsonObject)) {
        if (sv === undefined) continue;
        if (sv === null) delete sheets[sk];
        else sheets[sk] = sv;
      }
      out.sheets = sheets;
    } else {
      out[k] = v;
    }
  }
  return out;
}

export const userHandlers: HandlerTable = {
  getCurrentUser(ctx) {
    const u = ctx.principal.user;
    return { ...userOut(u), userPolicies: policiesOf(ctx.state, u) };
  },

  updateMySettings(ctx) {
    const u = ctx.principal.user;
    const body = ctx.body as JsonObject & { defaultDeploymentId?: number | null };
    if (given(body.defaultDeploymentId)) {
      const id = body.defaultDeploymentId;
      const scope = ctx.principal.key.deploymentIds;
      if (!ctx.state.deployments.some((d) => d.id === id) || (scope && !scope.includes(id))) {
        throw new HttpError(400, `body.defaultDeploymentId: got ${id}, expected the id of a deployment you can access`);
      }
    }
    u.settings = mergeSettings(u.settings ?? {}, body);
    return userOut(u);
  },

  listUsers(ctx) {
    const q = ctx.query as CursorQuery & { search?: string };
    const match = searchable(q.search);
    const rows = [...ctx.state.users].sort((a, b) => a.id - b.id).filter((u) => !match || match(u.firstName, u.username, u.email));
    return cursorPaginate(rows.map(userOut), q);
  },

  listGroups(ctx) {
    const q = ctx.query as CursorQuery & { search?: string };
    const match = searchable(q.search);
    const rows = [...ctx.state.groups].sort((a, b) => a.id - b.id).filter((g) => !match || match(g.name));
    return cursorPaginate(
      rows.map((g) => ({
        id: g.id,
        name: g.name,
        description: g.description ?? null,
        userCount: ctx.state.users.filter((u) => u.groupIds.includes(g.id)).length,
      })),
      q,
    );
  },

  createUser(ctx) {
    const body = ctx.body as {
      email: string;
      username: string;
      firstName?: string | null;
      isAdmin?: boolean | null;
      externalId?: string | null;
      defaultRoles?: string[] | null;
      settings?: JsonObject | null;
    };
    const email = body.email.trim();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new HttpError(400, `body.email: got ${JSON.stringify(body.email)}, expected an e-mail address`);
    if (ctx.state.users.some((u) => u.email.toLowerCase() === email.toLowerCase())) {
      throw new HttpError(409, `a user with e-mail ${JSON.stringify(email)} already exists`);
    }
    if (ctx.state.users.some((u) => u.username.toLowerCase() === body.username.toLowerCase())) {
      throw new HttpError(409, `a user with username ${JSON.stringify(body.username)} already exists`);
    }
    const assigned = (body.defaultRoles ?? []).map((name, i) => {
      const r = records(ctx.state, 'roles').find((x) => x.name === name);
      if (!r) throw new HttpError(400, `body.defaultRoles[${i}]: got ${JSON.stringify(name)}, expected the name of an existing role`);
      return r;
    });
    const isAdmin = body.isAdmin ?? false;
    const u: UserRec = {
      id: nextId(ctx.state, 'user'),
      email,
      username: body.username,
      firstName: body.firstName ?? '',
      lastName: '',
      isAdmin,
      permissions: isAdmin ? [...ALL_PERMISSIONS] : [],
      active: true,
      createdAt: ctx.clock.iso(),
      groupIds: [],
      settings: body.settings ?? {},
    };
    if (given(body.externalId)) u.externalId = body.externalId;
    ctx.state.users.push(u);
    for (const r of assigned) if (!r.userIds.includes(u.id)) r.userIds.push(u.id);
    recordAudit(ctx, 'user.created', { userId: u.id, email: u.email, firstName: u.firstName });
    return userOut(u);
  },

  updateUser(ctx) {
    const u = requireUser(ctx.state, ctx.params.id as number);
    const body = ctx.body as {
      firstName?: string | null;
      title?: string | null;
      isAdmin?: boolean | null;
      isDeactivated?: boolean | null;
      notifications?: string[] | null;
      settings?: JsonObject | null;
    };
    if (body.isDeactivated === true) {
      const no = selfGuard(ctx.principal.user, u, 'deactivate');
      if (no) throw new HttpError(no.status, no.message);
    }
    if (body.firstName !== undefined) u.firstName = body.firstName ?? '';
    if (body.title !== undefined) {
      if (body.title === null) delete u.title;
      else u.title = body.title;
    }
    if (given(body.isAdmin)) u.isAdmin = body.isAdmin;
    if (given(body.isDeactivated)) u.active = !body.isDeactivated;
    if (body.notifications !== undefined) {
      if (body.notifications === null) delete u.notifications;
      else u.notifications = body.notifications;
    }
    if (body.settings !== undefined) u.settings = body.settings ?? {};
    u.updatedAt = ctx.clock.iso();
    recordAudit(ctx, 'user.updated', { userId: u.id, email: u.email });
    return userOut(u);
  },

  deleteUser(ctx) {
    const u = requireUser(ctx.state, ctx.params.id as number);
    const no = selfGuard(ctx.principal.user, u, 'delete');
    if (no) throw new HttpError(no.status, no.message);
    deleteUserRecord(ctx.state, u.id);
    recordAudit(ctx, 'user.deleted', { userId: u.id, email: u.email });
    return { id: u.id, deleted: true };
  },

  bulkUserAction(ctx) {
    const body = ctx.body as { action: 'DEACTIVATE' | 'ACTIVATE' | 'DELETE'; userIds: number[] };
    const succeeded: number[] = [];
    const failed: { userId: number; error: { status: number; message: string } }[] = [];
    for (const id of [...new Set(body.userIds)]) {
      const u = userById(ctx.state, id);
      if (!u) {
        failed.push({ userId: id, error: { status: 404, message: `user ${id} not found` } });
        continue;
      }
      const no = body.action === 'ACTIVATE' ? undefined : selfGuard(ctx.principal.user, u, body.action === 'DELETE' ? 'delete' : 'deactivate');
      if (no) {
        failed.push({ userId: id, error: no });
        continue;
      }
      if (body.action === 'DELETE') deleteUserRecord(ctx.state, id);
      else u.active = body.action === 'ACTIVATE';
      succeeded.push(id);
    }
    if (succeeded.length) recordAudit(ctx, 'users.bulk_action', { action: body.action, userIds: succeeded });
    return { action: body.action, succeeded, failed };
  },
};
