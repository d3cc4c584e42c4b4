/**
 * Helpers shared by the users, tenant, github, embed, workspace and app areas: a cursor iterator
 * made from one list endpoint, per-item bulk failures, and secret harvesting of request bodies.
 */
import { z } from 'zod';
import type { ArgsOf, Endpoint, ResultOf } from '../endpoint.js';
import type { HttpClient, RequestOptions } from '../http.js';
import { iterateCursor, type CursorPageResult } from '../pagination.js';
import { call } from '../request.js';

/** One item of a cursor list's page. */
export type CursorItemOf<E extends Endpoint> = ResultOf<E> extends { items: (infer T)[] } ? T : never;

type QueryOf<E extends Endpoint> = ArgsOf<E> extends { query?: infer Q } ? NonNullable<Q> : Record<never, never>;

/** Arguments of an iterator: the list's own arguments, minus the cursor (the iterator owns it). */
export type IterateArgs<E extends Endpoint> = Omit<ArgsOf<E>, 'query'> & { query?: Omit<QueryOf<E>, 'after'> };

/** An iterator over every item of a cursor list endpoint, across pages. */
export function cursorIterator<E extends Endpoint>(http: HttpClient, e: E) {
  return (args: IterateArgs<E> = {} as IterateArgs<E>, options?: RequestOptions): AsyncGenerator<CursorItemOf<E>, void, undefined> =>
    iterateCursor<CursorItemOf<E>>(async (after) => {
      const query = { ...(args.query as Record<string, unknown> | undefined), after };
      const page = await call(http, e, { ...args, query } as unknown as ArgsOf<E>, options);
      return page as unknown as CursorPageResult<CursorItemOf<E>>;
    });
}

/**
 * Wrap a bound method so the secrets of its request body (`clientSecret`, `password`, …) are known to
 * the redactor before anything is sent: a server that echoes one in an error is then masked too.
 */
export function harvestingBody<A extends { body?: unknown }, R>(
  http: HttpClient,
  method: (args: A, options?: RequestOptions) => Promise<R>,
): (args: A, options?: RequestOptions) => Promise<R> {
  return (args, options) => {
    http.redactor.harvest(args.body);
    return method(args, options);
  };
}

/** `BulkActionError`: the status and message the single-item endpoint would have answered. */
export const BulkActionError = z.looseObject({ status: z.number().int(), message: z.string() });
export type BulkActionError = z.infer<typeof BulkActionError>;

/** A 204 (or any bodyless 2xx) answer. */
export const NoContent = z.void();

/** A 2xx whose body the vendor does not describe: whatever came back, unparsed. */
export const Unspecified = z.unknown();
