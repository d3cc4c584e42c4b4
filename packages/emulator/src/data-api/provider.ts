/**
 * The data REST API of a deployment's environments: `/d/{id}/cubejs-api/v1/...` (production) and
 * `/d/{id}/dev-mode/{encoded branch}/cubejs-api/v1/...` (staging and dev branches). Production serves
 * the model of the deploy branch's last finished production build; a branch its working tree. `/meta`
 * serves the compiled model; `/load` answers `{"error":"Continue wait"}` to the first polls of a query, then rows.
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { compileFiles } from '../build/branches.js';
import { isActive, productionFiles } from '../build/runtime.js';
import type { Clock } from '../clock.js';
import { verifyJwt } from '../jwt.js';
import type { State } from '../state.js';

/** Polls of one query that answer "Continue wait" before the rows arrive. */
const CONTINUE_WAIT_POLLS = 2;
const polls = new Map<string, number>();

interface DataRequest {
  state: State;
  clock: Clock;
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

interface DataResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

const fail = (status: number, error: string): DataResponse => ({ status, body: { error } });

export function serveDataApi(req: DataRequest): DataResponse {
  const m = /^\/d\/(\d+)(?:\/dev-mode\/(.+?))?\/cubejs-api\/v1\/(meta|load)$/.exec(req.url.pathname);
  if (!m) return fail(404, `no such data API path: ${req.url.pathname}`);
  const deploymentId = Number(m[1]);
  const branchName = m[2] ? decodeURIComponent(m[2]) : undefined;
  const op = m[3] as 'meta' | 'load';
  const d = req.state.deployments.find((x) => x.id === deploymentId);
  if (!d) return fail(404, `deployment ${deploymentId} not found`);

  const auth = String(req.headers.authorization ?? '').replace(/^Bearer\s+/i, '').trim();
  if (!auth) return fail(401, 'missing data-API token in Authorization');
  const check = verifyJwt(auth, req.state.secret, req.clock.now());
  if (!check.ok) return fail(401, `invalid data-API token: ${check.reason}`);
  if (check.payload.deploymentId !== deploymentId) return fail(403, `this token is for deployment ${String(check.payload.deploymentId)}`);

  const b = d.branches[branchName ?? d.deployBranch];
  if (!b) return fail(404, `branch ${JSON.stringify(branchName)} not found`);
  if (b.kind === 'shared' && !isActive(d, b)) {
    return fail(403, `the staging environment of branch ${JSON.stringify(b.name)} is disabled and nobody is in dev mode on it: enable it first`);
  }
  const compiled = compileFiles(b.kind === 'deploy' ? productionFiles(b, req.clock.now()) : b.files);
  if (!compiled.valid) return fail(400, `Compile error: ${compiled.errors.map((e) => e.message).join('; ')}`);

  if (op === 'meta') {
    return {
      status: 200,
      body: {
        cubes: compiled.cubes.map((c) => ({
          name: c.name,
          title: c.title ?? c.name,
          type: c.type,
          measures: c.measures,
          dimensions: c.dimensions,
          segments: c.segments,
        })),
      },
    };
  }

  if (check.payload.kind === 'meta') return fail(403, 'a metadata token cannot query data');
  let query: unknown;
  try {
    if (req.method === 'POST') query = (JSON.parse(req.body.toString('utf8') || '{}') as { query?: unknown }).query;
    else query = JSON.parse(req.url.searchParams.get('query') ?? 'null');
  } catch {
    return fail(400, 'query: malformed JSON');
  }
  if (!query || typeof query !== 'object') return fail(400, 'query: expected a JSON object with measures and dimensions');
  const q = query as { measures?: string[]; dimensions?: string[]; limit?: number };
  const members = new Set(compiled.cubes.flatMap((c) => [...c.measures, ...c.dimensions].map((x) => x.name)));
  for (const name of [...(q.measures ?? []), ...(q.dimensions ?? [])]) {
    if (!members.has(name)) return fail(400, `query: unknown member ${JSON.stringify(name)}`);
  }
  const key = `${d.id}:${b.name}:${JSON.stringify(query)}`;
  const n = (polls.get(key) ?? 0) + 1;
  polls.set(key, n);
  if (n <= CONTINUE_WAIT_POLLS) return { status: 200, body: { error: 'Continue wait' } };
  polls.delete(key);
  const rows = Array.from({ length: Math.min(q.limit ?? 3, 3) }, (_, i) => {
    const row: Record<string, string | number> = {};
    for (const dim of q.dimensions ?? []) row[dim] = `${dim.split('.').pop()}-${i + 1}`;
    for (const me of q.measures ?? []) row[me] = Number.parseInt(createHash('sha1').update(`${me}:${i}`).digest('hex').slice(0, 6), 16) % 1000;
    return row;
  });
  return { status: 200, body: { query, data: rows, lastRefreshTime: req.clock.iso() } };
}
