/**
 * `npm run soak`: full PR lifecycles (open, push, close) against the emulator with injected faults, a
 * failed run rerun once; prints a report per seed, records it in bench/soak-results.json (one entry per
 * fault mix), and exits 0 only when every invariant held. `--help` lists the options.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { probeCancel } from '../test/reliability/cancel.js';
import { runSoak, type SoakReport } from '../test/reliability/soak.js';
import { parseProfiles } from '../packages/emulator/src/profiles.js';

const HELP = `npm run soak -- [options]

Runs PR lifecycles (opened, synchronize, closed; every other one merged) against the in-repo emulator
with faults injected into the platform's answers, reruns a failed run once (as a person reruns the job),
and checks after every event: one comment showing the head, the shared branch equal to the checkout,
the deploy branch equal to the merged PRs; at the end (after the sweep) nothing left behind, and no
secret in any log line or comment.

Options:
  --lifecycles N     lifecycles per seed (default 200)
  --seed N           fault seed (default 42)
  --seeds A,B,C      several seeds, run side by side (each with its own emulator)
  --faults SPEC      fault mix, name=probability joined by commas (default ${'5xx=0.1,429=0.05,reset=0.02,hang=0.01'})
                     kinds: 5xx, 429 (Retry-After: 1), reset, hang (cut by the 2 s request timeout),
                     lost (the request takes effect, its answer is lost)
  --min-correct N    lifecycles per seed that must be correct without a rerun (default: all)
  --profiles P       tenant profiles (docs/emulator.md): draw (default: each lifecycle on a tenant with
                     profiles drawn at random, each on with a 30% chance, seeded; of two that exclude
                     each other only the first), none, or a,b for all
  --no-cancel        skip the SIGINT probe
  --help             this text

Passes when, for every seed: the deploy branch was right after every merge, nothing was left behind,
every failed run was repaired by its rerun, no secret was found, and at least --min-correct lifecycles
were correct on the first try.`;

type Entry = SoakReport & { seed: number };

function line(k: string, v: unknown): void {
  process.stdout.write(`  ${k.padEnd(24)} ${typeof v === 'string' ? v : JSON.stringify(v)}\n`);
}

export async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const arg = (name: string, fallback: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 && argv[i + 1] ? (argv[i + 1] as string) : fallback;
  };
  const lifecycles = Number(arg('lifecycles', '200'));
  const seeds = arg('seeds', arg('seed', '42'))
    .split(',')
    .map((x) => Number(x.trim()));
  const faults = arg('faults', '5xx=0.1,429=0.05,reset=0.02,hang=0.01');
  const minCorrect = Number(arg('min-correct', String(lifecycles)));
  const profileArg = arg('profiles', 'draw');
  let profiles: 'draw' | ReturnType<typeof parseProfiles>;
  try {
    profiles = profileArg === 'draw' ? 'draw' : profileArg === 'none' ? [] : parseProfiles(profileArg, '--profiles');
  } catch (e) {
    process.stderr.write(`soak: ${(e as Error).message} (or draw, or none; see --help)\n`);
    return 2;
  }
  for (const [name, value, ok] of [
    ['lifecycles', lifecycles, Number.isInteger(lifecycles) && lifecycles >= 1],
    ['seeds', seeds.join(','), seeds.length > 0 && seeds.every((x) => Number.isInteger(x))],
    ['min-correct', minCorrect, Number.isInteger(minCorrect) && minCorrect >= 0],
  ] as const) {
    if (!ok) {
      process.stderr.write(`soak: --${name}: got ${JSON.stringify(value)}, expected a whole number (see --help)\n`);
      return 2;
    }
  }
  process.stdout.write(
    `soak: ${lifecycles} PR lifecycles per seed (open, push, close), faults ${faults}, seeds ${seeds.join(', ')}, tenant profiles ${profileArg}\n`,
  );
  const entries: Entry[] = await Promise.all(
    seeds.map(async (seed) => ({
      seed,
      ...(await runSoak({
        lifecycles,
        faults,
        faultSeed: seed,
        requestTimeout: 2,
        profiles,
        log: (l) => process.stdout.write(`[seed ${seed}] ${l}\n`),
      })),
    })),
  );
  const cancel = argv.includes('--no-cancel') ? undefined : await probeCancel();
  const file = 'bench/soak-results.json';
  let all: Record<string, unknown> = {};
  try {
    const old = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
    // One entry per fault mix; a file in the old single-report shape is started over.
    if (old.mixes && typeof old.mixes === 'object') all = old.mixes as Record<string, unknown>;
  } catch {
    all = {};
  }
  all[profileArg === 'none' ? faults : `${faults} profiles=${profileArg}`] = {
    lifecycles,
    seeds: entries,
    ...(cancel ? { cancel } : {}),
    node: process.version,
    date: new Date().toISOString(),
  };
  writeFileSync(file, `${JSON.stringify({ mixes: all }, null, 2)}\n`);

  let ok = true;
  for (const r of entries) {
    process.stdout.write(`\nsoak report, seed ${r.seed}\n`);
    line('lifecycles correct', `${r.correct}/${r.lifecycles} on the first try, ${r.correctAfterRerun} more after a rerun`);
    line('runs ok', `${r.runsOk}/${r.runs}`);
    line('failed runs rerun', `${r.reruns}, repaired by the rerun: ${r.repaired}`);
    line('deploy branch correct', `${r.deployBranchCorrect} (wrong after ${r.deployBranchWrong} merges)`);
    line('left behind', r.leftBehind.length ? r.leftBehind.join(', ') : 'nothing');
    line('swept at the end', r.swept.length ? r.swept.join(', ') : 'nothing');
    line("another repository's", r.othersTouched.length ? `touched: ${r.othersTouched.join(', ')}` : 'untouched');
    line('duplicate branches', r.duplicateBranches);
    line('duplicate comments', r.duplicateComments);
    line('lost or stale files', r.lostOrStaleFiles);
    line('platform requests', r.requests);
    line('faults injected', r.faultsInjected);
    line('retries spent', `${r.retries} repeated requests, ${r.checks} effect checks`);
    line('secrets found in logs', r.secretsFound);
    line('wall time', `${r.seconds} s`);
    line(
      'by tenant profile',
      Object.entries(r.byProfile)
        .sort()
        .map(([p, c]) => `${p} ${c.correct}/${c.lifecycles}`)
        .join(', '),
    );
    for (const f of r.failures.slice(0, 20)) process.stdout.write(`  ! ${f}\n`);
    ok &&=
      r.correct >= minCorrect &&
      r.correct + r.correctAfterRerun === r.lifecycles &&
      r.repaired === r.reruns &&
      r.leftBehind.length === 0 &&
      r.othersTouched.length === 0 &&
      r.deployBranchCorrect &&
      r.secretsFound === 0;
  }
  if (cancel) {
    line(
      'SIGINT to CANCELLED',
      `${cancel.cancelledAfterMs} ms (target ≤ 5000), exit ${cancel.exitCode} after ${cancel.exitedAfterMs} ms, status ${cancel.status}`,
    );
    ok &&= cancel.status === 'CANCELLED' && cancel.cancelledAfterMs <= 5_000;
  }
  return ok ? 0 : 1;
}
