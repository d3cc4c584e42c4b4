/**
 * The platform client behind a proxy, over real sockets: HTTPS_PROXY sends every request (the bodyless
 * DELETE of node:https too) through a CONNECT tunnel of a real proxy to the emulator, the custom CA still
 * checking the emulator at the tunnel's end; NO_PROXY bypasses it; a proxy's credentials in the URL are
 * sent and never shown; a malformed HTTPS_PROXY is bad input before any call.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../src/client/http.js';
import { PlatformClient } from '../src/client/index.js';
import { proxyFor } from '../src/client/proxy.js';
import { runCli } from '../src/main.js';
import { startConnectProxy, type ConnectProxy } from './support/connect-proxy.js';
import { cliIo, emulatorFixture, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
let proxy: ConnectProxy;
let host: string;
const opened: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  fx = await emulatorFixture();
  proxy = await startConnectProxy();
  host = new URL(fx.em.baseUrl).host;
}, 60_000);
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
  proxy.tunnels.length = 0;
});
afterAll(async () => {
  await proxy.close();
  await fx.close();
});

const platform = (env: NodeJS.ProcessEnv) => {
  const c = new PlatformClient({ baseUrl: fx.em.baseUrl, apiKey: fx.em.credentials.admin, ca: fx.em.ca, env, retry: { maxAttempts: 1 } });
  opened.push(c);
  return c;
};
const names = async (c: PlatformClient) => {
  const out: string[] = [];
  for await (const d of c.deployments.iterate()) out.push(d.name);
  return out;
};

describe('the platform client behind a proxy', () => {
  it('HTTPS_PROXY: every request goes through a CONNECT tunnel to the tenant, the custom CA checking it at the end', async () => {
    const c = platform({ HTTPS_PROXY: proxy.url });
    expect(c.http.proxy?.href).toBe(`${proxy.url}/`);
    expect((await names(c)).length).toBeGreaterThan(0);
    expect(proxy.tunnels).toEqual([host]);
    // The bodyless DELETE goes through node:https (Content-Length: 0): through a tunnel of its own.
    const deleted: { status?: number } = await c.http.send({ method: 'DELETE', path: '/api/v1/no-such-thing' }).catch((e: { status?: number }) => e);
    expect(typeof deleted.status).toBe('number');
    expect(proxy.tunnels).toEqual([host, host]);
  });

  it('NO_PROXY naming the host, a suffix of it or * bypasses the proxy; another host does not', async () => {
    const name = new URL(fx.em.baseUrl).hostname;
    for (const noProxy of [name, `other.example, ${host}`, '*']) {
      expect((await names(platform({ HTTPS_PROXY: proxy.url, NO_PROXY: noProxy }))).length, noProxy).toBeGreaterThan(0);
    }
    expect(proxy.tunnels).toEqual([]);
    await names(platform({ https_proxy: proxy.url, no_proxy: `other.example,${name}:1` }));
    expect(proxy.tunnels).toEqual([host]);
  });

  it("a proxy's credentials in the URL are sent, and never shown; without them the proxy's 407 is named", async () => {
    const guarded = await startConnectProxy({ user: 'runner', password: 's3cret-pw' });
    opened.push(guarded);
    const withAuth = guarded.url.replace('http://', 'http://runner:s3cret-pw@');
    expect((await names(platform({ HTTPS_PROXY: withAuth }))).length).toBeGreaterThan(0);
    expect(guarded.tunnels).toEqual([host]);
    const refused = await names(platform({ HTTPS_PROXY: guarded.url })).catch((e: Error) => e);
    expect(String(refused)).toContain(`answered 407 to CONNECT ${host}`);
    expect(guarded.refused).toBe(1);
    // The bodyless DELETE's own tunnel (node:https) is refused the same way.
    const del = platform({ HTTPS_PROXY: guarded.url });
    const deleted = await del.http.send({ method: 'DELETE', path: '/api/v1/no-such-thing' }).then(
      () => 'answered',
      (e: Error) => e.message,
    );
    expect(deleted).toContain(`answered 407 to CONNECT ${host}`);
    expect(guarded.refused).toBe(2);
    // A malformed variable is bad input before any call, its password hidden.
    expect(() => proxyFor(new URL(fx.em.baseUrl), { HTTPS_PROXY: 'ftp://runner:s3cret-pw@proxy:21' })).toThrow(
      'HTTPS_PROXY: got "ftp://runner:***@proxy:21", expected an http:// or https:// proxy URL, such as http://proxy.example:3128',
    );
  });

  it('datamodel-ci check reaches the tenant through HTTPS_PROXY of its environment; a bad HTTPS_PROXY exits 2 before any call', async () => {
    const saved = { ...process.env };
    try {
      process.env.HTTPS_PROXY = proxy.url;
      const t = cliIo(fx.em);
      expect(await runCli(['check'], t), t.stderr.join('\n')).toBe(0);
      expect(proxy.tunnels.length).toBeGreaterThan(0);
      process.env.HTTPS_PROXY = 'not a url';
      const before = { ...fx.em.counts };
      const bad = cliIo(fx.em);
      expect(await runCli(['check'], bad)).toBe(2);
      expect(bad.stderr.join('\n')).toContain('HTTPS_PROXY: got "not a url", expected an http:// or https:// proxy URL');
      expect(fx.em.counts).toEqual(before);
      // A proxy that wants credentials is named at once, not retried as an unreachable tenant.
      const guarded = await startConnectProxy({ user: 'runner', password: 's3cret-pw' });
      opened.push(guarded);
      process.env.HTTPS_PROXY = guarded.url;
      const refused = cliIo(fx.em);
      expect(await runCli(['check'], refused)).toBe(3);
      expect(guarded.refused).toBe(1);
      expect(refused.stderr.join('\n')).toContain(
        `connection failed: PROXY_REFUSED the proxy ${new URL(guarded.url).host} (HTTPS_PROXY) answered 407 to CONNECT ${host} (Proxy Authentication Required: put the credentials in the proxy URL, http://user:password@host:port)`,
      );
      expect(refused.stderr.join('\n')).not.toContain('retrying');
    } finally {
      for (const k of ['HTTPS_PROXY'])
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
    }
  });

  it('a client given its own transport keeps it (no proxy chosen)', () => {
    const http = new HttpClient({ baseUrl: fx.em.baseUrl, apiKey: 'k', env: { HTTPS_PROXY: proxy.url }, dispatcher: fx.admin.http['dispatcher' as never] });
    expect(http.proxy).toBeUndefined();
  });
});
