import type { PageInfo, Pagination } from '@datamodel-ci/platform-api';

/** One page of a cursor list. */
export interface CursorPageResult<T> {
  items: T[];
  pageInfo?: PageInfo | null;
}

/**
 * Walk a cursor list to its end: `first`/`after`, stopping when `hasNextPage` is false, `pageInfo`
 * is null, or the server hands back a cursor it already gave (which would loop forever).
 */
export async function* iterateCursor<T>(
  fetchPage: (after: string | undefined) => Promise<CursorPageResult<T>>,
  start?: string,
): AsyncGenerator<T, void, undefined> {
  let after = start;
  const seen = new Set<string>();
  for (;;) {
    const page = await fetchPage(after);
    for (const item of page.items) yield item;
    const info = page.pageInfo;
    if (!info || !info.hasNextPage || !info.endCursor) return;
    if (seen.has(info.endCursor)) return;
    seen.add(info.endCursor);
    after = info.endCursor;
  }
}

/** One page of an offset list. */
export interface OffsetPageResult<T> {
  items: T[];
  pagination?: Pagination | null;
}

/**
 * Walk an offset list to its end: `offset`/`limit` (default 20), stopping when `offset` reaches
 * `pagination.total`, or at a short or empty page when the server gives no total. A server that ignores
 * the paging (some answer their whole list whatever `offset` and `limit` say) is read once: a page longer
 * than `limit` is the whole list, and a page that starts as the one before it is not read twice.
 */
export async function* iterateOffset<T>(
  fetchPage: (offset: number, limit: number) => Promise<OffsetPageResult<T>>,
  limit = 20,
): AsyncGenerator<T, void, undefined> {
  let offset = 0;
  let previousFirst: string | undefined;
  for (;;) {
    const page = await fetchPage(offset, limit);
    const first = page.items.length ? JSON.stringify(page.items[0]) : undefined;
    if (offset > 0 && first !== undefined && first === previousFirst) return;
    previousFirst = first;
    for (const item of page.items) yield item;
    if (page.items.length > limit) return;
    offset += page.items.length;
    const total = page.pagination?.total;
    if (page.items.length === 0) return;
    if (total !== undefined ? offset >= total : page.items.length < limit) return;
  }
}

/** Collect an async iterable into an array (with an optional cap). */
export async function collect<T>(iterable: AsyncIterable<T>, max = Number.POSITIVE_INFINITY): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) {
    out.push(item);
    if (out.length >= max) break;
  }
  return out;
}
