/** The public types of the runner harness: what runAction and runJob take and return. */
import type { JobStatus } from './expressions.js';

export type { JobStatus };

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
