/**
 * The bench (`npm run bench`): each figure is a ratio or a count measured side by side in one run, so
 * it holds on any machine. vitest is only the TypeScript runner here: nothing is asserted about times;
 * every figure is printed with its target and written to bench/results.json. See bench/README.md.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, describe, it } from 'vitest';
import { PlatformClient } from '../src/client/index.js';
import { runActionCommand, type Io } from '../src/commands.js';
import { DBT_PHASES } from '../packages/emulator/src/dbt/runs.js';
import { DEMO_MODEL, startEmulator, startGitHubStandin, type Emulator } from '../packages/emulator/src/index.js';
import type { OpContext } from '../src/workflows/context.js';
import { dbtSyncAndWait } from '../src/workflows/dbt-sync-and-wait.js';
import { MemoryReporter } from '../src/workflows/reporter.js';
import { uploadModel, type UploadResult } from '../src/workflows/upload-model.js';
import { pullRequestEvent, writeEvent } from '../test/support/payloads.js';
import { REPO_DIR, countBy, cubeYaml, delta, median, record, round, startLatencyProxy, writeResults, writeTree } from './lib.js';
import { actionSpec, inputsOf } from '../src/action-spec.js';

/** The upload-model action's default concurrency: what users get. */
const DEFAULT_CONCURRENCY = Number(inputsOf(actionSpec('upload-model')).find((i) => i.name === 'concurrency')?.default ?? 16);

const LATENCY_MS = 50;
/** `BENCH_ONLY=3,4 npm run bench` runs some figures only (while working on them). */
const ONLY = process.env.BENCH_ONLY?.split(',').map((x) => x.trim());
const part = (n: number) => !ONLY || ONLY.includes(String(n));
const temps: string[] = [];
const tempDir = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
};

afterAll(() => {
  writeResults();
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

function opContext(client: PlatformClient, deploymentId: number): OpContext {
  return { client, deploymentId, reporter: new MemoryReporter(), dryRun: false };
}

// ---------------------------------------------------------------------------------------------------------
// 1 and 2: upload of a 500-file model at 50 ms latency

describe('upload-model at 50 ms latency', () => {
  const FILES = 500;
  const FILE_BYTES = 4096;
  const CHANGED = 'model/cubes/c250.yml';

  it.runIf(part(1) || part(2))('1: first upload, in parallel vs one file at a time; 2: re-upload with one file changed', async () => {
    const em = await startEmulator({ seed: 'empty', latencyMs: LATENCY_MS });
    const client = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca });
    const deploymentId = em.deployments[0]!.id;
    try {
      const dir = tempDir('dmci-bench-model-');
      const model: Record<string, string> = {};
      for (let i = 0; i < FILES; i++) model[`model/cubes/c${String(i).padStart(3, '0')}.yml`] = cubeYaml(`c${String(i).padStart(3, '0')}`, FILE_BYTES);
      writeTree(dir, model);
      const modelBytes = Object.values(model).reduce((a, t) => a + Buffer.byteLength(t), 0);

      let n = 0;
      /** A first upload: a fresh shared branch (made from the empty deploy branch, not timed), then the whole model. */
      const firstUpload = async (concurrency: number) => {
        const branch = `bench-upload-${++n}`;
        await client.branches.create({ deploymentId, body: { name: branch } });
        const t0 = performance.now();
        const r = await uploadModel(opContext(client, deploymentId), { branch, modelDir: dir, concurrency, commitMessage: 'bench' });
        const s = (performance.now() - t0) / 1000;
        if (r.uploaded !== FILES) throw new Error(`expected ${FILES} files sent, got ${r.uploaded}`);
        return { branch, seconds: s, result: r };
      };

      // Warm-up (TLS sessions, JIT), not counted.
      await firstUpload(8);
      const sequential = await firstUpload(1);
      const runs: Record<number, number[]> = { 8: [], 16: [], 32: [] };
      let lastDefault: { branch: string; result: UploadResult } | undefined;
      for (let round_ = 0; round_ < 3; round_++) {
        for (const c of [8, 16, 32]) {
          const r = await firstUpload(c);
          runs[c]!.push(r.seconds);
          if (c === DEFAULT_CONCURRENCY) lastDefault = r;
        }
      }
      const valid = await client.dataModel.validate({ deploymentId, query: { branchName: lastDefault!.branch } });
      // The same upload without latency: what is left is the CPU of client and emulator (one process).
      const em0 = await startEmulator({ seed: 'empty' });
      const client0 = new PlatformClient({ baseUrl: em0.baseUrl, apiKey: em0.credentials.admin, ca: em0.ca });
      const noLatency: number[] = [];
      try {
        for (let i = 0; i < 3; i++) {
          const b = `bench-upload-0-${i}`;
          await client0.branches.create({ deploymentId, body: { name: b } });
          const t0 = performance.now();
          await uploadModel(opContext(client0, deploymentId), { branch: b, modelDir: dir, concurrency: DEFAULT_CONCURRENCY, commitMessage: 'bench' });
          noLatency.push((performance.now() - t0) / 1000);
        }
      } finally {
        await client0.close();
        await em0.close();
      }
      const med = (c: number) => median(runs[c]!);
      const speedup = sequential.seconds / med(DEFAULT_CONCURRENCY);
      record({
        id: 'upload-first-speedup',
        name: `1. first upload, ${FILES} files (${round(modelBytes / 1e6, 1)} MB), ${LATENCY_MS} ms latency: sequential / ours (concurrency ${DEFAULT_CONCURRENCY}, the default)`,
        value: round(speedup, 1),
        unit: 'x',
        target: '>= 6',
        met: speedup >= 6,
        detail: {
          files: FILES,
          modelBytes,
          latencyMs: LATENCY_MS,
          sequentialSeconds: round(sequential.seconds),
          oursSeconds: Object.fromEntries(Object.entries(runs).map(([c, xs]) => [`concurrency ${c}`, xs.map((x) => round(x))])),
          medianSeconds: { 8: round(med(8)), 16: round(med(16)), 32: round(med(32)) },
          defaultWithoutLatencySeconds: noLatency.map((x) => round(x)),
          speedup: { 8: round(speedup, 1), 16: round(sequential.seconds / med(16), 1), 32: round(sequential.seconds / med(32), 1) },
          modelValid: valid.valid,
          cubes: valid.cubesCount,
          sequentialIs: 'the same uploadModel and client with concurrency 1: start the upload, send each file after the previous one, finish (plus the same dev-mode, hash, commit and merge calls as ours)',
        },
      });

      // 2: change one file (same size, other bytes) and upload again to the same shared branch.
      const branch = lastDefault!.branch;
      const changedText = cubeYaml('c250', FILE_BYTES, 1);
      writeFileSync(join(dir, CHANGED), changedText);
      const changedBytes = Buffer.byteLength(changedText);
      const counts0 = { ...em.counts };
      const bytes0 = JSON.parse(JSON.stringify(em.bytes)) as Emulator['bytes'];
      const r = await uploadModel(opContext(client, deploymentId), { branch, modelDir: dir, concurrency: DEFAULT_CONCURRENCY, commitMessage: 'bench' });
      const requests = delta(em.counts, counts0);
      const wire: Record<string, number> = {};
      let fileBytes = 0;
      for (const [id, b] of Object.entries(em.bytes)) {
        const w = b.wire - (bytes0[id]?.wire ?? 0);
        if (w) wire[id] = w;
        fileBytes += b.files - (bytes0[id]?.files ?? 0);
      }
      const wireTotal = Object.values(wire).reduce((a, b) => a + b, 0);
      const unchangedSent = r.files.sent.filter((p) => p !== CHANGED);
      const ratio = fileBytes / changedBytes;
      const requestCount = Object.values(requests).reduce((a, b) => a + b, 0);
      record({
        id: 'reupload-bytes-ratio',
        name: `2. re-upload, 1 of ${FILES} files changed: file bytes sent / bytes of the changed file`,
        value: round(ratio, 3),
        unit: 'x',
        target: '<= 1.1, no unchanged file sent',
        met: ratio <= 1.1 && unchangedSent.length === 0,
        detail: {
          changedFile: CHANGED,
          changedBytes,
          fileBytesSent: fileBytes,
          filesSent: r.files.sent,
          unchangedFilesSent: unchangedSent.length,
          requests,
          wireBytesByEndpoint: wire,
          wireBytesTotal: wireTotal,
          fixedOverheadBytes: wireTotal - fileBytes,
          uploadRequestWireBytesPerChangedByte: round((wire.uploadFile ?? 0) / changedBytes, 3),
          note: 'wire = request line + headers + body as received by the emulator (before TLS); the fixed overhead is every byte that is not file content: headers, multipart framing, and the finish manifest that lists all files with their hashes',
        },
      });
      record({
        id: 'reupload-requests',
        name: `2. re-upload, 1 of ${FILES} files changed: requests made`,
        value: requestCount,
        unit: 'requests',
        // Fixed calls: dev mode, hashes, start, finish, commit, merge, the check of the merged branch, stop.
        target: '1 upload + 8 fixed calls (<= 9)',
        met: (requests.uploadFile ?? 0) === 1 && requestCount <= 9,
        detail: { requests },
      });
    } finally {
      await client.close();
      await em.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
// 3: the PR preview (event in -> staging URL in the comment): sequential round trips vs the bound

/** The lower bound of bench/README.md ("Figure 3"): the longest chain of dependent calls. */
const PREVIEW_BOUND_ROUND_TRIPS = 11;

describe('PR preview lifecycle', () => {
  it.runIf(part(3))('3: sequential round trips of `pr` (opened) vs the dependency bound', async () => {
    const gh = await startGitHubStandin();
    const ems = { 0: await startEmulator({ seed: 'demo' }), [LATENCY_MS]: await startEmulator({ seed: 'demo', latencyMs: LATENCY_MS }) };
    const proxies = { 0: await startLatencyProxy(gh.url, gh.ca, 0), [LATENCY_MS]: await startLatencyProxy(gh.url, gh.ca, LATENCY_MS) };
    try {
      const repo = tempDir('dmci-bench-repo-');
      const modelDir = join(repo, 'analytics');
      writeTree(modelDir, { ...DEMO_MODEL, 'model/cubes/payments.yml': cubeYaml('payments', 1200) });
      let pr = 100;
      const sha = (n: number) => n.toString(16).padStart(40, 'b');
      const TOKEN = 'ghs_bench_token_0123456789';

      /** One `pr` run for a newly opened PR; wall time in ms, calls made, and what the comment says. */
      const preview = async (latency: 0 | typeof LATENCY_MS) => {
        const em = ems[latency]!;
        const proxy = proxies[latency]!;
        const n = ++pr;
        gh.addPull({ number: n, headSha: sha(n), headRef: `feature/${n}`, baseRef: 'main', title: `Bench PR ${n}` });
        const env: NodeJS.ProcessEnv = {
          DATAMODEL_CI_API_URL: em.baseUrl,
          DATAMODEL_CI_API_KEY: em.credentials.admin,
          DATAMODEL_CI_CA_CERT: `${em.ca}\n${gh.ca}`,
          DATAMODEL_CI_DEPLOYMENT_ID: '1',
          DATAMODEL_CI_GITHUB_TOKEN: TOKEN,
          DATAMODEL_CI_MODEL_DIR: modelDir,
          GITHUB_REPOSITORY: gh.repository,
          GITHUB_API_URL: proxy.url,
          GITHUB_RUN_ID: '4242',
          GITHUB_SERVER_URL: 'https://github.com',
          GITHUB_EVENT_NAME: 'pull_request',
          GITHUB_EVENT_PATH: writeEvent(pullRequestEvent('opened', { number: n, headSha: sha(n) })),
        };
        const out: string[] = [];
        const io: Io = { out: (l) => out.push(l), err: (l) => out.push(l), env };
        const counts0 = { ...em.counts };
        const gh0 = proxy.requests.length;
        const t0 = performance.now();
        const code = await runActionCommand('pr', ['--json'], io);
        const ms = performance.now() - t0;
        const outputs = (JSON.parse(out.at(-1) ?? '{}') as { outputs?: Record<string, string> }).outputs ?? {};
        const comment = gh.comments(n)[0]?.body ?? '';
        const url = outputs['staging-url'] ?? '';
        if (code !== 0 || !url || !comment.includes(url)) throw new Error(`pr run failed (exit ${code}): ${out.join('\n')}`);
        if (process.env.BENCH_TRACE) console.log(out.join('\n'));
        return { ms, platform: delta(em.counts, counts0), github: countBy(proxy.requests.slice(gh0)) };
      };

      // Warm-up of both set-ups (JIT, TLS, the stand-in's REST description), then alternate.
      await preview(0);
      await preview(LATENCY_MS);
      const t: Record<number, number[]> = { 0: [], [LATENCY_MS]: [] };
      let calls: Awaited<ReturnType<typeof preview>> | undefined;
      for (let i = 0; i < 7; i++) {
        t[0]!.push((await preview(0)).ms);
        calls = await preview(LATENCY_MS);
        t[LATENCY_MS]!.push(calls.ms);
      }
      if (process.env.BENCH_TRACE) {
        // One run with a proxy in front of the emulator too, to print the timeline of every call.
        const em = ems[LATENCY_MS]!;
        const front = await startLatencyProxy(em.baseUrl, em.ca, 0);
        const real = em.baseUrl;
        (em as { baseUrl: string }).baseUrl = front.url;
        const ghProxy = proxies[LATENCY_MS]!;
        ghProxy.timeline.length = 0;
        const t0 = performance.now();
        await preview(LATENCY_MS);
        (em as { baseUrl: string }).baseUrl = real;
        const rows = [...front.timeline.map((r) => ({ ...r, what: `P ${r.what}` })), ...ghProxy.timeline.map((r) => ({ ...r, what: `G ${r.what}` }))].sort((a, b) => a.start - b.start);
        console.log(`gh requests in trace: ${ghProxy.timeline.length}`);
        for (const r of rows) console.log(`${String(Math.round(r.start - t0)).padStart(5)} ${String(Math.round(r.end - t0)).padStart(5)}  ${r.what}`);
        await front.close();
      }
      const m0 = median(t[0]!);
      const m50 = median(t[LATENCY_MS]!);
      const roundTrips = (m50 - m0) / LATENCY_MS;
      const ratio = roundTrips / PREVIEW_BOUND_ROUND_TRIPS;
      record({
        id: 'preview-round-trips',
        name: `3. PR preview (opened -> staging URL in the comment): sequential round trips / bound (${PREVIEW_BOUND_ROUND_TRIPS})`,
        value: round(ratio, 2),
        unit: 'x',
        target: '<= 1.2',
        met: ratio <= 1.2,
        detail: {
          sequentialRoundTrips: round(roundTrips, 1),
          boundRoundTrips: PREVIEW_BOUND_ROUND_TRIPS,
          latencyMs: { platform: LATENCY_MS, github: LATENCY_MS },
          medianMs: { latency0: round(m0, 0), [`latency${LATENCY_MS}`]: round(m50, 0) },
          runsMs: Object.fromEntries(Object.entries(t).map(([k, xs]) => [`latency${k}`, xs.map((x) => round(x, 0))])),
          calls: { platform: calls!.platform, github: calls!.github },
          method: `round trips = (median wall time at ${LATENCY_MS} ms on every platform and GitHub request - median at 0 ms) / ${LATENCY_MS} ms; 7 runs each, alternating, one new PR per run`,
        },
      });
    } finally {
      for (const p of Object.values(proxies)) await p.close();
      for (const em of Object.values(ems)) await em.close();
      await gh.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
// 4: dbt-sync-and-wait on the emulator's manual clock (emulated time; the op's `now` and `sleep` injected)

describe('dbt-sync-and-wait', () => {
  it.runIf(part(4))('4: completion-to-exit latency and polls per 10 minutes, runs of 1, 10 and 30 emulated minutes', async () => {
    const em = await startEmulator({ seed: 'demo', clock: { mode: 'manual' } });
    const client = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca });
    try {
      const total = DBT_PHASES.reduce((a, p) => a + p.durationMs, 0);
      /** One run whose phases (the default plan's proportions) add up to about `ms`. */
      const run = async (ms: number) => {
        em.controls.dbtPhases = DBT_PHASES.map((p) => ({ phase: p.phase, durationMs: Math.round((p.durationMs * ms) / total) }));
        const counts0 = { ...em.counts };
        const r = await dbtSyncAndWait(opContext(client, 1), {
          ref: 'main',
          timeoutMs: 2 * ms + 600_000,
          now: () => em.clock.now(),
          sleep: async (wait) => em.clock.advance(wait),
        });
        const exitAt = em.clock.now();
        const rec = em.state.deployments[0]!.dbtRuns.find((x) => x.syncJobId === r.syncJobId)!;
        const duration = rec.plan.reduce((a, p) => a + p.durationMs, 0);
        if (r.status !== 'COMPLETED') throw new Error(`dbt sync ended ${r.status}`);
        const calls = delta(em.counts, counts0);
        return {
          minutes: round(duration / 60_000, 3),
          latencySeconds: round((exitAt - (rec.startedAt + duration)) / 1000, 2),
          polls: r.polls,
          pollsPer10Min: round(r.polls / (duration / 600_000), 1),
          logReads: calls.getDbtSyncLogs ?? 0,
        };
      };
      // Each nominal length and four lengths around it: the latency depends on where the end falls
      // between two whole percents, so the worst of five is reported.
      const JITTER = [1, 0.951, 0.97, 1.013, 1.037];
      for (const minutes of [1, 10, 30]) {
        const runs = [];
        for (const j of JITTER) runs.push(await run(minutes * 60_000 * j));
        const worstLatency = Math.max(...runs.map((r) => r.latencySeconds));
        const worstRate = Math.max(...runs.map((r) => r.pollsPer10Min));
        record({
          id: `dbt-latency-${minutes}m`,
          name: `4. dbt sync of ${minutes} min (and +-5 %): run completed -> action exits (worst of ${JITTER.length})`,
          value: worstLatency,
          unit: 's (emulated)',
          target: '<= 2',
          met: worstLatency <= 2,
          detail: { runs },
        });
        record({
          id: `dbt-polls-${minutes}m`,
          name: `4. dbt sync of ${minutes} min (and +-5 %): status polls per 10 min of run time (worst of ${JITTER.length})`,
          value: worstRate,
          unit: 'polls',
          target: '<= 25',
          met: worstRate <= 25,
          detail: { runs, note: 'polls = status reads; log reads (one per phase change seen) are listed apart' },
        });
      }
    } finally {
      delete em.controls.dbtPhases;
      await client.close();
      await em.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
// 5: the bundle: cold start and size

const DIST = join(REPO_DIR, 'dist');
const BUNDLE = join(DIST, 'index.js');

describe('the bundle', () => {
  it.runIf(part(5))('5: cold start of `node dist/index.js --version` (median of 15) and bundle size', () => {
    const once = () => {
      const t0 = performance.now();
      const r = spawnSync(process.execPath, [BUNDLE, '--version'], { encoding: 'utf8' });
      const s = (performance.now() - t0) / 1000;
      if (r.status !== 0) throw new Error(`node dist/index.js --version exited ${r.status}: ${r.stderr}`);
      return s;
    };
    once();
    once();
    const times = Array.from({ length: 15 }, once);
    const cold = median(times);
    record({
      id: 'cold-start',
      name: '5. cold start: `node dist/index.js --version`, median of 15',
      value: round(cold, 3),
      unit: 's',
      target: '<= 0.35',
      met: cold <= 0.35,
      detail: { runsSeconds: times.map((x) => round(x, 3)), min: round(Math.min(...times), 3), max: round(Math.max(...times), 3) },
    });
    const js = readdirSync(DIST).filter((f) => f.endsWith('.js'));
    const sizes = Object.fromEntries(js.map((f) => [f, statSync(join(DIST, f)).size]));
    const total = Object.values(sizes).reduce((a, b) => a + b, 0);
    record({
      id: 'bundle-size',
      name: '5. bundle size: every .js file of dist/ (MB = 10^6 bytes)',
      value: round(total / 1e6, 2),
      unit: 'MB',
      target: '<= 2',
      met: total <= 2e6,
      detail: { bytes: sizes, total },
    });
  });
});

// ---------------------------------------------------------------------------------------------------------
// 6: hashing a 5 000-file, 200 MB model: peak RSS of the process that hashes (the bundled CLI)

describe('hashing a large model', () => {
  it.runIf(part(6))('6: peak RSS of `node dist/index.js hash-model` over 5 000 files of 40 KB', () => {
    const FILES = 5_000;
    const SIZE = 40 * 1024;
    const dir = tempDir('dmci-bench-big-');
    try {
      const line = '      - name: attribute\n        sql: attribute\n        type: string\n';
      const body = `cubes:\n  - name: big\n    dimensions:\n${line.repeat(Math.ceil(SIZE / line.length))}`.slice(0, SIZE);
      for (let i = 0; i < FILES; i++) {
        // One byte differs per file, so no two files hash alike.
        writeTree(dir, { [`model/g${String(i % 50).padStart(2, '0')}/c${String(i).padStart(4, '0')}.yml`]: `#${String(i).padStart(4, '0')}\n${body.slice(6)}` });
      }
      const run = spawnSync(process.execPath, [BUNDLE, 'hash-model', dir, '--json'], { encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`hash-model exited ${run.status}: ${run.stderr}${run.stdout} (is dist/ rebuilt? npm run build)`);
      const out = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as { files: number; bytes: number; ms: number; maxRssBytes: number };
      if (out.files !== FILES || out.bytes !== FILES * SIZE) throw new Error(`hash-model saw ${out.files} files, ${out.bytes} bytes`);
      // Cross-check with the kernel's account of the same command, when GNU time is there.
      let timeMaxRssBytes: number | undefined;
      if (existsSync('/usr/bin/time')) {
        const t = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, BUNDLE, 'hash-model', dir, '--json'], { encoding: 'utf8' });
        const kb = Number(t.stderr.trim().split('\n').at(-1));
        if (t.status === 0 && Number.isFinite(kb)) timeMaxRssBytes = kb * 1024;
      }
      const peak = out.maxRssBytes / 1e6;
      record({
        id: 'hash-peak-rss',
        name: `6. hashing ${FILES} files, ${round((FILES * SIZE) / 1e6, 0)} MB: peak RSS of the hashing process (MB = 10^6 bytes)`,
        value: round(peak, 1),
        unit: 'MB',
        target: '<= 150',
        met: peak <= 150,
        detail: {
          files: out.files,
          bytes: out.bytes,
          hashSeconds: round(out.ms / 1000, 2),
          maxRssBytes: out.maxRssBytes,
          ...(timeMaxRssBytes !== undefined ? { gnuTimeMaxRssBytes: timeMaxRssBytes } : {}),
          how: 'node dist/index.js hash-model <dir> --json: scanModel (list, SHA-1 and UTF-8 check of every file), then process.resourceUsage().maxRSS',
        },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
