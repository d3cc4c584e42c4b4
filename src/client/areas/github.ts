import type { HttpClient } from '../http.js';
import { bind } from '../request.js';
import { cursorIterator } from '../request.js';
import { githubEndpoints } from '@datamodel-ci/platform-api';

export function githubApi(http: HttpClient) {
  const api = bind(http, githubEndpoints);
  return {
    ...api,
    /** Every installation, across pages. */
    iterateInstallations: cursorIterator(http, githubEndpoints.installations),
    /** Every repository of an installation, across pages. */
    iterateRepositories: cursorIterator(http, githubEndpoints.repositories),
    /** Every branch of a repository, across pages. */
    iterateBranches: cursorIterator(http, githubEndpoints.branches),
  };
}
