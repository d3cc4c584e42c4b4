/**
 * Run in a fresh process by figures 7 and 8 (`node scripts/run-ts.mjs ../bench/figures/engine-probe`):
 * the emulator's start to its first answer, then the first data query of a deployment (nothing
 * compiled, no database yet), the same query again and new queries on the started database, another
 * deployment's first query (its database from the in-memory copy), and a second emulator's.
 * Prints one JSON line of times in ms. With `--cold`, the seeded database image kept on disk by an
 * earlier process is removed first, so the first query seeds Postgres as on a new machine.
 */
import { request } from 'node:https';
import { performance } from 'node:perf_hooks';
import { rmSync } from 'node:fs';
import { seededImagePath } from '../../packages/emulator/src/engine/database.js';
import { startEmulator, type Emulator } from '../../packages/emulator/src/index.js';

function get(em: Emulator, path: string, auth: string, method = 'GET', body?: unknown): Promise<{ status: number; json: any }> {
  const text = body === undefined ? '' : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const r = request(
      new URL(path, em.baseUrl),
      { method, ca: em.ca, headers: { authorization: auth, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') }));
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end(text);
  });
}

const timed = async <T>(fn: () => Promise<T>): Promise<[number, T]> => {
  const t0 = performance.now();
  const out = await fn();
  return [performance.now() - t0, out];
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const QUERY = {
  measures: ['orders.count', 'orders.total_amount'],
  dimensions: ['orders.status'],
  timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month', dateRange: ['2024-01-01', '2025-12-31'] }],
};

async function load(em: Emulator, deploymentId: number, token: string, query: unknown): Promise<number> {
  const [ms, res] = await timed(() => get(em, `/d/${deploymentId}/cubejs-api/v1/load?query=${encodeURIComponent(JSON.stringify(query))}`, token));
  if (res.status !== 200 || !Array.isArray(res.json?.data)) throw new Error(`load answered ${res.status}: ${JSON.stringify(res.json).slice(0, 300)}`);
  return ms;
}

async function token(em: Emulator, deploymentId: number): Promise<string> {
  const res = await get(em, `/api/v1/deployments/${deploymentId}/token`, `Bearer ${em.credentials.admin}`, 'POST', { expiresIn: 3600 });
  return res.json.cubeApiToken as string;
}

export async function main(args: string[]): Promise<number> {
  const ready = process.uptime() * 1000;
  if (args.includes('--cold')) rmSync(seededImagePath(), { force: true });
  const options = { seed: 'demo' as const, clock: { mode: 'manual' as const }, buildMs: 0, warmupMs: 0, continueWaitPolls: 0 };
  const t0 = performance.now();
  const em = await startEmulator(options);
  const listening = performance.now() - t0;
  const first = await get(em, '/api/v1/deployments', `Bearer ${em.credentials.admin}`);
  const firstAnswer = performance.now() - t0;
  if (first.status !== 200) throw new Error(`first answer: ${first.status}`);

  const t1 = await token(em, 1);
  const cold = await load(em, 1, t1, QUERY);
  const database = em.engine.started[0];
  const served = em.state.deployments[0]!.branches.main!.runtime.builds.at(-1)!.files;
  const compile = (await em.engine.compile(served)).ms;
  const again = [];
  for (let i = 0; i < 20; i++) again.push(await load(em, 1, t1, QUERY));
  const fresh = [];
  for (let i = 0; i < 20; i++) fresh.push(await load(em, 1, t1, { ...QUERY, limit: 100 + i }));
  const otherDeployment = await load(em, 2, await token(em, 2), QUERY);

  const t2 = performance.now();
  const em2 = await startEmulator(options);
  const secondEmulator = await load(em2, 1, await token(em2, 1), QUERY);
  const secondEmulatorTotal = performance.now() - t2;
  const rssMb = Math.round(process.memoryUsage().rss / 1e6);
  await em2.close();
  await em.close();
  process.stdout.write(
    `${JSON.stringify({
      processReadyMs: ready,
      listeningMs: listening,
      firstAnswerMs: firstAnswer,
      coldQueryMs: cold,
      coldDatabaseMs: database?.ms,
      coldDatabaseFrom: database?.from,
      coldCompileMs: compile,
      sameQueryMedianMs: median(again),
      newQueryMedianMs: median(fresh),
      otherDeploymentFirstQueryMs: otherDeployment,
      secondEmulatorFirstQueryMs: secondEmulator,
      secondEmulatorStartToRowsMs: secondEmulatorTotal,
      rssMbWithThreeDatabases: rssMb,
    })}\n`,
  );
  return 0;
}
