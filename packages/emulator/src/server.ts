/**
 * The platform emulator: the spec's whole system over HTTPS on one machine. Requests are routed with
 * the contract's route table and checked with the same zod schemas; handlers keep the state.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Clock, type ClockOptions } from './clock.js';
import { EVALUATION_PATH, serveEvaluations } from './evals/routes.js';
import { behaviourWith, DEFAULT_BEHAVIOUR, deploymentUrl, HttpError, profileOn, type Controls } from './context.js';
import { serveControl } from './control.js';
import { dataApi } from './data-api/provider.js';
import { productionFiles } from './build/runtime.js';
import { Engine } from './engine/index.js';
import { FaultInjector, parseFaults, type FaultSpec } from './faults.js';
import { handlers } from './handlers.js';
import { lacksLength, readBody, send } from './http.js';
import { platformApi, type ByteTally } from './router.js';
import { seedState, type SeedName } from './seed/index.js';
import type { State } from './state.js';
import { makeLocalTls, type LocalTls } from './tls.js';
import { retryAfterDate } from './loose.js';
import { applyProfiles } from './profile-state.js';
import type { ProfileName } from './profiles.js';

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
  /** Uploads go to any branch (default true); false: a tenant that takes uploads on dev-mode branches only. */
  directUploads?: boolean;
  /** `file-hashes` answers `{ files: {…} }` instead of the plain map (default false). */
  wrapFileHashes?: boolean;
  /** `data-model/files` lists files flat instead of the vendor's nested tree (default false). */
  flatFileList?: boolean;
  /** Emulated ms a build takes (default 300; 0 allowed). */
  buildMs?: number;
  /** Emulated ms a runtime takes to warm up (default 500; 0 allowed). */
  warmupMs?: number;
  /** Emulated ms a dbt sync answers 404 after its start (default 5000; 0 allowed). */
  dbtInvisibleMs?: number;
  /** Polls of each data query answered "Continue wait" before its rows (default 2; 0 allowed). */
  continueWaitPolls?: number;
  /** Profile staging-cold: emulated ms a staging environment sleeps after it is enabled, and without a data request before it sleeps again. */
  coldMs?: number;
  idleMs?: number;
  /** Deployments (by id) that behave as older ones: dbt sync ignores `ref`. */
  olderDeployments?: number[];
  /** Tenant profiles to start with (see profiles.ts and docs/emulator.md). */
  profiles?: ProfileName[];
  /**
   * Start the deployments' databases now, in the background (default false: on the first data query).
   * The first costs seconds; for a caller that will query (the demo), nothing waits on it then.
   */
  warm?: boolean;
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
  /** Cube's engine of this emulator: compiles, and the deployments' databases (started on their first query). */
  engine: Engine;
  /** Requests served, by endpoint id (and `data-api`, `control`). */
  readonly counts: Record<string, number>;
  /** Data API requests served, by the path's last segment (`meta`, `load`, `sql`, …). */
  readonly dataCounts: Record<string, number>;
  /**
   * Request bytes received, by endpoint id: `wire` is the request line, headers and body as sent
   * (before TLS); `files` the file parts of multipart bodies (the uploaded bytes themselves).
   */
  readonly bytes: Record<string, ByteTally>;
  /** Write the state to the state dir now. */
  save(): void;
  close(): Promise<void>;
}

function loadTls(dir: string | undefined, host: string): Promise<LocalTls> | LocalTls {
  if (dir && existsSync(join(dir, 'ca.pem')) && existsSync(join(dir, 'cert.pem')) && existsSync(join(dir, 'key.pem'))) {
    return {
      ca: readFileSync(join(dir, 'ca.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
    };
  }
  if (dir) return makeLocalTls([host, '127.0.0.1', 'localhost']);
  let made = madeTls.get(host);
  if (!made) {
    made = makeLocalTls([host, '127.0.0.1', 'localhost']);
    madeTls.set(host, made);
    made.catch(() => madeTls.delete(host));
  }
  return made;
}

/**
 * The CA and certificate of the emulators a process starts without a state folder, made once per host:
 * a client trusts a CA by a TLS context that parses the ~150 public roots again (tens of ms), and with a
 * CA per emulator a test suite starting hundreds made one for nearly every client.
 */
const madeTls = new Map<string, Promise<LocalTls>>();

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

  const { directUploads, wrapFileHashes, flatFileList, buildMs, warmupMs, dbtInvisibleMs, continueWaitPolls, coldMs, idleMs } = options;
  const behaviour = behaviourWith(DEFAULT_BEHAVIOUR, {
    directUploads,
    wrapFileHashes,
    flatFileList,
    buildMs,
    warmupMs,
    dbtInvisibleMs,
    continueWaitPolls,
    coldMs,
    idleMs,
  });
  const clock = new Clock(options.clock);
  const state: State = statePath && existsSync(statePath) ? (JSON.parse(readFileSync(statePath, 'utf8')) as State) : seedState(options.seed ?? 'demo', clock);
  for (const id of options.olderDeployments ?? []) {
    const d = state.deployments.find((x) => x.id === id);
    if (!d) throw new Error(`olderDeployments: got ${id}, expected the id of a deployment (${state.deployments.map((x) => x.id).join(', ')})`);
    d.olderDeployment = true;
  }
  const controls: Controls = { minted: [], behaviour, failNextBuild: {}, profiles: [] };
  applyProfiles({ state, clock, controls }, options.profiles ?? []);
  const engine = new Engine();
  // Once started: each deployment's database in its thread, then production's model compiled here.
  if (options.warm)
    setImmediate(() => engine.warmUp(state.deployments.map((d) => ({ id: d.id, tree: productionFiles(d.branches[d.deployBranch]!, clock.now()) }))));
  const serveData = dataApi({ state, clock, controls, engine });
  const faults = new FaultInjector(typeof options.faults === 'string' ? parseFaults(options.faults) : (options.faults ?? {}), options.faultSeed ?? 1);
  const latency = options.latencyMs ?? 0;
  const counts: Record<string, number> = {};
  const dataCounts: Record<string, number> = {};
  const bytes: Record<string, ByteTally> = {};
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
  const api = platformApi({
    state,
    clock,
    controls,
    engine,
    handlers,
    checkResponses: options.checkResponses ?? true,
    counts,
    bytes,
    origin: () => origin,
    changed: () => (dirty = true),
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', origin);
    const method = (req.method ?? 'GET').toUpperCase();
    const path = url.pathname;

    if (path.startsWith('/_emulator/')) {
      counts.control = (counts.control ?? 0) + 1;
      return serveControl({ state, clock, controls, faults }, req, res, method, path, await readBody(req));
    }
    if (lacksLength(method, req.headers)) return send(res, 411, { error: 'Length Required' });
    if (latency > 0) await new Promise((r) => setTimeout(r, latency));
    const fault = faults.plannedFor(method, path) ?? faults.next();
    if (fault === 'lost') {
      // The request takes effect; its answer is lost on the way back (the connection resets).
      res.writeHead = () => res;
      res.end = () => (req.socket.destroy(), res);
    } else if (fault === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    } else if (fault === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault === '5xx') return send(res, 503, { error: 'injected fault: service unavailable' });
    // Retry-After in seconds, or (profile loose-answers) as an HTTP date.
    if (fault === '429')
      return send(res, 429, { error: 'injected fault: rate limited' }, { 'retry-after': profileOn({ controls }, 'loose-answers') ? retryAfterDate(1) : '1' });

    if (path.startsWith('/d/')) {
      counts['data-api'] = (counts['data-api'] ?? 0) + 1;
      const tail = path.slice(path.lastIndexOf('/') + 1);
      dataCounts[tail] = (dataCounts[tail] ?? 0) + 1;
      const raw = await readBody(req);
      const out = await serveData({ method, url, headers: req.headers, body: raw });
      // A /load may build a pre-aggregation in the Cube Store (state kept with --state-dir).
      if (path.endsWith('/load')) dirty = true;
      return send(res, out.status, out.body);
    }
    if (EVALUATION_PATH.test(path)) {
      counts.evaluations = (counts.evaluations ?? 0) + 1;
      const answer = await serveEvaluations({ state, clock, controls, engine }, req, method, url);
      if (method !== 'GET') dirty = true;
      return send(res, 200, answer);
    }
    return api(req, res, method, url);
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
    engine,
    get state() {
      return state;
    },
    counts,
    dataCounts,
    bytes,
    save,
    async close() {
      clearInterval(saveTimer);
      if (dirty) save();
      for (const r of hanging) r.destroy();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      await engine.close();
      // The folder made for the CA goes with the emulator; a --state-dir is the user's and stays.
      if (!stateDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
