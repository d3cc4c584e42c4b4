/**
 * SIGINT during dbt-sync-and-wait: how long from the signal until the platform has the run CANCELLED.
 * Runs the bundle as a step would (GITHUB_ACTIONS=true) against an in-process emulator.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../../packages/emulator/src/index.js';

export interface CancelProbe {
  /** ms from SIGINT to the run's cancellation on the platform. */
  cancelledAfterMs: number;
  /** ms from SIGINT to the process exit. */
  exitedAfterMs: number;
  exitCode: number | null;
  status: string;
}

export async function probeCancel(): Promise<CancelProbe> {
  const em = await startEmulator({ seed: 'demo', clock: { scale: 1 } });
  const dir = mkdtempSync(join(tmpdir(), 'dmci-cancel-'));
  const output = join(dir, 'output');
  writeFileSync(output, '');
  try {
    const child = spawn(process.execPath, ['dist/index.js', 'dbt-sync-and-wait'], {
      env: {
        PATH: process.env.PATH ?? '',
        GITHUB_ACTIONS: 'true',
        GITHUB_OUTPUT: output,
        DATAMODEL_CI_API_URL: em.baseUrl,
        DATAMODEL_CI_API_KEY: em.credentials.admin,
        DATAMODEL_CI_CA_CERT: em.ca,
        DATAMODEL_CI_DEPLOYMENT_ID: '1',
        DATAMODEL_CI_REF: 'main',
      },
    });
    let sentAt = 0;
    let out = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (!sentAt && /dbt sync \S+ started/.test(out)) resolve();
      });
    });
    // Let it reach its first wait between polls, then cancel the job.
    await new Promise((r) => setTimeout(r, 300));
    sentAt = Date.now();
    child.kill('SIGINT');
    const run = () => em.state.deployments[0]!.dbtRuns.at(-1)!;
    while (run().cancelledAt === undefined && Date.now() - sentAt < 30_000) await new Promise((r) => setTimeout(r, 5));
    const cancelledAfterMs = Date.now() - sentAt;
    const exitCode = await exited;
    const exitedAfterMs = Date.now() - sentAt;
    const status = /status<<\S+\n(.*)\n/.exec(readFileSync(output, 'utf8'))?.[1] ?? '';
    return { cancelledAfterMs, exitedAfterMs, exitCode, status };
  } finally {
    await em.close();
  }
}
