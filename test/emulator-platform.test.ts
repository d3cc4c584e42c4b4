/** The emulator: start-up, seeds, auth (5), limits (8), versions (9), dbt sync (3, 4.12), faults, persistence. */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, BadRequestError, ConflictError, NotFoundError, PermissionDeniedError, PlatformClient, collect } from '../src/client/index.js';
import { verifyJwt } from '../packages/emulator/src/jwt.js';
import { startEmulator } from '../packages/emulator/src/index.js';
import { emulatorFixture, snapshot, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
let c: PlatformClient;
beforeAll(async () => {
  fx = await emulatorFixture();
  c = fx.admin;
});
afterAll(() => fx.close());

describe('start-up', () => {
  it('`datamodel-ci-emulator` prints exactly one JSON line, serves, and exits 0 on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dmci-emu-cli-'));
    const child = spawn(process.execPath, ['packages/emulator/bin/datamodel-ci-emulator.mjs', '--seed', 'demo', '--state-dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    const rl = createInterface({ input: child.stdout });
    const first = await new Promise<string>((resolve, reject) => {
      rl.on('line', (l) => {
        lines.push(l);
        resolve(l);
      });
      child.on('exit', (code) => reject(new Error(`exited early with ${code}`)));
    });
    const info = JSON.parse(first) as {
      baseUrl: string;
      caFile: string;
      credentials: Record<string, string>;
      deployments: { id: number; name: string; deploymentUrl: string }[];
    };
    expect(info.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(info.caFile).toBe(join(dir, 'ca.pem'));
    expect(Object.keys(info.credentials).sort()).toEqual(['admin', 'member', 'scim', 'scoped']);
    expect(info.deployments.map((d) => d.id)).toEqual([1, 2, 3]);
    expect(info.deployments[0]!.deploymentUrl).toBe(`${info.baseUrl}/d/1`);
    const client = new PlatformClient({ baseUrl: info.baseUrl, apiKey: info.credentials.admin!, ca: info.caFile });
    const list = await client.deployments.list();
    expect(list.items.map((d) => d.name)).toEqual(['analytics', 'marketing', 'finance']);
    await client.close();
    const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(lines).toHaveLength(1);
  });

  it('refuses bad flags with exit 2, naming the flag', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['packages/emulator/bin/datamodel-ci-emulator.mjs', ...args]);
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('exit', (code) => resolve({ code, stderr }));
      });
    const [seed, faults, port] = await Promise.all([run(['--seed', 'nope']), run(['--faults', '5xx=2']), run(['--port', 'http'])]);
    expect(seed).toMatchObject({ code: 2, stderr: expect.stringContaining('--seed: got "nope", expected demo or empty') });
    expect(faults).toMatchObject({ code: 2, stderr: expect.stringContaining('expected a probability between 0 and 1') });
    expect(port).toMatchObject({ code: 2, stderr: expect.stringContaining('--port: got "http"') });
  });

  it('keeps branches and files across a restart with --state-dir', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dmci-emu-state-'));
    const first = await startEmulator({ stateDir: dir, seed: 'demo' });
    const a = new PlatformClient({ baseUrl: first.baseUrl, apiKey: first.credentials.admin, ca: first.ca });
    await a.branches.create({ deploymentId: 1, body: { name: 'persisted' } });
    const dev = (await a.branches.startDevMode({ deploymentId: 1, body: { branchName: 'persisted' } })).branchName!;
    await a.dataModel.updateFiles({ deploymentId: 1, body: { branchName: dev, files: [{ path: 'model/cubes/kept.yml', content: 'cubes: []\n' }] } });
    await a.close();
    await first.close();
    const second = await startEmulator({ stateDir: dir });
    expect(second.credentials).toEqual(first.credentials);
    expect(second.ca).toBe(first.ca);
    const b = new PlatformClient({ baseUrl: second.baseUrl, apiKey: second.credentials.admin, ca: readFileSync(second.caFile, 'utf8') });
    const names = (await collect(b.branches.iterate({ deploymentId: 1 }))).map((x) => x.name);
    expect(names).toContain('persisted');
    expect(names).toContain(dev);
    const hashes = await b.dataModel.fileHashes({ deploymentId: 1, query: { branchName: dev } });
    expect(hashes['model/cubes/kept.yml']).toBeDefined();
    await b.close();
    await second.close();
  });

  it('seeds `empty` with one deployment whose model is empty', async () => {
    const em = await startEmulator({ seed: 'empty' });
    const cl = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca });
    expect(em.deployments).toHaveLength(1);
    expect(await cl.dataModel.fileHashes({ deploymentId: 1 })).toEqual({});
    await cl.close();
    await em.close();
  });

  it('seeds `demo`: two deployments with the demo model on main and a shared branch, finance with its own, >100 dbt runs', async () => {
    for (const id of [1, 2]) {
      const files = Object.keys(await c.dataModel.fileHashes({ deploymentId: id, query: { branchName: 'main' } })).sort();
      expect(files).toEqual(['cube.js', 'model/cubes/customers.yml', 'model/cubes/orders.yml', 'model/views/orders_view.yml']);
      expect((await c.dataModel.validate({ deploymentId: id })).valid).toBe(true);
      const branches = await collect(c.branches.iterate({ deploymentId: id }));
      expect(branches.some((b) => b.parentBranch === 'main')).toBe(true);
    }
    // finance: the monorepo's second model, valid on the platform's compiler.
    const finance = Object.keys(await c.dataModel.fileHashes({ deploymentId: 3, query: { branchName: 'main' } })).sort();
    expect(finance).toEqual(['cube.js', 'model/cubes/payments.yml', 'model/views/payments_view.yml']);
    expect((await c.dataModel.validate({ deploymentId: 3 })).valid).toBe(true);
    expect(await c.deployments.settings({ deploymentId: 3 })).toMatchObject({ name: 'finance', deployMode: 'git' });
    const page = await c.dbtSync.list({ deploymentId: 1, query: { first: 500 } });
    expect(page.items).toHaveLength(100);
    expect(page.pageInfo?.hasNextPage).toBe(true);
    expect((await collect(c.dbtSync.iterate({ deploymentId: 1 }))).length).toBeGreaterThan(100);
  });
});

describe('auth (section 5)', () => {
  it('answers 401 for a missing, malformed or expired credential', async () => {
    const raw = async (authorization?: string) => {
      const res = await fetchStatus(fx.em, '/api/v1/deployments', authorization);
      return res;
    };
    expect(await raw()).toMatchObject({ status: 401, error: expect.stringContaining('missing credential') });
    expect(await raw('Token abc')).toMatchObject({ status: 401, error: expect.stringContaining('malformed') });
    expect(await raw('Bearer nope')).toMatchObject({ status: 401, error: expect.stringContaining('unknown API key') });
    fx.em.state.apiKeys.push({ id: 'key-old', key: 'dmci_expired_0123456789', userId: 1, kind: 'api', label: 'expired', expiresAt: fx.em.clock.now() - 1 });
    const err = await fx
      .client('dmci_expired_0123456789')
      .deployments.list()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect((err as Error).message).toContain('expired credential');
  });

  it('accepts Bearer and Api-Key', async () => {
    expect((await fx.client(fx.em.credentials.admin, { authScheme: 'api-key' }).deployments.list()).items).toHaveLength(3);
  });

  it('answers 403 for a key scoped to another deployment, and lists only its deployments', async () => {
    const err = await fx.scoped.dataModel.validate({ deploymentId: 2 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expect((err as Error).message).toContain('scoped to deployment(s) 1');
    expect((await fx.scoped.deployments.list()).items.map((d) => d.id)).toEqual([1]);
    expect((await fx.scoped.dataModel.validate({ deploymentId: 1 })).valid).toBe(true);
  });

  it('answers 403 for a non-admin on an admin endpoint and for a missing permission', async () => {
    const analyst = fx.em.state.users.find((u) => u.username === 'lin')!;
    fx.em.state.apiKeys.push({ id: 'key-lin', key: 'dmci_lin_0123456789abcdef', userId: analyst.id, kind: 'api', label: 'lin' });
    const lin = fx.client('dmci_lin_0123456789abcdef');
    const err = await lin.branches.startDevMode({ deploymentId: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expect((err as Error).message).toContain('missing permission SchemaUpdateDevBranches');
    const admin = await fx.member.usageAnalytics.createToken().catch((e: unknown) => e);
    expect(admin).toBeInstanceOf(PermissionDeniedError);
    expect((admin as Error).message).toContain('needs the admin role');
    const before = snapshot(fx.em);
    const promote = await fx.member.users.update({ id: 2, body: { isAdmin: true } }).catch((e: unknown) => e);
    expect(promote).toBeInstanceOf(PermissionDeniedError);
    expect(snapshot(fx.em)).toBe(before);
  });

  it('answers 404 for an unknown deployment', async () => {
    await expect(c.dataModel.validate({ deploymentId: 99 })).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('limits (section 8)', () => {
  it('offset lists default to limit 20 and offset 0; cursor `first` must be at least 1', async () => {
    const res = await c.http.send({ method: 'GET', path: '/api/v1/deployments' });
    expect(JSON.parse(res.text!).pagination).toEqual({ offset: 0, limit: 20, total: 3 });
    const bad = await fetchStatus(fx.em, '/build/api/v1/deployments/1/branches?first=0', `Bearer ${fx.em.credentials.admin}`);
    expect(bad.status).toBe(400);
    expect(bad.error).toContain('query.first');
  });

  it('data-API token: 60–86400 s, default 24 h, a real JWT with exp', async () => {
    const def = await c.deployments.token({ deploymentId: 1 });
    const payload = verifyJwt(def.cubeApiToken, fx.em.state.secret, fx.em.clock.now());
    expect(payload.ok).toBe(true);
    const p = (payload as unknown as { payload: { exp: number; iat: number } }).payload;
    expect(p.exp - p.iat).toBe(86_400);
    const low = await fetchStatus(fx.em, '/api/v1/deployments/1/token', `Bearer ${fx.em.credentials.admin}`, 'POST', { expiresIn: 59 });
    expect(low.status).toBe(400);
    fx.em.clock.advance(86_400_000 + 1000);
    expect(verifyJwt(def.cubeApiToken, fx.em.state.secret, fx.em.clock.now())).toEqual({ ok: false, reason: 'expired' });
  });

  it('metadata token defaults to 86400 s', async () => {
    const envs = await c.deployments.environments({ deploymentId: 1 });
    const prod = envs.items.find((e) => e.type === 'production')!;
    const t = await c.deployments.createMetaSyncToken({ deploymentId: 1, environmentId: String(prod.id), body: { security_context: { tenant: 'a' } } });
    expect(Date.parse(t.data.expires_at) - Date.parse(t.data.created_at)).toBe(86_400_000);
  });
});

describe('versions (section 9)', () => {
  it('lists versions and accepts 1.7.20, v1.7.20 or the image reference; 400 when not on the target channel', async () => {
    const list = await c.deployments.versions({ deploymentId: 2 });
    expect(list.items.some((v) => v.isCurrent)).toBe(true);
    for (const given of ['1.7.20', 'v1.7.19', 'cubejs/cube:v1.7.18']) {
      const r = await c.deployments.update({ deploymentId: 2, body: { releaseChannel: 'latest', releaseChannelVersion: given } });
      expect(r.releaseChannel).toBe('latest');
    }
    const before = snapshot(fx.em);
    const err = await c.deployments.update({ deploymentId: 2, body: { releaseChannel: 'release', releaseChannelVersion: '1.7.20' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as Error).message).toContain("release channel's list");
    expect(snapshot(fx.em)).toBe(before);
  });

  it('releaseChannel alone moves to that channel’s latest; templateVariables merge key by key', async () => {
    await c.deployments.update({ deploymentId: 2, body: { releaseChannel: 'release' } });
    const current = (await c.deployments.versions({ deploymentId: 2 })).items.find((v) => v.isCurrent)!;
    expect(current).toMatchObject({ releaseChannel: 'release', isLatestInChannel: true });
    await c.deployments.update({ deploymentId: 2, body: { templateVariables: { a: 1, b: 2 } } });
    const r = await c.deployments.update({ deploymentId: 2, body: { templateVariables: { b: 3, c: 4 } } });
    expect((r as Record<string, unknown>).templateVariables).toEqual({ a: 1, b: 3, c: 4 });
  });
});

describe('dbt sync (section 3, 4.12)', () => {
  it('progresses on the clock through stages to COMPLETED, with logs by phase and a new branch', async () => {
    const start = await c.dbtSync.start({ deploymentId: 1, body: { ref: 'main', branchName: 'dbt/one' } });
    expect(start.branchName).toBe('dbt/one');
    // A run answers 404 for its first emulated seconds (dbtInvisibleMs, default 5 s).
    fx.em.clock.advance(5_000);
    const s1 = await c.dbtSync.status({ deploymentId: 1, syncJobId: start.syncJobId });
    expect(s1.status).toBe('RUNNING');
    fx.em.clock.advance(8_000);
    const s2 = await c.dbtSync.status({ deploymentId: 1, syncJobId: start.syncJobId });
    expect(s2.progress.stage).toBe('parse');
    const partial = await c.dbtSync.logs({ deploymentId: 1, syncJobId: start.syncJobId });
    expect(partial.items.every((l) => typeof l.phase === 'string' && typeof l.durationMs === 'number')).toBe(true);
    expect(new Set(partial.items.map((l) => l.phase))).toEqual(new Set(['clone', 'deps', 'parse']));
    await expect(c.dbtSync.result({ deploymentId: 1, syncJobId: start.syncJobId })).rejects.toBeInstanceOf(ConflictError);
    fx.em.clock.advance(60_000);
    expect((await c.dbtSync.status({ deploymentId: 1, syncJobId: start.syncJobId })).status).toBe('COMPLETED');
    const result = await c.dbtSync.result({ deploymentId: 1, syncJobId: start.syncJobId });
    expect(result.generatedFiles.length).toBeGreaterThan(0);
    const branch = (await collect(c.branches.iterate({ deploymentId: 1 }))).find((b) => b.name === 'dbt/one');
    expect(branch).toBeDefined();
    const hashes = await c.dataModel.fileHashes({ deploymentId: 1, query: { branchName: 'dbt/one' } });
    expect(Object.keys(hashes)).toEqual(expect.arrayContaining(result.generatedFiles.map((f) => f.path)));
  });

  it('DELETE moves RUNNING to CANCELLED: history says CANCELLED, status reports a failure saying cancelled', async () => {
    const start = await c.dbtSync.start({ deploymentId: 1, body: { ref: 'develop' } });
    fx.em.clock.advance(5_000);
    const cancel = await c.dbtSync.cancel({ deploymentId: 1, syncJobId: start.syncJobId });
    expect(cancel!.message).toContain('cancelled');
    const status = await c.dbtSync.status({ deploymentId: 1, syncJobId: start.syncJobId });
    expect(status.status).toBe('FAILED');
    expect(status.error).toMatch(/cancelled/);
    const cancelled = await collect(c.dbtSync.iterate({ deploymentId: 1, query: { status: 'CANCELLED' } }));
    expect(cancelled.some((r) => r.syncJobId === start.syncJobId)).toBe(true);
    fx.em.clock.advance(120_000);
    expect((await c.dbtSync.status({ deploymentId: 1, syncJobId: start.syncJobId })).status).toBe('FAILED');
    await expect(c.dbtSync.cancel({ deploymentId: 1, syncJobId: start.syncJobId })).rejects.toBeInstanceOf(ConflictError);
  });

  it('rejects an empty ref and a commit SHA at the server, changing nothing', async () => {
    const before = snapshot(fx.em);
    for (const ref of ['', 'a1b2c3d4e5f6']) {
      const res = await fetchStatus(fx.em, '/api/v1/deployments/1/dbt-sync', `Bearer ${fx.em.credentials.admin}`, 'POST', { ref });
      expect(res.status).toBe(400);
      expect(res.error).toContain('body.ref');
    }
    expect(snapshot(fx.em)).toBe(before);
  });

  it('makes a run fail on request (control route) and for an unknown ref', async () => {
    const set = await fetchStatus(fx.em, '/_emulator/dbt-sync/fail-next', `Bearer ${fx.em.credentials.admin}`, 'POST', {
      phase: 'generate',
      message: 'boom in generate',
    });
    expect(set.status).toBe(200);
    const run = await c.dbtSync.start({ deploymentId: 1, body: { ref: 'main' } });
    fx.em.clock.advance(120_000);
    const s = await c.dbtSync.status({ deploymentId: 1, syncJobId: run.syncJobId });
    expect(s).toMatchObject({ status: 'FAILED', error: 'boom in generate' });
    const logs = await c.dbtSync.logs({ deploymentId: 1, syncJobId: run.syncJobId });
    expect(logs.items.at(-1)).toMatchObject({ level: 'error', phase: 'generate' });
    const unknown = await c.dbtSync.start({ deploymentId: 1, body: { ref: 'no-such-ref' } });
    fx.em.clock.advance(120_000);
    expect((await c.dbtSync.status({ deploymentId: 1, syncJobId: unknown.syncJobId })).error).toContain('not found in the dbt project');
  });

  it('needs SchemaRead for history (member has it) and 404s unknown runs', async () => {
    expect((await fx.member.dbtSync.list({ deploymentId: 1, query: { first: 1 } })).items).toHaveLength(1);
    await expect(c.dbtSync.status({ deploymentId: 1, syncJobId: 'sync-nope' })).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('faults and latency', () => {
  it('injects 5xx, 429 with Retry-After, resets and hangs reproducibly from a seed', async () => {
    const sequence = async () => {
      const em = await startEmulator({ seed: 'empty', faults: '5xx=0.3,429=0.2,reset=0.1', faultSeed: 42 });
      const seen: string[] = [];
      for (let i = 0; i < 20; i++) {
        const r = await fetchStatus(em, '/api/v1/deployments', `Bearer ${em.credentials.admin}`).catch(() => ({
          status: 'reset' as const,
          error: '',
          retryAfter: null,
        }));
        seen.push(`${r.status}${r.retryAfter ? `/${r.retryAfter}` : ''}`);
      }
      await em.close();
      return seen;
    };
    const a = await sequence();
    expect(await sequence()).toEqual(a);
    expect(a).toContain('503');
    expect(a).toContain('429/1');
    expect(a).toContain('reset');
    expect(a).toContain('200');
  });

  it('the client rides out injected faults with its retries', async () => {
    const em = await startEmulator({ seed: 'demo', faults: '5xx=0.3,429=0.1,reset=0.1', faultSeed: 7 });
    const cl = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca, retry: { baseDelayMs: 5, maxAttempts: 10 } });
    for (let i = 0; i < 10; i++) expect((await cl.dataModel.validate({ deploymentId: 1 })).valid).toBe(true);
    expect(em.faults.injected['5xx'] + em.faults.injected['429'] + em.faults.injected.reset).toBeGreaterThan(0);
    await cl.close();
    await em.close();
  });

  it('adds the configured latency to every request', async () => {
    const em = await startEmulator({ seed: 'empty', latencyMs: 120 });
    const cl = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca });
    await cl.deployments.list();
    const t0 = Date.now();
    await cl.deployments.list();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(110);
    await cl.close();
    await em.close();
  });

  it('a hang is cut by the client timeout and retried', async () => {
    const em = await startEmulator({ seed: 'empty', faults: 'hang=0.5', faultSeed: 3 });
    const cl = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca, timeoutMs: 200, retry: { baseDelayMs: 1, maxAttempts: 12 } });
    for (let i = 0; i < 4; i++) await cl.deployments.list();
    expect(em.faults.injected.hang).toBeGreaterThan(0);
    await cl.close();
    await em.close();
  });
});

describe('query parameters', () => {
  it('reads a single repeated parameter as a one-element array', async () => {
    const one = await c.workspace.listWorkspace({ deploymentId: 1, query: { types: ['WORKBOOK'] } });
    expect(one.items.length).toBeGreaterThan(0);
    expect(new Set(one.items.map((i) => (i as { type?: string }).type))).toEqual(new Set(['WORKBOOK']));
  });
});

describe('errors (section 7)', () => {
  it('answers { error } for a malformed body, a route outside the API prefixes and a wrong method', async () => {
    const auth = `Bearer ${fx.em.credentials.admin}`;
    const malformed = await fetchRaw(fx.em, '/build/api/v1/deployments/1/branches', auth, 'POST', '{"name":', 'application/json');
    expect(malformed).toMatchObject({ status: 400, error: expect.stringContaining('malformed JSON') });
    // Under the API prefixes the real host serves its web app: 200 and HTML (see emulator-vendor-behaviour).
    expect(await fetchStatus(fx.em, '/api/v1/nothing-here', auth)).toMatchObject({ status: 200, error: expect.stringContaining('<!DOCTYPE html>') });
    expect(await fetchStatus(fx.em, '/nothing-here', auth)).toMatchObject({ status: 404 });
    expect(await fetchStatus(fx.em, '/api/v1/usage-analytics/token', auth, 'GET')).toMatchObject({ status: 405 });
  });
});

// Raw requests (bypassing the client's own input checks) to see what the server itself answers.
async function fetchRaw(
  target: { baseUrl: string; ca: string },
  path: string,
  authorization: string | undefined,
  method: string,
  body: string | undefined,
  contentType?: string,
): Promise<{ status: number; error: string; retryAfter: string | null }> {
  const { Agent, request } = await import('undici');
  const dispatcher = new Agent({ connect: { ca: target.ca } });
  try {
    const headers: Record<string, string> = {};
    if (authorization) headers.authorization = authorization;
    if (contentType) headers['content-type'] = contentType;
    const res = await request(`${target.baseUrl}${path}`, { method: method as 'GET', headers, body, dispatcher });
    const text = await res.body.text();
    let error = '';
    try {
      error = (JSON.parse(text) as { error?: string }).error ?? '';
    } catch {
      error = text;
    }
    const ra = res.headers['retry-after'];
    return { status: res.statusCode, error, retryAfter: typeof ra === 'string' ? ra : null };
  } finally {
    await dispatcher.close();
  }
}

function fetchStatus(target: { baseUrl: string; ca: string }, path: string, authorization?: string, method = 'GET', json?: unknown) {
  return fetchRaw(
    target,
    path,
    authorization,
    method,
    json === undefined ? undefined : JSON.stringify(json),
    json === undefined ? undefined : 'application/json',
  );
}
