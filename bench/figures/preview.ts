/** Figure 3 of the bench: the PR preview (event in -> staging URL in the comment), sequential round trips vs the bound. */
import { DEMO_MODEL, startEmulator, startGitHubStandin } from '../../packages/emulator/src/index.js';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { runActionCommand } from '../../src/commands/index.js';
import type { Io } from '../../src/io.js';
import { pullRequestEvent, writeEvent } from '../../test/support/payloads.js';
import { LATENCY_MS, countBy, cubeYaml, delta, median, part, record, round, startLatencyProxy, tempDir, writeTree } from '../lib.js';

/** The lower bound of bench/README.md ("Figure 3"): the longest chain of dependent calls. */
const PREVIEW_BOUND_ROUND_TRIPS = 10;

/** Register figure 3. */
export function previewFigure(): void {
  describe('PR preview lifecycle', () => {
    it.runIf(part(3))('3: sequential round trips of `pr` (opened) vs the dependency bound', async () => {
      const gh = await startGitHubStandin();
      // Builds and warm-ups take no time here: the figure counts round trips, not the platform's build time.
      const instant = { buildMs: 0, warmupMs: 0 };
      const ems = {
        0: await startEmulator({ seed: 'demo', ...instant }),
        [LATENCY_MS]: await startEmulator({ seed: 'demo', latencyMs: LATENCY_MS, ...instant }),
      };
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
          const em = ems[latency];
          const proxy = proxies[latency];
          const n = ++pr;
          gh.addPull({ number: n, headSha: sha(n), headRef: `feature/${n}`, baseRef: 'main', title: `Bench PR ${n}` });
          const env: NodeJS.ProcessEnv = {
            DATAMODEL_CI_API_URL: em.baseUrl,
            DATAMODEL_CI_API_KEY: em.credentials.admin,
            DATAMODEL_CI_CA_CERT: `${em.ca}\n${gh.ca}`,
            DATAMODEL_CI_DEPLOYMENT_ID: '1',
            DATAMODEL_CI_IMPACT: process.env.BENCH_IMPACT ?? 'true',
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
          const em = ems[LATENCY_MS];
          const front = await startLatencyProxy(em.baseUrl, em.ca, 0);
          const real = em.baseUrl;
          (em as { baseUrl: string }).baseUrl = front.url;
          const ghProxy = proxies[LATENCY_MS];
          ghProxy.timeline.length = 0;
          const t0 = performance.now();
          await preview(LATENCY_MS);
          (em as { baseUrl: string }).baseUrl = real;
          const rows = [...front.timeline.map((r) => ({ ...r, what: `P ${r.what}` })), ...ghProxy.timeline.map((r) => ({ ...r, what: `G ${r.what}` }))].sort(
            (a, b) => a.start - b.start,
          );
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
}
