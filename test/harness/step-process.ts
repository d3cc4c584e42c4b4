/**
 * The process of a step: its environment (GITHUB_* / RUNNER_* and the env layers), its shell, and the
 * run itself in a process group, with the runner's cancel and timeout sequence.
 */
import { spawn } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileCommands, processFileCommands, type EnvFiles } from './env-files.js';
import type { Execution, JobState, Scope } from './job-state.js';
import type { StepRecorder } from './recorder.js';
import { processLine } from './workflow-commands.js';
import { scalar } from './yaml-values.js';

/** The process environment of a step: machine env, CI, global env, calling step env, step env, then GITHUB_* / RUNNER_*. */
export function processEnv(
  state: JobState,
  scope: Scope,
  rec: StepRecorder,
  stepEnv: Record<string, string>,
  files: EnvFiles,
  action?: { path: string; repository?: string; ref?: string },
): Record<string, string> {
  const g = state.github;
  const s = (k: string) => scalar(g[k]);
  const runnerVars: Record<string, string> = {
    GITHUB_ACTION: rec.id,
    GITHUB_ACTIONS: 'true',
    GITHUB_ACTOR: s('actor'),
    GITHUB_ACTOR_ID: s('actor_id'),
    GITHUB_API_URL: s('api_url'),
    GITHUB_BASE_REF: s('base_ref'),
    GITHUB_ENV: files.env,
    GITHUB_EVENT_NAME: s('event_name'),
    GITHUB_EVENT_PATH: s('event_path'),
    GITHUB_GRAPHQL_URL: s('graphql_url'),
    GITHUB_HEAD_REF: s('head_ref'),
    GITHUB_JOB: s('job'),
    GITHUB_OUTPUT: files.output,
    GITHUB_PATH: files.path,
    GITHUB_REF: s('ref'),
    GITHUB_REF_NAME: s('ref_name'),
    GITHUB_REF_PROTECTED: s('ref_protected'),
    GITHUB_REF_TYPE: s('ref_type'),
    GITHUB_REPOSITORY: s('repository'),
    GITHUB_REPOSITORY_ID: s('repository_id'),
    GITHUB_REPOSITORY_OWNER: s('repository_owner'),
    GITHUB_REPOSITORY_OWNER_ID: s('repository_owner_id'),
    GITHUB_RETENTION_DAYS: s('retention_days'),
    GITHUB_RUN_ATTEMPT: s('run_attempt'),
    GITHUB_RUN_ID: s('run_id'),
    GITHUB_RUN_NUMBER: s('run_number'),
    GITHUB_SERVER_URL: s('server_url'),
    GITHUB_SHA: s('sha'),
    GITHUB_STATE: files.state,
    GITHUB_STEP_SUMMARY: files.step_summary,
    GITHUB_TRIGGERING_ACTOR: s('triggering_actor'),
    GITHUB_WORKFLOW: s('workflow'),
    GITHUB_WORKFLOW_REF: s('workflow_ref'),
    GITHUB_WORKFLOW_SHA: s('workflow_sha'),
    GITHUB_WORKSPACE: state.workspace,
    RUNNER_ARCH: 'X64',
    RUNNER_ENVIRONMENT: 'github-hosted',
    RUNNER_NAME: 'harness-runner',
    RUNNER_OS: 'Linux',
    RUNNER_TEMP: state.temp,
    RUNNER_TOOL_CACHE: join(state.temp, '_tool'),
  };
  if (state.debug) runnerVars['RUNNER_DEBUG'] = '1';
  const actionPath = action?.path ?? scope.actionPath;
  if (actionPath) {
    runnerVars['GITHUB_ACTION_PATH'] = actionPath;
    runnerVars['GITHUB_ACTION_REPOSITORY'] = action?.repository ?? scope.actionRepository ?? '';
    runnerVars['GITHUB_ACTION_REF'] = action?.ref ?? scope.actionRef ?? '';
  }
  // GITHUB_* and RUNNER_* cannot be overridden by env: (CI can).
  const env: Record<string, string> = { ...state.machineEnv, CI: 'true', ...state.env, ...scope.inherited, ...stepEnv, ...runnerVars };
  if (state.path.length > 0) env['PATH'] = [...state.path, env['PATH'] ?? ''].join(':');
  return env;
}

interface ProcessResult {
  exitCode: number | null;
  cancelled: boolean;
  timedOut: boolean;
}

/** Run a process in its own process group, feeding each stdout/stderr line to processLine. */
function runProcess(
  rec: StepRecorder,
  stepEnv: Record<string, string>,
  program: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; timeouts: AbortSignal[]; cancelCheck: () => boolean },
): Promise<ProcessResult> {
  const job = rec.job;
  return new Promise((resolvePromise, reject) => {
    let cancelled = false;
    let timedOut = false;
    const timers: NodeJS.Timeout[] = [];
    const child = spawn(program, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    // As the runner: SIGINT and SIGTERM go to the step's own process (the shell) only; a program the
    // shell started sees them only if the shell passes them on (or `exec`s it). SIGKILL ends the tree.
    const killGroup = (sig: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(sig === 'SIGKILL' ? -child.pid : child.pid, sig);
      } catch {
        // Already gone.
      }
    };
    let stopping = false;
    // The runner's cancel sequence: SIGINT, wait, SIGTERM, wait, kill.
    const stop = () => {
      if (stopping) return;
      stopping = true;
      killGroup('SIGINT');
      timers.push(
        setTimeout(() => {
          killGroup('SIGTERM');
          timers.push(setTimeout(() => killGroup('SIGKILL'), 2500));
        }, job.cancelGraceMs),
      );
    };
    // As the runner: on cancel, a running step is re-checked (an `if: always()` step keeps running).
    const onAbort = () => {
      if (!options.cancelCheck()) return;
      cancelled = true;
      stop();
    };
    const onTimeout = () => {
      timedOut = true;
      stop();
    };
    // A step that starts after the cancel runs to its end, as on the runner.
    if (!job.signal?.aborted) job.signal?.addEventListener('abort', onAbort, { once: true });
    for (const t of options.timeouts) t.addEventListener('abort', onTimeout, { once: true });
    if (options.timeouts.some((t) => t.aborted)) onTimeout();
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (l) => processLine(rec, stepEnv, l));
    }
    const done = () => {
      for (const t of timers) clearTimeout(t);
      job.signal?.removeEventListener('abort', onAbort);
      for (const t of options.timeouts) t.removeEventListener('abort', onTimeout);
    };
    child.on('error', (error) => {
      done();
      reject(error);
    });
    child.on('close', (code, signal) => {
      done();
      const signalCode = signal ? 128 + (osConstants.signals[signal] ?? 0) : null;
      resolvePromise({ exitCode: code ?? signalCode, cancelled, timedOut });
    });
  });
}

/** Program and arguments for a `shell:` value, as the runner maps them on Linux. */
export function shellCommand(shell: string | undefined): { program: string; args: (file: string) => string[]; ext: string } {
  if (shell === undefined || shell === '') return { program: 'bash', args: (f) => ['-e', f], ext: '.sh' };
  switch (shell) {
    case 'bash':
      return { program: 'bash', args: (f) => ['--noprofile', '--norc', '-eo', 'pipefail', f], ext: '.sh' };
    case 'sh':
      return { program: 'sh', args: (f) => ['-e', f], ext: '.sh' };
    case 'python':
      return { program: 'python', args: (f) => [f], ext: '.py' };
    case 'pwsh':
    case 'powershell':
    case 'cmd':
      throw new Error(`shell: ${shell} is not supported by the test harness`);
  }
  if (!shell.includes('{0}')) {
    throw new Error(`Invalid shell option. Shell must be a valid built-in (bash, sh, cmd, powershell, pwsh) or a format string containing '{0}'`);
  }
  const parts = shell.trim().split(/\s+/);
  return { program: parts[0] ?? '', args: (f) => parts.slice(1).map((p) => p.split('{0}').join(f)), ext: '' };
}

/** Run a step's process with fresh environment files, read them back, and report a non-zero exit. */
export async function runStepProcess(
  state: JobState,
  scope: Scope,
  rec: StepRecorder,
  stepEnv: Record<string, string>,
  program: string,
  args: string[],
  options: { cwd: string; timeouts: AbortSignal[]; cancelCheck: () => boolean; action?: { path: string; repository?: string; ref?: string } },
): Promise<Execution> {
  const files = fileCommands(state);
  const env = processEnv(state, scope, rec, stepEnv, files, options.action);
  const proc = await runProcess(rec, stepEnv, program, args, { cwd: options.cwd, env, timeouts: options.timeouts, cancelCheck: options.cancelCheck });
  processFileCommands(rec, files);
  if (proc.exitCode !== 0 && !proc.cancelled && !proc.timedOut) rec.annotate({ level: 'error', message: `Process completed with exit code ${proc.exitCode}.` });
  return { exitCode: proc.exitCode, failed: proc.exitCode !== 0 || rec.commandFailed, cancelled: proc.cancelled, timedOut: proc.timedOut };
}
