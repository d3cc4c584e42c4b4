/**
 * Figures 7 and 8 of the bench: the emulator's start to its first answer, and the first data query of
 * a deployment, cold (a fresh process: Cube's compiler loaded and run, Postgres started and seeded)
 * and warm (queries on the started database). Each run is a fresh process (engine-probe.ts); the
 * median of three runs is recorded.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { REPO_DIR, median, part, record, round } from '../lib.js';

type Probe = Record<string, number | string>;

function probe(...args: string[]): Probe {
  const r = spawnSync(process.execPath, [join(REPO_DIR, 'scripts', 'run-ts.mjs'), '../bench/figures/engine-probe', ...args], {
    cwd: REPO_DIR,
    encoding: 'utf8',
    timeout: 300_000,
  });
  const line = r.stdout.trim().split('\n').at(-1) ?? '';
  if (r.status !== 0 || !line.startsWith('{')) throw new Error(`engine probe exited ${r.status}: ${r.stderr.slice(-2000)}`);
  return JSON.parse(line) as Probe;
}

/** Register figures 7 and 8. */
export function engineFigures(): void {
  describe("the emulator's engine", () => {
    it.runIf(part(8) || part(9))('8: emulator start to first answer; 9: first data query, cold and warm (median of 3 fresh processes)', () => {
      // As on a new machine (no seeded database image on disk), then as on one that has run the emulator before.
      const runs = [probe('--cold'), probe('--cold'), probe('--cold')];
      const kept = part(9) ? [probe(), probe(), probe()] : [];
      const mid = (key: string, of = runs) => round(median(of.map((x) => Number(x[key]))), 1);
      const runsOf = (...keys: string[]) => runs.map((x) => Object.fromEntries(keys.map((k) => [k, round(Number(x[k]), 1)])));
      if (part(8)) {
        const v = mid('firstAnswerMs');
        record({
          id: 'emulator-start',
          name: '8. emulator start to first answer (startEmulator, then GET deployments over HTTPS), median of 3 processes',
          value: v,
          unit: 'ms',
          target: '<= 1000',
          met: v <= 1000,
          detail: {
            runs: runsOf('processReadyMs', 'listeningMs', 'firstAnswerMs'),
            note: "nothing of Cube's engine loads at start: the compiler on the first compile, Postgres on the first data query",
          },
        });
      }
      if (part(9)) {
        const cold = mid('coldQueryMs');
        record({
          id: 'first-data-query-cold',
          name: '9. first data query of a fresh process on a new machine: compile, start and seed Postgres, query (median of 3)',
          value: cold,
          unit: 'ms',
          target: '<= 8000',
          met: cold <= 8000,
          detail: {
            runs: runsOf(
              'coldQueryMs',
              'coldCompileMs',
              'coldDatabaseMs',
              'otherDeploymentFirstQueryMs',
              'secondEmulatorFirstQueryMs',
              'rssMbWithThreeDatabases',
            ),
            note: 'coldCompileMs includes loading the compiler; another deployment, or another emulator of the process, starts its database from the in-memory copy of the first',
          },
        });
        const fromKept = mid('coldQueryMs', kept);
        record({
          id: 'first-data-query-kept',
          name: '9. first data query of a fresh process, the seeded database kept on disk by an earlier one (median of 3)',
          value: fromKept,
          unit: 'ms',
          target: '<= 3000',
          met: fromKept <= 3000,
          detail: {
            runs: kept.map((x) => ({
              coldQueryMs: round(Number(x.coldQueryMs), 1),
              database: x.coldDatabaseFrom,
              databaseMs: round(Number(x.coldDatabaseMs), 1),
            })),
          },
        });
        const warm = mid('newQueryMedianMs');
        record({
          id: 'first-data-query-warm',
          name: '9. a new data query on a started database (median of 20 per process, median of 3 processes)',
          value: warm,
          unit: 'ms',
          target: '<= 100',
          met: warm <= 100,
          detail: { runs: runsOf('newQueryMedianMs', 'sameQueryMedianMs') },
        });
      }
    });
  });
}
