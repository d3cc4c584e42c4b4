/**
 * The state of one running job, and of the list of steps being run in it: the `github` context the
 * runner builds for the event, the machine environment, the masker, what the run collects, and the
 * contexts a step's expressions see.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SecretMasker } from './commands.js';
import type { Contexts, JobStatus } from './expressions.js';
import type { Annotation, RunRecord, RunnerOptions, StepResult, StepStatus } from './types.js';
import { mapping, scalar, type Mapping } from './yaml-values.js';

/** What a running job shares: masker, collected output, global env, contexts. */
export interface JobState {
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
export interface Scope {
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

/** What running a step's body (a script, an action, a stand-in) came to. */
export interface Execution {
  exitCode: number | null;
  failed: boolean;
  cancelled: boolean;
  timedOut: boolean;
  steps?: StepResult[];
  inputs?: Record<string, string>;
}

const MACHINE_ENV_KEYS = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'SHELL', 'TERM'];

let runCounter = 0;

function randomToken(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return `ghs_${[...randomBytes(36)].map((b) => alphabet[b % alphabet.length]).join('')}`;
}

/** The `github` context the runner would build for this event, then the caller's overrides. */
function githubContext(options: RunnerOptions, extra: { job: string; workflow: string; workflowFile?: string; workspace: string; eventPath: string }): Mapping {
  const event = options.event ?? {};
  const eventName = options.eventName ?? 'push';
  const repo = mapping(event['repository']);
  const repository = scalar(options.github?.['repository'] ?? repo['full_name'] ?? 'your-org/your-repo');
  const pr = mapping(event['pull_request']);
  const defaultBranch = scalar(repo['default_branch'] ?? 'main');
  let ref = `refs/heads/${defaultBranch}`;
  let sha = 'ffac537e6cbbf934b08745a378932722df287a53';
  let headRef = '';
  let baseRef = '';
  if ((eventName === 'pull_request' || eventName === 'pull_request_target') && pr['number'] !== undefined) {
    headRef = scalar(mapping(pr['head'])['ref'] ?? '');
    baseRef = scalar(mapping(pr['base'])['ref'] ?? '');
    if (eventName === 'pull_request') {
      ref = `refs/pull/${scalar(pr['number'])}/merge`;
      sha = scalar(pr['merge_commit_sha'] ?? mapping(pr['head'])['sha'] ?? sha);
    } else {
      ref = `refs/heads/${baseRef || defaultBranch}`;
      sha = scalar(mapping(pr['base'])['sha'] ?? sha);
    }
  } else if (eventName === 'merge_group' && event['merge_group'] !== undefined) {
    // GITHUB_REF and GITHUB_SHA name the group's temporary branch and commit; head_ref and base_ref stay empty.
    const group = mapping(event['merge_group']);
    ref = scalar(group['head_ref'] ?? ref);
    sha = scalar(group['head_sha'] ?? sha);
  } else if (eventName === 'push' && typeof event['ref'] === 'string') {
    ref = event['ref'];
    sha = scalar(event['after'] ?? sha);
  } else if (typeof event['ref'] === 'string' && event['ref'].startsWith('refs/')) {
    ref = event['ref'];
  }
  const actor = scalar(mapping(event['sender'])['login'] ?? 'octocat');
  const runId = String(4242000 + ++runCounter);
  const refName = ref.replace(/^refs\/(heads|tags)\//, '').replace(/^refs\/pull\//, '');
  return {
    action: '',
    action_path: '',
    action_ref: '',
    action_repository: '',
    actor,
    actor_id: scalar(mapping(event['sender'])['id'] ?? '1'),
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
    repository_id: scalar(repo['id'] ?? '1'),
    repository_owner: repository.split('/')[0] ?? '',
    repository_owner_id: scalar(mapping(repo['owner'])['id'] ?? '1'),
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

export function createJobState(
  options: RunnerOptions,
  extra: { job: string; workflow: string; workflowFile?: string; machineEnv?: Record<string, string> },
): {
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
  const token = scalar(github['token'] ?? '');
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

export function record(state: JobState): RunRecord {
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
export function contextsFor(state: JobState, scope: Scope, env: Record<string, string>, workflowInputs?: Mapping): Contexts {
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
