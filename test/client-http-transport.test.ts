/** The client core over real HTTPS: auth, TLS, errors, pagination, schemas, secrets. Retries and timeouts: client-http-retries.test.ts. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  HttpClient,
  InputError,
  NotFoundError,
  PermissionDeniedError,
  PlatformError,
  RateLimitError,
  ResponseShapeError,
  ServerError,
  collect,
  iterateOffset,
} from '../src/client/index.js';
import { VERSION } from '../src/version.js';
import { json } from './support/https-server.js';
import { KEY, client, server, useTestServer, validation } from './support/platform-test-server.js';

useTestServer();

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
    expect(() => new HttpClient({ baseUrl: 'http://example.com', apiKey: KEY })).toThrow('api-url: got "http://example.com", expected an https:// URL');
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
    expect(withCa.stdout).toContain('1 deployment visible');
    expect(withCa.status).toBe(0);
    const without = await run(['dist/index.js', 'check'], env);
    expect(without.status).toBe(3);
    expect(without.stderr).toContain('connection failed');
    expect(without.stderr).toContain('--ca-cert FILE (DATAMODEL_CI_CA_CERT) or NODE_EXTRA_CA_CERTS=FILE');
    expect(without.stdout + without.stderr).not.toContain(KEY);
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
      .dataModel.updateFiles({ deploymentId: 3, body: { branchName: 'dev-x', files: [{ path: 'a.yml', content: 'x' }], token: 'tok-secret-value' } })
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
    await expect(c.dataModel.validate({ deploymentId: 'abc' })).rejects.toThrow(/^deploymentId: got "abc", expected/);
    await expect(c.dbtSync.start({ deploymentId: 1, body: { ref: '' } })).rejects.toThrow('body.ref: got "", expected a non-empty branch or tag name');
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
    const err = await client()
      .dbtSync.list({ deploymentId: 1 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseShapeError);
    expect((err as Error).message).toMatch(
      /^GET \/api\/v1\/deployments\/1\/dbt-sync -> 200: unexpected response: items\[1\]\.syncJobId: expected string, received undefined/,
    );
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
    server.handle((_q, r) =>
      json(r, 200, {
        data: [
          { id: 1, name: 'main' },
          { id: 2, name: 'pr-1' },
        ],
        count: 2,
        pageInfo: null,
      }),
    );
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
