/**
 * The agents' part of a run as every command shows it (the `pr` preview, `impact`/`diff`, `validate`, the
 * merge queue): the offline check of the `agents/` folder and the eval delta, each as its outputs, its
 * view (the comment's and the job summary's section), its part of `--json`'s result, and why it fails the step.
 */
import { EVAL_OUTPUT } from '../action-spec-agents.js';
import type { AgentsCheck, AgentsFinding } from '../model/agents/index.js';
import type { Reporter } from '../report/reporter.js';
import type { EvalDelta } from '../operations/evals/delta.js';
import { plural } from '../report/plural.js';
import { agentsView, type AgentsView } from './comment/render-agents.js';
import { evalsView, type EvalsView } from './comment/render-evals.js';
import type { Outputs } from './presenters.js';

export interface AgentsShown {
  view: AgentsView;
  outputs: Outputs;
  /** `--json`'s `result.agents`: the folder, the model used, every finding, what each removal breaks, the counts. */
  json: { folder: string; source: AgentsCheck['source']; findings: AgentsCheck['findings']; broken: AgentsCheck['broken']; counts: AgentsCheck['counts'] };
  /** Why the step fails: the folder has errors (and `failOnErrors`). */
  failure?: string;
}

/** Findings of the check as the reporter's errors and warnings on their lines (annotations in a workflow). */
export function reportAgentsFindings(reporter: Reporter, findings: readonly Pick<AgentsFinding, 'level' | 'message' | 'file' | 'line'>[]): void {
  for (const f of findings) {
    if (f.level === 'error') reporter.error(f.message, { file: f.file, line: f.line, title: 'agents' });
    else reporter.warning(f.message, { file: f.file, line: f.line, title: 'agents' });
  }
}

/** The check of the `agents/` folder: its errors fail the step as the model's do, when `failOnErrors`. */
export function presentAgents(c: AgentsCheck, failOnErrors: boolean): AgentsShown {
  const view = agentsView(c);
  const { source, findings, broken, counts } = c;
  const shown: AgentsShown = { view, outputs: { 'agents-errors': String(view.errors) }, json: { folder: c.folder.folder, source, findings, broken, counts } };
  if (view.errors && failOnErrors) shown.failure = `the ${view.folder}/ folder has ${plural(view.errors, 'error')} (the Agents section lists them)`;
  return shown;
}

export interface EvalsShown {
  view: EvalsView;
  outputs: Outputs;
  /** `--json`'s `result.evals` (every question of both sides); absent for a tenant without evaluations. */
  json?: EvalDelta;
  /** Why the step fails (`fail-on-eval-regression`): a question newly failing, or the runs not compared. */
  failure?: string;
}

/** The eval delta: accuracy per side, the regressions count, and the failure `fail-on-eval-regression` asks for. */
export function presentEvals(d: EvalDelta): EvalsShown {
  const view = evalsView(d);
  if (view.state !== 'ran' || d.state !== 'ran') return { view, outputs: {} };
  const outputs: Outputs = {
    [EVAL_OUTPUT.accuracyProduction.name]: view.production.accuracy ?? '',
    [EVAL_OUTPUT.accuracyPreview.name]: view.preview.accuracy ?? '',
    [EVAL_OUTPUT.regressionsCount.name]: view.compared ? String(view.newlyFailing.length) : '',
    // Flaky questions are a warning only: fail-on-eval-regression stays on stable regressions.
    [EVAL_OUTPUT.flakyCount.name]: view.compared ? String(view.flaky?.length ?? 0) : '',
  };
  const failure = !view.fails
    ? undefined
    : view.compared
      ? `${plural(view.newlyFailing.length, 'eval question')} newly failing (fail-on-eval-regression)`
      : 'the agent evals were not compared (fail-on-eval-regression)';
  return { view, outputs, json: d, ...(failure ? { failure } : {}) };
}
