/** Custom roles and who holds them (spec 4.15; admin only). */
import { HttpError, type HandlerTable } from '../context.js';
import { cursorPaginate, type CursorQuery } from '../paging.js';
import { deleteRecord, findRecord, nextId, putRecord, records, type State } from '../state.js';
import type { PolicyRec, RoleRec } from './models.js';
import { newestFirst, requireUser } from './records.js';

export function copyPolicy(p: PolicyRec): PolicyRec {
  return { resourceType: p.resourceType, actions: [...p.actions], resources: [...p.resources] };
}

function roleOut(r: RoleRec) {
  return { id: r.id, name: r.name, description: r.description, policies: r.policies, userIds: [...r.userIds] };
}

function requireRole(state: State, id: number): RoleRec {
  const r = findRecord(state, 'roles', id);
  if (!r) throw new HttpError(404, `role ${id} not found`);
  return r;
}

function roleNameFree(state: State, name: string, except?: number): void {
  const clash = records(state, 'roles').find((r) => r.id !== except && r.name.toLowerCase() === name.toLowerCase());
  if (clash) throw new HttpError(409, `a role named ${JSON.stringify(clash.name)} already exists (id ${clash.id})`);
}

export const roleHandlers: HandlerTable = {
  getRoles(ctx) {
    const q = ctx.query as CursorQuery;
    return cursorPaginate(records(ctx.state, 'roles').sort(newestFirst).map(roleOut), q);
  },

  createRole(ctx) {
    const body = ctx.body as { name: string; description?: string | null; policies: PolicyRec[] };
    roleNameFree(ctx.state, body.name);
    const r: RoleRec = {
      id: nextId(ctx.state, 'role'),
      name: body.name,
      description: body.description ?? null,
      policies: body.policies.map(copyPolicy),
      userIds: [],
      createdAt: ctx.clock.iso(),
    };
    putRecord(ctx.state, 'roles', r.id, r);
    return roleOut(r);
  },

  getRole(ctx) {
    return roleOut(requireRole(ctx.state, ctx.params.roleId as number));
  },

  updateRole(ctx) {
    const r = requireRole(ctx.state, ctx.params.roleId as number);
    const body = ctx.body as { name?: string; description?: string | null; policies?: PolicyRec[] };
    if (body.name !== undefined) roleNameFree(ctx.state, body.name, r.id);
    if (body.name !== undefined) r.name = body.name;
    if (body.description !== undefined) r.description = body.description ?? null;
    if (body.policies !== undefined) r.policies = body.policies.map(copyPolicy);
    return roleOut(r);
  },

  deleteRole(ctx) {
    const r = requireRole(ctx.state, ctx.params.roleId as number);
    deleteRecord(ctx.state, 'roles', r.id);
    return undefined;
  },

  assignRoleToUser(ctx) {
    const r = requireRole(ctx.state, ctx.params.roleId as number);
    const u = requireUser(ctx.state, ctx.params.userId as number);
    if (!r.userIds.includes(u.id)) r.userIds.push(u.id);
    return undefined;
  },

  removeRoleFromUser(ctx) {
    const r = requireRole(ctx.state, ctx.params.roleId as number);
    const u = requireUser(ctx.state, ctx.params.userId as number);
    r.userIds = r.userIds.filter((id) => id !== u.id);
    return undefined;
  },
};
