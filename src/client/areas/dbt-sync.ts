import { z } from 'zod';
import type { HttpClient, RequestOptions } from '../http.js';
import { bind, call, cursorIterator } from '../request.js';
import { dbtSyncEndpoints } from '@datamodel-ci/platform-api';

export function dbtSyncApi(http: HttpClient) {
  const api = bind(http, dbtSyncEndpoints);
  return {
    ...api,
    /** Every run of the history matching the filters, across pages. */
    iterate: cursorIterator(http, dbtSyncEndpoints.list),
  };
}
