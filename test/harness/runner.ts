/**
 * A local stand-in for the GitHub Actions runner (Linux): runs an action.yml, or one job of a workflow
 * file, with the runner's semantics for what this project depends on: expressions, `if:` and status
 * functions, `continue-on-error`, `env:` layering, the GITHUB_* / RUNNER_* variables, environment files
 * (GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH, GITHUB_STATE, GITHUB_STEP_SUMMARY), workflow commands on
 * stdout/stderr, secret masking, shells, timeouts and cancellation. `uses:` of this repository's actions
 * (`<owner>/datamodel-ci[/<path>]@<ref>`, `./<path>`) runs them from `repoDir`, hence the committed
 * `dist/`; actions/checkout and actions/setup-node are stand-ins; anything else fails as unsupported.
 * No vitest in here: a demo script can import it.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { constants as osConstants, tmpdir } from 'node:os';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { parse as parseYaml } from 'yaml';
import { SecretMasker, parseEnvFile, parseWorkflowCommand } from './commands.js';
import { evaluateCondition, evaluateTemplate, evaluateTemplateValue, type Contexts, type JobStatus } from './expressions.js';

export type { JobStatus } from './expressions.js';

/** Outcome or conclusion of a step. */
export type StepStatus = 'success' | 'failure' | 'cancelled' | 'skipped';

/** An annotation (`::error`, `::warning`, `::notice`, or one the runner adds itself). */
export interface Annotation {
  level: 'error' | 'warning' | 'notice';
  /** Message, masked. */
  message: string;
  /** File, relative to the workspace when it was inside it. */
  file?: string;
  line?: number;
  endLine?: number;
  col?: number;
  endColumn?: number;
  title?: string;
  /** Id of the step that produced it. */
  step?: string;
}

/** What one step did. */
export interface StepResult {
  /** `id:` of the step, or the runner-style generated one (`__run`, `__actions_checkout`, ...). */
  id: string;
  /** `name:`, else `Run <first line>` or the `uses:` value. */
  name: string;
  kind: 'run' | 'action' | 'checkout' | 'setup-node';
  uses?: string;
  /** Result before `continue-on-error`. */
  outcome: StepStatus;
  /** Result after `continue-on-error`. */
  conclusion: StepStatus;
  /** Exit code of the process (or of the failing inner step of a composite action); null when none ran. */
  exitCode: number | null;
  /** `steps.<id>.outputs`. */
  outputs: Record<string, string>;
  /** Lines the step wrote (masked; commands consumed, as in the runner's log). */
  log: string[];
  annotations: Annotation[];
  /** What the step appended to GITHUB_STEP_SUMMARY (masked). */
  summary: string;
  /** Why the harness itself failed the step (expression error, unsupported action, timeout...). */
  error?: string;
  /** The evaluated `run:` text that the shell ran. */
  script?: string;
  /** The evaluated `env:` of the step. */
  env?: Record<string, string>;
  /** The evaluated `with:` of a `uses:` step (after the action's defaults). */
  inputs?: Record<string, string>;
  /** Steps of a composite action. */
  steps?: StepResult[];
  /** True when `timeout-minutes` ended the step. */
  timedOut?: boolean;
}

/** What every run returns besides its steps. */
export interface RunRecord {
  annotations: Annotation[];
  /** Values registered for masking (secrets, the token, `::add-mask::`), not their encodings. */
  masks: string[];
  /** Every line of every step, masked. */
  log: string[];
  /** `::debug::` messages (masked); they reach `log` only with `debug: true`. */
  debug: string[];
  /** Step summaries, concatenated in step order. */
  summary: string;
  /** Variables set through GITHUB_ENV. */
  envChanges: Record<string, string>;
  /** Directories added through GITHUB_PATH, most recent first. */
  pathAdditions: string[];
  workspace: string;
}

export interface ActionRunResult extends RunRecord {
  /** 0, or the exit code of the failing step (1 when the failure had none). */
  exitCode: number;
  conclusion: JobStatus;
  /** The action's declared outputs. */
  outputs: Record<string, string>;
  /** Effective inputs (given, then defaults). */
  inputs: Record<string, string>;
  steps: StepResult[];
}

export interface JobRunResult extends RunRecord {
  conclusion: JobStatus | 'skipped';
  steps: StepResult[];
  /** `steps.<id>.outputs` of every step. */
  stepOutputs: Record<string, Record<string, string>>;
  /** `jobs.<id>.outputs`. */
  outputs: Record<string, string>;
  /** Set when the job failed in "Set up job" (an action it names cannot be resolved): no step ran. */
  setupError?: string;
}

/** Given to `onStepStart` before each job step (also skipped ones). */
export interface StepStartInfo {
  index: number;
  id: string;
  name: string;
  uses?: string;
  run?: string;
}

/** Options shared by runAction and runJob. */
export interface RunnerOptions {
  /** GITHUB_WORKSPACE and the cwd of steps; default a fresh temp dir (removed afterwards unless keepTemp). */
  workspace?: string;
  /** Event payload (written to GITHUB_EVENT_PATH, `github.event`). */
  event?: Record<string, unknown>;
  /** `github.event_name`; default `push`. */
  eventName?: string;
  /** Overrides of the `github` context (`api_url`, `token`, `repository`, `sha`...). */
  github?: Record<string, unknown>;
  /** `secrets` context; every value is masked. `GITHUB_TOKEN` defaults to the token. */
  secrets?: Record<string, string>;
  /** `vars` context. */
  vars?: Record<string, string>;
  /**
   * The runner machine's environment; default PATH, HOME, USER, LANG, LC_ALL, TZ, TMPDIR, SHELL, TERM
   * from this process, nothing else (an outer CI's GITHUB_* / INPUT_* must not leak in).
   */
  baseEnv?: Record<string, string | undefined>;
  /** ACTIONS_STEP_DEBUG: `::debug::` lines reach the log, RUNNER_DEBUG=1. */
  debug?: boolean;
  /** Cancels the run like the Cancel button: SIGINT, then SIGTERM, then SIGKILL to the step's processes. */
  signal?: AbortSignal;
  /** Wait between SIGINT and SIGTERM on cancel or timeout; the runner's 7500 ms by default. */
  cancelGraceMs?: number;
  /** Each masked log line as it is written. */
  onLog?: (line: string, stepId: string) => void;
  /** Keep RUNNER_TEMP (and a generated workspace) after the run. */
  keepTemp?: boolean;
}

export interface RunActionOptions extends RunnerOptions {
  /** Folder holding action.yml (or action.yaml). */
  actionDir: string;
  /** `with:` values. */
  inputs?: Record<string, string | number | boolean>;
  /** Env of the job and the calling step: in the `env` context and the processes' environment. */
  env?: Record<string, string>;
  /** Checkout of the repository under test, for `./` or datamodel-ci `uses:` inside the action; default actionDir. */
  repoDir?: string;
}

export interface RunJobOptions extends RunnerOptions {
  /** Workflow YAML file. */
  workflowFile: string;
  /** Key under `jobs:`. */
  jobId: string;
  /** Checkout of this repository: `<owner>/datamodel-ci[/<path>]@<ref>` and `./<path>` run from here. */
  repoDir: string;
  /** Tree the actions/checkout stand-in copies into the workspace; without it checkout is a no-op. */
  checkoutFrom?: string;
  /** Which paths of checkoutFrom to copy; default all but `.git` and `node_modules`. */
  checkoutFilter?: (path: string) => boolean;
  /** `inputs` context; default: workflow_dispatch `event.inputs` typed by the workflow's declarations. */
  inputs?: Record<string, unknown>;
  /** Extra machine environment (over baseEnv, under workflow/job/step env; not in the `env` context). */
  env?: Record<string, string>;
  /** Called (and awaited) before each job step. */
  onStepStart?: (step: StepStartInfo) => void | Promise<void>;
}

type Mapping = Record<string, unknown>;

/** What a running job shares: masker, collected output, global env, contexts. */
interface JobState {
  masker: SecretMasker;
  annotations: Annotation[];
  log: string[];
  debugLines: string[];
  summaries: string[];
  /** Workflow + job env + GITHUB_ENV: the global env of the runner. */
  env: Record<string, string>;
  envChanges: Record<string, string>;
  path: string[];
  status: JobStatus;
  github: Mapping;
  runnerContext: Mapping;
  secrets: Record<string, string>;
  vars: Record<string, string>;
  machineEnv: Record<string, string>;
  temp: string;
  workspace: string;
  repoDir: string | undefined;
  checkoutFrom: string | undefined;
  checkoutFilter: (path: string) => boolean;
  debug: boolean;
  signal: AbortSignal | undefined;
  cancelGraceMs: number;
  onLog: ((line: string, stepId: string) => void) | undefined;
}

/** A list of steps being run: the job's, or a composite action's. */
interface Scope {
  kind: 'job' | 'composite';
  steps: Record<string, { outputs: Record<string, string>; outcome: StepStatus; conclusion: StepStatus }>;
  /** Job status, or the composite action's own (`github.action_status`). */
  status: JobStatus;
  inputs: Mapping;
  /** Env of the calling step (composite) on top of the global env. */
  inherited: Record<string, string>;
  actionPath?: string;
  actionRepository?: string;
  actionRef?: string;
  defaults: { shell?: string; workingDirectory?: string };
  /** Timeouts of enclosing steps (a composite step's timeout bounds its inner steps). */
  timeouts: AbortSignal[];
  /** Inside a composite action: whether a cancel now stops it (decided by the job step that called it). */
  cancelCheck?: () => boolean;
}

const SET_OUTPUT_DEPRECATION =
  'The `set-output` command is deprecated and will be disabled soon. Please upgrade to using Environment Files. For more information see: https://github.blog/changelog/2022-10-11-github-actions-deprecating-save-state-and-set-output-commands/';
const SAVE_STATE_DEPRECATION = SET_OUTPUT_DEPRECATION.replace('`set-output`', '`save-state`');
const UNSECURE_DISABLED = (cmd: string) =>
  `The \`${cmd}\` command is disabled. Please upgrade to using Environment Files or opt into unsecure command execution by setting the \`ACTIONS_ALLOW_UNSECURE_COMMANDS\` environment variable to \`true\`. For more information see: https://github.blog/changelog/2020-10-01-github-actions-deprecating-set-env-and-add-path-commands/`;
const STEP_SUMMARY_LIMIT = 1024 * 1024;
const MACHINE_ENV_KEYS = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'SHELL', 'TERM'];

let runCounter = 0;

/** Collects what one step writes, and passes it up to the enclosing step and the job. */
class StepRecorder {
  readonly log: string[] = [];
  readonly annotations: Annotation[] = [];
  readonly summary: string[] = [];
  outputs: Record<string, string> = {};
  readonly state: Record<string, string> = {};
  commandFailed = false;
  echo = false;
  stopToken: string | undefined;

  constructor(
    readonly job: JobState,
    readonly id: string,
    readonly parent?: StepRecorder,
  ) {}

  private *chain(): Generator<StepRecorder> {
    for (let r: StepRecorder | undefined = this; r; r = r.parent) yield r;
  }

  /** Write a line to the log, masked with the secrets known now. */
  write(line: string): void {
    const masked = this.job.masker.mask(line);
    for (const r of this.chain()) r.log.push(masked);
    this.job.log.push(masked);
    this.job.onLog?.(masked, this.id);
  }

  annotate(a: Omit<Annotation, 'step'>): void {
    const masked: Annotation = { ...a, message: this.job.masker.mask(a.message), step: this.id };
    if (masked.title !== undefined) masked.title = this.job.masker.mask(masked.title);
    for (const r of this.chain()) r.annotations.push(masked);
    this.job.annotations.push(masked);
    this.write(`##[${a.level}]${a.message}`);
  }

  debug(message: string): void {
    const masked = this.job.masker.mask(message);
    this.job.debugLines.push(masked);
    if (this.job.debug) this.write(`##[debug]${message}`);
  }

  addSummary(text: string): void {
    for (const r of this.chain()) r.summary.push(text);
    this.job.summaries.push(text);
  }
}

const isMapping = (v: unknown): v is Mapping => typeof v === 'object' && v !== null && !Array.isArray(v);
const mapping = (v: unknown): Mapping => (isMapping(v) ? v : {});

/** A YAML scalar as the runner reads it in a string field (numbers and booleans printed, null empty). */
function scalar(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new Error(`A mapping or sequence was not expected: ${JSON.stringify(v)}`);
}

function firstLine(text: string): string {
  return text.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
}

function randomToken(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return `ghs_${[...randomBytes(36)].map((b) => alphabet[b % alphabet.length]).join('')}`;
}

/** The `github` context the runner would build for this event, then the caller's overrides. */
function githubContext(options: RunnerOptions, extra: { job: string; workflow: string; workflowFile?: string; workspace: string; eventPath: string }): Mapping {
  const event = options.event ?? {};
  const eventName = options.eventName ?? 'push';
  const repo = mapping(event['repository']);
  const repository = String(options.github?.['repository'] ?? repo['full_name'] ?? 'your-org/your-repo');
  const pr = mapping(event['pull_request']);
  const defaultBranch = String(repo['default_branch'] ?? 'main');
  let ref = `refs/heads/${defaultBranch}`;
  let sha = 'ffac537e6cbbf934b08745a378932722df287a53';
  let headRef = '';
  let baseRef = '';
  if ((eventName === 'pull_request' || eventName === 'pull_request_target') && pr['number'] !== undefined) {
    headRef = String(mapping(pr['head'])['ref'] ?? '');
    baseRef = String(mapping(pr['base'])['ref'] ?? '');
    if (eventName === 'pull_request') {
      ref = `refs/pull/${String(pr['number'])}/merge`;
      sha = String(pr['merge_commit_sha'] ?? mapping(pr['head'])['sha'] ?? sha);
    } else {
      ref = `refs/heads/${baseRef || defaultBranch}`;
      sha = String(mapping(pr['base'])['sha'] ?? sha);
    }
  } else if (eventName === 'push' && typeof event['ref'] === 'string') {
    ref = event['ref'];
    sha = String(event['after'] ?? sha);
  } else if (typeof event['ref'] === 'string' && event['ref'].startsWith('refs/')) {
    ref = event['ref'];
  }
  const actor = String(mapping(event['sender'])['login'] ?? 'octocat');
  const runId = String(4242000 + ++runCounter);
  const refName = ref.replace(/^refs\/(heads|tags)\//, '').replace(/^refs\/pull\//, '');
  return {
    action: '',
    action_path: '',
    action_ref: '',
    action_repository: '',
    actor,
    actor_id: String(mapping(event['sender'])['id'] ?? '1'),
    api_url: 'https://api.github.com',
    base_ref: baseRef,
    event,
    event_name: eventName,
    event_path: extra.eventPath,
    graphql_url: 'https://api.github.com/graphql',
    head_ref: headRef,
    job: extra.job,
    ref,
    ref_name: refName,
    ref_protected: false,
    ref_type: ref.startsWith('refs/tags/') ? 'tag' : 'branch',
    repository,
    repository_id: String(repo['id'] ?? '1'),
    repository_owner: repository.split('/')[0] ?? '',
    repository_owner_id: String(mapping(repo['owner'])['id'] ?? '1'),
    retention_days: '90',
    run_attempt: '1',
    run_id: runId,
    run_number: String(runCounter),
    secret_source: 'Actions',
    server_url: 'https://github.com',
    sha,
    token: randomToken(),
    triggering_actor: actor,
    workflow: extra.workflow,
    workflow_ref: `${repository}/.github/workflows/${extra.workflowFile ?? 'harness.yml'}@${ref}`,
    workflow_sha: sha,
    workspace: extra.workspace,
    ...options.github,
  };
}

function createJobState(options: RunnerOptions, extra: { job: string; workflow: string; workflowFile?: string; machineEnv?: Record<string, string> }): {
  state: JobState;
  cleanup: () => void;
} {
  const temp = mkdtempSync(join(tmpdir(), 'harness-runner-temp-'));
  const createdWorkspace = options.workspace === undefined;
  const workspace = resolve(options.workspace ?? mkdtempSync(join(tmpdir(), 'harness-workspace-')));
  mkdirSync(workspace, { recursive: true });
  const eventPath = join(temp, '_github_workflow', 'event.json');
  mkdirSync(join(temp, '_github_workflow'), { recursive: true });
  mkdirSync(join(temp, '_runner_file_commands'), { recursive: true });
  writeFileSync(eventPath, JSON.stringify(options.event ?? {}, null, 2));
  const github = githubContext(options, { ...extra, workspace, eventPath });
  const base = options.baseEnv ?? Object.fromEntries(MACHINE_ENV_KEYS.map((k) => [k, process.env[k]]));
  const machineEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...base, ...extra.machineEnv })) if (v !== undefined) machineEnv[k] = v;
  const token = String(github['token'] ?? '');
  const secrets = { GITHUB_TOKEN: token, ...options.secrets };
  const masker = new SecretMasker();
  for (const v of Object.values(secrets)) masker.add(v);
  const state: JobState = {
    masker,
    annotations: [],
    log: [],
    debugLines: [],
    summaries: [],
    env: {},
    envChanges: {},
    path: [],
    status: 'success',
    github,
    runnerContext: {
      os: 'Linux',
      arch: 'X64',
      name: 'harness-runner',
      environment: 'github-hosted',
      temp,
      tool_cache: join(temp, '_tool'),
      ...(options.debug ? { debug: '1' } : {}),
    },
    secrets,
    vars: { ...options.vars },
    machineEnv,
    temp,
    workspace,
    repoDir: undefined,
    checkoutFrom: undefined,
    checkoutFilter: () => true,
    debug: options.debug ?? false,
    signal: options.signal,
    cancelGraceMs: options.cancelGraceMs ?? 7500,
    onLog: options.onLog,
  };
  const cleanup = () => {
    if (options.keepTemp) return;
    rmSync(temp, { recursive: true, force: true });
    if (createdWorkspace) rmSync(workspace, { recursive: true, force: true });
  };
  return { state, cleanup };
}

function record(state: JobState): RunRecord {
  return {
    annotations: state.annotations,
    masks: state.masker.list(),
    log: state.log,
    debug: state.debugLines,
    summary: state.summaries.join(''),
    envChanges: state.envChanges,
    pathAdditions: [...state.path],
    workspace: state.workspace,
  };
}

/** The contexts a step's expressions see. Composite actions get no `secrets` or `vars`, as on GitHub. */
function contextsFor(state: JobState, scope: Scope, env: Record<string, string>, workflowInputs?: Mapping): Contexts {
  const github: Mapping = { ...state.github, action_path: scope.actionPath ?? '' };
  if (scope.kind === 'composite') github['action_status'] = scope.status;
  const common: Contexts = {
    github,
    env,
    inputs: scope.kind === 'job' ? (workflowInputs ?? scope.inputs) : scope.inputs,
    steps: scope.steps,
    runner: state.runnerContext,
    job: { status: state.status },
    matrix: {},
    strategy: {},
  };
  if (scope.kind === 'job') return { ...common, secrets: state.secrets, vars: state.vars, needs: {} };
  return common;
}

/** Fresh environment files for one step, named as the runner names them. */
function fileCommands(state: JobState): Record<'output' | 'env' | 'path' | 'state' | 'step_summary', string> {
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

/** The process environment of a step: machine env, CI, global env, calling step env, step env, then GITHUB_* / RUNNER_*. */
function processEnv(
  state: JobState,
  scope: Scope,
  rec: StepRecorder,
  stepEnv: Record<string, string>,
  files: ReturnType<typeof fileCommands>,
  action?: { path: string; repository?: string; ref?: string },
): Record<string, string> {
  const g = state.github;
  const s = (k: string) => String(g[k] ?? '');
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

/** Handle one line of a step's output as the runner does: a workflow command, or a (masked) log line. */
function processLine(rec: StepRecorder, stepEnv: Record<string, string>, line: string): void {
  const cmd = parseWorkflowCommand(line, rec.stopToken ? [rec.stopToken] : []);
  if (rec.stopToken !== undefined) {
    if (cmd && cmd.command === rec.stopToken.toLowerCase()) rec.stopToken = undefined;
    rec.write(line);
    return;
  }
  if (!cmd) {
    rec.write(line);
    return;
  }
  const job = rec.job;
  const fail = (message: string, omitLine = false) => {
    rec.annotate({ level: 'error', message: `Unable to process command '${omitLine ? cmd.command : line}' successfully.` });
    rec.annotate({ level: 'error', message });
    rec.commandFailed = true;
  };
  const unsecureAllowed = () => (stepEnv['ACTIONS_ALLOW_UNSECURE_COMMANDS'] ?? job.env['ACTIONS_ALLOW_UNSECURE_COMMANDS'] ?? '').toLowerCase() === 'true';
  switch (cmd.command) {
    case 'stop-commands':
      rec.write(line);
      rec.stopToken = cmd.data;
      return;
    case 'error':
    case 'warning':
    case 'notice': {
      const p = cmd.properties;
      const num = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v.trim()) ? Number(v) : undefined);
      let file = p['file'];
      if (file !== undefined && isAbsolute(file)) {
        const rel = relative(job.workspace, file);
        if (rel && !rel.startsWith('..') && !isAbsolute(rel)) file = rel.split(sep).join('/');
      }
      const a: Omit<Annotation, 'step'> = { level: cmd.command, message: cmd.data };
      if (file !== undefined) a.file = file;
      const lineNo = num(p['line']);
      if (lineNo !== undefined) a.line = lineNo;
      const endLine = num(p['endline']);
      if (endLine !== undefined) a.endLine = endLine;
      const col = num(p['col']);
      if (col !== undefined) a.col = col;
      const endColumn = num(p['endcolumn']);
      if (endColumn !== undefined) a.endColumn = endColumn;
      if (p['title'] !== undefined) a.title = p['title'];
      rec.annotate(a);
      return;
    }
    case 'debug':
      rec.debug(cmd.data);
      return;
    case 'group':
      rec.write(`##[group]${cmd.data}`);
      return;
    case 'endgroup':
      rec.write('##[endgroup]');
      return;
    case 'add-mask':
      if (cmd.data.trim() === '') {
        rec.annotate({ level: 'warning', message: "Can't add secret mask for empty string in ##[add-mask] command." });
      } else {
        job.masker.add(cmd.data);
        if (rec.echo) rec.write('::add-mask::***');
      }
      return;
    case 'set-output':
    case 'save-state': {
      if (rec.echo) rec.write(line);
      const name = cmd.properties['name'];
      if (!name) return fail(`Required field 'name' is missing in ##[${cmd.command}] command.`);
      if (cmd.command === 'set-output') rec.outputs[name] = cmd.data;
      else rec.state[name] = cmd.data;
      rec.annotate({ level: 'warning', message: cmd.command === 'set-output' ? SET_OUTPUT_DEPRECATION : SAVE_STATE_DEPRECATION });
      return;
    }
    case 'set-env':
    case 'add-path': {
      if (rec.echo) rec.write(line);
      if (!unsecureAllowed()) return fail(UNSECURE_DISABLED(cmd.command));
      if (cmd.command === 'add-path') {
        job.path = [cmd.data, ...job.path.filter((p) => p !== cmd.data)];
        return;
      }
      const name = cmd.properties['name'];
      if (!name) return fail("Required field 'name' is missing in ##[set-env] command.");
      job.env[name] = cmd.data;
      job.envChanges[name] = cmd.data;
      return;
    }
    case 'echo': {
      const v = cmd.data.trim().toUpperCase();
      if (v === 'ON') rec.echo = true;
      else if (v === 'OFF') rec.echo = false;
      else fail(`Invalid echo command value. Possible values can be: 'on', 'off'. Current value is: '${cmd.data}'.`);
      return;
    }
    default:
      // add-matcher / remove-matcher: problem matchers are not emulated.
      if (rec.echo) rec.write(line);
      rec.debug(`harness: the '${cmd.command}' command is accepted but not emulated`);
  }
}

/** Read the environment files a step wrote, as the runner does after the process ends. */
function processFileCommands(rec: StepRecorder, files: ReturnType<typeof fileCommands>): void {
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
    rec.addSummary(text.split('\n').map((l) => job.masker.mask(l)).join('\n'));
  }
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
    const killGroup = (sig: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, sig);
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
function shellCommand(shell: string | undefined): { program: string; args: (file: string) => string[]; ext: string } {
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

interface Execution {
  exitCode: number | null;
  failed: boolean;
  cancelled: boolean;
  timedOut: boolean;
  steps?: StepResult[];
  inputs?: Record<string, string>;
}

/** Run a `run:` step. */
async function runScript(
  state: JobState,
  scope: Scope,
  rec: StepRecorder,
  step: Mapping,
  ctx: Contexts,
  stepEnv: Record<string, string>,
  timeouts: AbortSignal[],
  cancelCheck: () => boolean,
  result: StepResult,
): Promise<Execution> {
  const shellValue = step['shell'] !== undefined ? evaluateTemplate(scalar(step['shell']), ctx, { status: scope.status }) : scope.defaults.shell;
  if (scope.kind === 'composite' && shellValue === undefined) throw new Error('Required property is missing: shell');
  const shell = shellCommand(shellValue);
  const script = evaluateTemplate(scalar(step['run']), ctx, { status: scope.status });
  result.script = script;
  const file = join(state.temp, `${randomUUID()}${shell.ext}`);
  writeFileSync(file, script);
  const wdRaw = step['working-directory'] !== undefined ? evaluateTemplate(scalar(step['working-directory']), ctx, { status: scope.status }) : scope.defaults.workingDirectory;
  const cwd = wdRaw ? resolve(state.workspace, wdRaw) : state.workspace;
  if (!existsSync(cwd)) {
    throw new Error(`An error occurred trying to start process '${shell.program}' with working directory '${cwd}'. No such file or directory`);
  }
  const files = fileCommands(state);
  const env = processEnv(state, scope, rec, stepEnv, files);
  const proc = await runProcess(rec, stepEnv, shell.program, shell.args(file), { cwd, env, timeouts, cancelCheck });
  processFileCommands(rec, files);
  const failed = proc.exitCode !== 0 || rec.commandFailed;
  if (proc.exitCode !== 0 && !proc.cancelled && !proc.timedOut) rec.annotate({ level: 'error', message: `Process completed with exit code ${proc.exitCode}.` });
  return { exitCode: proc.exitCode, failed, cancelled: proc.cancelled, timedOut: proc.timedOut };
}

type UsesTarget =
  | { kind: 'checkout' }
  | { kind: 'setup-node' }
  | { kind: 'local'; dir: string; repository: string; ref: string }
  | { kind: 'unsupported'; reason: string };

/** Where a `uses:` points in the harness. */
function resolveUses(state: JobState, uses: string): UsesTarget {
  if (/^actions\/checkout@\S+$/.test(uses)) return { kind: 'checkout' };
  if (/^actions\/setup-node@\S+$/.test(uses)) return { kind: 'setup-node' };
  const ours = /^([^/@\s]+)\/datamodel-ci(?:\/([^@]+))?@(\S+)$/.exec(uses);
  const root = state.repoDir ?? state.workspace;
  if (ours) return { kind: 'local', dir: resolve(root, ours[2] ?? '.'), repository: `${ours[1]}/datamodel-ci`, ref: ours[3] ?? '' };
  if (uses.startsWith('./')) return { kind: 'local', dir: resolve(root, uses), repository: '', ref: '' };
  return {
    kind: 'unsupported',
    reason:
      `Unsupported action in the test harness: '${uses}'. It runs actions/checkout and actions/setup-node as stand-ins, ` +
      `and <owner>/datamodel-ci[/<path>]@<ref> or ./<path> from the repository under test; nothing else.`,
  };
}

function manifestPath(dir: string): string | undefined {
  return ['action.yml', 'action.yaml'].map((f) => join(dir, f)).find((f) => existsSync(f));
}

/** Parse a `node --version` style or `node-version:` style version; undefined for aliases (lts/*, latest). */
function versionParts(spec: string): number[] | undefined {
  const m = /^(?:>=|\^|~|=)?\s*v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?/.exec(spec.trim());
  if (!m) return undefined;
  const parts: number[] = [];
  for (const p of m.slice(1)) {
    if (p === undefined || p === 'x' || p === '*') break;
    parts.push(Number(p));
  }
  return parts;
}

async function nodeVersion(env: Record<string, string>): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile('node', ['--version'], { env }, (error, stdout) => (error ? reject(error) : resolvePromise(stdout.trim())));
  });
}

/** actions/setup-node stand-in: nothing is installed; the runner's node must satisfy node-version. */
async function setupNodeStandIn(state: JobState, scope: Scope, rec: StepRecorder, inputs: Record<string, string>, stepEnv: Record<string, string>): Promise<Execution> {
  let requested = inputs['node-version'] ?? '';
  const versionFile = inputs['node-version-file'] ?? '';
  if (requested === '' && versionFile !== '') {
    const text = readFileSync(resolve(state.workspace, versionFile), 'utf8');
    if (basename(versionFile) === 'package.json') {
      const pkg = JSON.parse(text) as { volta?: { node?: string }; engines?: { node?: string } };
      requested = pkg.volta?.node ?? pkg.engines?.node ?? '';
    } else {
      requested = firstLine(text);
    }
  }
  const current = await nodeVersion(processEnv(state, scope, rec, stepEnv, fileCommands(state)));
  rec.outputs['node-version'] = current;
  const wanted = versionParts(requested);
  const have = versionParts(current) ?? [];
  if (!wanted || wanted.length === 0) {
    rec.write(`harness: actions/setup-node stand-in cannot check node-version '${requested}'; using the runner's Node.js ${current}`);
    return { exitCode: 0, failed: false, cancelled: false, timedOut: false };
  }
  for (const [i, w] of wanted.entries()) {
    const h = have[i] ?? 0;
    if (h > w) break;
    if (h < w) {
      rec.annotate({
        level: 'error',
        message: `actions/setup-node stand-in: node-version '${requested}' was requested, but the harness can only use the runner's Node.js ${current}`,
      });
      return { exitCode: 1, failed: true, cancelled: false, timedOut: false };
    }
  }
  rec.write(`harness: actions/setup-node stand-in: node-version '${requested}' requested; using the runner's Node.js ${current}`);
  return { exitCode: 0, failed: false, cancelled: false, timedOut: false };
}

/** actions/checkout stand-in: copy the prepared tree into the workspace (or `path:`). */
function checkoutStandIn(state: JobState, rec: StepRecorder, inputs: Record<string, string>): Execution {
  const target = resolve(state.workspace, inputs['path'] || '.');
  rec.outputs['ref'] = String(state.github['ref'] ?? '');
  rec.outputs['commit'] = String(state.github['sha'] ?? '');
  if (!state.checkoutFrom) {
    rec.write('harness: actions/checkout stand-in: no checkoutFrom given; the workspace is left as it is');
    return { exitCode: 0, failed: false, cancelled: false, timedOut: false };
  }
  const from = resolve(state.checkoutFrom);
  mkdirSync(target, { recursive: true });
  cpSync(from, target, { recursive: true, filter: (src) => src === from || state.checkoutFilter(src) });
  rec.write(`harness: actions/checkout stand-in: copied ${from} to ${target}`);
  return { exitCode: 0, failed: false, cancelled: false, timedOut: false };
}

interface ActionCall {
  dir: string;
  inputs: Record<string, string>;
  /** Env of the calling step, over the global env. */
  inherited: Record<string, string>;
  repository: string;
  ref: string;
  timeouts: AbortSignal[];
  cancelCheck: () => boolean;
}

/** Run an action.yml (composite, or a node action's `main`). The caller's recorder gets its output. */
async function executeAction(state: JobState, rec: StepRecorder, call: ActionCall): Promise<Execution & { outputs: Record<string, string> }> {
  const file = manifestPath(call.dir);
  if (!file) {
    throw new Error(`Can't find 'action.yml', 'action.yaml' or 'Dockerfile' under '${call.dir}'. Did you forget to run actions/checkout before running your local action?`);
  }
  const manifest = mapping(parseYaml(readFileSync(file, 'utf8')));
  const declared = mapping(manifest['inputs']);
  const declaredLower = new Map(Object.keys(declared).map((k) => [k.toLowerCase(), k]));
  const unexpected = Object.keys(call.inputs).filter((k) => !declaredLower.has(k.toLowerCase()));
  if (unexpected.length > 0) {
    rec.annotate({
      level: 'warning',
      message: `Unexpected input(s) '${unexpected.join("', '")}', valid inputs are ['${Object.keys(declared).join("', '")}']`,
    });
  }
  // Defaults see github, job, runner, strategy, matrix (no env, inputs, steps, secrets).
  const defaultsCtx: Contexts = { github: state.github, job: { status: state.status }, runner: state.runnerContext, strategy: {}, matrix: {} };
  const inputs: Record<string, string> = {};
  const given = new Map(Object.entries(call.inputs).map(([k, v]) => [k.toLowerCase(), v]));
  for (const [name, def] of Object.entries(declared)) {
    const d = mapping(def);
    const value = given.get(name.toLowerCase());
    if (value !== undefined) {
      inputs[name] = value;
      if (d['deprecationMessage'] !== undefined) {
        rec.annotate({ level: 'warning', message: `Input '${name}' has been deprecated with message: ${scalar(d['deprecationMessage'])}` });
      }
    } else {
      inputs[name] = d['default'] === undefined ? '' : evaluateTemplate(scalar(d['default']), defaultsCtx);
    }
  }
  for (const k of unexpected) inputs[k] = call.inputs[k] ?? '';

  const runs = mapping(manifest['runs']);
  const using = scalar(runs['using']);
  const scope: Scope = {
    kind: 'composite',
    steps: {},
    status: state.status === 'cancelled' ? 'cancelled' : 'success',
    inputs,
    inherited: call.inherited,
    actionPath: call.dir,
    actionRepository: call.repository,
    actionRef: call.ref,
    defaults: {},
    timeouts: call.timeouts,
    cancelCheck: call.cancelCheck,
  };
  if (using === 'composite') {
    const steps = await runSteps(state, scope, Array.isArray(runs['steps']) ? runs['steps'] : [], rec);
    const outputs: Record<string, string> = {};
    let outputError = false;
    const ctx = contextsFor(state, scope, { ...state.env, ...call.inherited });
    for (const [name, def] of Object.entries(mapping(manifest['outputs']))) {
      try {
        outputs[name] = evaluateTemplate(scalar(mapping(def)['value']), ctx, { status: scope.status });
      } catch (error) {
        rec.annotate({ level: 'error', message: `output '${name}': ${(error as Error).message}` });
        outputError = true;
      }
    }
    const failing = steps.find((s) => s.outcome === 'failure' && s.conclusion === 'failure');
    const failed = scope.status === 'failure' || outputError;
    return {
      exitCode: failed ? (failing?.exitCode ?? 1) : scope.status === 'cancelled' ? null : 0,
      failed,
      cancelled: scope.status === 'cancelled',
      timedOut: steps.some((s) => s.timedOut),
      steps,
      inputs,
      outputs,
    };
  }
  if (/^node\d+$/.test(using)) {
    // A node action: `main` only (no pre/post), inputs as INPUT_<NAME>.
    const main = resolve(call.dir, scalar(runs['main']));
    const inputEnv = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.replace(/ /g, '_').toUpperCase()}`, v]));
    const files = fileCommands(state);
    const env = { ...processEnv(state, scope, rec, inputEnv, files, { path: call.dir, repository: call.repository, ref: call.ref }) };
    const proc = await runProcess(rec, inputEnv, 'node', [main], { cwd: state.workspace, env, timeouts: call.timeouts, cancelCheck: call.cancelCheck });
    processFileCommands(rec, files);
    if (proc.exitCode !== 0 && !proc.cancelled && !proc.timedOut) rec.annotate({ level: 'error', message: `Process completed with exit code ${proc.exitCode}.` });
    return { ...proc, failed: proc.exitCode !== 0 || rec.commandFailed, inputs, outputs: rec.outputs };
  }
  throw new Error(`runs.using '${using}' (${file}) is not supported by the test harness (composite and node actions only)`);
}

const evalBool = (v: unknown, ctx: Contexts, status: JobStatus): boolean => {
  if (v === undefined || v === null) return false;
  if (typeof v === 'boolean') return v;
  const value = typeof v === 'string' ? evaluateTemplateValue(v, ctx, { status }) : v;
  return value === true || value === 'true';
};

/** Run one step of a job or of a composite action. */
async function runStep(
  state: JobState,
  scope: Scope,
  raw: unknown,
  index: number,
  usedIds: Set<string>,
  parent: StepRecorder | undefined,
  hooks: { onStepStart?: RunJobOptions['onStepStart']; workflowInputs?: Mapping },
): Promise<StepResult> {
  const step = mapping(raw);
  const uses = step['uses'] === undefined ? undefined : scalar(step['uses']);
  const run = step['run'] === undefined ? undefined : scalar(step['run']);
  let id = step['id'] === undefined ? '' : scalar(step['id']);
  if (id === '') {
    const base = uses ? `__${uses.replace(/@.*$/, '').replace(/[^A-Za-z0-9]+/g, '_')}` : '__run';
    id = base;
    for (let n = 2; usedIds.has(id); n++) id = `${base}_${n}`;
  }
  usedIds.add(id);
  const name = step['name'] !== undefined ? scalar(step['name']) : uses !== undefined ? uses : `Run ${firstLine(run ?? '')}`;
  const rec = new StepRecorder(state, id, parent);
  const target = uses !== undefined ? resolveUses(state, uses) : undefined;
  const kind: StepResult['kind'] = target?.kind === 'checkout' ? 'checkout' : target?.kind === 'setup-node' ? 'setup-node' : uses !== undefined ? 'action' : 'run';
  const result: StepResult = {
    id,
    name,
    kind,
    outcome: 'skipped',
    conclusion: 'skipped',
    exitCode: null,
    outputs: {},
    log: rec.log,
    annotations: rec.annotations,
    summary: '',
  };
  if (uses !== undefined) result.uses = uses;
  if (scope.kind === 'job') await hooks.onStepStart?.({ index, id, name, ...(uses !== undefined ? { uses } : {}), ...(run !== undefined ? { run } : {}) });
  if (state.signal?.aborted && state.status !== 'cancelled') state.status = 'cancelled';
  if (state.status === 'cancelled') scope.status = 'cancelled';

  const envBase = { ...state.env, ...scope.inherited };
  let continueOnError = false;
  let exec: Execution | undefined;
  try {
    const baseCtx = contextsFor(state, scope, envBase, hooks.workflowInputs);
    if (!evaluateCondition(step['if'] as string | undefined, baseCtx, { status: scope.status })) {
      scope.steps[id] = { outputs: {}, outcome: 'skipped', conclusion: 'skipped' };
      return result;
    }
    continueOnError = evalBool(step['continue-on-error'], baseCtx, scope.status);
    const cancelCheck =
      scope.kind === 'job' ? () => !evaluateCondition(step['if'] as string | undefined, baseCtx, { status: 'cancelled' }) : (scope.cancelCheck ?? (() => true));
    const stepEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(mapping(step['env']))) stepEnv[k] = evaluateTemplate(scalar(v), baseCtx, { status: scope.status });
    result.env = stepEnv;
    const ctx = contextsFor(state, scope, { ...envBase, ...stepEnv }, hooks.workflowInputs);
    const timeouts = [...scope.timeouts];
    if (step['timeout-minutes'] !== undefined) {
      const minutes = Number(evaluateTemplateValue(scalar(step['timeout-minutes']), ctx, { status: scope.status }));
      if (!Number.isFinite(minutes) || minutes <= 0) throw new Error(`timeout-minutes must be a positive number, got '${scalar(step['timeout-minutes'])}'`);
      timeouts.push(AbortSignal.timeout(minutes * 60_000));
    }
    if (run !== undefined && uses !== undefined) throw new Error("A step cannot have both the 'uses' and 'run' keys");
    if (run !== undefined) {
      exec = await runScript(state, scope, rec, step, ctx, stepEnv, timeouts, cancelCheck, result);
    } else if (uses !== undefined && target !== undefined) {
      const withInputs: Record<string, string> = {};
      for (const [k, v] of Object.entries(mapping(step['with']))) withInputs[k] = evaluateTemplate(scalar(v), ctx, { status: scope.status });
      result.inputs = withInputs;
      if (target.kind === 'unsupported') throw new Error(target.reason);
      if (target.kind === 'checkout') exec = checkoutStandIn(state, rec, withInputs);
      else if (target.kind === 'setup-node') exec = await setupNodeStandIn(state, scope, rec, withInputs, stepEnv);
      else {
        const action = await executeAction(state, rec, {
          dir: target.dir,
          inputs: withInputs,
          inherited: { ...scope.inherited, ...stepEnv },
          repository: target.repository,
          ref: target.ref,
          timeouts,
          cancelCheck,
        });
        rec.outputs = action.outputs;
        exec = action;
        if (action.inputs) result.inputs = action.inputs;
        if (action.steps) result.steps = action.steps;
      }
    } else {
      throw new Error("A step must have a 'run' or a 'uses' key");
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    result.error = message;
    rec.annotate({ level: 'error', message });
    exec = { exitCode: exec?.exitCode ?? null, failed: true, cancelled: false, timedOut: false };
  }
  if (exec.timedOut) {
    result.timedOut = true;
    result.error ??= 'The action has timed out.';
    rec.annotate({ level: 'error', message: 'The action has timed out.' });
  }
  result.exitCode = exec.exitCode;
  const outcome: StepStatus = exec.cancelled ? 'cancelled' : exec.failed || exec.timedOut ? 'failure' : 'success';
  result.outcome = outcome;
  result.conclusion = outcome === 'failure' && continueOnError ? 'success' : outcome;
  result.outputs = rec.outputs;
  result.summary = rec.summary.join('');
  scope.steps[id] = { outputs: rec.outputs, outcome: result.outcome, conclusion: result.conclusion };
  if (result.conclusion === 'cancelled') scope.status = 'cancelled';
  else if (result.conclusion === 'failure' && scope.status === 'success') scope.status = 'failure';
  if (scope.kind === 'job') state.status = scope.status;
  return result;
}

async function runSteps(
  state: JobState,
  scope: Scope,
  steps: unknown[],
  parent: StepRecorder | undefined,
  hooks: { onStepStart?: RunJobOptions['onStepStart']; workflowInputs?: Mapping } = {},
): Promise<StepResult[]> {
  const results: StepResult[] = [];
  const used = new Set<string>();
  for (const [index, raw] of steps.entries()) results.push(await runStep(state, scope, raw, index, used, parent, hooks));
  return results;
}

/**
 * Run one action.yml as a `uses:` step would: inputs (with defaults, unknown ones warned about), then
 * its composite steps (or a node action's main).
 */
export async function runAction(options: RunActionOptions): Promise<ActionRunResult> {
  const actionDir = resolve(options.actionDir);
  const { state, cleanup } = createJobState(options, { job: 'harness', workflow: 'harness' });
  state.repoDir = options.repoDir ? resolve(options.repoDir) : actionDir;
  try {
    const rec = new StepRecorder(state, 'action');
    const inputs = Object.fromEntries(Object.entries(options.inputs ?? {}).map(([k, v]) => [k, String(v)]));
    let result: Execution & { outputs: Record<string, string> };
    try {
      result = await executeAction(state, rec, {
        dir: actionDir,
        inputs,
        inherited: { ...options.env },
        repository: '',
        ref: '',
        timeouts: [],
        cancelCheck: () => true,
      });
    } catch (error) {
      rec.annotate({ level: 'error', message: error instanceof Error ? error.message : String(error) });
      result = { exitCode: 1, failed: true, cancelled: false, timedOut: false, outputs: {} };
    }
    const conclusion: JobStatus = result.cancelled ? 'cancelled' : result.failed ? 'failure' : 'success';
    return {
      ...record(state),
      exitCode: conclusion === 'success' ? 0 : (result.exitCode ?? 1) || 1,
      conclusion,
      outputs: result.outputs,
      inputs: result.inputs ?? {},
      steps: result.steps ?? [],
    };
  } finally {
    cleanup();
  }
}

/** `inputs` of a workflow_dispatch run: the payload's strings typed by the `on.workflow_dispatch.inputs` declarations. */
function workflowInputs(workflow: Mapping, eventName: string, event: Mapping): Mapping {
  if (eventName !== 'workflow_dispatch') return {};
  const on = workflow['on'];
  const declared = mapping(mapping(mapping(on)['workflow_dispatch'])['inputs']);
  const given = mapping(event['inputs']);
  const out: Mapping = {};
  for (const [name, def] of Object.entries(declared)) {
    const d = mapping(def);
    const v = given[name] ?? d['default'];
    if (v === undefined) continue;
    if (d['type'] === 'boolean') out[name] = v === true || v === 'true';
    else if (d['type'] === 'number') out[name] = Number(v);
    else out[name] = scalar(v);
  }
  for (const [name, v] of Object.entries(given)) if (!(name in out)) out[name] = v;
  return out;
}

/** Run one job of a workflow file, step by step, as the runner would. */
export async function runJob(options: RunJobOptions): Promise<JobRunResult> {
  const workflowFile = resolve(options.workflowFile);
  const workflow = mapping(parseYaml(readFileSync(workflowFile, 'utf8')));
  const jobs = mapping(workflow['jobs']);
  const job = jobs[options.jobId];
  if (!isMapping(job)) throw new Error(`No job '${options.jobId}' in ${workflowFile}; jobs: ${Object.keys(jobs).join(', ')}`);
  if (job['uses'] !== undefined) throw new Error(`Job '${options.jobId}' calls a reusable workflow; the harness does not run those`);
  for (const k of ['container', 'services']) if (job[k] !== undefined) throw new Error(`Job '${options.jobId}': '${k}' is not supported by the harness`);
  if (mapping(job['strategy'])['matrix'] !== undefined) throw new Error(`Job '${options.jobId}': matrix jobs are not supported by the harness`);

  const { state, cleanup } = createJobState(options, {
    job: options.jobId,
    workflow: workflow['name'] === undefined ? basename(workflowFile) : scalar(workflow['name']),
    workflowFile: basename(workflowFile),
    machineEnv: options.env ?? {},
  });
  state.repoDir = resolve(options.repoDir);
  state.checkoutFrom = options.checkoutFrom;
  const checkoutRoot = options.checkoutFrom ? resolve(options.checkoutFrom) : '';
  state.checkoutFilter =
    options.checkoutFilter ?? ((p) => !relative(checkoutRoot, p).split(sep).some((part) => part === '.git' || part === 'node_modules'));
  try {
    const inputs = options.inputs ?? workflowInputs(workflow, String(state.github['event_name']), mapping(state.github['event']));
    const finish = (conclusion: JobRunResult['conclusion'], steps: StepResult[], outputs: Record<string, string> = {}, setupError?: string): JobRunResult => ({
      ...record(state),
      conclusion,
      steps,
      stepOutputs: Object.fromEntries(steps.map((s) => [s.id, s.outputs])),
      outputs,
      ...(setupError !== undefined ? { setupError } : {}),
    });
    const setupRec = new StepRecorder(state, '__setup');
    const setupFail = (message: string) => {
      setupRec.annotate({ level: 'error', message });
      state.status = 'failure';
      return finish('failure', [], {}, message);
    };

    // Workflow env, job if, job env: each with the contexts GitHub allows there.
    const envCtx: Contexts = { github: state.github, secrets: state.secrets, vars: state.vars, inputs };
    try {
      for (const [k, v] of Object.entries(mapping(workflow['env']))) state.env[k] = evaluateTemplate(scalar(v), envCtx);
      if (!evaluateCondition(job['if'] as string | undefined, { github: state.github, needs: {}, vars: state.vars, inputs })) {
        return finish('skipped', []);
      }
      const jobCtx: Contexts = { ...envCtx, needs: {}, strategy: {}, matrix: {} };
      for (const [k, v] of Object.entries(mapping(job['env']))) state.env[k] = evaluateTemplate(scalar(v), jobCtx);
    } catch (error) {
      return setupFail((error as Error).message);
    }

    // "Set up job": every remote action is resolved before any step runs.
    const steps = Array.isArray(job['steps']) ? (job['steps'] as unknown[]) : [];
    for (const s of steps) {
      const uses = mapping(s)['uses'];
      if (typeof uses !== 'string' || uses.startsWith('./')) continue;
      const target = resolveUses(state, uses);
      if (target.kind === 'unsupported') return setupFail(target.reason);
      if (target.kind === 'local' && !manifestPath(target.dir)) {
        return setupFail(`Unable to resolve action \`${uses}\`: no action.yml or action.yaml under ${target.dir}`);
      }
    }

    const defaults = mapping(mapping(job['defaults'])['run']);
    const wfDefaults = mapping(mapping(workflow['defaults'])['run']);
    const shell = defaults['shell'] ?? wfDefaults['shell'];
    const wd = defaults['working-directory'] ?? wfDefaults['working-directory'];
    const scope: Scope = {
      kind: 'job',
      steps: {},
      status: 'success',
      inputs,
      inherited: {},
      defaults: { ...(shell !== undefined ? { shell: scalar(shell) } : {}), ...(wd !== undefined ? { workingDirectory: scalar(wd) } : {}) },
      timeouts: [],
    };
    const results = await runSteps(state, scope, steps, undefined, {
      ...(options.onStepStart ? { onStepStart: options.onStepStart } : {}),
      workflowInputs: inputs,
    });

    // Job outputs; one that would print a secret is skipped, as on GitHub.
    const outputs: Record<string, string> = {};
    const outCtx = contextsFor(state, scope, { ...state.env }, inputs);
    for (const [k, v] of Object.entries(mapping(job['outputs']))) {
      try {
        const value = evaluateTemplate(scalar(v), outCtx, { status: state.status });
        if (state.masker.mask(value) !== value) setupRec.annotate({ level: 'warning', message: `Skip output '${k}' since it may contain secret.` });
        else outputs[k] = value;
      } catch (error) {
        setupRec.annotate({ level: 'error', message: `job output '${k}': ${(error as Error).message}` });
      }
    }
    return finish(state.status, results, outputs);
  } finally {
    cleanup();
  }
}
