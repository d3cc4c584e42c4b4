/** Lookups and orderings the account handlers share. */
import { HttpError, type Ctx } from '../context.js';
import type { JsonObject } from '../json.js';
import { nextId, type State } from '../state.js';
import type { UserRec } from './models.js';

/** Neither undefined nor null: the field was sent with a value. */
export const given = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;

/** Newest first: creation time descending, then id descending. */
export function newestFirst<T extends { createdAt: string; id: number }>(a: T, b: T): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return b.id - a.id;
}

export function userById(state: State, id: number): UserRec | undefined {
  return state.users.find((u) => u.id === id);
}

export function requireUser(state: State, id: number, input = 'user'): UserRec {
  const u = userById(state, id);
  if (!u) throw new HttpError(404, `${input}: user ${id} not found`);
  return u;
}

/** A numeric id sent as text (`"12"`), or a 400. */
export function numericId(v: string, input: string): number {
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new HttpError(400, `${input}: got ${JSON.stringify(v)}, expected a positive integer id`);
  return Number(v);
}

/** Record an audit event by the caller, when the audit log is on. */
export function recordAudit(ctx: Ctx, eventName: string, data: JsonObject): void {
  if (!ctx.state.tenant.auditLogEnabled) return;
  ctx.state.auditEvents.push({
    id: nextId(ctx.state, 'audit'),
    eventName,
    userEmail: ctx.principal.user.email,
    createdAt: ctx.clock.iso(),
    data,
  });
}
