/**
 * The HTTPS test server of the client-http tests (one per test file) and the clients pointed at it:
 * fast retries, the server's CA trusted; every client is closed after the file's tests.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { PlatformClient, type ClientOptions } from '../../src/client/index.js';
import { json, startTestServer, type TestServer } from './https-server.js';

export const KEY = 'test-key-0123456789abcdef';
/** The server's default answer: a valid model. */
export const validation = { deploymentId: 1, branchName: 'main', mode: 'production', valid: true, errors: [] };

/** The file's server, started by useTestServer(). */
export let server: TestServer;
/** Every client made for the file; closed after its tests. */
export const clients: PlatformClient[] = [];

export function client(extra: Partial<ClientOptions> = {}): PlatformClient {
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

/** Start the server for the file; before each test forget its requests and answer `validation`. */
export function useTestServer(): void {
  beforeAll(async () => {
    server = await startTestServer();
  });
  beforeEach(() => {
    server.requests.length = 0;
    server.handle((_q, r) => json(r, 200, validation));
  });
  afterAll(async () => {
    // splice: the next file in the same worker starts with its own clients.
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await server.close();
  });
}
