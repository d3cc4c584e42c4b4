/**
 * The platform emulator: the spec's whole system over HTTPS on one machine. Requests are routed with
 * the client's own route table and checked with the same zod schemas; handlers keep the state.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AddressInfo, Socket } from 'node:net';
import { z } from 'zod';
import { allEndpoints } from '@datamodel-ci/platform-api';
import { pathParams, type Endpoint } from '@datamodel-ci/platform-api';
import { InputError } from '@datamodel-ci/platform-api';
import { formatPath, parseInput } from '@datamodel-ci/platform-api';
import { makeLocalTls, type LocalTls } from './tls.js';
import { Clock, type ClockOptions } from './clock.js';
import { HttpError, deploymentUrl, isReply, type Controls, type Ctx, type HandlerTable, type Principal } from './context.js';
import { FaultInjector, parseFaults, type FaultSpec } from './faults.js';
import { authenticate, authorize } from './auth.js';
import { handlers as defaultHandlers } from './handlers/index.js';
import { serveDataApi } from './data-api.js';
import { seedState, type SeedName } from './seed.js';
import type { State } from './state.js';

export interface EmulatorOptions {
  host?: string;
  port?: number;
  /** Persist state (and the CA) here; without it, state lives in memory. */
  stateDir?: string;
  seed?: SeedName;
  /** Added to every request, in ms. */
  latencyMs?: number;
  faults?: string | FaultSpec;
  faultSeed?: number;
  clock?: ClockOptions;
  /** Check every response against the endpoint's schema (default true). */
  checkResponses?: boolean;
}

export interface EmulatorInfo {
  baseUrl: string;
  caFile: string;
  credentials: { admin: string; member: string; scoped: string; scim: string };
  deployments: { id: number; name: string; deploymentUrl: string }[];
}

export interface Emulator extends EmulatorInfo {
  /** PEM of the CA that signed the server certificate. */
  ca: string;
  clock: Clock;
  controls: Controls;
  faults: FaultInjector;
  /** The live state (read it in tests; change it only through the API). */
  readonly state: State;
  /** Requests served, by endpoint id (and `data-api`, `control`). */
  readonly counts: Record<string, number>;
  /**
   * Request bytes received, by endpoint id: `wire` is the request line, headers and body as sent
   * (before TLS); `files` the file parts of multipart bodies (the uploaded bytes themselves).
   */
  readonly bytes: Record<string, { wire: number; files: number }>;
  /** Write the state to the state dir now. */
  save(): void;
  close(): Promise<void>;
}

interface Route {
  endpoint: Endpoint;
  regex: RegExp;
  names: string[];
}

function compileRoutes(endpoints: Endpoint[]): Route[] {
  return endpoints.map((endpoint) => {
    const names = pathParams(endpoint.path);
    const pattern = endpoint.path
      .replace(/\/+$/, '')
      .split(/\{[^}]+\}/)
      .map((s) => s.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
      .join('([^/]+)');
    return { endpoint, names, regex: new RegExp(`^${pattern}/?$`) };
  });
}

/** Keys of an object schema whose values are arrays (a single `?k=v` must still read as `[v]`). */
function arrayKeys(schema: z.ZodType | undefined): Set<string> {
  const out = new Set<string>();
  const shape = (schema as unknown as { shape?: Record<string, z.ZodType> } | undefined)?.shape;
  for (const [key, field] of Object.entries(shape ?? {})) {
    let t: unknown = field;
    for (let i = 0; i < 4 && !(t instanceof z.ZodArray) && typeof (t as { unwrap?: unknown }).unwrap === 'function'; i++) {
      t = (t as { unwrap(): unknown }).unwrap();
    }
    if (t instanceof z.ZodArray) out.add(key);
  }
  return out;
}

function queryObject(params: URLSearchParams, arrays: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of new Set(params.keys())) {
    const all = params.getAll(key);
    out[key] = all.length > 1 || arrays.has(key) ? all : all[0];
  }
  return out;
}

/** The caller of a public endpoint: no key, no role, no permission. */
function anonymous(): Principal {
  return {
    key: { id: 'anonymous', key: '', userId: 0, kind: 'api', label: 'anonymous' },
    user: { id: 0, email: '', username: 'anonymous', firstName: '', lastName: '', isAdmin: false, permissions: [], active: true, createdAt: '', groupIds: [], settings: {} },
  };
}

async function readBody(req: IncomingMessage, limit = 64 * 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new HttpError(413, `request body over ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

async function parseBody(endpoint: Endpoint, req: IncomingMessage, raw: Buffer): Promise<unknown> {
  const type = String(req.headers['content-type'] ?? '');
  if (endpoint.bodyType === 'multipart') {
    if (!type.startsWith('multipart/form-data')) {
      throw new HttpError(400, `body: got content type "${type}", expected multipart/form-data`);
    }
    const form = await new Response(raw, { headers: { 'content-type': type } }).formData().catch(() => {
      throw new HttpError(400, 'body: malformed multipart/form-data');
    });
    const out: Record<string, unknown> = {};
    for (const [k, v] of form.entries()) {
      out[k] = typeof v === 'string' ? v : Buffer.from(await v.arrayBuffer());
    }
    return out;
  }
  if (raw.length === 0) return undefined;
  if (!type.includes('json')) throw new HttpError(400, `body: got content type "${type}", expected application/json`);
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (e) {
    throw new HttpError(400, `body: malformed JSON (${(e as Error).message})`);
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  if (status === 204 || body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

function loadTls(dir: string | undefined, host: string): Promise<LocalTls> | LocalTls {
  if (dir && existsSync(join(dir, 'ca.pem')) && existsSync(join(dir, 'cert.pem')) && existsSync(join(dir, 'key.pem'))) {
    return {
      ca: readFileSync(join(dir, 'ca.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
    };
  }
  return makeLocalTls([host, '127.0.0.1', 'localhost']);
}

/** Start the emulator; resolves once it listens. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const host = options.host ?? '127.0.0.1';
  const stateDir = options.stateDir ? resolve(options.stateDir) : undefined;
  const dir = stateDir ?? mkdtempSync(join(tmpdir(), 'datamodel-ci-emulator-'));
  mkdirSync(dir, { recursive: true });
  const statePath = stateDir ? join(stateDir, 'state.json') : undefined;

  const tls = await loadTls(stateDir, host);
  writeFileSync(join(dir, 'ca.pem'), tls.ca);
  if (stateDir) {
    writeFileSync(join(dir, 'cert.pem'), tls.cert);
    writeFileSync(join(dir, 'key.pem'), tls.key, { mode: 0o600 });
  }

  const clock = new Clock(options.clock);
  let state: State;
  if (statePath && existsSync(statePath)) {
    state = JSON.parse(readFileSync(statePath, 'utf8')) as State;
  } else {
    state = seedState(options.seed ?? 'demo', clock);
  }
  const controls: Controls = { minted: [] };
  const faults = new FaultInjector(typeof options.faults === 'string' ? parseFaults(options.faults) : options.faults ?? {}, options.faultSeed ?? 1);
  const latency = options.latencyMs ?? 0;
  const checkResponses = options.checkResponses ?? true;
  const routes = compileRoutes(allEndpoints());
  const handlers: HandlerTable = defaultHandlers;
  const counts: Record<string, number> = {};
  const bytes: Record<string, { wire: number; files: number }> = {};
  let origin = '';
  let dirty = false;

  const save = () => {
    if (!statePath) return;
    const tmp = `${statePath}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(state));
    renameSync(tmp, statePath);
    dirty = false;
  };
  const saveTimer = setInterval(() => dirty && save(), 200);
  saveTimer.unref();

  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', origin);
    const method = (req.method ?? 'GET').toUpperCase();
    const path = url.pathname;

    if (path.startsWith('/_emulator/')) {
      counts.control = (counts.control ?? 0) + 1;
      return control(req, res, method, path, await readBody(req));
    }
    if (latency > 0) await new Promise((r) => setTimeout(r, latency));
    const fault = faults.next();
    if (fault === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (fault === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault === '5xx') return send(res, 503, { error: 'injected fault: service unavailable' });
    if (fault === '429') return send(res, 429, { error: 'injected fault: rate limited' }, { 'retry-after': '1' });

    if (path.startsWith('/d/')) {
      counts['data-api'] = (counts['data-api'] ?? 0) + 1;
      const raw = await readBody(req);
      const out = serveDataApi({ state, clock, method, url, headers: req.headers, body: raw });
      return send(res, out.status, out.body, out.headers);
    }

    const candidates = routes.filter((r) => r.regex.test(path));
    if (candidates.length === 0) throw new HttpError(404, `no such endpoint: ${method} ${path}`);
    const route = candidates.find((r) => r.endpoint.method === method);
    if (!route) {
      throw new HttpError(405, `${method} is not allowed on ${path}; allowed: ${candidates.map((c) => c.endpoint.method).join(', ')}`);
    }
    const e = route.endpoint;
    counts[e.id] = (counts[e.id] ?? 0) + 1;
    const raw = await readBody(req);
    const tally = (bytes[e.id] ??= { wire: 0, files: 0 });
    tally.wire += Buffer.byteLength(`${method} ${req.url ?? '/'} HTTP/${req.httpVersion}\r\n\r\n`) + raw.length;
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      tally.wire += Buffer.byteLength(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}\r\n`);
    }

    const principal: Principal = e.access?.public ? anonymous() : authenticate(state, clock, e, req.headers.authorization);
    const m = route.regex.exec(path) as RegExpExecArray;
    const rawParams: Record<string, unknown> = {};
    route.names.forEach((n, i) => (rawParams[n] = decodeURIComponent(m[i + 1] as string)));

    let params: Record<string, unknown> = rawParams;
    let query: Record<string, unknown> = {};
    let body: unknown;
    try {
      if (e.params) params = parseInput(e.params, rawParams, '') as Record<string, unknown>;
      if (e.query) query = parseInput(e.query, queryObject(url.searchParams, arrayKeys(e.query)), 'query') as Record<string, unknown>;
      const parsedBody = await parseBody(e, req, raw);
      if (e.bodyType === 'multipart') {
        for (const v of Object.values(parsedBody as Record<string, unknown>)) if (Buffer.isBuffer(v)) tally.files += v.length;
      }
      if (e.body) body = parseInput(e.body, parsedBody, 'body');
      else body = parsedBody;
    } catch (error) {
      if (error instanceof InputError) throw new HttpError(400, error.message);
      throw error;
    }

    const deployment = authorize(state, e, principal, params);
    const handler = handlers[e.id];
    if (!handler) throw new HttpError(501, `the emulator does not implement ${e.id} (${e.method} ${e.path})`);
    const ctx: Ctx = { endpoint: e, state, clock, controls, principal, params, query, body, origin, deployment };
    const result = await handler(ctx);
    if (method !== 'GET') dirty = true;

    let status = e.status ?? 200;
    let payload: unknown = result;
    let headers: Record<string, string> = {};
    if (isReply(result)) {
      status = result.status ?? status;
      headers = result.headers ?? {};
      if (result.raw !== undefined) {
        res.writeHead(status, { 'content-length': String(Buffer.byteLength(result.raw)), ...headers });
        res.end(result.raw);
        return;
      }
      payload = result.body;
    }
    if (e.responseType === 'empty') return send(res, status === 200 ? 204 : status, undefined, headers);
    if (checkResponses && status >= 200 && status < 300) {
      const check = e.response.safeParse(payload);
      if (!check.success) {
        const issues = check.error.issues.slice(0, 3).map((i) => `${formatPath('', i.path)}: ${i.message}`);
        throw new HttpError(500, `emulator bug: the answer of ${e.id} does not match its schema: ${issues.join('; ')}`);
      }
    }
    send(res, status, payload, headers);
  }

  function control(req: IncomingMessage, res: ServerResponse, method: string, path: string, raw: Buffer): void {
    const principal = authenticate(state, clock, undefined, req.headers.authorization);
    if (!principal.user.isAdmin) throw new HttpError(403, 'the control API needs the admin key');
    let body: Record<string, unknown> = {};
    if (raw.length) {
      try {
        body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        throw new HttpError(400, 'body: malformed JSON');
      }
    }
    if (method === 'POST' && path === '/_emulator/clock/advance') {
      const ms = Number(body.ms);
      if (!(ms >= 0)) throw new HttpError(400, `ms: got ${JSON.stringify(body.ms)}, expected a non-negative number`);
      clock.advance(ms);
      return send(res, 200, clock.describe());
    }
    if (method === 'GET' && path === '/_emulator/clock') return send(res, 200, clock.describe());
    if (method === 'POST' && path === '/_emulator/faults') {
      faults.set(parseFaults(String(body.spec ?? '')));
      return send(res, 200, { injected: faults.injected });
    }
    if (method === 'GET' && path === '/_emulator/faults') return send(res, 200, { injected: faults.injected });
    if (method === 'POST' && path === '/_emulator/dbt-sync/fail-next') {
      controls.failNextDbtSync = { phase: String(body.phase ?? 'parse'), message: String(body.message ?? 'dbt parse failed') };
      return send(res, 200, controls.failNextDbtSync);
    }
    if (method === 'GET' && path === '/_emulator/state') return send(res, 200, state);
    throw new HttpError(404, `no such control route: ${method} ${path}`);
  }

  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof HttpError) return send(res, error.status, { error: error.message }, error.headers);
      send(res, 500, { error: `emulator error: ${error instanceof Error ? error.message : String(error)}` });
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolveListen());
  });
  const { port } = server.address() as AddressInfo;
  origin = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  save();

  const byLabel = (label: string) => state.apiKeys.find((k) => k.label === label)?.key ?? '';
  return {
    baseUrl: origin,
    ca: tls.ca,
    caFile: join(dir, 'ca.pem'),
    credentials: { admin: byLabel('admin'), member: byLabel('member'), scoped: byLabel('scoped'), scim: byLabel('scim') },
    deployments: state.deployments.map((d) => ({ id: d.id, name: d.name, deploymentUrl: deploymentUrl(origin, d.id) })),
    clock,
    controls,
    faults,
    get state() {
      return state;
    },
    counts,
    bytes,
    save,
    async close() {
      clearInterval(saveTimer);
      if (dirty) save();
      for (const r of hanging) r.destroy();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
