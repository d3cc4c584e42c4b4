/**
 * Profile `stale-production-cache`: production answers from a cache filled before the warehouse's last
 * load (the demo data's last month arrived since), as Cube's default cache mode does when a fresh answer
 * is slow; a request that asks for fresh data (`no-cache`, or `must-revalidate` with its refresh key
 * expired) reads the warehouse. Staging environments have no such cache.
 */

/** Orders from this day on (and their payments) arrived after production's cache was filled. */
export const LATE_LOAD_FROM = '2025-12-01';

/** How long before the answer the stale cache was filled: its `lastRefreshTime`. */
export const STALE_CACHE_AGE_MS = 60 * 60_000;

/** The rows of the late load, removed (in a transaction rolled back) to read the warehouse as the cache saw it. */
export const UNDO_LATE_LOAD = [
  `DELETE FROM public.payments WHERE order_id IN (SELECT id FROM public.orders WHERE created_at >= '${LATE_LOAD_FROM}')`,
  `DELETE FROM public.orders WHERE created_at >= '${LATE_LOAD_FROM}'`,
];

/** Cache modes that never answer from an expired cache. */
const FRESH = new Set(['no-cache', 'must-revalidate']);

export const answersFresh = (cacheMode: string): boolean => FRESH.has(cacheMode);
