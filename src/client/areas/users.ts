import type { HttpClient } from '../http.js';
import { bind } from '../request.js';
import { cursorIterator } from '../request.js';
import { userEndpoints } from '@datamodel-ci/platform-api';

export function usersApi(http: HttpClient) {
  const api = bind(http, userEndpoints);
  return {
    ...api,
    /** Every user matching `search`, across pages. */
    iterate: cursorIterator(http, userEndpoints.list),
    /** Every group matching `search`, across pages. */
    iterateGroups: cursorIterator(http, userEndpoints.listGroups),
    /** Every user attribute, across pages. */
    iterateAttributes: cursorIterator(http, userEndpoints.listAttributes),
    /** Every custom role, across pages. */
    iterateRoles: cursorIterator(http, userEndpoints.listRoles),
  };
}
