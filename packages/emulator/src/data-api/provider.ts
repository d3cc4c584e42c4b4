/**
 * The data REST API of a deployment's environments, as Cube's gateway answers it:
 * `/d/{id}/cubejs-api/v1/...` (production) and `/d/{id}/dev-mode/{encoded branch}/cubejs-api/v1/...`
 * (staging and dev branches). Production serves the model of the deploy branch's last finished build,
 * a branch its working tree; both compiled by Cube's compiler. `/meta` is its meta transformer's;
 * `/load`, `/sql` and `/dry-run` build SQL with its Postgres query class, and `/load` runs it on the
 * deployment's own Postgres (started with the demo data on its first query), after answering
 * `{"error":"Continue wait"}` to the first polls of each query (`continueWaitPolls`).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isActive, productionFiles, stagingFiles, touch } from '../build/runtime.js';
import type { Clock } from '../clock.js';
import { profileOn, type Controls } from '../context.js';
import { ApiError, asApiError, userError } from '../engine/errors.js';
import type { Engine } from '../engine/index.js';
import { metaBody, visibleCubes } from '../engine/meta.js';
import { asOlderEngine } from '../engine/older-meta.js';
import { normalizeQuery, parseQueryParam, type NormalizedQuery } from '../engine/query.js';
import { annotate, loadResult, multiBody, transformRows } from '../engine/results.js';
import { buildSql, buildTotalSql, dryRunBody, sqlBody, type BuiltSql } from '../engine/sql.js';
import type { CubeCompilers } from '../engine/vendor.js';
import { verifyJwt } from '../jwt.js';
import type { State } from '../state.js';

export interface DataRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface DataResponse {
  status: number;
  body: unknown;
}

/** What the data API of one emulator reads. */
export interface DataApiEnv {
  state: State;
  clock: Clock;
  controls: Controls;
  engine: Engine;
}

type Scope = 'meta' | 'data' | 'sql';
const OPERATIONS: Record<string, { scope: Scope; methods: string[] }> = {
  meta: { scope: 'meta', methods: ['GET'] },
  load: { scope: 'data', methods: ['GET', 'POST'] },
  sql: { scope: 'sql', methods: ['GET', 'POST'] },
  'dry-run': { scope: 'data', methods: ['GET', 'POST'] },
};
const PATH = /^\/d\/(\d+)(?:\/dev-mode\/(.+?))?\/cubejs-api\/v1\/([a-z-]+)$/;

/** The gateway reads the token from `x-cube-authorization`, else `Authorization` (a scheme word before it is skipped). */
function tokenOf(headers: IncomingHttpHeaders): string | undefined {
  const header = headers['x-cube-authorization'] ?? headers.authorization;
  if (typeof header !== 'string' || header === '') return undefined;
  const parts = header.trim().split(/\s+/);
  return parts.length > 1 ? parts[1] : parts[0];
}

/** The security context of a request's token, checked as the gateway checks it: any failure is 403 "Invalid token". */
function authenticate(env: DataApiEnv, headers: IncomingHttpHeaders, deploymentId: number, scope: Scope): Record<string, unknown> {
  const token = tokenOf(headers);
  if (!token) throw new ApiError(403, { error: "Authorization header isn't set" });
  const check = verifyJwt(token, env.state.secret, env.clock.now());
  // Each deployment signs with its own secret: another deployment's token does not verify here.
  if (!check.ok || check.payload.deploymentId !== deploymentId) throw new ApiError(403, { error: 'Invalid token' });
  // A metadata token (minted for meta sync) carries the `meta` scope only; under meta-token-scoped not even that.
  if (check.payload.kind === 'meta' && profileOn(env, 'meta-token-scoped')) {
    throw new ApiError(403, { error: 'Invalid token: a metadata token is valid for the metadata API only, not the data API' });
  }
  const scopes: Scope[] = check.payload.kind === 'meta' ? ['meta'] : ['meta', 'data', 'sql'];
  if (!scopes.includes(scope)) throw new ApiError(403, { error: `API scope is missing: ${scope}` });
  const context = check.payload.securityContext;
  return typeof context === 'object' && context !== null ? (context as Record<string, unknown>) : check.payload;
}

/** The query and `queryType` of a request: from the URL (GET) or the JSON body (POST). */
function readParams(req: DataRequest): { query: unknown; queryType?: string } {
  if (req.method === 'GET') return { query: req.url.searchParams.get('query') ?? undefined, queryType: req.url.searchParams.get('queryType') ?? undefined };
  let body: unknown = {};
  try {
    if (req.body.length) body = JSON.parse(req.body.toString('utf8'));
  } catch (e) {
    throw userError(`Unable to decode request body as JSON, error: ${(e as Error).message}`);
  }
  const b = (body ?? {}) as { query?: unknown; queryType?: unknown };
  return { query: b.query, queryType: typeof b.queryType === 'string' ? b.queryType : undefined };
}

/** Blending (a list of queries) and compare-date-range queries are refused, in the gateway's words where it has them. */
function singleQuery(raw: unknown, queryType: string | undefined): unknown {
  const query = parseQueryParam(raw);
  const compare =
    !Array.isArray(query) && (query as { timeDimensions?: { compareDateRange?: unknown }[] } | null)?.timeDimensions?.some?.((td) => td?.compareDateRange);
  if ((Array.isArray(query) || compare) && queryType === undefined) {
    const type = Array.isArray(query) ? 'blendingQuery' : 'compareDateRangeQuery';
    throw userError(`'${type}' query type is not supported by the client.Please update the client.`);
  }
  if (Array.isArray(query)) throw userError('The emulator does not run data blending queries (a list of queries): send one query');
  if (compare) throw userError('The emulator does not run compareDateRange queries: send one dateRange per query');
  return query;
}

/** One emulator's data API; its "Continue wait" counts are its own. */
export function dataApi(env: DataApiEnv): (req: DataRequest) => Promise<DataResponse> {
  /** Polls answered "Continue wait" so far, by deployment, branch and query. */
  const waits = new Map<string, number>();

  async function compiledModel(
    deploymentId: number,
    branchName: string | undefined,
  ): Promise<{ compilers: CubeCompilers; branch: string; production: boolean }> {
    const d = env.state.deployments.find((x) => x.id === deploymentId) as NonNullable<State['deployments'][number]>;
    const b = d.branches[branchName ?? d.deployBranch];
    if (!b) throw new ApiError(404, { error: `branch ${JSON.stringify(branchName)} not found` });
    if (b.kind === 'shared' && !isActive(d, b)) {
      throw new ApiError(403, {
        error: `the staging environment of branch ${JSON.stringify(b.name)} is disabled and nobody is in dev mode on it: enable it first`,
      });
    }
    // Profile staging-cold: a request to an asleep staging environment wakes it, and is answered once it runs.
    if (b.kind === 'shared' && touch(env, d, b)) {
      throw new ApiError(503, { error: `the staging environment of branch ${JSON.stringify(b.name)} was asleep and is starting: try again in a few seconds` });
    }
    // Production and a staging environment serve their last finished build; a dev-mode branch its working tree.
    const now = env.clock.now();
    const files = b.kind === 'deploy' ? productionFiles(b, now) : b.kind === 'shared' ? stagingFiles(b, now) : b.files;
    const compiled = await env.engine.compile(files);
    // What the gateway answers when the model does not compile: the compiler's error, as text.
    if (!compiled.compilers) throw new ApiError(500, { error: compiled.failure ?? 'Error: Compile errors' });
    return { compilers: compiled.compilers, branch: b.name, production: b.kind === 'deploy' };
  }

  async function load(
    deploymentId: number,
    compilers: CubeCompilers,
    q: NormalizedQuery,
    built: BuiltSql,
    context: Record<string, unknown>,
    queryType?: string,
  ) {
    const cubes = visibleCubes(compilers);
    const annotation = annotate(cubes, q);
    const db = await env.engine.database(deploymentId);
    const run = async (sql: BuiltSql) => {
      try {
        return await db.query(sql.sql[0], sql.sql[1]);
      } catch (e) {
        throw new ApiError(400, { error: `Error: ${(e as Error).message}` });
      }
    };
    const result = await run(built);
    let total: number | undefined;
    if (q.total) total = Number((await run(buildTotalSql(compilers, q, context))).rows[0]?.total_count ?? 0);
    const rows = transformRows(result, built.aliasNameToMember, annotation, q);
    const body = loadResult(q, annotation, rows, env.clock.iso(), total);
    return queryType === 'multi' ? multiBody(q, body) : body;
  }

  return async (req) => {
    try {
      const m = PATH.exec(req.url.pathname);
      const op = m ? OPERATIONS[m[3] as string] : undefined;
      if (!m || !op) throw new ApiError(404, { error: `no such data API path: ${req.url.pathname}` });
      if (!op.methods.includes(req.method)) throw new ApiError(404, { error: `Cannot ${req.method} ${req.url.pathname}` });
      const deploymentId = Number(m[1]);
      if (!env.state.deployments.some((x) => x.id === deploymentId)) throw new ApiError(404, { error: `deployment ${deploymentId} not found` });
      const context = authenticate(env, req.headers, deploymentId, op.scope);
      const { compilers, branch, production } = await compiledModel(deploymentId, m[2] ? decodeURIComponent(m[2]) : undefined);
      if (m[3] === 'meta') {
        const body = metaBody(compilers, req.url.searchParams.get('onlyViews') === 'true');
        // Profile newer-staging-engine: production answers as the older Cube of its release channel.
        return { status: 200, body: production && profileOn(env, 'newer-staging-engine') ? asOlderEngine(body) : body };
      }

      const params = readParams(req);
      const q = normalizeQuery(singleQuery(params.query, params.queryType), env.clock.now());
      const built = buildSql(compilers, q, context);
      if (m[3] === 'sql') return { status: 200, body: sqlBody(built) };
      if (m[3] === 'dry-run') return { status: 200, body: dryRunBody(q, built) };

      const key = `${deploymentId}:${branch}:${JSON.stringify(q)}`;
      const polled = waits.get(key) ?? 0;
      if (polled < env.controls.behaviour.continueWaitPolls) {
        waits.set(key, polled + 1);
        env.engine.warm(deploymentId);
        return { status: 200, body: { error: 'Continue wait' } };
      }
      waits.delete(key);
      return { status: 200, body: await load(deploymentId, compilers, q, built, context, params.queryType) };
    } catch (e) {
      const error = asApiError(e);
      return { status: error.status, body: error.body };
    }
  };
}
