import type { HttpClient } from '../http.js';
import { bind } from '../request.js';
import { tenantEndpoints } from '@datamodel-ci/platform-api';

export function tenantApi(http: HttpClient) {
  const api = bind(http, tenantEndpoints);
  return {
    ...api,
  };
}
