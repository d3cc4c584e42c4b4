import type { Readable } from 'node:stream';
import type { HttpClient, RequestOptions } from '../http.js';
import { bind, callStream, cursorIterator, type IterateArgs } from '../request.js';
import { InputError, workspaceEndpoints, type ArgsOf } from '@datamodel-ci/platform-api';

type ListReports = typeof workspaceEndpoints.listReports;

export function workspaceApi(http: HttpClient) {
  const api = bind(http, workspaceEndpoints);
  const reportsPages = cursorIterator(http, workspaceEndpoints.listReports);
  return {
    ...api,
    /** Stream a completed dashboard render; the caller must consume or destroy `body`. */
    async downloadDashboardExport(
      args: ArgsOf<typeof workspaceEndpoints.downloadDashboardExport>,
      options?: RequestOptions,
    ): Promise<{ headers: Record<string, string>; body: Readable }> {
      const e = workspaceEndpoints.downloadDashboardExport;
      return callStream(http, e, args, options);
    },
    /** Every folder at one level (root or `parentId`), across pages. */
    iterateFolders: cursorIterator(http, workspaceEndpoints.listFolders),
    /** Every workbook, across pages. */
    iterateWorkbooks: cursorIterator(http, workspaceEndpoints.listWorkbooks),
    /**
     * Every report, across pages. Refuses `sortBy: 'lastViewedAt'` before sending anything: cursor
     * pagination is not available for that sort (spec section 8); use `listReports` with `limit`/`page`.
     */
    async *iterateReports(args: IterateArgs<ListReports>, options?: RequestOptions) {
      if (args.query?.sortBy === 'lastViewedAt') {
        throw new InputError(
          'query.sortBy',
          'lastViewedAt',
          'name, createdAt or updatedAt (cursor pagination is not available when sorting by lastViewedAt; use listReports with limit/page)',
        );
      }
      yield* reportsPages(args, options);
    },
    /** Every item of the workspace feed, across pages. */
    iterateWorkspace: cursorIterator(http, workspaceEndpoints.listWorkspace),
    /** Every item shared with embed users, across pages. */
    iterateSharedWorkspace: cursorIterator(http, workspaceEndpoints.listSharedWorkspace),
    /** Every workbook an embed tenant can access, across pages. */
    iterateEmbedTenantWorkbooks: cursorIterator(http, workspaceEndpoints.listEmbedTenantWorkbooks),
  };
}
