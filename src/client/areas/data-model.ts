import type { HttpClient } from '../http.js';
import { bind, cursorIterator } from '../request.js';
import { dataModelEndpoints } from '@datamodel-ci/platform-api';

export function dataModelApi(http: HttpClient) {
  const api = bind(http, dataModelEndpoints);
  return {
    ...api,
    /** Every top-level node of the file tree, across pages. */
    iterateFiles: cursorIterator(http, dataModelEndpoints.listFiles),
  };
}
