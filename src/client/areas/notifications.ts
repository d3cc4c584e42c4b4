import type { HttpClient } from '../http.js';
import { bind, cursorIterator } from '../request.js';
import { notificationEndpoints } from '@datamodel-ci/platform-api';

export function notificationsApi(http: HttpClient) {
  const api = bind(http, notificationEndpoints);
  return {
    ...api,
    /** Every notification matching the filters, across pages. */
    iterate: cursorIterator(http, notificationEndpoints.list),
    /** Every recipient of a notification, across pages. */
    iterateRecipients: cursorIterator(http, notificationEndpoints.recipients),
  };
}
