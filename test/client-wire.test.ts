/**
 * What the client puts on the wire and how it reads what comes back, as the vendor's own clients do
 * (docs/api-assumptions.md): bodyless writes carry `Content-Length: 0`, the key picks its auth
 * scheme, the platform's message is read from `message` first, and the web app's HTML page (the
 * answer of an unknown route) is a distinct, never-retried error.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BadRequestError, NotAvailableError, PlatformClient, extractPlatformMessage, type ClientOptions } from '../src/client/index.js';
import { json, startTestServer, type TestServer } from './support/https-server.js';

let server: TestServer;
const clients: PlatformClient[] = [];

function client(extra: Partial<ClientOptions> = {}): PlatformClient {
  const c = new PlatformClient({ baseUrl: server.baseUrl, apiKey: 'key-0123456789', ca: server.ca, retry: { baseDelayMs: 1, maxDelayMs: 5 }, ...extra });
  clients.push(c);
  return c;
}

beforeAll(async () => {
  server = await startTestServer();
});
beforeEach(() => {
  server.requests.length = 0;
  server.handle((_q, r) => json(r, 200, { success: true }));
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server.close();
});

describe('bodyless writes', () => {
  it('send Content-Length: 0 and an empty body (DELETE dev mode, branch removal, dbt cancel)', async () => {
    const c = client();
    await c.branches.stopDevMode({ deploymentId: 1 });
    await c.branches.remove({ deploymentId: 1, query: { branchName: 'preview-pr-1' } });
    server.handle((_q, r) => json(r, 200, { message: 'cancelled' }));
    await c.dbtSync.cancel({ deploymentId: 1, syncJobId: 'run-1' });
    expect(server.requests.map((q) => [q.method, q.headers['content-length'], q.body.length])).toEqual([
      ['DELETE', '0', 0],
      ['DELETE', '0', 0],
      ['DELETE', '0', 0],
    ]);
  });

  it('a GET carries no Content-Length, a write with a body its real length', async () => {
    server.handle((_q, r) => json(r, 200, { items: [], pageInfo: null }));
    await client().branches.list({ deploymentId: 1 });
    server.handle((_q, r) => json(r, 200, { active: true, branchName: 'b', parentBranch: 'main' }));
    await client().branches.create({ deploymentId: 1, body: { name: 'b' } });
    expect(server.requests[0]!.headers['content-length']).toBeUndefined();
    expect(Number(server.requests[1]!.headers['content-length'])).toBe(server.requests[1]!.body.length);
    expect(server.requests[1]!.body.length).toBeGreaterThan(0);
  });
});

describe('auth scheme', () => {
  it('sends platform API keys (sk-…) as Api-Key and anything else as Bearer unless told', async () => {
    await client({ apiKey: 'sk-0123456789abcdef' }).branches.stopDevMode({ deploymentId: 1 });
    await client({ apiKey: 'eyJhbGciOi.eyJzdWIi.sig' }).branches.stopDevMode({ deploymentId: 1 });
    await client({ apiKey: 'sk-0123456789abcdef', authScheme: 'bearer' }).branches.stopDevMode({ deploymentId: 1 });
    expect(server.requests.map((q) => q.headers.authorization)).toEqual([
      'Api-Key sk-0123456789abcdef',
      'Bearer eyJhbGciOi.eyJzdWIi.sig',
      'Bearer sk-0123456789abcdef',
    ]);
  });
});

describe('error text', () => {
  it('prefers a non-empty message (string or array), then error, then the body on one line', () => {
    expect(extractPlatformMessage('{"message":"ref is unknown","error":"Bad Request"}')).toBe('ref is unknown');
    expect(extractPlatformMessage('{"message":["ref is unknown","branchName too long"],"statusCode":400}')).toBe('ref is unknown; branchName too long');
    expect(extractPlatformMessage('{"message":"","error":"Bad Request"}')).toBe('Bad Request');
    expect(extractPlatformMessage('{"message":400}')).toBe('{"message":400}');
    expect(extractPlatformMessage('{"error":{"message":"nested"}}')).toBe('nested');
    expect(extractPlatformMessage('{}')).toBeUndefined();
    expect(extractPlatformMessage('upstream\n  connect error')).toBe('upstream connect error');
    expect(extractPlatformMessage('<html><body>502 Bad Gateway</body></html>')).toBeUndefined();
    expect(extractPlatformMessage('x'.repeat(900))).toHaveLength(800);
  });

  it('names the status, the platform message and the path', async () => {
    server.handle((_q, r) => json(r, 400, { message: ['name must be unique'], error: 'Bad Request', statusCode: 400 }));
    const err = await client()
      .branches.create({ deploymentId: 1, body: { name: 'x' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as Error).message).toBe('POST /build/api/v1/deployments/1/branches -> 400: name must be unique');
  });
});

describe('an unknown route (the web app answers 200 with HTML)', () => {
  it('is NotAvailableError, says the endpoint is not available on this tenant, and is not retried', async () => {
    server.handle((_q, r) => {
      r.writeHead(200, { 'content-type': 'text/html' });
      r.end('<!doctype html><html><head><title>Cube</title></head><body><div id="root"></div></body></html>');
    });
    const err = await client()
      .deployments.buildStatus({ deploymentId: 1, query: { branchName: 'preview-pr-1' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotAvailableError);
    expect((err as Error).message).toMatch(/^GET \/api\/v1\/deployments\/1\/build-status -> 200: this endpoint is not available on this tenant/);
    expect(server.requests).toHaveLength(1);
  });
});

describe('a custom CA', () => {
  it('whose certificate does not parse is refused before anything is sent, naming the input', () => {
    const garbage = '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n';
    expect(() => client({ ca: garbage })).toThrow(/^ca-cert: got "\(PEM text\)", expected PEM certificates that parse \(certificate 1: /);
    expect(server.requests).toHaveLength(0);
  });
});
