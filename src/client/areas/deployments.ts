import { z } from 'zod';
import type { HttpClient, RequestOptions } from '../http.js';
import { bind, call, cursorIterator } from '../request.js';
import { iterateOffset } from '../pagination.js';
import { EnvironmentType, deploymentEndpoints } from '@datamodel-ci/platform-api';

type ListDeploymentsQuery = Omit<z.input<(typeof deploymentEndpoints)['list']['query']>, 'offset' | 'limit'>;

export function deploymentsApi(http: HttpClient) {
  const api = bind(http, deploymentEndpoints);
  return {
    ...api,
    /** Every deployment, across offset pages (either response form). */
    iterate(args: { query?: ListDeploymentsQuery; limit?: number } = {}, options?: RequestOptions) {
      return iterateOffset((offset, limit) => call(http, deploymentEndpoints.list, { query: { ...args.query, offset, limit } }, options), args.limit);
    },
    /** Every environment of a deployment, across offset pages (either response form). */
    iterateEnvironments(args: { deploymentId: number; query?: { type?: z.input<typeof EnvironmentType> }; limit?: number }, options?: RequestOptions) {
      return iterateOffset(
        (offset, limit) => call(http, deploymentEndpoints.environments, { deploymentId: args.deploymentId, query: { ...args.query, offset, limit } }, options),
        args.limit,
      );
    },
    /** Every version a deployment can switch to, across pages. */
    iterateVersions: cursorIterator(http, deploymentEndpoints.versions),
    /** Every environment variable of a deployment, across cursor pages (secret-named values read `[ENCRYPTED]`). */
    iterateEnvVars: cursorIterator(http, deploymentEndpoints.envVars),
    /** Every log line matching the filters, across pages. */
    iterateLogs: cursorIterator(http, deploymentEndpoints.logs),
  };
}
