import type { InputSpec, OutputSpec } from './action-spec.js';
import { DEFAULTS } from './defaults.js';

/** Where the agents' configuration lives: the actions that check the folder (`pr`, `impact`, `validate`) and doctor take it. */
export const AGENTS_FOLDER_INPUT: InputSpec = {
  name: 'agents-folder',
  description:
    "The folder of the agents' YAML and Markdown configuration, relative to `model-dir`: set it to the deployment's `CUBE_CLOUD_AGENTS_CONFIG_PATH` when that moves it (`doctor` compares the two). The check of the folder runs whenever it holds a file (docs/agents.md).",
  default: DEFAULTS.agentsFolder,
};

/** The inputs and outputs of the agents' eval delta (issue 40, docs/agents.md): the `pr` and `impact` actions take them. */

export const EVAL_INPUTS: InputSpec[] = [
  {
    name: 'evals',
    description:
      "`off` (default) or `on`: when the tenant has evaluations, run the agents' eval questions on the PR's shared branch (`impact`: its `branch`) and on the deploy branch, and show accuracy on each side and the questions that newly fail or pass (a tenant without them gets one line). Each run costs the tenant an agent answer per question.",
    default: DEFAULTS.evals,
  },
  {
    name: 'fail-on-eval-regression',
    description:
      'Fail the step when a question that passes on production fails on the PR, and when the runs could not be compared (a run not finished within `evals-timeout`, an incomplete results page, no results). Default false: advisory.',
    default: String(DEFAULTS.failOnEvalRegression),
  },
  {
    name: 'evals-timeout',
    description: 'How long each evaluation run may take (a duration such as 90s, 30m or 2h); a run not finished by then is "not compared", never a pass.',
    default: DEFAULTS.evalsTimeout,
  },
  {
    name: 'evals-agent',
    description: "The agent the runs ask (its name in the `agents/` folder); empty (default): the platform's default agent.",
    default: '',
  },
  {
    name: 'evals-production',
    description:
      "`run` (default): start a run on the deploy branch. `last-complete`: reuse production's last complete run (the newest `completed` run the platform lists on the deploy branch, of the same agent, over the whole question set, with a creation date) instead of starting one; when none is shown to be production's, a run is started and the comment says why.",
    default: DEFAULTS.evalsProduction,
  },
  {
    name: 'evals-runs',
    description: `Runs per side, 1 (default) to ${DEFAULTS.evalsMaxRuns}: with more than one, a question whose verdict differs between the runs of a side is flaky, listed apart, never counted as newly failing or passing, and counted as failed in accuracy. Each run costs the tenant an agent answer per question; a reused production run (\`evals-production: last-complete\`) is its side's one run.`,
    default: String(DEFAULTS.evalsRuns),
  },
];

export const EVAL_OUTPUT = {
  accuracyPreview: {
    name: 'eval-accuracy-preview',
    description: 'Eval questions passed on the PR, as `passed/total` (empty when the evals did not run or that side was not compared).',
  },
  accuracyProduction: {
    name: 'eval-accuracy-production',
    description: 'Eval questions passed on production, as `passed/total` (empty when the evals did not run or that side was not compared).',
  },
  regressionsCount: {
    name: 'eval-regressions-count',
    description: 'Number of eval questions that pass on production and fail on the PR (empty unless both sides were compared).',
  },
  flakyCount: {
    name: 'eval-flaky-count',
    description:
      'Number of eval questions whose verdict differs between the runs of one side (`evals-runs` above 1; empty unless both sides were compared). Shown as a warning; never fails the step.',
  },
} satisfies Record<string, OutputSpec>;

export const EVAL_OUTPUTS: OutputSpec[] = Object.values(EVAL_OUTPUT);
