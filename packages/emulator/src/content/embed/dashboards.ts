/** Embedding of a workbook, embeddable dashboards, python runs on report snapshots, and comment threads. */
import { HttpError, requireDeployment, type Ctx, type HandlerTable } from '../../context.js';
import { cursorPaginate, type CursorQuery } from '../../paging.js';
import { findRecord, nextId, putRecord, records } from '../../state.js';
import { byId, tooLong } from '../fields.js';
import type { CommentRec } from '../models.js';
import { dashboardOf, dashboardOut, embedAccessOf, ownDashboard, workbookIn } from '../workspace/records.js';
import { dashboardByPublicId, embedAccessOut, tenantOrThrow } from './records.js';

function commentOut(ctx: Ctx, c: CommentRec) {
  return {
    id: c.id,
    body: c.removedAt ? '' : c.body,
    dashboardId: c.publicId,
    isOwn: c.userId === ctx.principal.user.id,
    createdAt: c.createdAt,
    editedAt: c.editedAt,
    removedAt: c.removedAt,
    userId: c.userId,
    parentId: c.parentId,
  };
}

function threadOut(ctx: Ctx, root: CommentRec) {
  const replies = records(ctx.state, 'dashboardComments')
    .filter((c) => c.parentId === root.id)
    .sort(byId);
  return { root: commentOut(ctx, root), replies: replies.map((r) => commentOut(ctx, r)), resolvedAt: root.resolvedAt, resolvedBy: root.resolvedBy };
}

function commentIn(ctx: Ctx): CommentRec {
  const publicId = String(ctx.params.publicId);
  dashboardByPublicId(ctx, publicId);
  const id = ctx.params.commentId as number;
  const c = findRecord(ctx.state, 'dashboardComments', id);
  if (!c || c.publicId !== publicId || c.removedAt) throw new HttpError(404, `comment ${id} not found on dashboard ${JSON.stringify(publicId)}`);
  return c;
}

function requireAuthor(ctx: Ctx, c: CommentRec): void {
  if (c.userId !== ctx.principal.user.id) throw new HttpError(403, `comment ${c.id} belongs to another user (author only)`);
}

export const embedDashboardHandlers: HandlerTable = {
  getEmbedAccess(ctx) {
    const d = requireDeployment(ctx);
    return embedAccessOut(ctx.state, workbookIn(ctx.state, d, ctx.params.workbookId as number));
  },

  updateEmbedAccess(ctx) {
    const d = requireDeployment(ctx);
    const wb = workbookIn(ctx.state, d, ctx.params.workbookId as number);
    const body = ctx.body as { embedTenantName?: string | null; allEmbedUsers?: boolean | null; action?: 'read' | 'none' | null; allowEmbed?: boolean | null };
    const tenant = body.embedTenantName ? tenantOrThrow(ctx.state, body.embedTenantName) : undefined;
    const dash = dashboardOf(wb);
    if (body.allowEmbed != null && !dash) throw new HttpError(400, `body.allowEmbed: workbook ${wb.id} has no published dashboard`);
    const access = structuredClone(embedAccessOf(ctx.state, wb.id));
    if (tenant) {
      access.tenants = access.tenants.filter((n) => n !== tenant.name);
      if (body.action === 'read') access.tenants.push(tenant.name);
    }
    if (body.allEmbedUsers === true) access.allEmbedUsers = body.action === 'read';
    if (tenant || body.allEmbedUsers === true) putRecord(ctx.state, 'embedAccess', wb.id, access);
    if (body.allowEmbed != null && dash) ownDashboard(wb, dash).allowEmbed = body.allowEmbed;
    return embedAccessOut(ctx.state, wb);
  },

  getDashboard(ctx) {
    const { wb, dash } = dashboardByPublicId(ctx, String(ctx.params.publicId));
    return dashboardOut(wb, dash);
  },

  updateDashboardEmbedding(ctx) {
    const { wb, dash } = dashboardByPublicId(ctx, String(ctx.params.publicId));
    const body = ctx.body as { allowEmbed: boolean };
    const own = ownDashboard(wb, dash);
    own.allowEmbed = body.allowEmbed;
    return { publicId: own.publicId, allowEmbed: own.allowEmbed };
  },

  postDashboardPythonRun(ctx) {
    const { dash } = dashboardByPublicId(ctx, String(ctx.params.publicId));
    const body = ctx.body as { reportId: number; reportVersionId: number; sqlQuery: string };
    const snap = dash.reportSnapshots.find((s) => s.reportVersionId === body.reportVersionId);
    if (!snap || snap.reportId !== body.reportId) {
      throw new HttpError(
        403,
        `reportVersionId ${body.reportVersionId} is not a published snapshot of report ${body.reportId} on dashboard ${JSON.stringify(dash.publicId)}`,
      );
    }
    const statements = body.sqlQuery.split(';').filter((s) => s.trim()).length;
    return {
      at: ctx.clock.iso(),
      inputRowCount: 0,
      stdout: `analysis of report ${body.reportId} (version ${body.reportVersionId}) over ${statements} statement(s): 0 rows\n`,
      stderr: '',
      executionError: null,
      outputData: null,
    };
  },

  listDashboardComments(ctx) {
    const publicId = String(ctx.params.publicId);
    dashboardByPublicId(ctx, publicId);
    const q = ctx.query as CursorQuery & { includeResolved?: boolean; resolvedOnly?: boolean };
    const roots = records(ctx.state, 'dashboardComments')
      .filter((c) => c.publicId === publicId && c.parentId === null && !c.removedAt)
      .filter((c) => (q.resolvedOnly ? c.resolvedAt !== null : q.includeResolved ? true : c.resolvedAt === null))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id);
    return cursorPaginate(
      roots.map((r) => threadOut(ctx, r)),
      q,
    );
  },

  createDashboardComment(ctx) {
    const publicId = String(ctx.params.publicId);
    dashboardByPublicId(ctx, publicId);
    const body = ctx.body as { body: string; parentId?: number | null };
    tooLong(body.body, 10_000, 'body.body');
    if (body.parentId != null) {
      const parent = findRecord(ctx.state, 'dashboardComments', body.parentId);
      if (!parent || parent.publicId !== publicId || parent.removedAt)
        throw new HttpError(404, `body.parentId: comment ${body.parentId} not found on dashboard ${JSON.stringify(publicId)}`);
      if (parent.parentId !== null) throw new HttpError(400, `body.parentId: comment ${parent.id} is a reply; reply to its thread root ${parent.parentId}`);
    }
    const c: CommentRec = {
      id: nextId(ctx.state, 'dashboardComment'),
      publicId,
      userId: ctx.principal.user.id,
      body: body.body,
      parentId: body.parentId ?? null,
      createdAt: ctx.clock.iso(),
      editedAt: null,
      removedAt: null,
      resolvedAt: null,
      resolvedBy: null,
    };
    putRecord(ctx.state, 'dashboardComments', c.id, c);
    return commentOut(ctx, c);
  },

  listMentionableEmbedUsers(ctx) {
    const { wb } = dashboardByPublicId(ctx, String(ctx.params.publicId));
    const q = ctx.query as CursorQuery & { search?: string };
    // An API key names no embed tenant: its "fellow" users are those of the tenants the dashboard is shared with.
    const access = embedAccessOf(ctx.state, wb.id);
    const s = q.search?.trim().toLowerCase();
    const list = records(ctx.state, 'embedUsers')
      .filter((u) => access.allEmbedUsers || access.tenants.includes(u.tenant))
      .filter((u) => !s || u.externalId.includes(s) || u.email.includes(s))
      .sort((a, b) => a.externalId.localeCompare(b.externalId) || a.id - b.id)
      .map((u) => ({ id: u.id, username: u.externalId, email: u.email, firstName: u.displayName }));
    return cursorPaginate(list, q);
  },

  updateDashboardComment(ctx) {
    const c = commentIn(ctx);
    requireAuthor(ctx, c);
    const body = ctx.body as { body: string };
    tooLong(body.body, 10_000, 'body.body');
    c.body = body.body;
    c.editedAt = ctx.clock.iso();
    return commentOut(ctx, c);
  },

  removeDashboardComment(ctx) {
    const c = commentIn(ctx);
    requireAuthor(ctx, c);
    const now = ctx.clock.iso();
    c.removedAt = now;
    // Deleting a thread root takes its replies with it.
    if (c.parentId === null) {
      for (const r of records(ctx.state, 'dashboardComments')) if (r.parentId === c.id && !r.removedAt) r.removedAt = now;
    }
    return { success: true };
  },

  setDashboardCommentResolved(ctx) {
    const c = commentIn(ctx);
    if (c.parentId !== null) throw new HttpError(400, `comment ${c.id} is a reply: only a thread root can be resolved`);
    requireAuthor(ctx, c);
    const body = ctx.body as { resolved: boolean };
    if (body.resolved && c.resolvedAt === null) {
      c.resolvedAt = ctx.clock.iso();
      c.resolvedBy = ctx.principal.user.id;
    } else if (!body.resolved) {
      c.resolvedAt = null;
      c.resolvedBy = null;
    }
    return threadOut(ctx, c);
  },
};
