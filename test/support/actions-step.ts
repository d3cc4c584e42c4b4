/**
 * An action's step run in this process as GitHub Actions runs it: `GITHUB_ACTIONS=true`, its outputs written
 * to the GITHUB_OUTPUT file and its job summary to the GITHUB_STEP_SUMMARY file (@actions/core reads both
 * from the process's environment, set for the step and restored after); both files are read back.
 * @actions/core keeps the summary file's path once it has written one: every step of a test process writes
 * its summary to the same file, emptied before each step.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandName } from '../../src/action-spec.js';
import { runActionCommand } from '../../src/commands/index.js';

export interface ActionsStep {
  code: number;
  outputs: Record<string, string>;
  summary: string;
}

/** `name<<delimiter\nvalue\ndelimiter` blocks, as @actions/core writes them. */
export function outputsOf(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/^([^\n<]+)<<(\S+)\n([\s\S]*?)\n\2$/gm)) out[m[1]!] = m[3]!;
  return out;
}

const SUMMARY = join(mkdtempSync(join(tmpdir(), 'dmci-summary-')), 'summary');

export async function actionsStep(command: CommandName, env: NodeJS.ProcessEnv): Promise<ActionsStep> {
  const dir = mkdtempSync(join(tmpdir(), 'dmci-step-'));
  const files = { GITHUB_OUTPUT: join(dir, 'output'), GITHUB_STEP_SUMMARY: SUMMARY };
  for (const f of Object.values(files)) writeFileSync(f, '');
  const saved = { GITHUB_OUTPUT: process.env.GITHUB_OUTPUT, GITHUB_STEP_SUMMARY: process.env.GITHUB_STEP_SUMMARY };
  Object.assign(process.env, files);
  try {
    const lines: string[] = [];
    const code = await runActionCommand(command, [], { out: (l) => lines.push(l), err: (l) => lines.push(l), env: { ...env, GITHUB_ACTIONS: 'true' } });
    return { code, outputs: outputsOf(readFileSync(files.GITHUB_OUTPUT, 'utf8')), summary: readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8') };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
