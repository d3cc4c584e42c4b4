import type { HttpClient } from '../http.js';
import { bind } from '../request.js';
import { appEndpoints } from '@datamodel-ci/platform-api';

export function appApi(http: HttpClient) {
  return { ...bind(http, appEndpoints) };
}
