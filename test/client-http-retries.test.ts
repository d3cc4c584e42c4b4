/** The client core over real HTTPS: retries (Retry-After, checked writes, attempt and deadline bounds), timeouts and cancellation. */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { AbortedError, ConnectionError, PlatformClient, RateLimitError, ServerError, TimeoutError, parseRetryAfter } from '../src/client/index.js';
import { json } from './support/https-server.js';
import { KEY, client, clients, server, useTestServer, validation } from './support/platform-test-server.js';

useTestServer();

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
    expect(debug.join('\n')).toMatch(/retrying GET \/build\/api\/v1\/deployments\/1\/data-model\/validate in 1000 ms \(attempt 2\)/);
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

  it('repeats a POST after a 429: the server did not act on it', async () => {
    let n = 0;
    server.handle((_q, r) =>
      ++n === 1 ? json(r, 429, { error: 'slow down' }, { 'retry-after': '0' }) : json(r, 200, { branchName: 'b', syncJobId: 's1', workflowId: 'w' }),
    );
    const started = await client().dbtSync.start({ deploymentId: 1, body: { ref: 'main' } });
    expect(started.syncJobId).toBe('s1');
    expect(server.requests).toHaveLength(2);
  });

  it('checks a write whose answer was lost before repeating it (settle)', async () => {
    server.handle((_q, r) => json(r, 503, { error: 'busy' }));
    const checks: string[] = [];
    const landed = await client().dbtSync.start(
      { deploymentId: 1, body: { ref: 'main', branchName: 'dbt-x' } },
      { settle: (e) => (checks.push(e.message), Promise.resolve({ branchName: 'dbt-x', syncJobId: 'found', workflowId: '' })) },
    );
    expect(landed.syncJobId).toBe('found');
    expect(checks).toEqual(['POST /api/v1/deployments/1/dbt-sync -> 503: busy']);
    expect(server.requests).toHaveLength(1);
  });

  it('repeats a checked write that did not land, once the check says so', async () => {
    let n = 0;
    server.handle((_q, r) => (++n === 1 ? json(r, 502, { error: 'bad gateway' }) : json(r, 200, { branchName: 'dbt-x', syncJobId: 's2', workflowId: 'w' })));
    let checks = 0;
    const started = await client().dbtSync.start(
      { deploymentId: 1, body: { ref: 'main', branchName: 'dbt-x' } },
      { settle: () => Promise.resolve(void checks++) },
    );
    expect(started.syncJobId).toBe('s2');
    expect(checks).toBe(1);
    expect(server.requests).toHaveLength(2);
  });

  it('asks the check again when a repeat fails for good (the first attempt may have landed)', async () => {
    let n = 0;
    server.handle((_q, r) => (++n === 1 ? json(r, 500, { error: 'boom' }) : json(r, 409, { error: 'exists' })));
    let checks = 0;
    const result = await client().dbtSync.start(
      { deploymentId: 1, body: { ref: 'main', branchName: 'dbt-x' } },
      { settle: () => Promise.resolve(++checks === 2 ? { branchName: 'dbt-x', syncJobId: 'first', workflowId: '' } : undefined) },
    );
    expect(result.syncJobId).toBe('first');
    expect(checks).toBe(2);
    expect(server.requests).toHaveLength(2);
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
    expect(debug.join('\n')).toMatch(/waiting 30000 ms would pass the deadline/);
    // The refusal to wait says so in the error itself, not only in a debug line.
    expect((err as Error).message).toMatch(/asked to wait 30 s before retrying, past this operation's deadline: 2 s left/);
  });

  it('obeys no Retry-After past the operation deadline the caller gives (3600 s asked)', async () => {
    server.handle((_q, r) => json(r, 429, { error: 'later' }, { 'retry-after': '3600' }));
    // Waiting the hour would fail this test by its timeout: no wall-clock margin is asserted.
    const err = await client()
      .dataModel.validate({ deploymentId: 1 }, { deadline: Date.now() + 20_000 })
      .catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/asked to wait 3600 s before retrying, past this operation's deadline: (20|19) s left/);
    expect(server.requests).toHaveLength(1);
  });

  it('asks a failed check again (a read) instead of repeating the write', async () => {
    let writes = 0;
    server.handle((q, r) => {
      if (q.method === 'POST') return void (writes++, json(r, 503, { error: 'busy' }));
      json(r, 200, validation);
    });
    let checks = 0;
    const result = await client().dbtSync.start(
      { deploymentId: 1, body: { ref: 'main', branchName: 'dbt-x' } },
      {
        settle: () => {
          checks += 1;
          // The first two checks meet a passing fault themselves.
          if (checks < 3)
            return Promise.reject(new ServerError({ status: 503, method: 'GET', path: '/x', request: { method: 'GET', path: '/x', headers: {} } }));
          return Promise.resolve({ branchName: 'dbt-x', syncJobId: 'landed', workflowId: '' });
        },
      },
    );
    expect(result.syncJobId).toBe('landed');
    expect(checks).toBe(3);
    expect(writes).toBe(1);
  });

  it('survives more failures in a row than a count per call would allow, within the deadline', async () => {
    let n = 0;
    server.handle((_q, r) => (++n <= 12 ? json(r, 503, { error: 'busy' }) : json(r, 200, validation)));
    const r = await client().dataModel.validate({ deploymentId: 1 });
    expect(r.valid).toBe(true);
    expect(server.requests).toHaveLength(13);
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
    const controller = new AbortController();
    // Never answered: the caller aborts once the request is on the server (a fixed delay races the TLS handshake on a busy machine).
    server.handle(() => controller.abort());
    const pending = client({ timeoutMs: 10_000 }).dataModel.validate({ deploymentId: 1 }, { signal: controller.signal });
    const err = await pending.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AbortedError);
    expect(server.requests).toHaveLength(1);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
