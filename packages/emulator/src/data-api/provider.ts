/**
 * The data REST API of a deployment's environments, as Cube's gateway answers it:
 * `/d/{id}/cubejs-api/v1/...` (production) and `/d/{id}/dev-mode/{encoded branch}/cubejs-api/v1/...`
 * (staging and dev branches). Production serves the model of the deploy branch's last finished build,
 * a branch its working tree; both compiled by Cube's compiler. `/meta` is its meta transformer's;
 * `/load`, `/sql` and `/dry-run` build SQL with its Postgres query class, and `/load` runs it on the
 * deployment's own Postgres (started with the demo data on its first query), after answering
 * `{"error":"Continue wait"}` to the first polls of each query (`continueWaitPolls`). A query with
 * `compareDateRange` is one query per range, run only for a client that sends `queryType`. Cube's
 * matcher plans the pre-aggregations (`/sql`'s `preAggregations`, `/load`'s `usedPreAggregations`);
 * a `/load` planned on a pre-aggregation table the deployment's Cube Store lacks builds it (counted,
 * cube-store.ts), and the query runs on the source tables (the store holds no rows here).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isActive, productionFiles, stagingFiles, touch } from '../build/runtime.js';
import type { Clock } from '../clock.js';
import { profileOn, type Controls } from '../context.js';
import { applyPolicies, hasAccessPolicies, policyMeta, type AccessContext } from '../engine/access.js';
import { ApiError, asApiError, unknownMemberAs500, userError } from '../engine/errors.js';
import type { Engine } from '../engine/index.js';
import { metaBody, visibleCubes } from '../engine/meta.js';
import { asOlderEngine } from '../engine/older-meta.js';
import { normalizeQuery, requestQueries, type NormalizedQuery, type QueryType } from '../engine/query.js';
import { annotate, loadResult, multiBody, tagRange, transformRows } from '../engine/results.js';
import { buildSql, buildTotalSql, dryRunBody, sqlBody, usedPreAggregations, type BuiltSql } from '../engine/sql.js';
import { answersFresh, STALE_CACHE_AGE_MS, UNDO_LATE_LOAD } from '../engine/stale-cache.js';
import type { CubeCompilers } from '../engine/vendor.js';
import { scheduledPreAggregations } from '../engine/refresh.js';
import { verifyJwt } from '../jwt.js';
import type { State } from '../state.js';
import { build, missingTables, notBuiltMessage, refreshed } from './cube-store.js';
import { namesRollingWindow, plansWithTesseract } from '../engine/planners.js';
import { VERSION_CATALOG } from '../deployments/models.js';

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
  // An environment token carries the scopes it was minted with (or the tenant's defaults); the deployment's token every scope.
  const carried = check.payload.scopes;
  const scopes: string[] = check.payload.kind === 'meta' ? ['meta'] : Array.isArray(carried) ? (carried as string[]) : ['meta', 'data', 'sql'];
  if (!scopes.includes(scope)) throw new ApiError(403, { error: `API scope is missing: ${scope}` });
  const context = check.payload.securityContext;
  return typeof context === 'object' && context !== null ? (context as Record<string, unknown>) : check.payload;
}

/** How the access policies of a model read this request's context (profiles groups-top-level, groups-from-roles: the deployment's own claim). */
function accessOf(env: DataApiEnv, securityContext: Record<string, unknown>): AccessContext {
  const groupsFrom = profileOn(env, 'groups-top-level') ? 'groups' : profileOn(env, 'groups-from-roles') ? 'roles' : 'cubeCloud.groups';
  return { securityContext, groupsFrom };
}

/** The query, `queryType` and cache mode (`cache`) of a request: from the URL (GET) or the JSON body (POST). */
function readParams(req: DataRequest): { query: unknown; queryType?: string; cache?: unknown } {
  if (req.method === 'GET') {
    const p = req.url.searchParams;
    return { query: p.get('query') ?? undefined, queryType: p.get('queryType') ?? undefined, cache: p.get('cache') ?? undefined };
  }
  let body: unknown = {};
  try {
    if (req.body.length) body = JSON.parse(req.body.toString('utf8'));
  } catch (e) {
    throw userError(`Unable to decode request body as JSON, error: ${(e as Error).message}`);
  }
  const b = (body ?? {}) as { query?: unknown; queryType?: unknown; cache?: unknown };
  return { query: b.query, queryType: typeof b.queryType === 'string' ? b.queryType : undefined, cache: b.cache ?? undefined };
}

/** The request's queries, normalised; a list of queries (data blending) is refused: the emulator runs none. */
function normalizedQueries(params: { query: unknown; cache?: unknown }, now: number): { queryType: QueryType; queries: NormalizedQuery[] } {
  const { queryType, queries } = requestQueries(params.query, params.cache);
  if (queryType === 'blendingQuery') throw userError('The emulator does not run data blending queries (a list of queries): send one query');
  return { queryType, queries: queries.map((q) => normalizeQuery(q, now)) };
}

/** One emulator's data API; its "Continue wait" counts are its own. */
export function dataApi(env: DataApiEnv): (req: DataRequest) => Promise<DataResponse> {
  /** Polls answered "Continue wait" so far, by deployment, branch and query. */
  const waits = new Map<string, number>();

  /** The Cube an environment runs: production its deployment's version, every other environment the newest. */
  function cubeVersionOf(deploymentId: number, production: boolean): string {
    const d = env.state.deployments.find((x) => x.id === deploymentId);
    return production && d ? d.version : (VERSION_CATALOG.latest?.[0] ?? d?.version ?? '');
  }

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

  /**
   * The Cube Store every environment of the deployment shares, as a `/load` planned on `planned` uses it:
   * production's refresh worker has built production's scheduled pre-aggregations; a table still missing
   * is built now, for `who` (under rollup-only: refused, as an API instance that builds nothing answers).
   */
  async function useCubeStore(deploymentId: number, planned: BuiltSql['preAggregations'], who: { branch: string; production: boolean }): Promise<void> {
    if (!planned.length) return;
    const d = env.state.deployments.find((x) => x.id === deploymentId) as NonNullable<State['deployments'][number]>;
    const at = new Date(env.clock.now()).toISOString();
    const deploy = d.branches[d.deployBranch];
    const files = deploy ? productionFiles(deploy, env.clock.now()) : {};
    const production = Object.keys(files).length ? (await env.engine.compile(files)).compilers : undefined;
    if (production) refreshed(d, scheduledPreAggregations(production), at);
    const missing = missingTables(d, planned);
    if (!missing.length) return;
    if (profileOn(env, 'rollup-only')) throw new ApiError(400, { error: notBuiltMessage(missing) });
    build(d, missing, who, at);
  }

  /**
   * One query's result (`asked`: the query as sent, annotated; `q`: as the access policies rewrote it, run;
   * `built`: its SQL as Cube plans it); `stale`: read as production's stale cache saw the warehouse
   * (profile `stale-production-cache`).
   */
  async function load(
    deploymentId: number,
    compilers: CubeCompilers,
    asked: NormalizedQuery,
    q: NormalizedQuery,
    built: BuiltSql,
    context: Record<string, unknown>,
    stale: boolean,
  ) {
    const cubes = visibleCubes(compilers);
    const annotation = annotate(cubes, asked);
    const db = await env.engine.database(deploymentId);
    const run = async (sql: BuiltSql) => {
      try {
        return await (stale ? db.queryAsOf(sql.sql[0], sql.sql[1], UNDO_LATE_LOAD) : db.query(sql.sql[0], sql.sql[1]));
      } catch (e) {
        throw new ApiError(400, { error: `Error: ${(e as Error).message}` });
      }
    };
    // A query planned on a pre-aggregation reads its source tables instead (the same rows: the Cube Store here holds none).
    const running = built.preAggregations.length ? buildSql(compilers, q, context, true) : built;
    const result = await run(running);
    let total: number | undefined;
    if (q.total) total = Number((await run(buildTotalSql(compilers, q, context, true))).rows[0]?.total_count ?? 0);
    return { q, annotation, rows: transformRows(result, running.aliasNameToMember, annotation, asked), total };
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
      const access = accessOf(env, context);
      if (m[3] === 'meta') {
        const described = hasAccessPolicies(compilers) ? await policyMeta(compilers, access) : undefined;
        const body = metaBody(compilers, req.url.searchParams.get('onlyViews') === 'true', described);
        // Profile newer-staging-engine: production answers as the older Cube of its release channel.
        return { status: 200, body: production && profileOn(env, 'newer-staging-engine') ? asOlderEngine(body) : body };
      }

      const params = readParams(req);
      const { queryType, queries } = normalizedQueries(params, env.clock.now());
      // Cube's gateway applies the access policies to each query before it builds its SQL (a deny: no rows, no error).
      const guarded: NormalizedQuery[] = [];
      for (const q of queries) guarded.push(await applyPolicies(compilers, q, access));
      // Profile production-release-channel: an environment on a Cube that plans with Tesseract serves no rolling-window measure from a rollup.
      const tesseract = profileOn(env, 'production-release-channel') && plansWithTesseract(cubeVersionOf(deploymentId, production));
      const built = guarded.map((q) => buildSql(compilers, q, context, tesseract && namesRollingWindow(compilers, q)));
      // The gateway answers a list of SQL for anything but a regular query.
      if (m[3] === 'sql') return { status: 200, body: queryType === 'regularQuery' ? sqlBody(built[0] as BuiltSql) : built.map(sqlBody) };
      if (m[3] === 'dry-run') return { status: 200, body: dryRunBody(queryType, guarded, built) };
      if (queryType !== 'regularQuery' && params.queryType === undefined) {
        throw userError(`'${queryType}' query type is not supported by the client.Please update the client.`);
      }
      // The first poll that needs a missing pre-aggregation starts its build, as Cube's orchestrator does.
      await useCubeStore(
        deploymentId,
        built.flatMap((b) => b.preAggregations),
        { branch, production },
      );

      // Profile stale-production-cache: production answers at once from a cache older than the warehouse, unless asked for fresh data.
      const stale = production && profileOn(env, 'stale-production-cache') && !answersFresh((queries[0] as NormalizedQuery).cacheMode);
      const key = `${deploymentId}:${branch}:${JSON.stringify(queries)}`;
      const polled = waits.get(key) ?? 0;
      if (!stale && polled < env.controls.behaviour.continueWaitPolls) {
        waits.set(key, polled + 1);
        env.engine.warm(deploymentId);
        return { status: 200, body: { error: 'Continue wait' } };
      }
      waits.delete(key);
      const refreshed = new Date(env.clock.now() - (stale ? STALE_CACHE_AGE_MS : 0)).toISOString();
      const results = [];
      for (const [i, q] of queries.entries()) {
        const r = await load(deploymentId, compilers, q, guarded[i] as NormalizedQuery, built[i] as BuiltSql, context, stale);
        const rows = queryType === 'compareDateRangeQuery' ? tagRange(r.rows, q) : r.rows;
        const used = usedPreAggregations(built[i] as BuiltSql, Date.parse(refreshed));
        results.push(loadResult(guarded[i] as NormalizedQuery, r.annotation, rows, refreshed, r.total, { used, external: (built[i] as BuiltSql).external }));
      }
      // `multi` (the vendor's client) gets every result; any other queryType the first, as the gateway does.
      return { status: 200, body: params.queryType === 'multi' ? multiBody(queryType, queries, results) : results[0] };
    } catch (e) {
      const error = profileOn(env, 'unknown-member-500') ? unknownMemberAs500(asApiError(e)) : asApiError(e);
      return { status: error.status, body: error.body };
    }
  };
}
