import { HttpClient, type ClientOptions } from './http.js';
import { branchEndpoints, branchesApi } from './areas/branches.js';
import { dataModelApi, dataModelEndpoints } from './areas/data-model.js';
import { dbtSyncApi, dbtSyncEndpoints } from './areas/dbt-sync.js';
import type { Endpoint } from './endpoint.js';

/** Every endpoint the client knows, by area: the route table. */
export const routeTable = {
  branches: branchEndpoints,
  dataModel: dataModelEndpoints,
  dbtSync: dbtSyncEndpoints,
} as const satisfies Record<string, Record<string, Endpoint>>;

/** All endpoints as a flat list. */
export function allEndpoints(): Endpoint[] {
  return Object.values(routeTable).flatMap((area) => Object.values(area) as Endpoint[]);
}

/** The platform API client: one HTTP core, one object per API area. */
export class PlatformClient {
  readonly http: HttpClient;
  readonly branches: ReturnType<typeof branchesApi>;
  readonly dataModel: ReturnType<typeof dataModelApi>;
  readonly dbtSync: ReturnType<typeof dbtSyncApi>;

  constructor(options: ClientOptions) {
    this.http = new HttpClient(options);
    this.branches = branchesApi(this.http);
    this.dataModel = dataModelApi(this.http);
    this.dbtSync = dbtSyncApi(this.http);
  }

  /** Close the keep-alive pool. */
  close(): Promise<void> {
    return this.http.close();
  }
}
