/** The client core over real HTTPS: auth, TLS, retries, timeouts, errors, pagination, schemas, secrets. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AbortedError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  HttpClient,
  InputError,
  NotFoundError,
  PermissionDeniedError,
  PlatformClient,
  PlatformError,
  RateLimitError,
  ResponseShapeError,
  ServerError,
  TimeoutError,
  collect,
  iterateOffset,
  parseRetryAfter,
  type ClientOptions,
} from '../src/client/index.js';
import { VERSION } from '../src/version.js';
import { json, startTestServer, type TestServer } from '../packages/emulator/src/github/https-server.js';

const KEY = 'test-key-0123456789abcdef';
let server: TestServer;
const clients: PlatformClient[] = [];

function client(extra: Partial<ClientOptions> = {}): PlatformClient {
  const c = new PlatformClient({
    baseUrl: server.baseUrl,
    apiKey: KEY,
    ca: server.ca,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    ...extra,
  });
  clients.push(c);
  return c;
}

const validation = { deploymentId: 1, branchName: 'main', mode: 'production', valid: true, errors: [] };

beforeAll(async () => {
  server = await startTestServer();
});
beforeEach(() => {
  server.requests.length = 0;
  server.handle((_q, r) => json(r, 200, validation));
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server.close();
});

describe('transport', () => {
  it('sends Authorization: Bearer <key> by default, and the user agent', async () => {
    await client().dataModel.validate({ deploymentId: 1 });
    const req = server.requests[0]!;
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req.headers['user-agent']).toBe(`datamodel-ci/${VERSION}`);
    expect(req.path).toBe('/build/api/v1/deployments/1/data-model/validate');
  });

  it('sends Authorization: Api-Key <key> when asked', async () => {
    await client({ authScheme: 'api-key' }).dataModel.validate({ deploymentId: 1 });
    expect(server.requests[0]!.headers.authorization).toBe(`Api-Key ${KEY}`);
  });

  it('refuses an http:// URL, naming the input and the value', () => {
    expect(() => new HttpClient({ baseUrl: 'http://example.com', apiKey: KEY })).toThrow(InputError);
    expect(() => new HttpClient({ baseUrl: 'http://example.com', apiKey: KEY })).toThrow(
      'api-url: got "http://example.com", expected an https:// URL',
    );
    expect(() => new HttpClient({ baseUrl: 'not a url', apiKey: KEY })).toThrow(/api-url: got "not a url", expected an absolute https:\/\/ URL/);
  });

  it('refuses an unknown auth scheme, an empty key and a non-positive timeout', () => {
    expect(() => new HttpClient({ baseUrl: server.baseUrl, apiKey: KEY, authScheme: 'basic' as never })).toThrow(
      'auth-scheme: got "basic", expected "bearer" or "api-key"',
    );
    expect(() => new HttpClient({ baseUrl: server.baseUrl, apiKey: '' })).toThrow(/api-key/);
    expect(() => new HttpClient({ baseUrl: server.baseUrl, apiKey: KEY, timeoutMs: 0 })).toThrow(/timeout: got 0/);
  });

  it('does not trust the local CA unless told to, and does not retry a TLS failure', async () => {
    const debug: string[] = [];
    const c = client({ ca: undefined, logger: { debug: (m) => debug.push(m) } });
    const err = await c.dataModel.validate({ deploymentId: 1 }).catch((e: unknown) => e);
    expect(debug.filter((l) => l.startsWith('retrying'))).toEqual([]);
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as ConnectionError).message).toMatch(/GET \/build\/api\/v1\/deployments\/1\/data-model\/validate -> connection failed/);
    expect(server.requests).toHaveLength(0);
  });

  it('accepts the CA as a file path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dmci-ca-'));
    const file = join(dir, 'ca.pem');
    writeFileSync(file, server.ca);
    const r = await client({ ca: file }).dataModel.validate({ deploymentId: 1 });
    expect(r.valid).toBe(true);
    expect(() => new HttpClient({ baseUrl: server.baseUrl, apiKey: KEY, ca: join(dir, 'missing.pem') })).toThrow(
      /ca-cert: got ".*missing.pem", expected PEM text or the path of a readable PEM file/,
    );
  });

  it('trusts NODE_EXTRA_CA_CERTS (the bundled CLI in a fresh process)', async () => {
    server.handle((_q, r) => json(r, 200, { data: { deployments: [{ id: '1', name: 'a' }] }, pagination: { offset: 0, limit: 20, total: 1 } }));
    const dir = mkdtempSync(join(tmpdir(), 'dmci-extra-'));
    const file = join(dir, 'ca.pem');
    writeFileSync(file, server.ca);
    const env = { ...process.env, DATAMODEL_CI_API_URL: server.baseUrl, DATAMODEL_CI_API_KEY: KEY };
    const withCa = await run(['dist/index.js', 'check'], { ...env, NODE_EXTRA_CA_CERTS: file });
    expect(withCa.stderr).toBe('');
    expect(withCa.stdout).toContain('1 deployment(s) visible');
    expect(withCa.status).toBe(0);
    const without = await run(['dist/index.js', 'check'], env);
    expect(without.status).toBe(1);
    expect(without.stderr).toContain('connection failed');
    expect(without.stdout + without.stderr).not.toContain(KEY);
  });
});

describe('retries', () => {
  it('retries a GET after a 5xx and returns the 200', async () => {
    let n = 0;
    server.handle((_q, r) => (++n === 1 ? json(r, 503, { error: 'busy' }) : json(r, 200, validation)));
    const r = await client().dataModel.validate({ deploymentId: 1 });
    expect(r.valid).toBe(true);
    expect(server.requests).toHaveLength(2);
  });

  it('honours Retry-After (seconds) on a 429 and logs the wait at debug level', async () => {
    let n = 0;
    server.handle((_q, r) => (++n === 1 ? json(r, 429, { error: 'slow down' }, { 'retry-after': '1' }) : json(r, 200, validation)));
    const debug: string[] = [];
    const started = Date.now();
    await client({ logger: { debug: (m) => debug.push(m) } }).dataModel.validate({ deploymentId: 1 });
    const gap = Date.now() - started;
    expect(server.requests).toHaveLength(2);
    expect(gap).toBeGreaterThanOrEqual(950);
    expect(debug.join('\n')).toMatch(/retrying GET \/build\/api\/v1\/deployments\/1\/data-model\/validate in 1000 ms \(attempt 2\/8\)/);
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });

  it('does not retry a POST after a 5xx', async () => {
    server.handle((_q, r) => json(r, 500, { error: 'boom' }));
    const err = await client()
      .dbtSync.start({ deploymentId: 1, body: { ref: 'main' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect((err as Error).message).toBe('POST /api/v1/deployments/1/dbt-sync -> 500: boom');
    expect(server.requests).toHaveLength(1);
  });

  it('does not repeat a POST after a 429 either (it reached the server)', async () => {
    server.handle((_q, r) => json(r, 429, { error: 'slow down' }, { 'retry-after': '0' }));
    const err = await client()
      .dbtSync.start({ deploymentId: 1, body: { ref: 'main' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a POST whose connection was refused (it never reached a server)', async () => {
    const port = await freePort();
    const debug: string[] = [];
    const c = new PlatformClient({
      baseUrl: `https://127.0.0.1:${port}`,
      apiKey: KEY,
      ca: server.ca,
      retry: { baseDelayMs: 1, maxDelayMs: 2, maxAttempts: 3 },
      logger: { debug: (m) => debug.push(m) },
    });
    clients.push(c);
    const err = await c.dbtSync.start({ deploymentId: 1, body: { ref: 'main' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as ConnectionError).sent).toBe(false);
    expect(debug.filter((l) => l.startsWith('retrying POST'))).toHaveLength(2);
  });

  it('stops at the attempt bound', async () => {
    server.handle((_q, r) => json(r, 502, { error: 'bad gateway' }));
    const err = await client({ retry: { baseDelayMs: 1, maxDelayMs: 2, maxAttempts: 4 } })
      .dataModel.validate({ deploymentId: 1 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(server.requests).toHaveLength(4);
  });

  it('stops when the next wait would pass the overall deadline', async () => {
    server.handle((_q, r) => json(r, 429, { error: 'later' }, { 'retry-after': '30' }));
    const debug: string[] = [];
    const err = await client({ retry: { baseDelayMs: 1, deadlineMs: 2_000 }, logger: { debug: (m) => debug.push(m) } })
      .dataModel.validate({ deploymentId: 1 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfterSeconds).toBe(30);
    expect(server.requests).toHaveLength(1);
    expect(debug.join('\n')).toMatch(/would pass the 2000 ms deadline/);
  });
});

describe('timeouts and cancellation', () => {
  it('times out a hanging request, retries an idempotent one, then reports TimeoutError', async () => {
    server.handle(() => {
      /* never answer */
    });
    const err = await client({ timeoutMs: 150, retry: { baseDelayMs: 1, maxAttempts: 2 } })
      .dataModel.validate({ deploymentId: 1 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as Error).message).toBe('GET /build/api/v1/deployments/1/data-model/validate -> timed out after 150 ms');
    expect(server.requests).toHaveLength(2);
  });

  it('stops at once when the caller aborts, without retrying', async () => {
    server.handle(() => {
      /* never answer */
    });
    const controller = new AbortController();
    const pending = client({ timeoutMs: 10_000 }).dataModel.validate({ deploymentId: 1 }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const err = await pending.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AbortedError);
    expect(server.requests).toHaveLength(1);
  });
});

describe('errors', () => {
  it('maps each status to its class and carries the platform message and the path', async () => {
    const cases: [number, new (...a: never[]) => PlatformError][] = [
      [400, BadRequestError],
      [422, BadRequestError],
      [401, AuthenticationError],
      [403, PermissionDeniedError],
      [404, NotFoundError],
      [409, ConflictError],
      [429, RateLimitError],
      [500, ServerError],
    ];
    for (const [status, Cls] of cases) {
      server.handle((_q, r) => json(r, status, { error: `platform says ${status}` }));
      const err = await client({ retry: { maxAttempts: 1 } })
        .branches.setStagingEnvironment({ deploymentId: 12, body: { enabled: true, branchName: 'pr-1' } })
        .catch((e: unknown) => e);
      expect(err, String(status)).toBeInstanceOf(Cls);
      const pe = err as PlatformError;
      expect(pe.status).toBe(status);
      expect(pe.method).toBe('PUT');
      expect(pe.path).toBe('/build/api/v1/deployments/12/branches/staging-environment');
      expect(pe.platformMessage).toBe(`platform says ${status}`);
      expect(pe.message).toBe(`PUT /build/api/v1/deployments/12/branches/staging-environment -> ${status}: platform says ${status}`);
    }
  });

  it('keeps a redacted copy of the request: no Authorization header, no token, no key', async () => {
    server.handle((_q, r) => json(r, 400, { error: `key ${KEY} is not valid here` }));
    const err = (await client()
      .dataModel.updateFiles({ deploymentId: 3, body: { branchName: 'dev-x', files: [{ path: 'a.yml', content: 'x' }], token: 'tok-secret-value' } as never })
      .catch((e: unknown) => e)) as PlatformError;
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.request.headers.authorization).toBe('***');
    const everything = JSON.stringify({ message: err.message, request: err.request, body: err.responseBody, stack: err.stack });
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain('tok-secret-value');
    expect(err.message).toBe('PUT /build/api/v1/deployments/3/data-model/files -> 400: key *** is not valid here');
  });

  it('checks inputs before sending: bad path value, empty ref, exclusive query parameters', async () => {
    const c = client();
    await expect(c.dataModel.validate({ deploymentId: 'abc' as never })).rejects.toThrow(/^deploymentId: got "abc", expected/);
    await expect(c.dbtSync.start({ deploymentId: 1, body: { ref: '' } })).rejects.toThrow(
      'body.ref: got "", expected a non-empty branch or tag name',
    );
    await expect(c.dataModel.validate({ deploymentId: 1, query: { branchName: 'x', devMode: true } })).rejects.toThrow(
      /query.devMode: got true, expected branchName and devMode=true are mutually exclusive/,
    );
    await expect(c.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true } })).rejects.toThrow(
      /body.branchName: .*one of branchName or branchId is required/,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('schemas', () => {
  it('keeps unknown fields', async () => {
    server.handle((_q, r) => json(r, 200, { ...validation, futureField: { a: 1 } }));
    const r = await client().dataModel.validate({ deploymentId: 1 });
    expect((r as Record<string, unknown>).futureField).toEqual({ a: 1 });
  });

  it('reports a missing required field by its path', async () => {
    server.handle((_q, r) =>
      json(r, 200, {
        items: [syncRun('a'), { ...syncRun('b'), syncJobId: undefined }],
        pageInfo: { hasNextPage: false, hasPreviousPage: false },
      }),
    );
    const err = await client().dbtSync.list({ deploymentId: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseShapeError);
    expect((err as Error).message).toMatch(/^GET \/api\/v1\/deployments\/1\/dbt-sync -> 200: unexpected response: items\[1\]\.syncJobId: expected string, received undefined/);
  });
});

describe('pagination', () => {
  it('walks a cursor list to the end (first/after), stopping on hasNextPage false', async () => {
    const all = Array.from({ length: 7 }, (_, i) => syncRun(`job-${i}`));
    server.handle((q, r) => {
      const first = Number(q.query.get('first') ?? 3);
      const start = q.query.get('after') ? Number(q.query.get('after')) : 0;
      const items = all.slice(start, start + first);
      const end = start + items.length;
      json(r, 200, { items, pageInfo: { hasNextPage: end < all.length, hasPreviousPage: start > 0, endCursor: String(end) } });
    });
    const got = await collect(client().dbtSync.iterate({ deploymentId: 1, query: { first: 3, status: 'COMPLETED' } }));
    expect(got.map((g) => g.syncJobId)).toEqual(all.map((a) => a.syncJobId));
    // Parameters in any order (the contract lists them in the vendor's order).
    expect(server.requests.map((r) => Object.fromEntries(r.query))).toEqual([
      { first: '3', status: 'COMPLETED' },
      { first: '3', after: '3', status: 'COMPLETED' },
      { first: '3', after: '6', status: 'COMPLETED' },
    ]);
    expect(server.requests.every((r) => r.path === '/api/v1/deployments/1/dbt-sync')).toBe(true);
  });

  it('stops when pageInfo is null and tolerates the deprecated data/count fields', async () => {
    server.handle((_q, r) => json(r, 200, { data: [{ id: 1, name: 'main' }, { id: 2, name: 'pr-1' }], count: 2, pageInfo: null }));
    const got = await collect(client().branches.iterate({ deploymentId: 1 }));
    expect(got.map((b) => b.name)).toEqual(['main', 'pr-1']);
    expect(server.requests).toHaveLength(1);
  });

  it('walks an offset list by total (limit default 20)', async () => {
    const total = 45;
    server.handle((q, r) => {
      const offset = Number(q.query.get('offset'));
      const limit = Number(q.query.get('limit'));
      const rows = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => ({ id: offset + i }));
      json(r, 200, { data: { deployments: rows }, pagination: { offset, limit, total } });
    });
    const http = client().http;
    const got = await collect(
      iterateOffset(async (offset, limit) => {
        const res = await http.send({ method: 'GET', path: `/api/v1/deployments?offset=${offset}&limit=${limit}` });
        const body = JSON.parse(res.text ?? '{}');
        return { items: body.data.deployments as { id: number }[], pagination: body.pagination };
      }),
    );
    expect(got).toHaveLength(45);
    expect(server.requests.map((r) => r.query.get('offset'))).toEqual(['0', '20', '40']);
    expect(server.requests.every((r) => r.query.get('limit') === '20')).toBe(true);
  });
});

describe('secrets', () => {
  it('reports the key and every token received to the hook, and masks them', async () => {
    const seen: string[] = [];
    server.handle((_q, r) => json(r, 200, { branchName: 'b', syncJobId: 's', workflowId: 'w', token: 'eyJhbGciOi.minted.token' }));
    const c = client({ onSecret: (s) => seen.push(s) });
    await c.dbtSync.start({ deploymentId: 1, body: { ref: 'main' } });
    expect(seen).toContain(KEY);
    expect(seen).toContain('eyJhbGciOi.minted.token');
    expect(c.http.redactor.redactText('x eyJhbGciOi.minted.token y')).toBe('x *** y');
  });
});

async function run(args: string[], env: NodeJS.ProcessEnv) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, args, { env, encoding: 'utf8' });
    return { status: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { status: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

function syncRun(id: string) {
  return {
    syncJobId: id,
    deploymentId: 1,
    status: 'COMPLETED',
    trigger: 'api',
    source: 'git',
    branchName: `dbt-${id}`,
    startedAt: '2026-01-01T00:00:00Z',
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
