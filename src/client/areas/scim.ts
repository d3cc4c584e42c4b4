import type { HttpClient, RequestOptions } from '../http.js';
import { bind, call } from '../request.js';
import { iterateOffset } from '../pagination.js';
import { scimEndpoints } from '@datamodel-ci/platform-api';

type ScimIterateArgs = { query?: { filter?: string }; count?: number };

/** Walk a SCIM list: `startIndex` is the 1-based offset, `count` the page size, `totalResults` the total. */
function scimPages<T>(fetchPage: (startIndex: number, count: number) => Promise<{ Resources: T[]; totalResults: number }>, count?: number) {
  return iterateOffset(async (offset, limit) => {
    const page = await fetchPage(offset + 1, limit);
    return { items: page.Resources, pagination: { offset, limit, total: page.totalResults } };
  }, count);
}

export function scimApi(http: HttpClient) {
  const api = bind(http, scimEndpoints);
  return {
    ...api,
    /** Every user, paging with `startIndex`/`count` until `totalResults` is reached. */
    iterateUsers(args: ScimIterateArgs = {}, options?: RequestOptions) {
      return scimPages((startIndex, count) => call(http, scimEndpoints.listUsers, { query: { ...args.query, startIndex, count } }, options), args.count);
    },
    /** Every group, paging with `startIndex`/`count` until `totalResults` is reached. */
    iterateGroups(args: ScimIterateArgs = {}, options?: RequestOptions) {
      return scimPages((startIndex, count) => call(http, scimEndpoints.listGroups, { query: { ...args.query, startIndex, count } }, options), args.count);
    },
  };
}
