/**
 * `npm run soak`: 200 full PR lifecycles against the emulator with faults
 * (5xx 10%, 429 5%, reset 2%, hang 1%) and a fixed seed; prints the counts, writes
 * bench/soak-results.json, exits 0 only when every lifecycle ended correct.
 */
import { writeFileSync } from 'node:fs';
import { probeCancel } from '../test/reliability/cancel.js';
import { runSoak } from '../test/reliability/soak.js';

export async function main(argv: string[]): Promise<number> {
  const arg = (name: string, fallback: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 && argv[i + 1] ? (argv[i + 1] as string) : fallback;
  };
  const lifecycles = Number(arg('lifecycles', '200'));
  const faultSeed = Number(arg('seed', '42'));
  const faults = arg('faults', '5xx=0.1,429=0.05,reset=0.02,hang=0.01');
  if (!Number.isInteger(lifecycles) || lifecycles < 1) {
    process.stderr.write(`soak: --lifecycles: got ${JSON.stringify(arg('lifecycles', ''))}, expected a positive integer\n`);
    return 2;
  }
  process.stdout.write(`soak: ${lifecycles} PR lifecycles (open, push, close), faults ${faults}, seed ${faultSeed}\n`);
  const report = await runSoak({ lifecycles, faults, faultSeed, requestTimeout: 2, log: (l) => process.stdout.write(`${l}\n`) });
  const cancel = await probeCancel();
  writeFileSync(
    'bench/soak-results.json',
    `${JSON.stringify({ ...report, cancel, faults, faultSeed, node: process.version, date: new Date().toISOString() }, null, 2)}\n`,
  );
  const line = (k: string, v: unknown) => process.stdout.write(`  ${k.padEnd(22)} ${typeof v === 'string' ? v : JSON.stringify(v)}\n`);
  process.stdout.write('\nsoak report\n');
  line('lifecycles correct', `${report.correct}/${report.lifecycles}`);
  line('runs ok', `${report.runsOk}/${report.runs}`);
  line('duplicate branches', report.duplicateBranches);
  line('duplicate comments', report.duplicateComments);
  line('lost or stale files', report.lostOrStaleFiles);
  line('left behind', report.leftBehind.length ? report.leftBehind.join(', ') : 'nothing');
  line('deploy branch correct', report.deployBranchCorrect);
  line('faults injected', report.faultsInjected);
  line('platform requests', report.requests);
  line('secrets found in logs', report.secretsFound);
  line('time', `${report.seconds} s`);
  line(
    'SIGINT to CANCELLED',
    `${cancel.cancelledAfterMs} ms (target ≤ 5000), exit ${cancel.exitCode} after ${cancel.exitedAfterMs} ms, status ${cancel.status}`,
  );
  for (const f of report.failures.slice(0, 20)) process.stdout.write(`  ! ${f}\n`);
  const ok =
    report.correct === report.lifecycles &&
    report.runsFailed === 0 &&
    report.leftBehind.length === 0 &&
    report.deployBranchCorrect &&
    report.secretsFound === 0 &&
    cancel.status === 'CANCELLED' &&
    cancel.cancelledAfterMs <= 5_000;
  return ok ? 0 : 1;
}
