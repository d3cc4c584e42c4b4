/** Figures 5 and 6 of the bench: the bundle's cold start and size, and the peak RSS of hashing a 5 000-file, 200 MB model with it. */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { describe, it } from 'vitest';
import { REPO_DIR, median, part, record, round, tempDir, writeTree } from '../lib.js';

const DIST = join(REPO_DIR, 'dist');
const BUNDLE = join(DIST, 'index.js');

/** Register figure 5. */
export function bundleFigure(): void {
  describe('the bundle', () => {
    it.runIf(part(5))('5: cold start of `node dist/index.js --version` (median of 15) and bundle size', () => {
      const timed = (args: string[]) => () => {
        const t0 = performance.now();
        const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
        const s = (performance.now() - t0) / 1000;
        if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
        return s;
      };
      const once = timed([BUNDLE, '--version']);
      const bare = timed(['-e', '0']);
      once();
      once();
      const times: number[] = [];
      const bareTimes: number[] = [];
      // Alternating, so a busy moment of the machine weighs on both.
      for (let i = 0; i < 15; i++) {
        times.push(once());
        bareTimes.push(bare());
      }
      const cold = median(times);
      record({
        id: 'cold-start',
        name: '5. cold start: `node dist/index.js --version`, median of 15',
        value: round(cold, 3),
        unit: 's',
        target: '<= 0.15',
        met: cold <= 0.15,
        detail: {
          runsSeconds: times.map((x) => round(x, 3)),
          min: round(Math.min(...times), 3),
          max: round(Math.max(...times), 3),
          bareNodeMedianSeconds: round(median(bareTimes), 3),
          overBareNode: round(cold / median(bareTimes), 2),
        },
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
}

/** Register figure 6. */
export function hashMemoryFigure(): void {
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
          writeTree(dir, {
            [`model/g${String(i % 50).padStart(2, '0')}/c${String(i).padStart(4, '0')}.yml`]: `#${String(i).padStart(4, '0')}\n${body.slice(6)}`,
          });
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
            how: "node dist/index.js hash-model <dir> --json: scanModel (list, SHA-1 and UTF-8 check of every file), then the process's own peak (Linux VmHWM; getrusage's maxRSS also counts the bench process it was forked from)",
          },
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
