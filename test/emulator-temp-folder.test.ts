/**
 * The emulator started without --state-dir makes a temporary folder for its CA; it removes it when it
 * stops on SIGTERM or SIGINT (a real child process each), and leaves a --state-dir alone.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';

/** Start `datamodel-ci-emulator`, read its JSON line, stop it with `signal`; the CA folder seen while it ran. */
async function runUntil(signal: NodeJS.Signals, args: string[] = []): Promise<{ caDir: string; existed: boolean; code: number | null }> {
  const child = spawn(process.execPath, ['packages/emulator/bin/datamodel-ci-emulator.mjs', '--seed', 'empty', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`exited early with ${code}`)));
  });
  const caDir = dirname((JSON.parse(first) as { caFile: string }).caFile);
  const existed = existsSync(join(caDir, 'ca.pem'));
  child.kill(signal);
  return { caDir, existed, code: await exit };
}

describe('the temporary CA folder', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'is removed when the emulator stops on %s',
    async (signal) => {
      const r = await runUntil(signal);
      expect(r.existed).toBe(true);
      expect(r.caDir.startsWith(tmpdir())).toBe(true);
      expect(r.code).toBe(0);
      expect(existsSync(r.caDir)).toBe(false);
    },
    60_000,
  );

  it('is the state dir, kept, when --state-dir is given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dmci-emu-state-'));
    try {
      const r = await runUntil('SIGTERM', ['--state-dir', dir]);
      expect(r.caDir).toBe(dir);
      expect(existsSync(join(dir, 'ca.pem'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
