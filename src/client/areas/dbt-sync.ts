import type { HttpClient } from '../http.js';
import { bind, cursorIterator } from '../request.js';
import { dbtSyncEndpoints } from '@datamodel-ci/platform-api';

export function dbtSyncApi(http: HttpClient) {
  const api = bind(http, dbtSyncEndpoints);
  return {
    ...api,
    /** Every run of the history matching the filters, across pages. */
    iterate: cursorIterator(http, dbtSyncEndpoints.list),
    /** Every log line of a run, across pages (a server answering one page ends the walk). */
    iterateLogs: cursorIterator(http, dbtSyncEndpoints.logs),
  };
}
