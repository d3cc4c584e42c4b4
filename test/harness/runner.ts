/**
 * A local stand-in for the GitHub Actions runner (Linux): runs an action.yml, or one job of a workflow
 * file, with the runner's semantics for what this project depends on: expressions, `if:` and status
 * functions, `continue-on-error`, `env:` layering, the GITHUB_* / RUNNER_* variables, environment files
 * (GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH, GITHUB_STATE, GITHUB_STEP_SUMMARY), workflow commands on
 * stdout/stderr, secret masking, shells, timeouts and cancellation. `uses:` of this repository's actions
 * (`<owner>/datamodel-ci[/<path>]@<ref>`, `./<path>`) runs them from `repoDir`, hence the committed
 * `dist/`; actions/checkout and actions/setup-node are stand-ins; anything else fails as unsupported.
 * No vitest in here: a demo script can import it.
 *
 * The entry points; the modules beside this one: types (what goes in and out), job-state (the job, its
 * contexts), steps (steps, scripts, action.yml), uses (`uses:` and the stand-ins), step-process (env,
 * shells, process groups), workflow-commands, env-files, recorder (masked output).
 */
import { readFileSync } from 'node:fs';
import { basename, relative, resolve, sep } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { evaluateCondition, evaluateTemplate, type Contexts, type JobStatus } from './expressions.js';
import { contextsFor, createJobState, record, type Execution, type Scope } from './job-state.js';
import { StepRecorder } from './recorder.js';
import { executeAction, runSteps } from './steps.js';
import type { ActionRunResult, JobRunResult, RunActionOptions, RunJobOptions, StepResult } from './types.js';
import { manifestPath, resolveUses } from './uses.js';
import { isMapping, mapping, scalar, type Mapping } from './yaml-values.js';

export { workflowTriggers, type TriggerAnswer } from './triggers.js';
export type {
  ActionRunResult,
  Annotation,
  JobRunResult,
  JobStatus,
  RunActionOptions,
  RunJobOptions,
  RunRecord,
  RunnerOptions,
  StepResult,
  StepStartInfo,
  StepStatus,
} from './types.js';

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
    options.checkoutFilter ??
    ((p) =>
      !relative(checkoutRoot, p)
        .split(sep)
        .some((part) => part === '.git' || part === 'node_modules'));
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
