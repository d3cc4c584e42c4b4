/** The environment files of a step (GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH, GITHUB_STATE, GITHUB_STEP_SUMMARY). */
import { randomUUID } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnvFile } from './commands.js';
import type { JobState } from './job-state.js';
import type { StepRecorder } from './recorder.js';

const STEP_SUMMARY_LIMIT = 1024 * 1024;

/** Paths of a step's environment files, by kind. */
export type EnvFiles = Record<'output' | 'env' | 'path' | 'state' | 'step_summary', string>;

/** Fresh environment files for one step, named as the runner names them. */
export function fileCommands(state: JobState): EnvFiles {
  const suffix = randomUUID();
  const dir = join(state.temp, '_runner_file_commands');
  const files = {
    output: join(dir, `set_output_${suffix}`),
    env: join(dir, `set_env_${suffix}`),
    path: join(dir, `add_path_${suffix}`),
    state: join(dir, `save_state_${suffix}`),
    step_summary: join(dir, `step_summary_${suffix}`),
  };
  for (const f of Object.values(files)) writeFileSync(f, '');
  return files;
}

/** Read the environment files a step wrote, as the runner does after the process ends. */
export function processFileCommands(rec: StepRecorder, files: EnvFiles): void {
  const job = rec.job;
  const handle = (name: string, fn: () => void) => {
    try {
      fn();
    } catch (error) {
      rec.annotate({ level: 'error', message: `Unable to process file command '${name}' successfully.` });
      rec.annotate({ level: 'error', message: (error as Error).message });
      rec.commandFailed = true;
    }
  };
  handle('output', () => {
    for (const [k, v] of parseEnvFile(readFileSync(files.output, 'utf8'))) rec.outputs[k] = v;
  });
  handle('env', () => {
    for (const [k, v] of parseEnvFile(readFileSync(files.env, 'utf8'))) {
      job.env[k] = v;
      job.envChanges[k] = v;
    }
  });
  handle('path', () => {
    for (const line of readFileSync(files.path, 'utf8').split('\n')) {
      if (line === '') continue;
      job.path = [line, ...job.path.filter((p) => p !== line)];
    }
  });
  handle('state', () => {
    for (const [k, v] of parseEnvFile(readFileSync(files.state, 'utf8'))) rec.state[k] = v;
  });
  const size = statSync(files.step_summary).size;
  if (size > STEP_SUMMARY_LIMIT) {
    rec.annotate({
      level: 'error',
      message: `$GITHUB_STEP_SUMMARY upload aborted, supports content up to a size of ${STEP_SUMMARY_LIMIT / 1024}k, got ${Math.floor(size / 1024)}k.`,
    });
  } else if (size > 0) {
    const text = readFileSync(files.step_summary, 'utf8');
    rec.addSummary(
      text
        .split('\n')
        .map((l) => job.masker.mask(l))
        .join('\n'),
    );
  }
}
