/**
 * The platform client's proxy: `HTTPS_PROXY`/`HTTP_PROXY` and `NO_PROXY`, read as undici's
 * `EnvHttpProxyAgent` reads them (the GitHub client's transport), so a self-hosted runner behind a proxy
 * reaches the tenant and GitHub alike. One client talks to one origin, so the choice is made once.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type AgentOptions, type RequestOptions } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { Agent, ProxyAgent, type buildConnector, type Dispatcher } from 'undici';
import { InputError } from './errors.js';

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/** Whether NO_PROXY exempts `target` (entries: `host`, `.host`, `*.host`, `host:port`, or `*`). */
function exempt(target: URL, noProxy: string): boolean {
  if (noProxy.trim() === '*') return true;
  const host = target.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(target.port, 10) || DEFAULT_PORTS[target.protocol] || 0;
  for (const entry of noProxy.split(/[,\s]/)) {
    if (!entry) continue;
    const m = /^(.+):(\d+)$/.exec(entry);
    const name = (m ? (m[1] as string) : entry).replace(/^\*?\./, '').toLowerCase();
    if (m && Number.parseInt(m[2] as string, 10) !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

/** The proxy URL for `target`, or none (no variable set, or NO_PROXY exempts it); a malformed one is bad input. */
export function proxyFor(target: URL, env: NodeJS.ProcessEnv = process.env): URL | undefined {
  const https = target.protocol === 'https:';
  const pick = (lower: string, upper: string) =>
    (env[lower] ?? env[upper]) ? { name: env[lower] ? lower : upper, value: (env[lower] ?? env[upper]) as string } : undefined;
  const set = (https ? pick('https_proxy', 'HTTPS_PROXY') : undefined) ?? pick('http_proxy', 'HTTP_PROXY');
  if (!set?.value.trim()) return undefined;
  if (exempt(target, env.no_proxy ?? env.NO_PROXY ?? '')) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(set.value.trim());
  } catch {
    url = undefined;
  }
  if (!url || !(url.protocol === 'http:' || url.protocol === 'https:') || !url.hostname) {
    throw new InputError(set.name, shownProxy(set.value), 'an http:// or https:// proxy URL, such as http://proxy.example:3128');
  }
  return url;
}

/** The undici transport to `target`: through the proxy when one applies, the TLS options checking `target` at the tunnel's end. */
export function dispatcherTo(
  target: URL,
  tls: buildConnector.BuildOptions,
  pool: Omit<Agent.Options, 'connect'> = {},
  env: NodeJS.ProcessEnv = process.env,
): { dispatcher: Dispatcher; proxy: URL | undefined } {
  const proxy = proxyFor(target, env);
  return { proxy, dispatcher: proxy ? new ProxyAgent({ ...pool, uri: proxy.href, requestTls: tls }) : new Agent({ ...pool, connect: tls }) };
}

/** The proxy's refusal of a tunnel (undici's or ours), as an error that names the proxy and what to do; else undefined. */
export function proxyRefusal(error: unknown, proxy: URL, target: string): (Error & { code: string }) | undefined {
  let status: number | undefined;
  for (let e: unknown = error, i = 0; i < 4 && e instanceof Error; i++, e = e.cause) {
    const m = /Proxy response \((\d+)\) !== 200|answered (\d+) to CONNECT/.exec(e.message);
    if (m) status = Number(m[1] ?? m[2]);
  }
  if (status === undefined) return undefined;
  const what = status === 407 ? ' (Proxy Authentication Required: put the credentials in the proxy URL, http://user:password@host:port)' : '';
  return Object.assign(new Error(`the proxy ${proxy.host} (HTTPS_PROXY) answered ${status} to CONNECT ${target}${what}`), { code: 'PROXY_REFUSED' });
}

/** A proxy URL fit to print, as given but for its password. */
export function shownProxy(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');
}

/** The `Proxy-Authorization` of a proxy URL with credentials. */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username) return undefined;
  const user = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return `Basic ${Buffer.from(user).toString('base64')}`;
}

/**
 * A node:https agent whose connections are CONNECT tunnels through the proxy, for the one request shape
 * that goes through node:https (a DELETE with `Content-Length: 0`, `empty-delete.ts`).
 */
export class TunnelAgent extends HttpsAgent {
  constructor(
    private readonly proxy: URL,
    options: AgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: RequestOptions, callback?: (err: Error | null, stream: Duplex) => void): Duplex | null | undefined {
    const done = callback ?? (() => undefined);
    const host = options.hostname ?? options.host ?? 'localhost';
    const port = Number(options.port) || 443;
    const auth = proxyAuthorization(this.proxy);
    const send = this.proxy.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send({
      host: this.proxy.hostname,
      port: Number(this.proxy.port) || DEFAULT_PORTS[this.proxy.protocol],
      method: 'CONNECT',
      path: `${host}:${port}`,
      headers: { host: `${host}:${port}`, ...(auth ? { 'proxy-authorization': auth } : {}) },
      agent: false,
    });
    req.once('connect', (res: IncomingMessage, socket: Socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        done(new Error(`the proxy ${this.proxy.host} answered ${res.statusCode} to CONNECT ${host}:${port}`), socket);
        return;
      }
      const tls = tlsConnect({ ...(options as object), socket, servername: options.servername ?? host });
      done(null, tls);
    });
    req.once('error', (error) => done(error, req.socket as Socket));
    req.end();
    return undefined;
  }
}
