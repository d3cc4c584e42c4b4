/**
 * One TLS context per trust store (src/client/trust.ts, `trustedContext`): clients of one CA share it, and
 * sharing never lets another CA's server through. Over real HTTPS, two servers with a CA each.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionError, HttpClient } from '../src/client/index.js';
import { trustedContext } from '../src/client/trust.js';
import { createGitHubApi } from '../src/github/octokit.js';
import { makeLocalTls, type LocalTls } from '../packages/emulator/src/tls.js';
import { startEmulator, startGitHubStandin } from '../packages/emulator/src/index.js';

interface Site {
  tls: LocalTls;
  url: string;
  server: Server;
}

async function site(): Promise<Site> {
  const tls = await makeLocalTls(['127.0.0.1']);
  const server = createServer({ key: tls.key, cert: tls.cert }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"valid":true,"errors":[]}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { tls, server, url: `https://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let a: Site;
let b: Site;
const clients: HttpClient[] = [];
const client = (s: Site, ca: string) => {
  const c = new HttpClient({ baseUrl: s.url, apiKey: 'k-0123456789', ca, retry: { maxAttempts: 1 } });
  clients.push(c);
  return c;
};
const contextOf = (c: HttpClient) => (c as unknown as { secureContext: unknown }).secureContext;

beforeAll(async () => {
  [a, b] = await Promise.all([site(), site()]);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  for (const s of [a, b]) s.server.closeAllConnections();
  await Promise.all([a, b].map((s) => new Promise((resolve) => s.server.close(resolve))));
});

describe('one TLS context per trust store', () => {
  it('two clients of one CA share one context; another CA gets its own', () => {
    expect(a.tls.ca).not.toBe(b.tls.ca);
    expect(contextOf(client(a, a.tls.ca))).toBe(contextOf(client(a, a.tls.ca)));
    expect(trustedContext(a.tls.ca)).toBe(contextOf(client(a, a.tls.ca)));
    expect(trustedContext(b.tls.ca)).not.toBe(trustedContext(a.tls.ca));
  });

  it("the emulators of one process (no state folder) share a CA, so their clients share one context; each emulator's state folder keeps its own", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dmci-trust-state-'));
    const ems = await Promise.all([startEmulator(), startEmulator(), startEmulator({ stateDir: dir })]);
    try {
      const [one, two, kept] = ems;
      expect(two.ca).toBe(one.ca);
      expect(kept.ca).not.toBe(one.ca);
      expect(trustedContext(two.ca)).toBe(trustedContext(one.ca));
      // Each still answers over HTTPS with its CA trusted.
      for (const em of ems) {
        const c = new HttpClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca, retry: { maxAttempts: 1 } });
        clients.push(c);
        expect((await c.send({ method: 'GET', path: '/api/v1/deployments' })).status).toBe(200);
      }
    } finally {
      await Promise.all(ems.map((em) => em.close()));
    }
  });

  it('NODE_EXTRA_CA_CERTS is part of the store: another file, another context', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'dmci-trust-')), 'extra.pem');
    writeFileSync(file, b.tls.ca);
    const before = trustedContext(a.tls.ca);
    const saved = process.env.NODE_EXTRA_CA_CERTS;
    process.env.NODE_EXTRA_CA_CERTS = file;
    try {
      expect(trustedContext(a.tls.ca)).not.toBe(before);
    } finally {
      if (saved === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
      else process.env.NODE_EXTRA_CA_CERTS = saved;
    }
    expect(trustedContext(a.tls.ca)).toBe(before);
  });

  it("a shared context still verifies: each client reaches its CA's server and is refused by the other's", async () => {
    const req = { method: 'GET', path: '/x' } as const;
    expect((await client(a, a.tls.ca).send(req)).status).toBe(200);
    expect((await client(b, b.tls.ca).send(req)).status).toBe(200);
    await expect(client(b, a.tls.ca).send(req)).rejects.toBeInstanceOf(ConnectionError);
    await expect(client(a, b.tls.ca).send(req)).rejects.toBeInstanceOf(ConnectionError);
  });

  it("the GitHub client's connections verify with the shared context: its CA passes, another CA's is refused", async () => {
    const standin = await startGitHubStandin();
    try {
      standin.addPull({ number: 3, headSha: 'a'.repeat(40), headRef: 'feature' });
      const gh = (ca: string) => createGitHubApi({ token: 'ghs_0123456789abcdef', repository: standin.repository, apiUrl: standin.url, ca });
      expect((await gh(standin.ca).getPull(3))?.number).toBe(3);
      expect((await gh(standin.ca).getPull(3))?.number).toBe(3);
      const refused = await gh(a.tls.ca)
        .getPull(3)
        .catch((e: unknown) => e);
      expect(String((refused as Error | undefined)?.message) + String((refused as { cause?: Error } | undefined)?.cause?.message)).toMatch(
        /certificate|self[- ]signed|verify/i,
      );
    } finally {
      await standin.close();
    }
  });
});
