/** Workspace folders: a tree per deployment, at most eight levels deep, sibling names unique. */
import { HttpError, reply, requireDeployment, type HandlerTable } from '../../context.js';
import { cursorPageWithData, type CursorQuery } from '../../paging.js';
import { allocId, putRecord } from '../../state.js';
import { tooLong } from '../fields.js';
import type { FolderRec } from '../models.js';
import { deleteItem } from './items.js';
import { ancestorsOf, depthOf, folderIn, folderOut, foldersOf, MAX_FOLDER_DEPTH, siblingNameTaken } from './records.js';

export const folderHandlers: HandlerTable = {
  getFolders(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as CursorQuery & { parentId?: number };
    const parentId = q.parentId ? folderIn(ctx.state, d, q.parentId, 'query.parentId').id : null;
    const all = foldersOf(ctx.state, d)
      .filter((f) => f.parentId === parentId)
      .sort((a, b) => a.position - b.position || a.id - b.id)
      .map(folderOut);
    return { ...cursorPageWithData(all, q), count: all.length };
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
    putRecord(ctx.state, 'folders', f.id, f);
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
};
