/** Reports and their placements in external spreadsheets: create, upsert by public id, connect, refresh. */
import { HttpError, requireDeployment, type Ctx, type HandlerTable } from '../../context.js';
import type { DeploymentRec } from '../../deployments/models.js';
import type { JsonObject } from '../../json.js';
import { cursorPageWithData, cursorPaginate, type CursorQuery } from '../../paging.js';
import { allocId, putRecord, records, type State } from '../../state.js';
import { base62, tooLong } from '../fields.js';
import type { PlacementRec, ReportRec } from '../models.js';
import { deleteItem } from './items.js';
import { addressGiven, findPlacement, newPlacement, parseResultLocation, type PlacementAddress } from './placements.js';
import { folderIn, reportIn, reportOut, reportsOf, workbookIn } from './records.js';

interface ReportInput {
  name?: string | null;
  title?: string | null;
  publicId?: string | null;
  workbookId?: number | null;
  folderId?: number | null;
  sqlQuery?: string | null;
  jsonQuery?: string | null;
  meta?: JsonObject | null;
  source?: string | null;
  host?: string | null;
  externalWorkbookId?: string | null;
  workbookName?: string | null;
  resultLocation?: string | null;
  resultChecksum?: unknown;
  placementId?: string | null;
}

function publicIdOwner(state: State, publicId: string): ReportRec | undefined {
  return records(state, 'reports').find((r) => r.publicId === publicId);
}

function checkReportRefs(state: State, d: DeploymentRec, body: ReportInput): void {
  tooLong(body.name ?? body.title, 255, 'body.name');
  if (typeof body.workbookId === 'number') workbookIn(state, d, body.workbookId, 'body.workbookId');
  if (typeof body.folderId === 'number') folderIn(state, d, body.folderId, 'body.folderId');
}

/** The new placement a create or update names by its spreadsheet fields, if it names one. */
function placementOfInput(ctx: Ctx, r: ReportRec, body: ReportInput): PlacementRec | undefined {
  if (!body.externalWorkbookId || !body.resultLocation) return undefined;
  return newPlacement(ctx, r, {
    externalWorkbookId: body.externalWorkbookId,
    resultLocation: body.resultLocation,
    host: body.host,
    workbookName: body.workbookName,
    resultChecksum: body.resultChecksum,
  });
}

function createReportRec(ctx: Ctx, d: DeploymentRec, body: ReportInput, publicId: string): ReportRec {
  const now = ctx.clock.iso();
  const id = allocId(ctx.state, 'reports', 'report');
  const r: ReportRec = {
    id,
    deploymentId: d.id,
    name: body.name ?? body.title ?? 'Untitled report',
    publicId,
    workbookId: body.workbookId ?? null,
    folderId: body.folderId ?? null,
    sqlQuery: body.sqlQuery ?? null,
    jsonQuery: body.jsonQuery ?? null,
    meta: body.meta ?? null,
    source: body.source ?? null,
    placements: [],
    createdAt: now,
    updatedAt: now,
    createdBy: ctx.principal.user.id,
    refreshedAt: null,
  };
  const placement = placementOfInput(ctx, r, body);
  if (placement) r.placements.push(placement);
  putRecord(ctx.state, 'reports', id, r);
  return r;
}

/** Checks of an update (same semantics for PUT /reports/{id} and the upsert's update path). */
function checkReportUpdate(state: State, d: DeploymentRec, r: ReportRec, body: ReportInput): void {
  checkReportRefs(state, d, body);
  if (body.publicId != null && body.publicId !== r.publicId) {
    throw new HttpError(
      400,
      `body.publicId: got ${JSON.stringify(body.publicId)}, but report ${r.id} already has publicId ${JSON.stringify(r.publicId)} (write-once)`,
    );
  }
  if (body.placementId && !r.placements.some((p) => p.id === body.placementId)) {
    throw new HttpError(404, `body.placementId: placement ${JSON.stringify(body.placementId)} not found on report ${r.id}`);
  }
}

/** Apply an update; returns whether anything changed. `source` is create-only. */
function applyReportUpdate(ctx: Ctx, r: ReportRec, body: ReportInput): boolean {
  const before = JSON.stringify(r);
  const name = body.name ?? body.title;
  if (name != null) r.name = name;
  if (body.workbookId !== undefined) r.workbookId = body.workbookId;
  if (body.folderId !== undefined) r.folderId = body.folderId;
  if (body.sqlQuery !== undefined) r.sqlQuery = body.sqlQuery;
  if (body.jsonQuery !== undefined) r.jsonQuery = body.jsonQuery;
  if (body.meta !== undefined) r.meta = body.meta;
  const placement = body.placementId
    ? r.placements.find((p) => p.id === body.placementId)
    : body.externalWorkbookId
      ? findPlacement(r, { externalWorkbookId: body.externalWorkbookId, resultLocation: body.resultLocation })
      : undefined;
  if (placement) {
    if (body.resultLocation) {
      placement.resultLocation = body.resultLocation;
      const parsed = parseResultLocation(body.resultLocation);
      if (parsed) Object.assign(placement, parsed);
    }
    if (body.host) placement.host = body.host;
    if (body.workbookName) placement.workbookName = body.workbookName;
    if (body.resultChecksum != null) placement.resultChecksum = body.resultChecksum;
  } else {
    const fresh = placementOfInput(ctx, r, body);
    if (fresh) r.placements.push(fresh);
  }
  const changed = JSON.stringify(r) !== before;
  if (changed) r.updatedAt = ctx.clock.iso();
  return changed;
}

export const reportHandlers: HandlerTable = {
  getReports(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as CursorQuery & {
      workbookId?: number;
      folderId?: number;
      externalWorkbookId?: string;
      search?: string;
      sortBy?: 'name' | 'createdAt' | 'updatedAt' | 'lastViewedAt';
      sortDirection?: 'ASC' | 'DESC';
      limit?: number;
      page?: number;
    };
    let list = reportsOf(ctx.state, d);
    if (q.workbookId !== undefined) list = list.filter((r) => r.workbookId === q.workbookId);
    if (q.folderId !== undefined) list = list.filter((r) => r.folderId === (q.folderId === 0 ? null : q.folderId));
    if (q.externalWorkbookId) list = list.filter((r) => r.placements.some((p) => p.externalWorkbookId === q.externalWorkbookId));
    if (q.search) {
      const s = q.search.toLowerCase();
      list = list.filter((r) => r.name.toLowerCase().includes(s));
    }
    const sortBy = q.sortBy ?? 'createdAt';
    const dir = (q.sortDirection ?? (sortBy === 'name' ? 'ASC' : 'DESC')) === 'ASC' ? 1 : -1;
    // No per-viewer history here: lastViewedAt falls back to updatedAt.
    const key = (r: ReportRec) => (sortBy === 'name' ? r.name.toLowerCase() : sortBy === 'createdAt' ? r.createdAt : r.updatedAt);
    list.sort((a, b) => dir * key(a).localeCompare(key(b)) || dir * (a.id - b.id));
    const items = list.map(reportOut);
    const legacy = (q.limit !== undefined || q.page !== undefined) && q.first === undefined && q.after === undefined;
    if (legacy) {
      const limit = q.limit ?? 20;
      return cursorPaginate(items, { first: limit, after: String(((q.page ?? 1) - 1) * limit) });
    }
    return cursorPageWithData(items, q);
  },

  createReport(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as ReportInput;
    checkReportRefs(ctx.state, d, body);
    if (body.publicId && publicIdOwner(ctx.state, body.publicId))
      throw new HttpError(409, `publicId ${JSON.stringify(body.publicId)} is already used by another report`);
    let publicId = body.publicId ?? base62(12);
    while (!body.publicId && publicIdOwner(ctx.state, publicId)) publicId = base62(12);
    return reportOut(createReportRec(ctx, d, body, publicId));
  },

  upsertReportByPublicId(ctx) {
    const d = requireDeployment(ctx);
    const publicId = String(ctx.params.publicId);
    const body = ctx.body as ReportInput;
    if (body.publicId != null && body.publicId !== publicId) {
      throw new HttpError(
        400,
        `body.publicId: got ${JSON.stringify(body.publicId)}, expected ${JSON.stringify(publicId)} (the publicId of the path) or nothing`,
      );
    }
    const owner = publicIdOwner(ctx.state, publicId);
    if (owner && owner.deploymentId !== d.id) {
      throw new HttpError(409, `publicId ${JSON.stringify(publicId)} belongs to a report in another deployment (publicIds are unique across the account)`);
    }
    if (owner) {
      checkReportUpdate(ctx.state, d, owner, body);
      applyReportUpdate(ctx, owner, body);
      return { ...reportOut(owner), created: false };
    }
    checkReportRefs(ctx.state, d, body);
    return { ...reportOut(createReportRec(ctx, d, body, publicId)), created: true };
  },

  getReport(ctx) {
    const d = requireDeployment(ctx);
    return reportOut(reportIn(ctx.state, d, ctx.params.reportId as number));
  },

  updateReport(ctx) {
    const d = requireDeployment(ctx);
    const r = reportIn(ctx.state, d, ctx.params.reportId as number);
    const body = ctx.body as ReportInput;
    checkReportUpdate(ctx.state, d, r, body);
    applyReportUpdate(ctx, r, body);
    return reportOut(r);
  },

  deleteReport(ctx) {
    const d = requireDeployment(ctx);
    deleteItem(ctx, d, 'REPORT', ctx.params.reportId as number);
    return { success: true };
  },

  connectReportToWorkbook(ctx) {
    const d = requireDeployment(ctx);
    const r = reportIn(ctx.state, d, ctx.params.reportId as number);
    const body = ctx.body as {
      externalWorkbookId: string;
      resultLocation: string;
      host?: string | null;
      placementId?: string | null;
      sheetId?: string | null;
      sheetName?: string | null;
      anchorCell?: string | null;
      endResultCell?: string | null;
      workbookName?: string | null;
      addressOnly?: boolean | null;
      resultChecksum?: unknown;
    };
    const existing = body.placementId ? r.placements.find((p) => p.id === body.placementId) : findPlacement(r, { ...body, sheetId: null });
    if (body.placementId && !existing) throw new HttpError(404, `body.placementId: placement ${JSON.stringify(body.placementId)} not found on report ${r.id}`);
    if (existing && existing.externalWorkbookId !== body.externalWorkbookId) {
      throw new HttpError(
        400,
        `body.externalWorkbookId: placement ${existing.id} is in workbook ${JSON.stringify(existing.externalWorkbookId)}, not ${JSON.stringify(body.externalWorkbookId)}`,
      );
    }
    const fresh = newPlacement(ctx, r, body);
    if (existing) {
      existing.resultLocation = fresh.resultLocation;
      existing.sheetName = fresh.sheetName ?? existing.sheetName;
      existing.anchorCell = fresh.anchorCell ?? existing.anchorCell;
      if (body.host) existing.host = body.host;
      if (body.sheetId) existing.sheetId = body.sheetId;
      if (body.endResultCell !== undefined) existing.endResultCell = body.endResultCell ?? null;
      if (body.workbookName) existing.workbookName = body.workbookName;
      if (body.resultChecksum != null && !body.addressOnly) existing.resultChecksum = body.resultChecksum;
      existing.placedAt = fresh.placedAt;
      existing.placedByUserId = fresh.placedByUserId;
    } else {
      if (body.addressOnly) fresh.resultChecksum = null;
      r.placements.push(fresh);
    }
    return reportOut(r);
  },

  disconnectReportFromWorkbook(ctx) {
    const d = requireDeployment(ctx);
    const r = reportIn(ctx.state, d, ctx.params.reportId as number);
    const target = findPlacement(r, ctx.body ?? {});
    // A target matching nothing succeeds and changes nothing.
    if (target) r.placements = r.placements.filter((p) => p !== target);
    return reportOut(r);
  },

  refreshReport(ctx) {
    const d = requireDeployment(ctx);
    const r = reportIn(ctx.state, d, ctx.params.reportId as number);
    const body = (ctx.body ?? {}) as PlacementAddress & { host?: string | null; resultChecksum?: unknown };
    const now = ctx.clock.iso();
    if (addressGiven(body)) {
      const target = findPlacement(r, body);
      if (!target) throw new HttpError(404, `no placement of report ${r.id} matches the address given`);
      if (body.host && target.host && body.host !== target.host) {
        throw new HttpError(400, `body.host: got ${body.host}, but placement ${target.id} is in ${target.host}`);
      }
      target.refreshedAt = now;
      target.refreshedByUserId = ctx.principal.user.id;
      if (body.host) target.host = body.host;
      if (body.resultChecksum != null) target.resultChecksum = body.resultChecksum;
    }
    r.refreshedAt = now;
    return reportOut(r);
  },
};
