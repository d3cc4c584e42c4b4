/** Workspace records: lookups within a deployment, the folder tree, dashboards of workbooks, placements, and their answers. */
import { HttpError } from '../../context.js';
import type { DeploymentRec } from '../../deployments/models.js';
import { findRecord, records, type State } from '../../state.js';
import { byId } from '../fields.js';
import type { DashboardRec, EmbedAccessRec, FolderRec, ReportRec, WorkbookRec } from '../models.js';
import { placementOut } from './placements.js';

/** Folders nest at most this deep (a folder at the root has depth 1). */
export const MAX_FOLDER_DEPTH = 8;

export function folderOut(f: FolderRec) {
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
export function dashboardOf(wb: WorkbookRec): DashboardRec | null {
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

export function dashboardOut(wb: WorkbookRec, dash: DashboardRec) {
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

export function workbookOut(wb: WorkbookRec) {
  const dash = dashboardOf(wb);
  return {
    id: wb.id,
    name: wb.name,
    slug: wb.slug ?? null,
    folderId: wb.folderId ?? null,
    deploymentId: wb.deploymentId,
    meta: wb.meta ?? null,
    publishedDashboard: dash ? dashboardOut(wb, dash) : null,
    // The vendor's workbook record carries both dashboard configs.
    dashboardDraft: wb.dashboardDraft ?? null,
    dashboardPublished: dash?.config ?? null,
    createdAt: wb.createdAt,
    updatedAt: wb.updatedAt ?? wb.createdAt,
  };
}

export function reportOut(r: ReportRec) {
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

export function foldersOf(state: State, d: DeploymentRec): FolderRec[] {
  return records(state, 'folders').filter((f) => f.deploymentId === d.id);
}

export function workbooksOf(state: State, d: DeploymentRec): WorkbookRec[] {
  return records(state, 'workbooks')
    .filter((w) => w.deploymentId === d.id)
    .sort(byId);
}

export function reportsOf(state: State, d: DeploymentRec): ReportRec[] {
  return records(state, 'reports')
    .filter((r) => r.deploymentId === d.id)
    .sort(byId);
}

export function folderIn(state: State, d: DeploymentRec, id: number, input = 'folderId'): FolderRec {
  const f = findRecord(state, 'folders', id);
  if (!f || f.deploymentId !== d.id) throw new HttpError(404, `${input}: folder ${id} not found in deployment ${d.id}`);
  return f;
}

export function workbookIn(state: State, d: DeploymentRec, id: number, input = 'workbookId'): WorkbookRec {
  const wb = findRecord(state, 'workbooks', id);
  if (!wb || wb.deploymentId !== d.id) throw new HttpError(404, `${input}: workbook ${id} not found in deployment ${d.id}`);
  return wb;
}

export function reportIn(state: State, d: DeploymentRec, id: number, input = 'reportId'): ReportRec {
  const r = findRecord(state, 'reports', id);
  if (!r || r.deploymentId !== d.id) throw new HttpError(404, `${input}: report ${id} not found in deployment ${d.id}`);
  return r;
}

/** Depth of a folder: 1 at the root. */
export function depthOf(state: State, f: FolderRec): number {
  return ancestorsOf(state, f).length + 1;
}

/** Ids of a folder's descendants (not the folder itself). */
export function descendantIds(state: State, d: DeploymentRec, f: FolderRec): Set<number> {
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
export function heightOf(state: State, d: DeploymentRec, f: FolderRec): number {
  const kids = foldersOf(state, d).filter((c) => c.parentId === f.id);
  return 1 + Math.max(0, ...kids.map((k) => heightOf(state, d, k)));
}

export function siblingNameTaken(state: State, d: DeploymentRec, parentId: number | null, name: string, except?: number): boolean {
  const lower = name.trim().toLowerCase();
  return foldersOf(state, d).some((f) => f.parentId === parentId && f.id !== except && f.name.trim().toLowerCase() === lower);
}

/** Ancestors of a folder, root first, the folder itself excluded. */
export function ancestorsOf(state: State, f: FolderRec): FolderRec[] {
  const out: FolderRec[] = [];
  let cur = f;
  while (cur.parentId !== null) {
    const parent = findRecord(state, 'folders', cur.parentId);
    if (!parent) break;
    out.unshift(parent);
    cur = parent;
  }
  return out;
}

export function embedAccessOf(state: State, workbookId: number): EmbedAccessRec {
  return findRecord(state, 'embedAccess', workbookId) ?? { workbookId, allEmbedUsers: false, tenants: [] };
}

/** Materialize a seeded workbook's derived dashboard before changing it. */
export function ownDashboard(wb: WorkbookRec, dash: DashboardRec): DashboardRec {
  if (!wb.dashboard) wb.dashboard = dash;
  return wb.dashboard;
}
