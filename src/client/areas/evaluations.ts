import type { HttpClient } from '../http.js';
import { bind } from '../request.js';
import { evaluationEndpoints } from '@datamodel-ci/platform-api';

/** Evaluations (outside the vendor file; the tenant's own spec says whether they exist). Results pages are walked by the eval delta itself, which refuses an incomplete page. */
export function evaluationsApi(http: HttpClient) {
  return { ...bind(http, evaluationEndpoints) };
}
