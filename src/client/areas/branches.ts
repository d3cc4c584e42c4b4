import type { HttpClient } from '../http.js';
import { bind, cursorIterator } from '../request.js';
import { branchEndpoints } from '@datamodel-ci/platform-api';

export function branchesApi(http: HttpClient) {
  const api = bind(http, branchEndpoints);
  return {
    ...api,
    /** Every branch, across pages. */
    iterate: cursorIterator(http, branchEndpoints.list),
  };
}
