/** Workbooks and their published dashboards: create, upsert by slug, duplicate, publish. */
import { HttpError, requireDeployment, type Ctx, type HandlerTable } from '../../context.js';
import type { DeploymentRec } from '../../deployments/models.js';
import type { JsonObject } from '../../json.js';
import { cursorPageWithData, type CursorQuery } from '../../paging.js';
import { allocId, nextId, putRecord } from '../../state.js';
import { base62, tooLong } from '../fields.js';
import type { DashboardRec, ReportRec, WorkbookRec } from '../models.js';
import { deleteItem } from './items.js';
import { dashboardOf, dashboardOut, folderIn, ownDashboard, reportsOf, workbookIn, workbookOut, workbooksOf } from './records.js';

/** The fields of a workbook a create, upsert or update may set. */
interface WorkbookInput {
  name?: string | null;
  folderId?: number | null;
  meta?: JsonObject | null;
}

function checkWorkbookInput(ctx: Ctx, d: DeploymentRec, body: WorkbookInput): void {
  tooLong(body.name, 255, 'body.name');
  if (typeof body.folderId === 'number') folderIn(ctx.state, d, body.folderId, 'body.folderId');
}

/** A new workbook of the caller, with its id drawn (the caller stores it). */
function newWorkbook(ctx: Ctx, d: DeploymentRec, fields: Required<Pick<WorkbookRec, 'name' | 'slug' | 'folderId' | 'meta' | 'dashboardDraft'>>): WorkbookRec {
  const now = ctx.clock.iso();
  return {
    id: allocId(ctx.state, 'workbooks', 'workbook'),
    deploymentId: d.id,
    name: fields.name,
    slug: fields.slug,
    folderId: fields.folderId,
    meta: fields.meta,
    createdAt: now,
    updatedAt: now,
    createdBy: ctx.principal.user.id,
    dashboardDraft: fields.dashboardDraft,
    dashboard: null,
  };
}

function normalizeSlug(raw: string): string {
  const slug = raw.trim().toLowerCase();
  if (!/^[a-z0-9][a-z0-9._-]{0,127}$/.test(slug)) {
    throw new HttpError(400, `slug: got ${JSON.stringify(raw)}, expected letters, digits, ".", "_" and "-" (at most 128; trimmed and lowercased)`);
  }
  return slug;
}

export const workbookHandlers: HandlerTable = {
  getWorkbooks(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as CursorQuery & { folderId?: number };
    let list = workbooksOf(ctx.state, d);
    if (q.folderId !== undefined) {
      const folderId = q.folderId === 0 ? null : folderIn(ctx.state, d, q.folderId, 'query.folderId').id;
      list = list.filter((w) => (w.folderId ?? null) === folderId);
    }
    return cursorPageWithData(list.map(workbookOut), q);
  },

  createWorkbook(ctx) {
    const d = requireDeployment(ctx);
    const body = (ctx.body ?? {}) as WorkbookInput;
    checkWorkbookInput(ctx, d, body);
    const wb = newWorkbook(ctx, d, {
      name: body.name ?? 'Untitled workbook',
      slug: null,
      folderId: body.folderId ?? null,
      meta: body.meta ?? null,
      dashboardDraft: null,
    });
    putRecord(ctx.state, 'workbooks', wb.id, wb);
    return workbookOut(wb);
  },

  upsertWorkbookBySlug(ctx) {
    const d = requireDeployment(ctx);
    const slug = normalizeSlug(String(ctx.params.slug));
    const body = (ctx.body ?? {}) as WorkbookInput;
    checkWorkbookInput(ctx, d, body);
    const existing = workbooksOf(ctx.state, d).find((w) => w.slug === slug);
    if (existing) {
      const before = JSON.stringify(existing);
      if (body.name != null) existing.name = body.name;
      if (body.folderId !== undefined) existing.folderId = body.folderId;
      if (body.meta) existing.meta = { ...(existing.meta ?? {}), ...body.meta };
      if (JSON.stringify(existing) !== before) existing.updatedAt = ctx.clock.iso();
      return { ...workbookOut(existing), created: false };
    }
    const wb = newWorkbook(ctx, d, { name: body.name ?? slug, slug, folderId: body.folderId ?? null, meta: body.meta ?? null, dashboardDraft: null });
    putRecord(ctx.state, 'workbooks', wb.id, wb);
    return { ...workbookOut(wb), created: true };
  },

  getWorkbook(ctx) {
    const d = requireDeployment(ctx);
    return workbookOut(workbookIn(ctx.state, d, ctx.params.workbookId as number));
  },

  updateWorkbook(ctx) {
    const d = requireDeployment(ctx);
    const wb = workbookIn(ctx.state, d, ctx.params.workbookId as number);
    const body = ctx.body as WorkbookInput & { slug?: string | null; slugTakeover?: boolean | null };
    checkWorkbookInput(ctx, d, body);
    const slug = body.slug != null ? normalizeSlug(body.slug) : undefined;
    const holder = slug ? workbooksOf(ctx.state, d).find((w) => w.slug === slug && w.id !== wb.id) : undefined;
    if (holder && !body.slugTakeover) {
      throw new HttpError(409, `slug ${JSON.stringify(slug)} is held by workbook ${holder.id} (send slugTakeover: true to move it)`);
    }
    const before = JSON.stringify(wb);
    if (holder) holder.slug = null;
    if (body.name != null) wb.name = body.name;
    if (body.folderId !== undefined) wb.folderId = body.folderId;
    if (body.meta !== undefined) wb.meta = body.meta;
    if (body.slug !== undefined) wb.slug = slug ?? null;
    if (JSON.stringify(wb) !== before) wb.updatedAt = ctx.clock.iso();
    return workbookOut(wb);
  },

  deleteWorkbook(ctx) {
    const d = requireDeployment(ctx);
    deleteItem(ctx, d, 'WORKBOOK', ctx.params.workbookId as number);
    return { success: true };
  },

  updateWorkbookDashboard(ctx) {
    const d = requireDeployment(ctx);
    const wb = workbookIn(ctx.state, d, ctx.params.workbookId as number);
    const body = ctx.body as { dashboardDraft?: JsonObject | null };
    if (body.dashboardDraft !== undefined) {
      wb.dashboardDraft = body.dashboardDraft;
      wb.updatedAt = ctx.clock.iso();
    }
    return { dashboardDraft: wb.dashboardDraft ?? null, dashboardPublished: dashboardOf(wb)?.config ?? null };
  },

  updatePublishedDashboardAiWidgetThread(ctx) {
    const d = requireDeployment(ctx);
    const wb = workbookIn(ctx.state, d, ctx.params.workbookId as number);
    const dash = dashboardOf(wb);
    if (!dash) throw new HttpError(404, `workbook ${wb.id} has no published dashboard`);
    const body = ctx.body as { widgetId: string; threadId: string; checksum?: string | null };
    const own = ownDashboard(wb, dash);
    own.aiWidgetThreads[body.widgetId] = { threadId: body.threadId, checksum: body.checksum ?? null };
    return dashboardOut(wb, own);
  },

  duplicateWorkbook(ctx) {
    const d = requireDeployment(ctx);
    const src = workbookIn(ctx.state, d, ctx.params.workbookId as number);
    const body = (ctx.body ?? {}) as { shared?: boolean | null };
    if (body.shared) {
      if (!dashboardOf(src)) throw new HttpError(400, `workbook ${src.id} has no published dashboard to clone from the shared workspace`);
      throw new HttpError(403, 'cloning from the shared workspace needs a creator-mode embed session');
    }
    const { state } = ctx;
    const copy = newWorkbook(ctx, d, {
      name: `Copy of ${src.name}`,
      slug: null,
      folderId: src.folderId ?? null,
      meta: src.meta ? structuredClone(src.meta) : null,
      dashboardDraft: src.dashboardDraft ? structuredClone(src.dashboardDraft) : null,
    });
    const { id, createdAt: now } = copy;
    const srcDash = dashboardOf(src);
    const reportMap = new Map<number, number>();
    for (const r of reportsOf(state, d).filter((x) => x.workbookId === src.id)) {
      const rid = allocId(state, 'reports', 'report');
      reportMap.set(r.id, rid);
      putRecord(state, 'reports', rid, {
        ...structuredClone(r),
        id: rid,
        workbookId: id,
        publicId: base62(12),
        placements: [],
        createdAt: now,
        updatedAt: now,
        createdBy: ctx.principal.user.id,
      } satisfies ReportRec);
    }
    if (srcDash) {
      copy.dashboard = {
        ...structuredClone(srcDash),
        id,
        publicId: `db${base62(10)}`,
        allowEmbed: false,
        publishedAt: now,
        reportSnapshots: srcDash.reportSnapshots
          .filter((s) => reportMap.has(s.reportId))
          .map((s) => ({ reportId: reportMap.get(s.reportId) as number, reportVersionId: nextId(state, 'reportVersion') })),
      };
      copy.publicId = copy.dashboard.publicId;
    }
    putRecord(state, 'workbooks', id, copy);
    return workbookOut(copy);
  },

  publishDashboard(ctx) {
    const d = requireDeployment(ctx);
    const wb = workbookIn(ctx.state, d, ctx.params.workbookId as number);
    const body = ctx.body as {
      workbookId: number;
      dashboardId?: number | null;
      title?: string | null;
      description?: string | null;
      allowEmbed?: boolean | null;
      config?: JsonObject | null;
    };
    if (body.workbookId !== wb.id) throw new HttpError(400, `body.workbookId: got ${body.workbookId}, expected ${wb.id} (the workbook of the path)`);
    const current = dashboardOf(wb);
    if (body.dashboardId != null && current && body.dashboardId !== current.id) {
      throw new HttpError(400, `body.dashboardId: got ${body.dashboardId}, expected ${current.id} (the workbook's dashboard)`);
    }
    const { state } = ctx;
    const dash: DashboardRec = {
      id: current?.id ?? wb.id,
      publicId: current?.publicId ?? `db${base62(10)}`,
      allowEmbed: body.allowEmbed ?? current?.allowEmbed ?? false,
      title: body.title ?? current?.title ?? wb.name,
      description: body.description ?? current?.description ?? null,
      config: body.config ?? wb.dashboardDraft ?? current?.config ?? {},
      publishedAt: ctx.clock.iso(),
      aiWidgetThreads: current?.aiWidgetThreads ?? {},
      reportSnapshots: reportsOf(state, d)
        .filter((r) => r.workbookId === wb.id)
        .map((r) => ({ reportId: r.id, reportVersionId: nextId(state, 'reportVersion') })),
    };
    wb.dashboard = dash;
    wb.publicId = dash.publicId;
    wb.updatedAt = ctx.clock.iso();
    return dashboardOut(wb, dash);
  },
};
