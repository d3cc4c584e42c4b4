/** The workspace as one feed of items (folders, workbooks, reports): listing, moving and deleting them, one or in bulk. */
import { HttpError, requireDeployment, settleEach, type Ctx, type HandlerTable } from '../../context.js';
import type { DeploymentRec } from '../../deployments/models.js';
import { cursorPaginate, type CursorQuery } from '../../paging.js';
import { deleteRecord, findRecord, records, type State } from '../../state.js';
import { tenantOrThrow } from '../embed/records.js';
import type { FolderRec, ReportRec, WorkbookRec } from '../models.js';
import {
  ancestorsOf,
  depthOf,
  descendantIds,
  embedAccessOf,
  folderIn,
  folderOut,
  foldersOf,
  heightOf,
  MAX_FOLDER_DEPTH,
  reportIn,
  reportOut,
  reportsOf,
  siblingNameTaken,
  workbookIn,
  workbookOut,
  workbooksOf,
} from './records.js';

type ItemType = 'FOLDER' | 'WORKBOOK' | 'REPORT';

function isShared(state: State, wb: WorkbookRec): boolean {
  const a = embedAccessOf(state, wb.id);
  return a.allEmbedUsers || a.tenants.length > 0;
}

/** An item as a bulk request names it. */
interface ItemRef {
  type: ItemType;
  id: number;
}

function itemRef(item: ItemRef): ItemRef {
  return { type: item.type, id: item.id };
}

function itemOut(type: ItemType, rec: FolderRec | WorkbookRec | ReportRec) {
  if (type === 'FOLDER') {
    const f = rec as FolderRec;
    return { ...folderOut(f), folderId: f.parentId };
  }
  if (type === 'WORKBOOK') return { ...workbookOut(rec), type };
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
  for (const r of records(state, 'reports')) if (r.workbookId === wb.id) deleteRecord(state, 'reports', r.id);
  deleteRecord(state, 'embedAccess', wb.id);
  deleteRecord(state, 'workbooks', wb.id);
}

/** Delete one workspace item (all checks first). */
export function deleteItem(ctx: Ctx, d: DeploymentRec, type: ItemType, id: number): void {
  const { state } = ctx;
  if (type === 'FOLDER') {
    const f = folderIn(state, d, id, 'id');
    if (foldersOf(state, d).some((c) => c.parentId === f.id)) {
      throw new HttpError(400, `folder ${f.id} still has sub-folders: delete or move them first`);
    }
    for (const wb of workbooksOf(state, d)) if (wb.folderId === f.id) wb.folderId = null;
    for (const r of reportsOf(state, d)) if (r.folderId === f.id) r.folderId = null;
    deleteRecord(state, 'folders', f.id);
    return;
  }
  if (type === 'WORKBOOK') {
    deleteWorkbookRec(state, workbookIn(state, d, id, 'id'));
    return;
  }
  deleteRecord(state, 'reports', reportIn(state, d, id, 'id').id);
}

/** Repeats collapsed, first occurrence kept. */
function distinctItems(items: ItemRef[]) {
  const seen = new Set<string>();
  return items.filter((i) => {
    const k = `${i.type}:${i.id}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

type WorkspaceQuery = CursorQuery & {
  folderId?: number;
  types?: ItemType[];
  search?: string;
  orderByField?: 'updated_at' | 'created_at' | 'name' | 'viewer_last_viewed_at';
  orderByDirection?: 'ASC' | 'DESC';
};

/** The unified feed over a set of items: folders first, then workbooks and reports sorted. */
function workspaceFeed(ctx: Ctx, d: DeploymentRec, q: WorkspaceQuery, sets: { folders: FolderRec[]; workbooks: WorkbookRec[]; reports: ReportRec[] }) {
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
  return cursorPaginate(items, q);
}

export const workspaceItemHandlers: HandlerTable = {
  workspaceObjects(ctx) {
    const d = requireDeployment(ctx);
    const { state } = ctx;
    return workspaceFeed(ctx, d, ctx.query, {
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
      const f = findRecord(state, 'folders', w.folderId);
      if (!f) continue;
      for (const a of [...ancestorsOf(state, f), f]) nav.set(a.id, a);
    }
    return workspaceFeed(ctx, d, ctx.query, { folders: [...nav.values()], workbooks, reports: [] });
  },

  moveWorkspaceObject(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { type: ItemType; id: number; folderId?: number | null };
    return moveItem(ctx, d, body.type, body.id, body.folderId ?? null);
  },

  bulkDeleteWorkspaceObjects(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { items: ItemRef[] };
    // One at a time, in order; each item is checked before it changes anything, none is rolled back.
    const { succeeded, failed } = settleEach(distinctItems(body.items), (item) => deleteItem(ctx, d, item.type, item.id));
    return { deleted: succeeded.map(({ item }) => itemRef(item)), failed: failed.map(({ item, error }) => ({ ...itemRef(item), error })) };
  },

  bulkMoveWorkspaceObjects(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { items: ItemRef[]; folderId?: number | null };
    const { succeeded, failed } = settleEach(distinctItems(body.items), (item) => moveItem(ctx, d, item.type, item.id, body.folderId ?? null));
    return { moved: succeeded.map(({ result }) => result), failed: failed.map(({ item, error }) => ({ ...itemRef(item), error })) };
  },

  listEmbedTenantWorkbooks(ctx) {
    const d = requireDeployment(ctx);
    const tenant = tenantOrThrow(ctx.state, String(ctx.params.embedTenantName));
    const q = ctx.query as CursorQuery & { accessSource?: 'tenant' | 'allEmbedUsers' | 'folder' };
    const list = workbooksOf(ctx.state, d).filter((w) => {
      const a = embedAccessOf(ctx.state, w.id);
      const direct = a.tenants.includes(tenant.name);
      // Sharing is per workbook here: no folder is shared, so `folder` access matches nothing.
      if (q.accessSource === 'tenant') return direct;
      if (q.accessSource === 'allEmbedUsers') return a.allEmbedUsers;
      if (q.accessSource === 'folder') return false;
      return direct || a.allEmbedUsers;
    });
    return cursorPaginate(list.map(workbookOut), q);
  },
};
