import type { HttpClient } from '../http.js';
import { bind } from '../request.js';
import { usageAnalyticsEndpoints } from '@datamodel-ci/platform-api';

export function usageAnalyticsApi(http: HttpClient) {
  return { ...bind(http, usageAnalyticsEndpoints) };
}
