/**
 * The evaluation endpoints, served before the contract's router (the vendor's OpenAPI file lacks them;
 * the tenant's own `GET /api/v1/spec` says whether they exist): start a run, read it, page its results
 * with `first`/`after`, list the runs. Profiles: `no-evaluations` (404, not in the spec),
 * `evaluation-incomplete` (a results page with hasNextPage and no endCursor), `evaluation-never-finishes`,
 * `evaluation-results-paged` (a small default page, of results and of the runs list),
 * `evaluation-list-without-branch` and `evaluation-list-undated` (the runs list's records without
 * `branchName`, or without dates), `evaluation-flaky` (the fixture agent answers one question wrong on every
 * other run of a branch).
 */
import type { IncomingMessage } from 'node:http';
import { authenticate } from '../auth.js';
import type { Clock } from '../clock.js';
import { HttpError, profileOn, type Controls } from '../context.js';
import type { Engine } from '../engine/index.js';
import { readBody } from '../http.js';
import { cursorPaginate } from '../paging.js';
import type { State } from '../state.js';
import { EVAL_MS_PER_QUESTION, runView, startRun } from './runs.js';

/** `/api/v1/deployments/{id}/evaluations[/{evaluationId}[/results]]`. */
export const EVALUATION_PATH = /^\/api\/v1\/deployments\/([^/]+)\/evaluations(?:\/([^/]+)(\/results)?)?\/?$/;

/**
 * A results page when `first` is not given. The vendor's CLI reads one page without `first` and refuses it
 * unless hasNextPage is false, so a tenant's default page holds a whole run; under profile
 * `evaluation-results-paged` it is small, and a client must follow the cursor.
 */
export const DEFAULT_RESULTS_PAGE = 100;
export const PAGED_RESULTS_PAGE = 5;
const MAX_PAGE = 100;
/** A page of the runs list when `first` is not given. */
export const DEFAULT_RUNS_PAGE = 20;

/** A run as the list shows it: what the tenant's profile leaves out of a listed record. */
function listed(env: EvalsEnv, view: ReturnType<typeof runView>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...view };
  if (profileOn(env, 'evaluation-list-without-branch')) delete out.branchName;
  if (profileOn(env, 'evaluation-list-undated')) for (const k of ['createdAt', 'updatedAt', 'completedAt']) delete out[k];
  return out;
}

export interface EvalsEnv {
  state: State;
  clock: Clock;
  controls: Controls;
  engine: Engine;
}

function count(raw: string | null, name: string, fallback: number): number {
  if (raw === null) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new HttpError(400, `query.${name}: got ${JSON.stringify(raw)}, expected a positive integer`);
  return Math.min(n, MAX_PAGE);
}

function optionalText(body: Record<string, unknown>, key: string): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v === '') throw new HttpError(400, `body.${key}: got ${JSON.stringify(v)}, expected a non-empty string`);
  return v;
}

export async function serveEvaluations(env: EvalsEnv, req: IncomingMessage, method: string, url: URL): Promise<unknown> {
  const m = EVALUATION_PATH.exec(url.pathname) as RegExpExecArray;
  const raw = await readBody(req);
  if (profileOn(env, 'no-evaluations')) throw new HttpError(404, `no such endpoint: ${method} ${url.pathname}`);
  const principal = authenticate(env.state, env.clock, undefined, req.headers.authorization);
  const deploymentId = Number(m[1]);
  if (!Number.isInteger(deploymentId)) throw new HttpError(400, `deploymentId: got ${JSON.stringify(m[1])}, expected an integer`);
  if (principal.key.deploymentIds && !principal.key.deploymentIds.includes(deploymentId)) {
    throw new HttpError(403, `this API key is scoped to deployment(s) ${principal.key.deploymentIds.join(', ')}, not ${deploymentId}`);
  }
  const d = env.state.deployments.find((x) => x.id === deploymentId);
  if (!d) throw new HttpError(404, `deployment ${deploymentId} not found`);
  const runs = (d.evaluations ??= []);
  const now = env.clock.now();

  if (!m[2]) {
    if (method === 'GET') {
      const paged = profileOn(env, 'evaluation-results-paged');
      const q = {
        first: count(url.searchParams.get('first'), 'first', paged ? PAGED_RESULTS_PAGE : DEFAULT_RUNS_PAGE),
        after: url.searchParams.get('after') ?? undefined,
      };
      return cursorPaginate(
        [...runs].reverse().map((r) => listed(env, runView(r, now))),
        q,
      );
    }
    if (method !== 'POST') throw new HttpError(405, `${method} is not allowed on ${url.pathname}; allowed: GET, POST`);
    let body: Record<string, unknown>;
    try {
      body = raw.length ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : {};
    } catch {
      throw new HttpError(400, 'body: malformed JSON');
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'body: expected a JSON object');
    const branchName = optionalText(body, 'branchName');
    if (!branchName) throw new HttpError(400, 'body.branchName: required: the branch whose model and agents the run uses');
    if (!d.branches[branchName]) throw new HttpError(404, `branch ${JSON.stringify(branchName)} not found in deployment ${d.id}`);
    const run = await startRun(
      { clock: env.clock, engine: env.engine, answers: env.controls.evalAnswers ?? {} },
      d,
      { branchName, agentName: optionalText(body, 'agentName'), questionFile: optionalText(body, 'questionFile') },
      profileOn(env, 'evaluation-never-finishes'),
      1000 + env.state.deployments.reduce((n, x) => n + (x.evaluations?.length ?? 0), 0) + 1,
      // The branch's 2nd, 4th, … run: deterministic, no randomness.
      profileOn(env, 'evaluation-flaky') && runs.filter((r) => r.branchName === branchName).length % 2 === 1,
    );
    runs.push(run);
    return runView(run, env.clock.now());
  }

  if (method !== 'GET') throw new HttpError(405, `${method} is not allowed on ${url.pathname}; allowed: GET`);
  const id = decodeURIComponent(m[2]);
  const run = runs.find((r) => String(r.id) === id);
  if (!run) throw new HttpError(404, `evaluation ${JSON.stringify(id)} not found in deployment ${d.id}`);
  if (!m[3]) return runView(run, now);
  // A running run shows the results of the questions done so far, in order.
  const stuck = run.finishAt === Number.MAX_SAFE_INTEGER;
  const done = now >= run.finishAt ? run.results.length : stuck ? 0 : Math.floor((now - run.createdAt) / EVAL_MS_PER_QUESTION);
  const page = cursorPaginate(run.results.slice(0, Math.min(done, run.results.length)), {
    first: count(url.searchParams.get('first'), 'first', profileOn(env, 'evaluation-results-paged') ? PAGED_RESULTS_PAGE : DEFAULT_RESULTS_PAGE),
    after: url.searchParams.get('after') ?? undefined,
  });
  if (profileOn(env, 'evaluation-incomplete') && now >= run.finishAt)
    return { items: page.items, pageInfo: { ...page.pageInfo, hasNextPage: true, endCursor: null } };
  return page;
}
