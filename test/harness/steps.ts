/**
 * Steps, the job's or a composite action's: `if:`, `env:`, `continue-on-error`, `timeout-minutes`, ids
 * and statuses; `run:` scripts; and action.yml files (composite steps, or a node action's `main`).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { evaluateCondition, evaluateTemplate, evaluateTemplateValue, type Contexts, type JobStatus } from './expressions.js';
import { contextsFor, type Execution, type JobState, type Scope } from './job-state.js';
import { StepRecorder } from './recorder.js';
import { runStepProcess, shellCommand } from './step-process.js';
import type { RunJobOptions, StepResult, StepStatus } from './types.js';
import { checkoutStandIn, manifestPath, resolveUses, setupNodeStandIn } from './uses.js';
import { firstLine, mapping, scalar, type Mapping } from './yaml-values.js';

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
  const wdRaw =
    step['working-directory'] !== undefined
      ? evaluateTemplate(scalar(step['working-directory']), ctx, { status: scope.status })
      : scope.defaults.workingDirectory;
  const cwd = wdRaw ? resolve(state.workspace, wdRaw) : state.workspace;
  if (!existsSync(cwd)) {
    throw new Error(`An error occurred trying to start process '${shell.program}' with working directory '${cwd}'. No such file or directory`);
  }
  return runStepProcess(state, scope, rec, stepEnv, shell.program, shell.args(file), { cwd, timeouts, cancelCheck });
}

/** One `uses:` of an action.yml: where it is, what it is given, what bounds it. */
export interface ActionCall {
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
export async function executeAction(state: JobState, rec: StepRecorder, call: ActionCall): Promise<Execution & { outputs: Record<string, string> }> {
  const file = manifestPath(call.dir);
  if (!file) {
    throw new Error(
      `Can't find 'action.yml', 'action.yaml' or 'Dockerfile' under '${call.dir}'. Did you forget to run actions/checkout before running your local action?`,
    );
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
    const proc = await runStepProcess(state, scope, rec, inputEnv, 'node', [main], {
      cwd: state.workspace,
      timeouts: call.timeouts,
      cancelCheck: call.cancelCheck,
      action: { path: call.dir, repository: call.repository, ref: call.ref },
    });
    return { ...proc, inputs, outputs: rec.outputs };
  }
  throw new Error(`runs.using '${using}' (${file}) is not supported by the test harness (composite and node actions only)`);
}

/** A boolean field (`continue-on-error`): a YAML boolean or an expression that evaluates to true. */
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
  const kind: StepResult['kind'] =
    target?.kind === 'checkout' ? 'checkout' : target?.kind === 'setup-node' ? 'setup-node' : uses !== undefined ? 'action' : 'run';
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

/** Run a list of steps in order (generated ids unique within the list). */
export async function runSteps(
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
