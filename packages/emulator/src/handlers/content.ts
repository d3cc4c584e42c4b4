/**
 * Workspace content, embedding, tenant integrations, GitHub discovery, app config and the OpenAPI
 * document (spec 4.15; shapes from the vendor reference where the spec says "not shown").
 *
 * Every handler checks everything first and changes state last, so a rejected request changes
 * nothing; reads never create a collection. Records live in `state.collections`:
 * folders, workbooks (seeded: `publicId` is the published dashboard's), reports, embedAccess
 * (by workbook id), embedTenants, embedUsers, embedGroups, embedSessions, dashboardComments,
 * dashboardExports, metricViewIntegrations, metricViewPreviews, oauthIntegrations,
 * userOAuthTokens, oauthFlows, oidcTokenConfigs. Tenant settings merge into `state.tenant.settings`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { HttpError, reply, requireDeployment, type Ctx, type HandlerTable } from '../context.js';
import { signJwt } from '../jwt.js';
import { buildOpenApiDocument } from '../openapi.js';
import { nextId, type DeploymentRec, type State } from '../state.js';
import { compileBranch, cursorPaginate } from './build.js';

type Rec = Record<string, unknown>;
type CursorQ = { first?: number; after?: string };

// ---------------------------------------------------------------------------------------------
// Collections: reads never create one (a rejected request must leave the state text unchanged).

function rows<T>(state: State, name: string): T[] {
  return Object.values(state.collections[name] ?? {}) as unknown as T[];
}

function getRec<T>(state: State, name: string, id: string | number): T | undefined {
  return state.collections[name]?.[String(id)] as unknown as T | undefined;
}

function putRec(state: State, name: string, id: string | number, rec: object): void {
  (state.collections[name] ??= {})[String(id)] = rec as Rec;
}

function delRec(state: State, name: string, id: string | number): void {
  const c = state.collections[name];
  if (c) delete c[String(id)];
}

/** Next free id of a collection (seeded records may hold ids the sequence never issued). */
function allocId(state: State, name: string, seq: string): number {
  for (;;) {
    const id = nextId(state, seq);
    if (!state.collections[name]?.[String(id)]) return id;
  }
}

function page<T>(items: T[], q: CursorQ) {
  const p = cursorPaginate(items, q);
  return { items: p.items, pageInfo: p.pageInfo };
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(n: number): string {
  return [...randomBytes(n)].map((b) => BASE62[b % 62]).join('');
}

const byId = (a: { id: number }, b: { id: number }) => a.id - b.id;

function tooLong(value: string | null | undefined, max: number, input: string): void {
  if (value && value.length > max) throw new HttpError(400, `${input}: got ${value.length} characters, expected at most ${max}`);
}

// ---------------------------------------------------------------------------------------------
// Workspace records.

interface FolderRec {
  id: number;
  deploymentId: number;
  name: string;
  parentId: number | null;
  position: number;
  createdAt: string;
  updatedAt: string;
  createdBy: number;
}

interface DashboardRec {
  id: number;
  publicId: string;
  allowEmbed: boolean;
  title: string | null;
  description: string | null;
  config: Rec;
  publishedAt: string;
  aiWidgetThreads: Record<string, { threadId: string; checksum: string | null }>;
  /** Report snapshots taken at publish time (python-run checks against them). */
  reportSnapshots: { reportId: number; reportVersionId: number }[];
}

interface WorkbookRec {
  id: number;
  deploymentId: number;
  name: string;
  slug?: string | null;
  /** Public id of the published dashboard (the seed sets it without a `dashboard` record). */
  publicId?: string;
  folderId?: number | null;
  meta?: Rec | null;
  createdAt: string;
  updatedAt?: string;
  createdBy?: number;
  dashboardDraft?: Rec | null;
  dashboard?: DashboardRec | null;
}

interface PlacementRec {
  id: string;
  externalWorkbookId: string;
  resultLocation: string;
  host: string | null;
  sheetId: string | null;
  sheetName: string | null;
  anchorCell: string | null;
  endResultCell: string | null;
  workbookName: string | null;
  placedAt: string;
  placedByUserId: number;
  refreshedAt: string | null;
  refreshedByUserId: number | null;
  resultChecksum: unknown;
}

interface ReportRec {
  id: number;
  deploymentId: number;
  name: string;
  publicId: string;
  workbookId: number | null;
  folderId: number | null;
  sqlQuery: string | null;
  jsonQuery: string | null;
  meta: Rec | null;
  source: string | null;
  placements: PlacementRec[];
  createdAt: string;
  updatedAt: string;
  createdBy: number;
  refreshedAt: string | null;
}

interface EmbedAccessRec {
  workbookId: number;
  allEmbedUsers: boolean;
  tenants: string[];
}

/** Folders nest at most this deep (a folder at the root has depth 1). */
const MAX_FOLDER_DEPTH = 8;

function folderOut(f: FolderRec) {
  return {
    id: f.id,
    name: f.name,
    parentId: f.parentId,
    position: f.position,
    deploymentId: f.deploymentId,
    type: 'FOLDER',
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
    createdBy: f.createdBy,
  };
}

/** The published dashboard of a workbook (seeded workbooks: derived from their `publicId`). */
function dashboardOf(wb: WorkbookRec): DashboardRec | null {
  if (wb.dashboard) return wb.dashboard;
  if (wb.dashboard === undefined && wb.publicId) {
    return {
      id: wb.id,
      publicId: wb.publicId,
      allowEmbed: false,
      title: wb.name,
      description: null,
      config: {},
      publishedAt: wb.createdAt,
      aiWidgetThreads: {},
      reportSnapshots: [],
    };
  }
  return null;
}

function dashboardOut(wb: WorkbookRec, dash: DashboardRec) {
  return {
    id: dash.id,
    publicId: dash.publicId,
    allowEmbed: dash.allowEmbed,
    workbookId: wb.id,
    deploymentId: wb.deploymentId,
    title: dash.title,
    description: dash.description,
    config: dash.config,
    publishedAt: dash.publishedAt,
    aiWidgetThreads: Object.entries(dash.aiWidgetThreads).map(([widgetId, t]) => ({ widgetId, ...t })),
  };
}

function workbookOut(wb: WorkbookRec) {
  const dash = dashboardOf(wb);
  return {
    id: wb.id,
    name: wb.name,
    slug: wb.slug ?? null,
    folderId: wb.folderId ?? null,
    deploymentId: wb.deploymentId,
    meta: wb.meta ?? null,
    publishedDashboard: dash ? dashboardOut(wb, dash) : null,
    createdAt: wb.createdAt,
    updatedAt: wb.updatedAt ?? wb.createdAt,
  };
}

function placementOut(p: PlacementRec) {
  return {
    id: p.id,
    workbookId: p.externalWorkbookId,
    resultLocation: p.resultLocation,
    host: p.host,
    sheetId: p.sheetId,
    sheetName: p.sheetName,
    anchorCell: p.anchorCell,
    endResultCell: p.endResultCell,
    workbookName: p.workbookName,
    placedAt: p.placedAt,
    placedByUserId: p.placedByUserId,
    refreshedAt: p.refreshedAt,
    refreshedByUserId: p.refreshedByUserId,
    resultChecksum: p.resultChecksum ?? null,
  };
}

function reportOut(r: ReportRec) {
  return {
    id: r.id,
    name: r.name,
    publicId: r.publicId,
    workbookId: r.workbookId,
    folderId: r.folderId,
    deploymentId: r.deploymentId,
    sqlQuery: r.sqlQuery,
    jsonQuery: r.jsonQuery,
    meta: r.meta,
    source: r.source,
    externalWorkbookPlacements: r.placements.map(placementOut),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    createdBy: r.createdBy,
    refreshedAt: r.refreshedAt,
  };
}

function foldersOf(state: State, d: DeploymentRec): FolderRec[] {
  return rows<FolderRec>(state, 'folders').filter((f) => f.deploymentId === d.id);
}

function workbooksOf(state: State, d: DeploymentRec): WorkbookRec[] {
  return rows<WorkbookRec>(state, 'workbooks').filter((w) => w.deploymentId === d.id).sort(byId);
}

function reportsOf(state: State, d: DeploymentRec): ReportRec[] {
  return rows<ReportRec>(state, 'reports').filter((r) => r.deploymentId === d.id).sort(byId);
}

function folderIn(state: State, d: DeploymentRec, id: number, input = 'folderId'): FolderRec {
  const f = getRec<FolderRec>(state, 'folders', id);
  if (!f || f.deploymentId !== d.id) throw new HttpError(404, `${input}: folder ${id} not found in deployment ${d.id}`);
  return f;
}

function workbookIn(state: State, d: DeploymentRec, id: number, input = 'workbookId'): WorkbookRec {
  const wb = getRec<WorkbookRec>(state, 'workbooks', id);
  if (!wb || wb.deploymentId !== d.id) throw new HttpError(404, `${input}: workbook ${id} not found in deployment ${d.id}`);
  return wb;
}

function reportIn(state: State, d: DeploymentRec, id: number, input = 'reportId'): ReportRec {
  const r = getRec<ReportRec>(state, 'reports', id);
  if (!r || r.deploymentId !== d.id) throw new HttpError(404, `${input}: report ${id} not found in deployment ${d.id}`);
  return r;
}

/** Depth of a folder: 1 at the root. */
function depthOf(state: State, f: FolderRec): number {
  let depth = 1;
  let cur = f;
  while (cur.parentId !== null) {
    const parent = getRec<FolderRec>(state, 'folders', cur.parentId);
    if (!parent) break;
    depth += 1;
    cur = parent;
  }
  return depth;
}

/** Ids of a folder's descendants (not the folder itself). */
function descendantIds(state: State, d: DeploymentRec, f: FolderRec): Set<number> {
  const out = new Set<number>();
  const all = foldersOf(state, d);
  const walk = (id: number) => {
    for (const c of all) {
      if (c.parentId === id && !out.has(c.id)) {
        out.add(c.id);
        walk(c.id);
      }
    }
  };
  walk(f.id);
  return out;
}

/** Levels of folders at and below `f` (1 for a leaf). */
function heightOf(state: State, d: DeploymentRec, f: FolderRec): number {
  const kids = foldersOf(state, d).filter((c) => c.parentId === f.id);
  return 1 + Math.max(0, ...kids.map((k) => heightOf(state, d, k)));
}

function siblingNameTaken(state: State, d: DeploymentRec, parentId: number | null, name: string, except?: number): boolean {
  const lower = name.trim().toLowerCase();
  return foldersOf(state, d).some((f) => f.parentId === parentId && f.id !== except && f.name.trim().toLowerCase() === lower);
}

/** `'Sheet 1'!B2` or `Sheet1!B2:D9` -> sheet name and anchor. */
function parseResultLocation(loc: string | null | undefined): { sheetName: string; anchorCell: string } | undefined {
  if (!loc) return undefined;
  const m = /^(?:'((?:[^']|'')+)'|([^!]+))!\$?([A-Za-z]+)\$?(\d+)(?::.*)?$/.exec(loc.trim());
  if (!m) return undefined;
  return { sheetName: (m[1] ?? m[2] ?? '').replace(/''/g, "'"), anchorCell: `${(m[3] as string).toUpperCase()}${m[4]}` };
}

interface PlacementAddress {
  placementId?: string | null;
  externalWorkbookId?: string | null;
  resultLocation?: string | null;
  sheetId?: string | null;
  sheetName?: string | null;
  anchorCell?: string | null;
}

/** The placement an address names: by id, or by workbook + sheet name + anchor (sheetId narrows). */
function findPlacement(r: ReportRec, a: PlacementAddress): PlacementRec | undefined {
  if (a.placementId) return r.placements.find((p) => p.id === a.placementId);
  if (!a.externalWorkbookId) return undefined;
  const parsed = parseResultLocation(a.resultLocation);
  const sheetName = a.sheetName ?? parsed?.sheetName;
  const anchor = (a.anchorCell ?? parsed?.anchorCell)?.toUpperCase();
  if (!sheetName || !anchor) return undefined;
  return r.placements.find(
    (p) =>
      p.externalWorkbookId === a.externalWorkbookId &&
      p.sheetName === sheetName &&
      p.anchorCell?.toUpperCase() === anchor &&
      (!a.sheetId || p.sheetId === a.sheetId),
  );
}

function addressGiven(a: PlacementAddress): boolean {
  return !!(a.placementId || a.externalWorkbookId || a.resultLocation || a.sheetId || a.sheetName || a.anchorCell);
}

type ItemType = 'FOLDER' | 'WORKBOOK' | 'REPORT';

function itemOut(type: ItemType, rec: FolderRec | WorkbookRec | ReportRec) {
  if (type === 'FOLDER') {
    const f = rec as FolderRec;
    return { ...folderOut(f), folderId: f.parentId };
  }
  if (type === 'WORKBOOK') return { ...workbookOut(rec as WorkbookRec), type };
  return { ...reportOut(rec as ReportRec), type };
}

/** Move one workspace item (all checks first); returns the moved item. */
function moveItem(ctx: Ctx, d: DeploymentRec, type: ItemType, id: number, folderId: number | null) {
  const { state } = ctx;
  const dest = folderId === null ? null : folderIn(state, d, folderId);
  const now = ctx.clock.iso();
  if (type === 'FOLDER') {
    const f = folderIn(state, d, id, 'id');
    if (dest) {
      if (dest.id === f.id) throw new HttpError(400, `cannot move folder ${f.id} into itself`);
      if (descendantIds(state, d, f).has(dest.id)) throw new HttpError(400, `cannot move folder ${f.id} into its own descendant ${dest.id}`);
      if (depthOf(state, dest) + heightOf(state, d, f) > MAX_FOLDER_DEPTH) {
        throw new HttpError(400, `moving folder ${f.id} into folder ${dest.id} would nest folders deeper than ${MAX_FOLDER_DEPTH} levels`);
      }
    }
    const parentId = dest?.id ?? null;
    if (f.parentId !== parentId && siblingNameTaken(state, d, parentId, f.name, f.id)) {
      throw new HttpError(409, `a folder named ${JSON.stringify(f.name)} already exists in the destination`);
    }
    if (f.parentId !== parentId) {
      f.parentId = parentId;
      f.position = foldersOf(state, d).filter((x) => x.parentId === parentId && x.id !== f.id).length;
      f.updatedAt = now;
    }
    return itemOut(type, f);
  }
  if (type === 'WORKBOOK') {
    const wb = workbookIn(state, d, id, 'id');
    if ((wb.folderId ?? null) !== (dest?.id ?? null)) {
      wb.folderId = dest?.id ?? null;
      wb.updatedAt = now;
    }
    return itemOut(type, wb);
  }
  const r = reportIn(state, d, id, 'id');
  if (r.folderId !== (dest?.id ?? null)) {
    r.folderId = dest?.id ?? null;
    r.updatedAt = now;
  }
  return itemOut(type, r);
}

function deleteWorkbookRec(state: State, wb: WorkbookRec): void {
  for (const r of rows<ReportRec>(state, 'reports')) if (r.workbookId === wb.id) delRec(state, 'reports', r.id);
  delRec(state, 'embedAccess', wb.id);
  delRec(state, 'workbooks', wb.id);
}

/** Delete one workspace item (all checks first). */
function deleteItem(ctx: Ctx, d: DeploymentRec, type: ItemType, id: number): void {
  const { state } = ctx;
  if (type === 'FOLDER') {
    const f = folderIn(state, d, id, 'id');
    if (foldersOf(state, d).some((c) => c.parentId === f.id)) {
      throw new HttpError(400, `folder ${f.id} still has sub-folders: delete or move them first`);
    }
    for (const wb of workbooksOf(state, d)) if (wb.folderId === f.id) wb.folderId = null;
    for (const r of reportsOf(state, d)) if (r.folderId === f.id) r.folderId = null;
    delRec(state, 'folders', f.id);
    return;
  }
  if (type === 'WORKBOOK') {
    deleteWorkbookRec(state, workbookIn(state, d, id, 'id'));
    return;
  }
  delRec(state, 'reports', reportIn(state, d, id, 'id').id);
}

/** Repeats collapsed, first occurrence kept. */
function distinctItems(items: { type: ItemType; id: number }[]) {
  const seen = new Set<string>();
  return items.filter((i) => {
    const k = `${i.type}:${i.id}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

type WorkspaceQuery = CursorQ & {
  folderId?: number;
  types?: ItemType[];
  search?: string;
  orderByField?: 'updated_at' | 'created_at' | 'name' | 'viewer_last_viewed_at';
  orderByDirection?: 'ASC' | 'DESC';
};

/** The unified feed over a set of items: folders first, then workbooks and reports sorted. */
function workspaceFeed(
  ctx: Ctx,
  d: DeploymentRec,
  q: WorkspaceQuery,
  sets: { folders: FolderRec[]; workbooks: WorkbookRec[]; reports: ReportRec[] },
) {
  const level = q.folderId ? folderIn(ctx.state, d, q.folderId).id : null;
  const search = q.search?.trim().toLowerCase();
  const inScope = (name: string, parent: number | null) => (search ? name.toLowerCase().includes(search) : parent === level);
  const want = (t: ItemType) => !q.types || q.types.length === 0 || q.types.includes(t);
  const folders = want('FOLDER')
    ? sets.folders.filter((f) => inScope(f.name, f.parentId)).sort((a, b) => a.position - b.position || a.name.localeCompare(b.name) || a.id - b.id)
    : [];
  const field = q.orderByField ?? 'name';
  const dir = (q.orderByDirection ?? (field === 'name' ? 'ASC' : 'DESC')) === 'ASC' ? 1 : -1;
  const others: { type: ItemType; rec: WorkbookRec | ReportRec }[] = [
    ...(want('WORKBOOK') ? sets.workbooks.filter((w) => inScope(w.name, w.folderId ?? null)).map((rec) => ({ type: 'WORKBOOK' as const, rec })) : []),
    ...(want('REPORT') ? sets.reports.filter((r) => inScope(r.name, r.folderId)).map((rec) => ({ type: 'REPORT' as const, rec })) : []),
  ];
  const key = (r: WorkbookRec | ReportRec): string =>
    field === 'name' ? r.name.toLowerCase() : field === 'created_at' ? r.createdAt : (r.updatedAt ?? r.createdAt);
  others.sort((a, b) => dir * key(a.rec).localeCompare(key(b.rec)) || a.type.localeCompare(b.type) || a.rec.id - b.rec.id);
  const items = [...folders.map((f) => itemOut('FOLDER', f)), ...others.map((o) => itemOut(o.type, o.rec))];
  return page(items, q);
}

/** Ancestors of a folder, root first, the folder itself excluded. */
function ancestorsOf(state: State, f: FolderRec): FolderRec[] {
  const out: FolderRec[] = [];
  let cur = f;
  while (cur.parentId !== null) {
    const parent = getRec<FolderRec>(state, 'folders', cur.parentId);
    if (!parent) break;
    out.unshift(parent);
    cur = parent;
  }
  return out;
}

function normalizeSlug(raw: string): string {
  const slug = raw.trim().toLowerCase();
  if (!/^[a-z0-9][a-z0-9._-]{0,127}$/.test(slug)) {
    throw new HttpError(400, `slug: got ${JSON.stringify(raw)}, expected letters, digits, ".", "_" and "-" (at most 128; trimmed and lowercased)`);
  }
  return slug;
}

function embedAccessOf(state: State, workbookId: number): EmbedAccessRec {
  return getRec<EmbedAccessRec>(state, 'embedAccess', workbookId) ?? { workbookId, allEmbedUsers: false, tenants: [] };
}

function isShared(state: State, wb: WorkbookRec): boolean {
  const a = embedAccessOf(state, wb.id);
  return a.allEmbedUsers || a.tenants.length > 0;
}

// ---------------------------------------------------------------------------------------------
// Reports.

interface ReportInput {
  name?: string | null;
  title?: string | null;
  publicId?: string | null;
  workbookId?: number | null;
  folderId?: number | null;
  sqlQuery?: string | null;
  jsonQuery?: string | null;
  meta?: Rec | null;
  source?: string | null;
  host?: string | null;
  externalWorkbookId?: string | null;
  workbookName?: string | null;
  resultLocation?: string | null;
  resultChecksum?: unknown;
  placementId?: string | null;
}

function publicIdOwner(state: State, publicId: string): ReportRec | undefined {
  return rows<ReportRec>(state, 'reports').find((r) => r.publicId === publicId);
}

function checkReportRefs(state: State, d: DeploymentRec, body: ReportInput): void {
  tooLong(body.name ?? body.title, 255, 'body.name');
  if (typeof body.workbookId === 'number') workbookIn(state, d, body.workbookId, 'body.workbookId');
  if (typeof body.folderId === 'number') folderIn(state, d, body.folderId, 'body.folderId');
}

function newPlacement(ctx: Ctx, r: ReportRec | undefined, a: {
  externalWorkbookId: string;
  resultLocation: string;
  host?: string | null;
  sheetId?: string | null;
  sheetName?: string | null;
  anchorCell?: string | null;
  endResultCell?: string | null;
  workbookName?: string | null;
  resultChecksum?: unknown;
}): PlacementRec {
  const parsed = parseResultLocation(a.resultLocation);
  return {
    id: `pl-${r?.id ?? 'new'}-${base62(8)}`,
    externalWorkbookId: a.externalWorkbookId,
    resultLocation: a.resultLocation,
    host: a.host ?? null,
    sheetId: a.sheetId ?? null,
    sheetName: a.sheetName ?? parsed?.sheetName ?? null,
    anchorCell: (a.anchorCell ?? parsed?.anchorCell)?.toUpperCase() ?? null,
    endResultCell: a.endResultCell ?? null,
    workbookName: a.workbookName ?? null,
    placedAt: ctx.clock.iso(),
    placedByUserId: ctx.principal.user.id,
    refreshedAt: null,
    refreshedByUserId: null,
    resultChecksum: a.resultChecksum ?? null,
  };
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
  if (body.externalWorkbookId && body.resultLocation) {
    r.placements.push(
      newPlacement(ctx, r, {
        externalWorkbookId: body.externalWorkbookId,
        resultLocation: body.resultLocation,
        host: body.host,
        workbookName: body.workbookName,
        resultChecksum: body.resultChecksum,
      }),
    );
  }
  putRec(ctx.state, 'reports', id, r);
  return r;
}

/** Checks of an update (same semantics for PUT /reports/{id} and the upsert's update path). */
function checkReportUpdate(state: State, d: DeploymentRec, r: ReportRec, body: ReportInput): void {
  checkReportRefs(state, d, body);
  if (body.publicId != null && body.publicId !== r.publicId) {
    throw new HttpError(400, `body.publicId: got ${JSON.stringify(body.publicId)}, but report ${r.id} already has publicId ${JSON.stringify(r.publicId)} (write-once)`);
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
  } else if (body.externalWorkbookId && body.resultLocation) {
    r.placements.push(
      newPlacement(ctx, r, {
        externalWorkbookId: body.externalWorkbookId,
        resultLocation: body.resultLocation,
        host: body.host,
        workbookName: body.workbookName,
        resultChecksum: body.resultChecksum,
      }),
    );
  }
  const changed = JSON.stringify(r) !== before;
  if (changed) r.updatedAt = ctx.clock.iso();
  return changed;
}

// ---------------------------------------------------------------------------------------------
// Dashboard exports and metric-view previews (progress follows the emulated clock).

interface ExportRec {
  jobId: string;
  deploymentId: number;
  userId: number;
  workbookId: number;
  dashboardId: number;
  format: 'png' | 'pdf';
  startedAt: number;
  expiresAt: number;
  failure: string | null;
}

/** Queued for 1 s, rendering until 4 s, then done; the job and its file live 5 minutes. */
const EXPORT_QUEUED_MS = 1_000;
const EXPORT_RENDER_MS = 4_000;
const EXPORT_TTL_MS = 5 * 60_000;

/** A 1x1 PNG. */
const PNG_BYTES = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const PDF_BYTES = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n' +
    '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 100]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

function exportStatus(job: ExportRec, now: number) {
  const elapsed = now - job.startedAt;
  if (elapsed < EXPORT_QUEUED_MS) return { status: 'pending', progress: 0, error: null, contentType: null };
  if (elapsed < EXPORT_RENDER_MS) {
    return { status: 'processing', progress: Math.floor(((elapsed - EXPORT_QUEUED_MS) / (EXPORT_RENDER_MS - EXPORT_QUEUED_MS)) * 100), error: null, contentType: null };
  }
  if (job.failure) return { status: 'failed', progress: null, error: job.failure, contentType: null };
  return { status: 'completed', progress: 100, error: null, contentType: job.format === 'png' ? 'image/png' : 'application/pdf' };
}

function exportJob(ctx: Ctx, d: DeploymentRec): ExportRec {
  const jobId = String(ctx.params.jobId);
  const job = getRec<ExportRec>(ctx.state, 'dashboardExports', jobId);
  if (!job || job.deploymentId !== d.id || job.userId !== ctx.principal.user.id || ctx.clock.now() >= job.expiresAt) {
    throw new HttpError(404, `export job ${JSON.stringify(jobId)} not found (expired, or started by another user)`);
  }
  return job;
}

interface PreviewRec {
  previewId: string;
  contentKey: string;
  deploymentId: number;
  dataSourceName: string;
  buildJobId: number;
  selectionMode: string;
  startedAt: number;
  cancelledAt: number | null;
  commit: string | null;
  failure: string | null;
  views: { cubeViewName: string; dimensions: number; measures: number }[];
}

const PREVIEW_QUEUED_MS = 1_000;
const PREVIEW_RUN_MS = 5_000;

function previewState(p: PreviewRec, now: number): 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED' {
  if (p.cancelledAt !== null) return 'CANCELLED';
  const elapsed = now - p.startedAt;
  if (elapsed < PREVIEW_QUEUED_MS) return 'QUEUED';
  if (elapsed < PREVIEW_RUN_MS) return 'RUNNING';
  return p.failure ? 'FAILED' : 'COMPLETED';
}

function previewStatusOut(ctx: Ctx, p: PreviewRec) {
  const now = ctx.clock.now();
  const status = previewState(p, now);
  const percent = status === 'QUEUED' ? 0 : status === 'RUNNING' ? Math.floor(((now - p.startedAt - PREVIEW_QUEUED_MS) / (PREVIEW_RUN_MS - PREVIEW_QUEUED_MS)) * 100) : 100;
  const messages = { QUEUED: 'waiting for a runner', RUNNING: 'converting views', COMPLETED: 'conversion finished', FAILED: p.failure ?? 'failed', CANCELLED: 'cancelled' };
  return {
    previewId: p.previewId,
    deploymentId: p.deploymentId,
    dataSourceName: p.dataSourceName,
    status,
    progress: { stage: status, percentComplete: percent, message: messages[status] },
    resultAvailable: status === 'COMPLETED',
    error: status === 'FAILED' ? p.failure : null,
    startedAt: new Date(p.startedAt).toISOString(),
    updatedAt: new Date(Math.min(now, p.cancelledAt ?? now)).toISOString(),
  };
}

function previewIn(ctx: Ctx, d: DeploymentRec): PreviewRec {
  const id = String(ctx.params.previewId);
  const p = getRec<PreviewRec>(ctx.state, 'metricViewPreviews', id);
  if (!p || p.deploymentId !== d.id) throw new HttpError(404, `metric-view preview ${JSON.stringify(id)} not found in deployment ${d.id}`);
  return p;
}

/** The bounded regex subset of `viewNameRegex`: literals, `^`, `$`, `.`, and one `.*`. */
function viewNamePattern(src: string): RegExp {
  if (/[()[\]{}|+?\\]/.test(src) || (src.match(/\.\*/g) ?? []).length > 1 || src.length > 128) {
    throw new HttpError(400, `body.viewNameRegex: got ${JSON.stringify(src)}, expected literals, "^", "$", "." and at most one ".*" (no groups, classes, alternation or escapes)`);
  }
  return new RegExp(src);
}

// ---------------------------------------------------------------------------------------------
// Embedding.

interface EmbedTenantRec {
  id: number;
  name: string;
  displayName: string | null;
  createdAt: string;
}

interface EmbedUserRec {
  id: number;
  tenant: string;
  externalId: string;
  email: string;
  displayName: string | null;
  picture: string | null;
  /** Account-wide groups (names of `state.groups`). */
  groups: string[];
  createdAt: string;
  lastLogin: string | null;
}

interface EmbedGroupRec {
  id: number;
  tenant: string;
  name: string;
  description: string | null;
  createdAt: string;
  members: { userId: number; seq: number }[];
}

interface SessionRec {
  sessionId: string;
  deploymentId: number;
  tenant: string | null;
  externalId: string | null;
  email: string | null;
  creatorMode: boolean;
  groups: string[];
  tenantGroups: string[];
  branchName: string | null;
  securityContext: Rec | null;
  userAttributes: unknown;
  createdAt: number;
  expiresAt: number;
  redeemedAt: number | null;
  revokedAt: number | null;
}

/** Built-in "All embed users" sharing group; a tenant's `system:tenant:{name}` group is 100000 + its id. */
const ALL_EMBED_USERS_GROUP_ID = 100_000;
const SESSION_TTL_MS = 10 * 60_000;
const EMBED_TOKEN_TTL_S = 24 * 3600;
const TENANT_NAME = /^[a-z0-9][a-z0-9_.-]{0,99}$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

function canonicalTenant(raw: string, input = 'embedTenantName'): string {
  const name = raw.trim().toLowerCase();
  if (!TENANT_NAME.test(name)) {
    throw new HttpError(400, `${input}: got ${JSON.stringify(raw)}, expected lowercase letters, digits, "_", "-" and "." (at most 100)`);
  }
  return name;
}

function tenantByName(state: State, name: string): EmbedTenantRec | undefined {
  return rows<EmbedTenantRec>(state, 'embedTenants').find((t) => t.name === name);
}

function tenantOrThrow(state: State, raw: string): EmbedTenantRec {
  const name = canonicalTenant(raw);
  const t = tenantByName(state, name);
  if (!t) throw new HttpError(404, `embed tenant ${JSON.stringify(name)} not found`);
  return t;
}

function ensureTenant(ctx: Ctx, name: string): EmbedTenantRec {
  const existing = tenantByName(ctx.state, name);
  if (existing) return existing;
  const t: EmbedTenantRec = { id: nextId(ctx.state, 'embedTenant'), name, displayName: null, createdAt: ctx.clock.iso() };
  putRec(ctx.state, 'embedTenants', t.id, t);
  return t;
}

function usersOf(state: State, tenant: string): EmbedUserRec[] {
  return rows<EmbedUserRec>(state, 'embedUsers').filter((u) => u.tenant === tenant);
}

function groupsOf(state: State, tenant: string): EmbedGroupRec[] {
  return rows<EmbedGroupRec>(state, 'embedGroups').filter((g) => g.tenant === tenant);
}

function embedUserOut(u: EmbedUserRec) {
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

function tenantOut(state: State, t: EmbedTenantRec) {
  return { id: t.id, name: t.name, displayName: t.displayName, userCount: usersOf(state, t.name).length, createdAt: t.createdAt };
}

function groupOut(g: EmbedGroupRec) {
  return { id: g.id, name: g.name, description: g.description, userCount: g.members.length, createdAt: g.createdAt, embedTenantName: g.tenant };
}

function groupIn(ctx: Ctx): { tenant: EmbedTenantRec; group: EmbedGroupRec } {
  const tenant = tenantOrThrow(ctx.state, String(ctx.params.embedTenantName));
  const id = ctx.params.id as number;
  const group = getRec<EmbedGroupRec>(ctx.state, 'embedGroups', id);
  if (!group || group.tenant !== tenant.name) throw new HttpError(404, `group ${id} not found in embed tenant ${JSON.stringify(tenant.name)}`);
  return { tenant, group };
}

function normalizeExternalId(raw: string, input: string): string {
  const id = raw.trim().toLowerCase();
  if (!id) throw new HttpError(400, `${input}: got ${JSON.stringify(raw)}, expected a non-empty external id`);
  return id;
}

interface ProvisionInput {
  externalId: string;
  email?: string | null;
  groups?: string[] | null;
  tenantGroups?: string[] | null;
  userProfile?: { displayName?: string | null; picture?: string | null } | null;
}

/** Create or update one embed user (desired state); the tenant is created on demand. */
function provisionOne(ctx: Ctx, tenantName: string, body: ProvisionInput, input = 'body'): EmbedUserRec {
  const { state } = ctx;
  const externalId = normalizeExternalId(body.externalId, `${input}.externalId`);
  const email = body.email?.trim().toLowerCase();
  if (email !== undefined && !EMAIL.test(email)) throw new HttpError(400, `${input}.email: got ${JSON.stringify(body.email)}, expected an e-mail address`);
  const known = new Set(state.groups.map((g) => g.name));
  const unknown = (body.groups ?? []).filter((g) => !known.has(g));
  if (unknown.length) throw new HttpError(400, `${input}.groups: group(s) ${unknown.map((g) => JSON.stringify(g)).join(', ')} do not exist`);
  const tenantGroups = groupsOf(state, tenantName);
  const missing = (body.tenantGroups ?? []).filter((n) => !tenantGroups.some((g) => g.name === n));
  if (missing.length) {
    throw new HttpError(400, `${input}.tenantGroups: group(s) ${missing.map((g) => JSON.stringify(g)).join(', ')} do not exist in embed tenant ${JSON.stringify(tenantName)}`);
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
    putRec(state, 'embedUsers', u.id, u);
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
function dashboardByPublicId(ctx: Ctx, publicId: string): { wb: WorkbookRec; dash: DashboardRec } {
  for (const wb of rows<WorkbookRec>(ctx.state, 'workbooks')) {
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

/** Materialize a seeded workbook's derived dashboard before changing it. */
function ownDashboard(wb: WorkbookRec, dash: DashboardRec): DashboardRec {
  if (!wb.dashboard) wb.dashboard = dash;
  return wb.dashboard;
}

function embedAccessOut(state: State, wb: WorkbookRec) {
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

interface CommentRec {
  id: number;
  publicId: string;
  userId: number;
  body: string;
  parentId: number | null;
  createdAt: string;
  editedAt: string | null;
  removedAt: string | null;
  resolvedAt: string | null;
  resolvedBy: number | null;
}

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
  const replies = rows<CommentRec>(ctx.state, 'dashboardComments')
    .filter((c) => c.parentId === root.id)
    .sort(byId);
  return { root: commentOut(ctx, root), replies: replies.map((r) => commentOut(ctx, r)), resolvedAt: root.resolvedAt, resolvedBy: root.resolvedBy };
}

function commentIn(ctx: Ctx): CommentRec {
  const publicId = String(ctx.params.publicId);
  dashboardByPublicId(ctx, publicId);
  const id = ctx.params.commentId as number;
  const c = getRec<CommentRec>(ctx.state, 'dashboardComments', id);
  if (!c || c.publicId !== publicId || c.removedAt) throw new HttpError(404, `comment ${id} not found on dashboard ${JSON.stringify(publicId)}`);
  return c;
}

function requireAuthor(ctx: Ctx, c: CommentRec): void {
  if (c.userId !== ctx.principal.user.id) throw new HttpError(403, `comment ${c.id} belongs to another user (author only)`);
}

// ---------------------------------------------------------------------------------------------
// Tenant settings and integrations.

const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];

function tenantSettingsOut(state: State) {
  const s = state.tenant.settings;
  return {
    auditLogEnabled: state.tenant.auditLogEnabled,
    auditLogEnabledCurrent: state.tenant.auditLogEnabled,
    auditLogEnabledTimestamp: typeof s.auditLogEnabledTimestamp === 'number' ? s.auditLogEnabledTimestamp : 0,
    hasSupportAccess: s.hasSupportAccess === true,
    maintenanceWindowDay: typeof s.maintenanceWindowDay === 'string' ? s.maintenanceWindowDay : 'SUNDAY',
    maintenanceWindowEnabled: s.maintenanceWindowEnabled === true,
    maintenanceWindowTime: typeof s.maintenanceWindowTime === 'string' ? s.maintenanceWindowTime : '02:00',
    oidcEnabled: s.oidcEnabled === true,
    useAIBIUserInterface: s.useAIBIUserInterface === true,
  };
}

interface OAuthIntegrationRec {
  id: number;
  name: string;
  type: string;
  clientId: string;
  clientSecret: string;
  authUrl: string;
  tokenUrl: string;
  redirectUri: string;
  scopes: string[];
  config: Rec;
  createdAt: string;
  updatedAt: string;
}

/** Never the secret: it is write-only. */
function integrationOut(i: OAuthIntegrationRec) {
  return {
    id: i.id,
    name: i.name,
    type: i.type,
    clientId: i.clientId,
    authUrl: i.authUrl,
    tokenUrl: i.tokenUrl,
    redirectUri: i.redirectUri,
    scopes: i.scopes,
    config: i.config,
    createdAt: i.createdAt,
    updatedAt: i.updatedAt,
  };
}

function integrationIn(state: State, id: number): OAuthIntegrationRec {
  const i = getRec<OAuthIntegrationRec>(state, 'oauthIntegrations', id);
  if (!i) throw new HttpError(404, `OAuth integration ${id} not found`);
  return i;
}

interface UserTokenRec {
  id: number;
  integrationId: number;
  userId: number;
  status: string;
  accessTokenExpiresAt: string | null;
  refreshTokenExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

function userTokenOut(t: UserTokenRec) {
  return { ...t, lastError: null };
}

function callerToken(ctx: Ctx): { integration: OAuthIntegrationRec; token: UserTokenRec } {
  const integration = integrationIn(ctx.state, ctx.params.integrationId as number);
  const token = rows<UserTokenRec>(ctx.state, 'userOAuthTokens').find((t) => t.integrationId === integration.id && t.userId === ctx.principal.user.id);
  if (!token) throw new HttpError(404, `no OAuth token of the caller for integration ${integration.id}`);
  return { integration, token };
}

interface OidcRec {
  id: number;
  name: string;
  audienceType: string;
  customAudience: string | null;
  audience: string;
  isEnabled: boolean;
  subFormat: string | null;
  targetEnvVar: string | null;
  customClaims: Rec | null;
  createdAt: string;
  updatedAt: string;
}

const OIDC_NAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const OIDC_SUB = /^(?:[A-Za-z0-9:_-]|\{(?:deployment_id|component|region)\})+$/;
const ENV_VAR = /^[A-Z_][A-Z0-9_]*$/;

function oidcAudience(origin: string, audienceType: string, custom: string | null | undefined): string {
  if (custom) return custom;
  if (audienceType === 'aws') return 'sts.amazonaws.com';
  if (audienceType === 'azure') return 'api://AzureADTokenExchange';
  return `${origin}/oidc/${audienceType}`;
}

function checkOidcFields(body: { name?: string | null; subFormat?: string | null; targetEnvVar?: string | null }): void {
  if (body.name != null && (!OIDC_NAME.test(body.name) || body.name.length > 100)) {
    throw new HttpError(400, `body.name: got ${JSON.stringify(body.name)}, expected lowercase letters, digits and inner "-"`);
  }
  if (body.subFormat != null && (!OIDC_SUB.test(body.subFormat) || body.subFormat.length > 200)) {
    throw new HttpError(400, `body.subFormat: got ${JSON.stringify(body.subFormat)}, expected [A-Za-z0-9:_-] and {deployment_id}, {component}, {region}`);
  }
  if (body.targetEnvVar != null && (!ENV_VAR.test(body.targetEnvVar) || body.targetEnvVar.length > 128)) {
    throw new HttpError(400, `body.targetEnvVar: got ${JSON.stringify(body.targetEnvVar)}, expected an environment variable name ([A-Z_][A-Z0-9_]*)`);
  }
}

function oidcIn(state: State, id: number): OidcRec {
  const o = getRec<OidcRec>(state, 'oidcTokenConfigs', id);
  if (!o) throw new HttpError(404, `OIDC token config ${id} not found`);
  return o;
}

// ---------------------------------------------------------------------------------------------
// GitHub discovery: fixed, deterministic data.

const GITHUB_INSTALLATIONS = [
  { installationId: 1001, login: 'acme-analytics', repos: ['data-model', 'dbt-project', 'dashboards'] },
  { installationId: 1002, login: 'ada', repos: ['sandbox-model'] },
];
const GITHUB_BRANCHES = ['main', 'develop', 'feature/revenue-model', 'release/2024-q4'];

function installationOrThrow(id: number) {
  const inst = GITHUB_INSTALLATIONS.find((i) => i.installationId === id);
  if (!inst) throw new HttpError(404, `GitHub installation ${id} not found for the caller`);
  return inst;
}

// ---------------------------------------------------------------------------------------------
// App config and theme.

function appTheme(origin: string) {
  return {
    palette: {
      accent: { color: '#7A77FF', hue: 242, saturation: 100 },
      base: { color: '#141446', hue: 240, saturation: 55 },
      contrastLevel: 50,
      pastel: false,
      surfaceMode: 'neutral',
      themes: null,
    },
    logoUrl: `${origin}/static/logo.svg`,
    typography: null,
    light: { accentColor: '#7A77FF', backgroundColor: '#FFFFFF', foregroundColor: '#141446', contrast: 1, logoUrl: `${origin}/static/logo.svg` },
    dark: { accentColor: '#A3A1FF', backgroundColor: '#141446', foregroundColor: '#FFFFFF', contrast: 1, logoUrl: `${origin}/static/logo-dark.svg` },
  };
}

// ---------------------------------------------------------------------------------------------

export const contentHandlers: HandlerTable = {
  // ----- Folders.

  getFolders(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as CursorQ & { parentId?: number };
    const parentId = q.parentId ? folderIn(ctx.state, d, q.parentId, 'query.parentId').id : null;
    const all = foldersOf(ctx.state, d)
      .filter((f) => f.parentId === parentId)
      .sort((a, b) => a.position - b.position || a.id - b.id)
      .map(folderOut);
    const p = page(all, q);
    return { ...p, data: p.items, count: all.length };
  },

  createFolder(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { name: string; parentId?: number | null; position?: number | null };
    tooLong(body.name, 255, 'body.name');
    const parent = typeof body.parentId === 'number' ? folderIn(ctx.state, d, body.parentId, 'body.parentId') : null;
    if (parent && depthOf(ctx.state, parent) + 1 > MAX_FOLDER_DEPTH) {
      throw new HttpError(400, `body.parentId: folder ${parent.id} is at the maximum depth (${MAX_FOLDER_DEPTH} levels)`);
    }
    const parentId = parent?.id ?? null;
    if (siblingNameTaken(ctx.state, d, parentId, body.name)) {
      throw new HttpError(409, `a folder named ${JSON.stringify(body.name)} already exists ${parent ? `in folder ${parent.id}` : 'at the workspace root'}`);
    }
    const now = ctx.clock.iso();
    const f: FolderRec = {
      id: allocId(ctx.state, 'folders', 'folder'),
      deploymentId: d.id,
      name: body.name,
      parentId,
      position: body.position ?? foldersOf(ctx.state, d).filter((x) => x.parentId === parentId).length,
      createdAt: now,
      updatedAt: now,
      createdBy: ctx.principal.user.id,
    };
    putRec(ctx.state, 'folders', f.id, f);
    return folderOut(f);
  },

  updateFolder(ctx) {
    const d = requireDeployment(ctx);
    const f = folderIn(ctx.state, d, ctx.params.folderId as number);
    const body = ctx.body as { name?: string | null; position?: number | null };
    tooLong(body.name, 255, 'body.name');
    if (body.name != null && siblingNameTaken(ctx.state, d, f.parentId, body.name, f.id)) {
      throw new HttpError(409, `a folder named ${JSON.stringify(body.name)} already exists beside folder ${f.id}`);
    }
    if (body.name != null) f.name = body.name;
    if (body.position != null) f.position = body.position;
    if (body.name != null || body.position != null) f.updatedAt = ctx.clock.iso();
    return folderOut(f);
  },

  deleteFolder(ctx) {
    const d = requireDeployment(ctx);
    deleteItem(ctx, d, 'FOLDER', ctx.params.folderId as number);
    return reply({ status: 204 });
  },

  getFolderAncestors(ctx) {
    const d = requireDeployment(ctx);
    const f = folderIn(ctx.state, d, ctx.params.folderId as number);
    return [...ancestorsOf(ctx.state, f), f].map(folderOut);
  },

  // ----- Workbooks.

  getWorkbooks(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as CursorQ & { folderId?: number };
    let list = workbooksOf(ctx.state, d);
    if (q.folderId !== undefined) {
      const folderId = q.folderId === 0 ? null : folderIn(ctx.state, d, q.folderId, 'query.folderId').id;
      list = list.filter((w) => (w.folderId ?? null) === folderId);
    }
    const p = page(list.map(workbookOut), q);
    return { ...p, data: p.items };
  },

  createWorkbook(ctx) {
    const d = requireDeployment(ctx);
    const body = (ctx.body ?? {}) as { name?: string | null; folderId?: number | null; meta?: Rec | null };
    tooLong(body.name, 255, 'body.name');
    if (typeof body.folderId === 'number') folderIn(ctx.state, d, body.folderId, 'body.folderId');
    const now = ctx.clock.iso();
    const wb: WorkbookRec = {
      id: allocId(ctx.state, 'workbooks', 'workbook'),
      deploymentId: d.id,
      name: body.name ?? 'Untitled workbook',
      slug: null,
      folderId: body.folderId ?? null,
      meta: body.meta ?? null,
      createdAt: now,
      updatedAt: now,
      createdBy: ctx.principal.user.id,
      dashboardDraft: null,
      dashboard: null,
    };
    putRec(ctx.state, 'workbooks', wb.id, wb);
    return workbookOut(wb);
  },

  upsertWorkbookBySlug(ctx) {
    const d = requireDeployment(ctx);
    const slug = normalizeSlug(String(ctx.params.slug));
    const body = (ctx.body ?? {}) as { name?: string | null; folderId?: number | null; meta?: Rec | null };
    tooLong(body.name, 255, 'body.name');
    if (typeof body.folderId === 'number') folderIn(ctx.state, d, body.folderId, 'body.folderId');
    const existing = workbooksOf(ctx.state, d).find((w) => w.slug === slug);
    if (existing) {
      const before = JSON.stringify(existing);
      if (body.name != null) existing.name = body.name;
      if (body.folderId !== undefined) existing.folderId = body.folderId;
      if (body.meta) existing.meta = { ...(existing.meta ?? {}), ...body.meta };
      if (JSON.stringify(existing) !== before) existing.updatedAt = ctx.clock.iso();
      return { ...workbookOut(existing), created: false };
    }
    const now = ctx.clock.iso();
    const wb: WorkbookRec = {
      id: allocId(ctx.state, 'workbooks', 'workbook'),
      deploymentId: d.id,
      name: body.name ?? slug,
      slug,
      folderId: body.folderId ?? null,
      meta: body.meta ?? null,
      createdAt: now,
      updatedAt: now,
      createdBy: ctx.principal.user.id,
      dashboardDraft: null,
      dashboard: null,
    };
    putRec(ctx.state, 'workbooks', wb.id, wb);
    return { ...workbookOut(wb), created: true };
  },

  getWorkbook(ctx) {
    const d = requireDeployment(ctx);
    return workbookOut(workbookIn(ctx.state, d, ctx.params.workbookId as number));
  },

  updateWorkbook(ctx) {
    const d = requireDeployment(ctx);
    const wb = workbookIn(ctx.state, d, ctx.params.workbookId as number);
    const body = ctx.body as { name?: string | null; folderId?: number | null; meta?: Rec | null; slug?: string | null; slugTakeover?: boolean | null };
    tooLong(body.name, 255, 'body.name');
    if (typeof body.folderId === 'number') folderIn(ctx.state, d, body.folderId, 'body.folderId');
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
    const body = ctx.body as { dashboardDraft?: Rec | null };
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
    const now = ctx.clock.iso();
    const id = allocId(state, 'workbooks', 'workbook');
    const srcDash = dashboardOf(src);
    const copy: WorkbookRec = {
      id,
      deploymentId: d.id,
      name: `Copy of ${src.name}`,
      slug: null,
      folderId: src.folderId ?? null,
      meta: src.meta ? structuredClone(src.meta) : null,
      createdAt: now,
      updatedAt: now,
      createdBy: ctx.principal.user.id,
      dashboardDraft: src.dashboardDraft ? structuredClone(src.dashboardDraft) : null,
      dashboard: null,
    };
    const reportMap = new Map<number, number>();
    for (const r of reportsOf(state, d).filter((x) => x.workbookId === src.id)) {
      const rid = allocId(state, 'reports', 'report');
      reportMap.set(r.id, rid);
      putRec(state, 'reports', rid, {
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
    putRec(state, 'workbooks', id, copy);
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
      config?: Rec | null;
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

  // ----- Reports.

  getReports(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as CursorQ & {
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
      return page(items, { first: limit, after: String(((q.page ?? 1) - 1) * limit) });
    }
    const p = page(items, q);
    return { ...p, data: p.items };
  },

  createReport(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as ReportInput;
    checkReportRefs(ctx.state, d, body);
    if (body.publicId && publicIdOwner(ctx.state, body.publicId)) throw new HttpError(409, `publicId ${JSON.stringify(body.publicId)} is already used by another report`);
    let publicId = body.publicId ?? base62(12);
    while (!body.publicId && publicIdOwner(ctx.state, publicId)) publicId = base62(12);
    return reportOut(createReportRec(ctx, d, body, publicId));
  },

  upsertReportByPublicId(ctx) {
    const d = requireDeployment(ctx);
    const publicId = String(ctx.params.publicId);
    const body = ctx.body as ReportInput;
    if (body.publicId != null && body.publicId !== publicId) {
      throw new HttpError(400, `body.publicId: got ${JSON.stringify(body.publicId)}, expected ${JSON.stringify(publicId)} (the publicId of the path) or nothing`);
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
    const existing = body.placementId
      ? r.placements.find((p) => p.id === body.placementId)
      : findPlacement(r, { ...body, sheetId: null });
    if (body.placementId && !existing) throw new HttpError(404, `body.placementId: placement ${JSON.stringify(body.placementId)} not found on report ${r.id}`);
    if (existing && existing.externalWorkbookId !== body.externalWorkbookId) {
      throw new HttpError(400, `body.externalWorkbookId: placement ${existing.id} is in workbook ${JSON.stringify(existing.externalWorkbookId)}, not ${JSON.stringify(body.externalWorkbookId)}`);
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
    const target = findPlacement(r, (ctx.body ?? {}) as PlacementAddress);
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

  // ----- Workspace feed, move and bulk operations.

  workspaceObjects(ctx) {
    const d = requireDeployment(ctx);
    const { state } = ctx;
    return workspaceFeed(ctx, d, ctx.query as WorkspaceQuery, {
      folders: foldersOf(state, d),
      workbooks: workbooksOf(state, d),
      // Reports inside a workbook are part of it; the feed lists standalone reports.
      reports: reportsOf(state, d).filter((r) => r.workbookId === null),
    });
  },

  sharedWorkspaceObjects(ctx) {
    const d = requireDeployment(ctx);
    const { state } = ctx;
    const workbooks = workbooksOf(state, d).filter((w) => isShared(state, w));
    // Folders holding a shared item are surfaced as navigation; their unshared siblings stay hidden.
    const nav = new Map<number, FolderRec>();
    for (const w of workbooks) {
      if (w.folderId == null) continue;
      const f = getRec<FolderRec>(state, 'folders', w.folderId);
      if (!f) continue;
      for (const a of [...ancestorsOf(state, f), f]) nav.set(a.id, a);
    }
    return workspaceFeed(ctx, d, ctx.query as WorkspaceQuery, { folders: [...nav.values()], workbooks, reports: [] });
  },

  moveWorkspaceObject(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { type: ItemType; id: number; folderId?: number | null };
    return moveItem(ctx, d, body.type, body.id, body.folderId ?? null);
  },

  bulkDeleteWorkspaceObjects(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { items: { type: ItemType; id: number }[] };
    const deleted: { type: ItemType; id: number }[] = [];
    const failed: { type: ItemType; id: number; error: { status: number; message: string } }[] = [];
    // One at a time, in order; each item is checked before it changes anything, none is rolled back.
    for (const item of distinctItems(body.items)) {
      try {
        deleteItem(ctx, d, item.type, item.id);
        deleted.push({ type: item.type, id: item.id });
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        failed.push({ type: item.type, id: item.id, error: { status: error.status, message: error.message } });
      }
    }
    return { deleted, failed };
  },

  bulkMoveWorkspaceObjects(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { items: { type: ItemType; id: number }[]; folderId?: number | null };
    const moved: unknown[] = [];
    const failed: { type: ItemType; id: number; error: { status: number; message: string } }[] = [];
    for (const item of distinctItems(body.items)) {
      try {
        moved.push(moveItem(ctx, d, item.type, item.id, body.folderId ?? null));
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        failed.push({ type: item.type, id: item.id, error: { status: error.status, message: error.message } });
      }
    }
    return { moved, failed };
  },

  listEmbedTenantWorkbooks(ctx) {
    const d = requireDeployment(ctx);
    const tenant = tenantOrThrow(ctx.state, String(ctx.params.embedTenantName));
    const q = ctx.query as CursorQ & { accessSource?: 'tenant' | 'allEmbedUsers' | 'folder' };
    const list = workbooksOf(ctx.state, d).filter((w) => {
      const a = embedAccessOf(ctx.state, w.id);
      const direct = a.tenants.includes(tenant.name);
      // Sharing is per workbook here: no folder is shared, so `folder` access matches nothing.
      if (q.accessSource === 'tenant') return direct;
      if (q.accessSource === 'allEmbedUsers') return a.allEmbedUsers;
      if (q.accessSource === 'folder') return false;
      return direct || a.allEmbedUsers;
    });
    return page(list.map(workbookOut), q);
  },

  // ----- Dashboard exports.

  startExport(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as {
      dashboardId?: number | null;
      dashboardPublicId?: string | null;
      format: 'png' | 'pdf';
      filters?: { member: string }[] | null;
      renderAs?: { type: string } | null;
    };
    let target: { wb: WorkbookRec; dash: DashboardRec } | undefined;
    for (const wb of workbooksOf(ctx.state, d)) {
      const dash = dashboardOf(wb);
      if (dash && (dash.id === body.dashboardId || dash.publicId === body.dashboardPublicId)) target = { wb, dash };
    }
    if (!target) {
      const which = body.dashboardId != null ? `dashboardId ${body.dashboardId}` : `dashboardPublicId ${JSON.stringify(body.dashboardPublicId)}`;
      throw new HttpError(404, `${which}: no published dashboard of deployment ${d.id}`);
    }
    if (body.renderAs && !ctx.principal.user.isAdmin) throw new HttpError(403, 'body.renderAs: exporting on behalf of another user needs the admin role');
    const bad = (body.filters ?? []).find((f) => !/^[A-Za-z_]\w*\.[A-Za-z_]\w*$/.test(f.member));
    const now = ctx.clock.now();
    const job: ExportRec = {
      jobId: `exp-${randomBytes(8).toString('hex')}`,
      deploymentId: d.id,
      userId: ctx.principal.user.id,
      workbookId: target.wb.id,
      dashboardId: target.dash.id,
      format: body.format,
      startedAt: now,
      expiresAt: now + EXPORT_TTL_MS,
      // A filter on a member that is not `cube.member` fails the render (the 422 path of download).
      failure: bad ? `filter member ${JSON.stringify(bad.member)} is not a member of the data model` : null,
    };
    putRec(ctx.state, 'dashboardExports', job.jobId, job);
    return { jobId: job.jobId, expiresAt: new Date(job.expiresAt).toISOString() };
  },

  getExportStatus(ctx) {
    const d = requireDeployment(ctx);
    return exportStatus(exportJob(ctx, d), ctx.clock.now());
  },

  downloadExport(ctx) {
    const d = requireDeployment(ctx);
    const job = exportJob(ctx, d);
    const s = exportStatus(job, ctx.clock.now());
    if (s.status === 'failed') throw new HttpError(422, `export ${job.jobId} failed: ${s.error} (submit a new export)`);
    if (s.status !== 'completed') throw new HttpError(409, `export ${job.jobId} is still ${s.status}: poll its status until it is completed`);
    const q = ctx.query as { filename?: string };
    const stem = (q.filename ?? 'dashboard').replace(/\.(png|pdf)$/i, '').replace(/["\\/\r\n]/g, '_') || 'dashboard';
    return reply({
      raw: job.format === 'png' ? PNG_BYTES : PDF_BYTES,
      headers: {
        'content-type': s.contentType as string,
        'content-disposition': `attachment; filename="${stem}.${job.format}"`,
      },
    });
  },

  // ----- Databricks metric views.

  getIntegration(ctx) {
    const d = requireDeployment(ctx);
    const name = String(ctx.params.dataSourceName);
    const rec = getRec<Rec>(ctx.state, 'metricViewIntegrations', `${d.id}:${name}`);
    if (!rec) throw new HttpError(404, `no metric-view integration for data source ${JSON.stringify(name)} in deployment ${d.id}`);
    return rec;
  },

  saveIntegration(ctx) {
    const d = requireDeployment(ctx);
    const name = String(ctx.params.dataSourceName);
    const key = `${d.id}:${name}`;
    const body = ctx.body as Rec & {
      enabled: boolean;
      expectedConfigurationVersion: number;
      selectionMode: string;
      targetCatalog: string;
      targetSchema: string;
      deletionPolicy?: string;
    };
    const current = getRec<Rec & { configurationVersion: number; createdAt: string; publicId: string }>(ctx.state, 'metricViewIntegrations', key);
    const have = current?.configurationVersion ?? 0;
    if (body.expectedConfigurationVersion !== have) {
      if (!current) throw new HttpError(404, `no metric-view integration for data source ${JSON.stringify(name)}: pass expectedConfigurationVersion 0 to create it`);
      throw new HttpError(409, `body.expectedConfigurationVersion: got ${body.expectedConfigurationVersion}, but the configuration is at version ${have} (re-read it and retry)`);
    }
    tooLong(body.targetCatalog, 255, 'body.targetCatalog');
    tooLong(body.targetSchema, 255, 'body.targetSchema');
    if (typeof body.viewNameRegex === 'string') viewNamePattern(body.viewNameRegex);
    const { expectedConfigurationVersion: _v, ...config } = body;
    const now = ctx.clock.iso();
    const rec = {
      publicId: current?.publicId ?? `mvi-${randomBytes(6).toString('hex')}`,
      deploymentId: d.id,
      dataSourceName: name,
      configurationVersion: have + 1,
      configuration: { version: 1, deletionPolicy: 'retain', ...config },
      accessTest: null,
      createdAt: current?.createdAt ?? now,
      updatedAt: now,
    };
    putRec(ctx.state, 'metricViewIntegrations', key, rec);
    return rec;
  },

  startPreview(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as Rec & { dataSourceName: string; selectionMode: string; viewNames?: unknown; viewNameRegex?: unknown };
    const deploy = d.branches[d.deployBranch];
    if (!deploy) throw new HttpError(400, `deployment ${d.id} has no deploy branch to convert`);
    const pattern = typeof body.viewNameRegex === 'string' ? viewNamePattern(body.viewNameRegex) : undefined;
    if (body.selectionMode === 'pattern' && !pattern) throw new HttpError(400, 'body.viewNameRegex: required when selectionMode is "pattern"');
    const names = Array.isArray(body.viewNames) ? body.viewNames.map(String) : undefined;
    if (body.selectionMode === 'selected' && !names?.length) throw new HttpError(400, 'body.viewNames: a non-empty list is required when selectionMode is "selected"');
    const contentKey = createHash('sha256').update(JSON.stringify({ d: d.id, body, hash: deploy.lastHash })).digest('hex');
    const now = ctx.clock.now();
    const running = rows<PreviewRec>(ctx.state, 'metricViewPreviews').find(
      (p) => p.contentKey === contentKey && ['QUEUED', 'RUNNING'].includes(previewState(p, now)),
    );
    const started = (p: PreviewRec, reused: boolean) => ({
      previewId: p.previewId,
      deploymentId: d.id,
      dataSourceName: p.dataSourceName,
      buildJobId: p.buildJobId,
      commit: p.commit,
      status: 'QUEUED',
      statusUrl: `${ctx.origin}/api/v1/deployments/${d.id}/databricks-metric-view-previews/${p.previewId}`,
      resultUrl: `${ctx.origin}/api/v1/deployments/${d.id}/databricks-metric-view-previews/${p.previewId}/result`,
      reused,
    });
    if (running) return started(running, true);
    const compiled = compileBranch(deploy);
    const views = compiled.cubes
      .filter((c) => c.type === 'view')
      .filter((v) => (body.selectionMode === 'selected' ? names?.includes(v.name) : body.selectionMode === 'pattern' ? pattern?.test(v.name) : true))
      .map((v) => ({ cubeViewName: v.name, dimensions: v.dimensions.length, measures: v.measures.length }));
    const p: PreviewRec = {
      previewId: `mvp-${contentKey.slice(0, 12)}-${nextId(ctx.state, 'metricViewPreview')}`,
      contentKey,
      deploymentId: d.id,
      dataSourceName: body.dataSourceName,
      buildJobId: nextId(ctx.state, 'buildJob'),
      selectionMode: body.selectionMode,
      startedAt: now,
      cancelledAt: null,
      commit: deploy.lastHash,
      failure: compiled.valid ? null : `the data model of ${JSON.stringify(d.deployBranch)} does not compile: ${compiled.errors[0]?.message ?? 'unknown error'}`,
      views,
    };
    putRec(ctx.state, 'metricViewPreviews', p.previewId, p);
    return started(p, false);
  },

  previewStatus(ctx) {
    const d = requireDeployment(ctx);
    return previewStatusOut(ctx, previewIn(ctx, d));
  },

  previewResult(ctx) {
    const d = requireDeployment(ctx);
    const p = previewIn(ctx, d);
    const status = previewState(p, ctx.clock.now());
    if (status !== 'COMPLETED') throw new HttpError(409, `preview ${p.previewId} is ${status}: no conversion result${status === 'QUEUED' || status === 'RUNNING' ? ' yet' : ''}`);
    const views = p.views.map((v) => ({
      cubeViewName: v.cubeViewName,
      metricViewName: v.cubeViewName,
      outcome: 'success',
      eligibleForPublication: true,
      issues: [],
      datasetSources: [],
      counts: { dimensions: v.dimensions, measures: v.measures, joins: 0, warnings: 0, errors: 0 },
      metricViewYaml: `version: 0.1\nsource: ${v.cubeViewName}\n`,
    }));
    return {
      previewId: p.previewId,
      deploymentId: p.deploymentId,
      dataSourceName: p.dataSourceName,
      buildJobId: p.buildJobId,
      commit: p.commit,
      completedAt: new Date(p.startedAt + PREVIEW_RUN_MS).toISOString(),
      durationMs: PREVIEW_RUN_MS,
      outcome: views.length ? 'success' : 'failed',
      version: 2,
      views,
    };
  },

  cancelPreview(ctx) {
    const d = requireDeployment(ctx);
    const p = previewIn(ctx, d);
    const status = previewState(p, ctx.clock.now());
    if (status === 'COMPLETED' || status === 'FAILED') throw new HttpError(409, `preview ${p.previewId} already ended (${status})`);
    if (p.cancelledAt === null) p.cancelledAt = ctx.clock.now();
    return previewStatusOut(ctx, p);
  },

  // ----- Embed tenants, users, groups.

  listEmbedTenants(ctx) {
    const q = ctx.query as CursorQ & { search?: string };
    const s = q.search?.toLowerCase();
    const list = rows<EmbedTenantRec>(ctx.state, 'embedTenants')
      .filter((t) => !s || t.name.includes(s))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((t) => tenantOut(ctx.state, t));
    return page(list, q);
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
    for (const u of usersOf(state, name)) delRec(state, 'embedUsers', u.id);
    for (const g of groupsOf(state, name)) delRec(state, 'embedGroups', g.id);
    for (const s of rows<SessionRec>(state, 'embedSessions')) if (s.tenant === name) delRec(state, 'embedSessions', s.sessionId);
    for (const a of rows<EmbedAccessRec>(state, 'embedAccess')) if (a.tenants.includes(name)) a.tenants = a.tenants.filter((x) => x !== name);
    delRec(state, 'embedTenants', t.id);
    return reply({ status: 204 });
  },

  listEmbedUsers(ctx) {
    const t = tenantOrThrow(ctx.state, String(ctx.params.embedTenantName));
    const q = ctx.query as CursorQ & { search?: string };
    const s = q.search?.trim().toLowerCase();
    const list = usersOf(ctx.state, t.name)
      .filter((u) => !s || u.email.includes(s) || u.externalId.includes(s))
      .sort((a, b) => a.email.localeCompare(b.email) || a.id - b.id)
      .map(embedUserOut);
    return page(list, q);
  },

  provisionEmbedUser(ctx) {
    const tenant = canonicalTenant(String(ctx.params.embedTenantName));
    return embedUserOut(provisionOne(ctx, tenant, ctx.body as ProvisionInput));
  },

  provisionEmbedUsers(ctx) {
    const tenant = canonicalTenant(String(ctx.params.embedTenantName));
    const body = ctx.body as { users: ProvisionInput[] };
    const succeeded: unknown[] = [];
    const failed: { externalId: string; error: { status: number; message: string } }[] = [];
    body.users.forEach((u, i) => {
      try {
        succeeded.push(embedUserOut(provisionOne(ctx, tenant, u, `body.users[${i}]`)));
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        failed.push({ externalId: u.externalId.trim().toLowerCase(), error: { status: error.status, message: error.message } });
      }
    });
    return { succeeded, failed };
  },

  getGroups(ctx) {
    const t = tenantOrThrow(ctx.state, String(ctx.params.embedTenantName));
    const list = groupsOf(ctx.state, t.name)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id)
      .map(groupOut);
    return page(list, ctx.query as CursorQ);
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
    const g: EmbedGroupRec = {
      id: nextId(ctx.state, 'embedGroup'),
      tenant: t.name,
      name: body.name,
      description: body.description || null,
      createdAt: ctx.clock.iso(),
      members: [],
    };
    putRec(ctx.state, 'embedGroups', g.id, g);
    return groupOut(g);
  },

  getGroup(ctx) {
    return groupOut(groupIn(ctx).group);
  },

  updateGroup(ctx) {
    const { group } = groupIn(ctx);
    const body = ctx.body as { description?: string | null; name?: unknown };
    if (body.name !== undefined && body.name !== group.name) {
      throw new HttpError(400, `body.name: a group's name is immutable (got ${JSON.stringify(body.name)}, the group is ${JSON.stringify(group.name)}): create a new group instead`);
    }
    tooLong(body.description, 500, 'body.description');
    if (body.description !== undefined) group.description = body.description || null;
    return groupOut(group);
  },

  deleteGroup(ctx) {
    const { group } = groupIn(ctx);
    if (group.members.length) throw new HttpError(400, `group ${group.id} still has ${group.members.length} member(s): remove them first`);
    delRec(ctx.state, 'embedGroups', group.id);
    return reply({ status: 204 });
  },

  getGroupMembers(ctx) {
    const { group } = groupIn(ctx);
    const list = [...group.members]
      .sort((a, b) => b.seq - a.seq)
      .map((m) => getRec<EmbedUserRec>(ctx.state, 'embedUsers', m.userId))
      .filter((u): u is EmbedUserRec => !!u)
      .map(embedUserOut);
    return page(list, ctx.query as CursorQ);
  },

  addGroupMembers(ctx) {
    const { tenant, group } = groupIn(ctx);
    const body = ctx.body as { members: { externalId?: string | null; embedUserId?: number | null }[] };
    const users = usersOf(ctx.state, tenant.name);
    // Resolve everything first: an unknown embedUserId is a 404 and changes nothing.
    const resolved = body.members.map((m, i) => {
      if (m.embedUserId != null) {
        const u = users.find((x) => x.id === m.embedUserId);
        if (!u) throw new HttpError(404, `body.members[${i}].embedUserId: embed user ${m.embedUserId} not found in embed tenant ${JSON.stringify(tenant.name)}`);
        return { user: u as EmbedUserRec | undefined, externalId: u.externalId };
      }
      const externalId = normalizeExternalId(m.externalId as string, `body.members[${i}].externalId`);
      return { user: users.find((x) => x.externalId === externalId), externalId };
    });
    const added: EmbedUserRec[] = [];
    const unchanged: EmbedUserRec[] = [];
    for (const r of resolved) {
      // An external id that never signed in is provisioned.
      const u = r.user ?? usersOf(ctx.state, tenant.name).find((x) => x.externalId === r.externalId) ?? provisionOne(ctx, tenant.name, { externalId: r.externalId });
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

  // ----- Embed access of a workbook; embeddable dashboards.

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
    if (tenant || body.allEmbedUsers === true) putRec(ctx.state, 'embedAccess', wb.id, access);
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
      throw new HttpError(403, `reportVersionId ${body.reportVersionId} is not a published snapshot of report ${body.reportId} on dashboard ${JSON.stringify(dash.publicId)}`);
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

  // ----- Comments (author = the caller's user).

  listDashboardComments(ctx) {
    const publicId = String(ctx.params.publicId);
    dashboardByPublicId(ctx, publicId);
    const q = ctx.query as CursorQ & { includeResolved?: boolean; resolvedOnly?: boolean };
    const roots = rows<CommentRec>(ctx.state, 'dashboardComments')
      .filter((c) => c.publicId === publicId && c.parentId === null && !c.removedAt)
      .filter((c) => (q.resolvedOnly ? c.resolvedAt !== null : q.includeResolved ? true : c.resolvedAt === null))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id);
    return page(
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
      const parent = getRec<CommentRec>(ctx.state, 'dashboardComments', body.parentId);
      if (!parent || parent.publicId !== publicId || parent.removedAt) throw new HttpError(404, `body.parentId: comment ${body.parentId} not found on dashboard ${JSON.stringify(publicId)}`);
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
    putRec(ctx.state, 'dashboardComments', c.id, c);
    return commentOut(ctx, c);
  },

  listMentionableEmbedUsers(ctx) {
    const { wb } = dashboardByPublicId(ctx, String(ctx.params.publicId));
    const q = ctx.query as CursorQ & { search?: string };
    // An API key names no embed tenant: its "fellow" users are those of the tenants the dashboard is shared with.
    const access = embedAccessOf(ctx.state, wb.id);
    const s = q.search?.trim().toLowerCase();
    const list = rows<EmbedUserRec>(ctx.state, 'embedUsers')
      .filter((u) => access.allEmbedUsers || access.tenants.includes(u.tenant))
      .filter((u) => !s || u.externalId.includes(s) || u.email.includes(s))
      .sort((a, b) => a.externalId.localeCompare(b.externalId) || a.id - b.id)
      .map((u) => ({ id: u.id, username: u.externalId, email: u.email, firstName: u.displayName }));
    return page(list, q);
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
      for (const r of rows<CommentRec>(ctx.state, 'dashboardComments')) if (r.parentId === c.id && !r.removedAt) r.removedAt = now;
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

  // ----- Embed sessions.

  generateSession(ctx) {
    const body = ctx.body as {
      deploymentId: number;
      externalId?: string | null;
      email?: string | null;
      embedTenantName?: string | null;
      creatorMode?: boolean | null;
      groups?: string[] | null;
      tenantGroups?: string[] | null;
      tenantGroupDefinitions?: { name: string; description?: string | null }[] | null;
      userProfile?: { displayName?: string | null; picture?: string | null } | null;
      securityContext?: Rec | null;
      userAttributes?: unknown;
      branchName?: string | null;
    };
    const { state } = ctx;
    const scope = ctx.principal.key.deploymentIds;
    if (scope && !scope.includes(body.deploymentId)) {
      throw new HttpError(403, `this API key is scoped to deployment(s) ${scope.join(', ')}, not ${body.deploymentId}`);
    }
    const d = state.deployments.find((x) => x.id === body.deploymentId);
    if (!d) throw new HttpError(404, `body.deploymentId: deployment ${body.deploymentId} not found`);
    if (body.branchName && !d.branches[body.branchName]) throw new HttpError(404, `body.branchName: branch ${JSON.stringify(body.branchName)} not found in deployment ${d.id}`);
    const tenant = body.embedTenantName ? canonicalTenant(body.embedTenantName, 'body.embedTenantName') : null;
    const tenantGroups = body.tenantGroups ?? [];
    if (tenantGroups.length && (!body.creatorMode || !tenant)) {
      throw new HttpError(400, 'body.tenantGroups: needs creatorMode: true and an embedTenantName');
    }
    const defined = new Set([...(tenant ? groupsOf(state, tenant).map((g) => g.name) : []), ...(body.tenantGroupDefinitions ?? []).map((g) => g.name)]);
    const undefinedGroups = tenantGroups.filter((g) => !defined.has(g));
    if (undefinedGroups.length) {
      throw new HttpError(400, `body.tenantGroups: ${undefinedGroups.map((g) => JSON.stringify(g)).join(', ')} not defined (create them in tenantGroupDefinitions)`);
    }
    if ((body.tenantGroupDefinitions ?? []).some((g) => g.name.startsWith('system:'))) {
      throw new HttpError(400, 'body.tenantGroupDefinitions: names starting with "system:" are reserved');
    }
    const known = new Set(state.groups.map((g) => g.name));
    const unknown = (body.groups ?? []).filter((g) => !known.has(g));
    if (unknown.length) throw new HttpError(400, `body.groups: group(s) ${unknown.map((g) => JSON.stringify(g)).join(', ')} do not exist`);
    const email = body.email?.trim().toLowerCase();
    if (email !== undefined && !EMAIL.test(email)) throw new HttpError(400, `body.email: got ${JSON.stringify(body.email)}, expected an e-mail address`);
    const externalId = body.externalId ? normalizeExternalId(body.externalId, 'body.externalId') : null;
    // Checked: now create what the session names.
    if (tenant) {
      ensureTenant(ctx, tenant);
      for (const def of body.tenantGroupDefinitions ?? []) {
        if (!groupsOf(state, tenant).some((g) => g.name === def.name)) {
          const g: EmbedGroupRec = { id: nextId(state, 'embedGroup'), tenant, name: def.name, description: def.description || null, createdAt: ctx.clock.iso(), members: [] };
          putRec(state, 'embedGroups', g.id, g);
        }
      }
      if (externalId) {
        provisionOne(ctx, tenant, {
          externalId,
          email: email ?? null,
          groups: body.groups ?? null,
          tenantGroups: body.tenantGroups ?? null,
          userProfile: body.userProfile ?? null,
        });
      }
    }
    const now = ctx.clock.now();
    const s: SessionRec = {
      sessionId: randomBytes(16).toString('hex'),
      deploymentId: d.id,
      tenant,
      externalId,
      email: email ?? null,
      creatorMode: body.creatorMode === true,
      groups: body.groups ?? [],
      tenantGroups,
      branchName: body.branchName ?? null,
      securityContext: body.securityContext ?? null,
      userAttributes: body.userAttributes ?? null,
      createdAt: now,
      expiresAt: now + SESSION_TTL_MS,
      redeemedAt: null,
      revokedAt: null,
    };
    putRec(state, 'embedSessions', s.sessionId, s);
    return { sessionId: s.sessionId };
  },

  postTokenBySessionId(ctx) {
    const { sessionId } = ctx.body as { sessionId: string };
    const s = getRec<SessionRec>(ctx.state, 'embedSessions', sessionId);
    const now = ctx.clock.now();
    if (!s || s.redeemedAt !== null || s.revokedAt !== null || now >= s.expiresAt) {
      throw new HttpError(401, 'invalid session: unknown, expired, revoked or already redeemed');
    }
    s.redeemedAt = now;
    if (s.tenant && s.externalId) {
      const u = usersOf(ctx.state, s.tenant).find((x) => x.externalId === s.externalId);
      if (u) u.lastLogin = new Date(now).toISOString();
    }
    const iat = Math.floor(now / 1000);
    const token = signJwt(
      {
        iss: 'cubecloud',
        sub: s.externalId ?? 'anonymous',
        sid: createHash('sha256').update(s.sessionId).digest('hex').slice(0, 16),
        deploymentId: s.deploymentId,
        embedTenantName: s.tenant,
        creatorMode: s.creatorMode,
        groups: s.groups,
        tenantGroups: s.tenantGroups,
        branchName: s.branchName,
        securityContext: s.securityContext,
        iat,
        exp: iat + EMBED_TOKEN_TTL_S,
      },
      ctx.state.secret,
    );
    ctx.controls.minted.push(token);
    return { token };
  },

  revokeSession(ctx) {
    const { sessionId } = ctx.body as { sessionId: string };
    const s = getRec<SessionRec>(ctx.state, 'embedSessions', sessionId);
    // Unknown, expired or already revoked: 204 all the same.
    if (s && s.revokedAt === null) s.revokedAt = ctx.clock.now();
    return reply({ status: 204 });
  },

  // ----- Tenant settings.

  getTenantSettings(ctx) {
    return tenantSettingsOut(ctx.state);
  },

  updateTenantSettings(ctx) {
    const body = ctx.body as {
      auditLogEnabled?: boolean | null;
      hasSupportAccess?: boolean | null;
      maintenanceWindowDay?: string | null;
      maintenanceWindowEnabled?: boolean | null;
      maintenanceWindowTime?: string | null;
      oidcEnabled?: boolean | null;
      useAIBIUserInterface?: boolean | null;
    };
    const day = body.maintenanceWindowDay?.trim().toUpperCase();
    if (day != null && !WEEKDAYS.includes(day)) {
      throw new HttpError(400, `body.maintenanceWindowDay: got ${JSON.stringify(body.maintenanceWindowDay)}, expected one of ${WEEKDAYS.join(', ')}`);
    }
    if (body.maintenanceWindowTime != null && !/^([01]\d|2[0-3]):[0-5]\d$/.test(body.maintenanceWindowTime)) {
      throw new HttpError(400, `body.maintenanceWindowTime: got ${JSON.stringify(body.maintenanceWindowTime)}, expected HH:MM (24-hour, UTC)`);
    }
    const { tenant } = ctx.state;
    if (body.auditLogEnabled != null && body.auditLogEnabled !== tenant.auditLogEnabled) {
      tenant.auditLogEnabled = body.auditLogEnabled;
      tenant.settings.auditLogEnabledTimestamp = ctx.clock.now();
    }
    const patch: Rec = {
      hasSupportAccess: body.hasSupportAccess,
      maintenanceWindowDay: day,
      maintenanceWindowEnabled: body.maintenanceWindowEnabled,
      maintenanceWindowTime: body.maintenanceWindowTime,
      oidcEnabled: body.oidcEnabled,
      useAIBIUserInterface: body.useAIBIUserInterface,
    };
    for (const [k, v] of Object.entries(patch)) if (v != null) tenant.settings[k] = v;
    return tenantSettingsOut(ctx.state);
  },

  // ----- OAuth integrations (the client secret is write-only).

  listOAuthIntegrations(ctx) {
    return rows<OAuthIntegrationRec>(ctx.state, 'oauthIntegrations').sort(byId).map(integrationOut);
  },

  createOAuthIntegration(ctx) {
    const body = ctx.body as Omit<OAuthIntegrationRec, 'id' | 'createdAt' | 'updatedAt' | 'scopes' | 'config'> & { scopes?: string[]; config?: Rec };
    if (rows<OAuthIntegrationRec>(ctx.state, 'oauthIntegrations').some((i) => i.name === body.name)) {
      throw new HttpError(409, `an OAuth integration named ${JSON.stringify(body.name)} already exists`);
    }
    const now = ctx.clock.iso();
    const rec: OAuthIntegrationRec = {
      id: allocId(ctx.state, 'oauthIntegrations', 'oauthIntegration'),
      name: body.name,
      type: body.type,
      clientId: body.clientId,
      clientSecret: body.clientSecret,
      authUrl: body.authUrl,
      tokenUrl: body.tokenUrl,
      redirectUri: body.redirectUri,
      scopes: body.scopes ?? [],
      config: body.config ?? {},
      createdAt: now,
      updatedAt: now,
    };
    putRec(ctx.state, 'oauthIntegrations', rec.id, rec);
    return integrationOut(rec);
  },

  getOAuthIntegration(ctx) {
    return integrationOut(integrationIn(ctx.state, ctx.params.id as number));
  },

  updateOAuthIntegration(ctx) {
    const rec = integrationIn(ctx.state, ctx.params.id as number);
    const body = ctx.body as Omit<OAuthIntegrationRec, 'id' | 'createdAt' | 'updatedAt' | 'scopes' | 'config' | 'clientSecret'> & {
      clientSecret?: string | null;
      scopes?: string[];
      config?: Rec;
    };
    if (rows<OAuthIntegrationRec>(ctx.state, 'oauthIntegrations').some((i) => i.name === body.name && i.id !== rec.id)) {
      throw new HttpError(409, `an OAuth integration named ${JSON.stringify(body.name)} already exists`);
    }
    Object.assign(rec, {
      name: body.name,
      type: body.type,
      clientId: body.clientId,
      authUrl: body.authUrl,
      tokenUrl: body.tokenUrl,
      redirectUri: body.redirectUri,
      scopes: body.scopes ?? rec.scopes,
      config: body.config ?? rec.config,
      updatedAt: ctx.clock.iso(),
    });
    // Omitted (or null) keeps the stored secret.
    if (body.clientSecret) rec.clientSecret = body.clientSecret;
    return integrationOut(rec);
  },

  deleteOAuthIntegration(ctx) {
    const rec = integrationIn(ctx.state, ctx.params.id as number);
    for (const t of rows<UserTokenRec>(ctx.state, 'userOAuthTokens')) if (t.integrationId === rec.id) delRec(ctx.state, 'userOAuthTokens', t.id);
    for (const [k, f] of Object.entries(ctx.state.collections.oauthFlows ?? {})) if (f.integrationId === rec.id) delRec(ctx.state, 'oauthFlows', k);
    delRec(ctx.state, 'oauthIntegrations', rec.id);
    return { success: true };
  },

  // ----- The caller's OAuth tokens.

  listUserOAuthTokens(ctx) {
    return rows<UserTokenRec>(ctx.state, 'userOAuthTokens')
      .filter((t) => t.userId === ctx.principal.user.id)
      .sort(byId)
      .map(userTokenOut);
  },

  getUserOAuthToken(ctx) {
    return userTokenOut(callerToken(ctx).token);
  },

  revokeUserOAuthToken(ctx) {
    const { token } = callerToken(ctx);
    delRec(ctx.state, 'userOAuthTokens', token.id);
    return { success: true };
  },

  initiateOAuthFlow(ctx) {
    const integration = integrationIn(ctx.state, ctx.params.integrationId as number);
    const state = randomBytes(16).toString('hex');
    const url = new URL(integration.authUrl);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', integration.clientId);
    url.searchParams.set('redirect_uri', integration.redirectUri);
    if (integration.scopes.length) url.searchParams.set('scope', integration.scopes.join(' '));
    url.searchParams.set('state', state);
    putRec(ctx.state, 'oauthFlows', state, { state, integrationId: integration.id, userId: ctx.principal.user.id, startedAt: ctx.clock.iso() });
    return { authorizationUrl: url.toString(), state };
  },

  // ----- OIDC token configs.

  listOidcTokenConfigs(ctx) {
    return rows<OidcRec>(ctx.state, 'oidcTokenConfigs').sort(byId);
  },

  createOidcTokenConfig(ctx) {
    const body = ctx.body as {
      audienceType: string;
      customAudience?: string | null;
      customClaims?: Rec | null;
      isEnabled?: boolean | null;
      name?: string | null;
      subFormat?: string | null;
      targetEnvVar?: string | null;
    };
    checkOidcFields(body);
    if (body.audienceType === 'custom' && !body.customAudience) throw new HttpError(400, 'body.customAudience: required when audienceType is "custom"');
    const all = rows<OidcRec>(ctx.state, 'oidcTokenConfigs');
    if (body.name && all.some((o) => o.name === body.name)) throw new HttpError(409, `an OIDC token config named ${JSON.stringify(body.name)} already exists`);
    const id = allocId(ctx.state, 'oidcTokenConfigs', 'oidcTokenConfig');
    const now = ctx.clock.iso();
    const rec: OidcRec = {
      id,
      name: body.name ?? `${body.audienceType.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'oidc'}-${id}`,
      audienceType: body.audienceType,
      customAudience: body.customAudience ?? null,
      audience: oidcAudience(ctx.origin, body.audienceType, body.customAudience),
      isEnabled: body.isEnabled ?? true,
      subFormat: body.subFormat ?? null,
      targetEnvVar: body.targetEnvVar ?? null,
      customClaims: body.customClaims ?? null,
      createdAt: now,
      updatedAt: now,
    };
    putRec(ctx.state, 'oidcTokenConfigs', id, rec);
    return rec;
  },

  getOidcTokenConfig(ctx) {
    return oidcIn(ctx.state, ctx.params.id as number);
  },

  updateOidcTokenConfig(ctx) {
    const rec = oidcIn(ctx.state, ctx.params.id as number);
    const body = ctx.body as {
      customAudience?: string | null;
      customClaims?: Rec | null;
      isEnabled?: boolean | null;
      name?: string | null;
      subFormat?: string | null;
      targetEnvVar?: string | null;
    };
    checkOidcFields(body);
    if (body.name && rows<OidcRec>(ctx.state, 'oidcTokenConfigs').some((o) => o.name === body.name && o.id !== rec.id)) {
      throw new HttpError(409, `an OIDC token config named ${JSON.stringify(body.name)} already exists`);
    }
    if (rec.audienceType === 'custom' && body.customAudience === null) throw new HttpError(400, 'body.customAudience: a custom audience cannot be cleared');
    if (body.name != null) rec.name = body.name;
    if (body.isEnabled != null) rec.isEnabled = body.isEnabled;
    if (body.customAudience !== undefined) rec.customAudience = body.customAudience;
    if (body.customClaims !== undefined) rec.customClaims = body.customClaims;
    if (body.subFormat !== undefined) rec.subFormat = body.subFormat;
    if (body.targetEnvVar !== undefined) rec.targetEnvVar = body.targetEnvVar;
    rec.audience = oidcAudience(ctx.origin, rec.audienceType, rec.customAudience);
    rec.updatedAt = ctx.clock.iso();
    return rec;
  },

  deleteOidcTokenConfig(ctx) {
    const rec = oidcIn(ctx.state, ctx.params.id as number);
    delRec(ctx.state, 'oidcTokenConfigs', rec.id);
    return { success: true };
  },

  // ----- GitHub discovery.

  status() {
    return {
      connected: true,
      linkUrl: 'https://github.com/login/oauth/authorize?client_id=Iv1.datamodelciemulator',
      settingsUrl: 'https://github.com/apps/datamodel-ci-emulator/installations/new',
    };
  },

  installations(ctx) {
    const items = GITHUB_INSTALLATIONS.map((i) => ({
      id: String(i.installationId),
      installationId: String(i.installationId),
      login: i.login,
      avatarUrl: `https://avatars.githubusercontent.com/u/${i.installationId}?v=4`,
    }));
    const p = page(items, ctx.query as CursorQ);
    return { ...p, data: p.items };
  },

  repositories(ctx) {
    const inst = installationOrThrow(ctx.params.installationId as number);
    const items = inst.repos.map((name, i) => ({
      id: inst.installationId * 100 + i + 1,
      name,
      fullName: `${inst.login}/${name}`,
      htmlUrl: `https://github.com/${inst.login}/${name}`,
      private: i > 0,
      defaultBranch: 'main',
    }));
    const p = page(items, ctx.query as CursorQ);
    return { ...p, data: p.items };
  },

  branches(ctx) {
    const q = ctx.query as CursorQ & { installationId: number };
    const inst = installationOrThrow(q.installationId);
    const owner = String(ctx.params.owner);
    const repo = String(ctx.params.repo);
    if (owner.toLowerCase() !== inst.login || !inst.repos.includes(repo)) {
      throw new HttpError(404, `repository ${owner}/${repo} is not accessible to installation ${inst.installationId}`);
    }
    const items = GITHUB_BRANCHES.map((name) => ({ name, isDefault: name === 'main' }));
    const p = page(items, q);
    return { ...p, data: p.items };
  },

  // ----- App config, theme, OpenAPI document.

  getAppConfig(ctx) {
    return {
      applyThemeGlobally: false,
      restrictDataDownload: false,
      sheetsAgentChatEnabled: false,
      appTheme: appTheme(ctx.origin),
      creatorMode: { enabled: false },
      embedding: { enabled: true },
      sheetsUi: { enabled: true },
      timezoneSettings: { defaultTimezone: 'UTC' },
    };
  },

  getAppTheme(ctx) {
    return appTheme(ctx.origin);
  },

  getSpec(ctx) {
    return buildOpenApiDocument(ctx.origin);
  },
};
