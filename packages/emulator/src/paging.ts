/** The two paging styles of the API: cursors (`first`/`after`, `pageInfo`) and offsets (`offset`/`limit`, `pagination`). */
import { HttpError } from './context.js';

/** Cursor query of a listing. */
export type CursorQuery = { first?: number; after?: string };

/** One page from a cursor query: the cursor is the offset as text. */
export function cursorPaginate<T>(items: T[], q: CursorQuery) {
  const start = q.after ? Number.parseInt(q.after, 10) : 0;
  if (!Number.isInteger(start) || start < 0) throw new HttpError(400, `query.after: got ${JSON.stringify(q.after)}, expected a cursor from pageInfo.endCursor`);
  const first = q.first ?? items.length;
  const page = items.slice(start, start + first);
  const end = start + page.length;
  return {
    items: page,
    pageInfo: {
      hasNextPage: end < items.length,
      hasPreviousPage: start > 0,
      startCursor: page.length ? String(start) : null,
      endCursor: page.length ? String(end) : null,
    },
  };
}

/** A cursor page that also carries its items as `data` (the older envelope several listings keep). */
export function cursorPageWithData<T>(items: T[], q: CursorQuery) {
  const page = cursorPaginate(items, q);
  return { ...page, data: page.items };
}

/** Offset paging (spec 4, 8): default limit 20, offset 0; `pagination: { offset, limit, total }`. */
export function offsetPage<T>(rows: T[], q: { offset?: number; limit?: number }) {
  const offset = q.offset ?? 0;
  const limit = q.limit ?? 20;
  return { rows: rows.slice(offset, offset + limit), pagination: { offset, limit, total: rows.length } };
}
