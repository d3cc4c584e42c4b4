import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformClient } from '../src/client/index.js';
import { json, startTestServer, type TestServer } from './support/https-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('smoke', () => {
  it('validates a branch', async () => {
    server.handle((_q, r) => json(r, 200, { deploymentId: 1, branchName: 'main', mode: 'production', valid: true, errors: [], extra: 1 }));
    const c = new PlatformClient({ baseUrl: server.baseUrl, apiKey: 'k-123456789', ca: server.ca });
    const r = await c.dataModel.validate({ deploymentId: 1, query: { branchName: 'main' } });
    expect(r.valid).toBe(true);
    expect((r as Record<string, unknown>).extra).toBe(1);
    expect(server.requests.at(-1)?.url).toBe('/build/api/v1/deployments/1/data-model/validate?branchName=main');
    expect(server.requests.at(-1)?.headers.authorization).toBe('Bearer k-123456789');
    await c.close();
  });
});
