import type { HttpClient } from '../http.js';
import { bind } from '../request.js';
import { cursorIterator } from '../request.js';
import { embedEndpoints } from '@datamodel-ci/platform-api';

export function embedApi(http: HttpClient) {
  const api = bind(http, embedEndpoints);
  return {
    ...api,
    /** Every embed tenant matching `search`, across pages. */
    iterateTenants: cursorIterator(http, embedEndpoints.listTenants),
    /** Every user of an embed tenant, across pages. */
    iterateUsers: cursorIterator(http, embedEndpoints.listUsers),
    /** Every group of an embed tenant, across pages. */
    iterateGroups: cursorIterator(http, embedEndpoints.listGroups),
    /** Every member of an embed group, across pages. */
    iterateGroupMembers: cursorIterator(http, embedEndpoints.listGroupMembers),
    /** Every comment thread of a dashboard, across pages. */
    iterateComments: cursorIterator(http, embedEndpoints.listComments),
  };
}
