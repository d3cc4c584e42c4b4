import { ACCESS_INPUTS, DATA_DIFF_INPUTS, FAIL_ON_BREAKING, FAIL_ON_VERSION_SKEW, IMPACT_OUTPUT, IMPACT_OUTPUTS } from './action-spec-impact.js';
import { AGENTS_FOLDER_INPUT, EVAL_INPUTS, EVAL_OUTPUTS } from './action-spec-agents.js';
import { PR_OWN_INPUTS, PR_PREVIEW_INPUTS } from './action-spec-pr.js';
import { REVERT_INPUTS, REVERT_OUTPUT } from './action-spec-revert.js';
import { DEFAULTS } from './defaults.js';
import { DRIFT_INPUTS, DRIFT_OUTPUTS } from './drift-input.js';

/**
 * Every action, input and output in one table: the action.yml files, their READMEs and the settings
 * parser all come from here. Inputs reach the process as `DATAMODEL_CI_<NAME>` variables, the same
 * names the CLI reads, so a composite step never writes `${{ inputs.* }}` into a `run:` line.
 */

export interface InputSpec {
  name: string;
  description: string;
  /** Literal default written into action.yml (may be an expression such as `${{ github.token }}`). */
  default?: string;
  required?: boolean;
  /** Takes true or false though its default is empty (so a given value can be told from none): a bare `--flag` on the command line. */
  boolean?: boolean;
}

export interface OutputSpec {
  name: string;
  description: string;
}

/** The PR lifecycle's steps, each an action of its own. */
type StepCommand = 'start-dev-branch' | 'upload-model' | 'validate' | 'enable-staging' | 'dbt-sync-and-wait' | 'merge-to-default' | 'cleanup-branch';
export type CommandName = StepCommand | 'impact' | 'drift' | 'revert' | 'pr';

export interface ActionSpec {
  command: CommandName;
  /** Folder of the action.yml (`.` for the root action). */
  dir: string;
  title: string;
  description: string;
  inputs: InputSpec[];
  outputs: OutputSpec[];
  /** Common inputs this action does not require (the root action takes `deployments` instead of `deployment-id`). */
  optional?: string[];
}

/** `api-url` -> `DATAMODEL_CI_API_URL`. */
export function envName(input: string): string {
  return `DATAMODEL_CI_${input.toUpperCase().replace(/-/g, '_')}`;
}

export const COMMON_INPUTS: InputSpec[] = [
  { name: 'api-url', description: 'https:// address of the platform tenant (a custom domain replaces the whole host).', required: true },
  { name: 'api-key', description: 'API key of the platform; store it as a secret. Masked in every log.', required: false, default: '' },
  {
    name: 'auth-scheme',
    description: 'Authorization scheme: `bearer` or `api-key`; default: `api-key` for platform API keys (`sk-…`), else `bearer`.',
    default: '',
  },
  {
    name: 'ca-cert',
    description: 'Extra trusted CA (PEM text or a file path) for a private tenant, a TLS-inspecting proxy or GitHub Enterprise Server.',
    default: '',
  },
  { name: 'deployment-id', description: 'Id of the platform deployment the data model belongs to.', required: true },
  { name: 'github-token', description: 'Token for the PR comment and PR lookups.', default: '${{ github.token }}' },
  { name: 'model-dir', description: 'Folder of the data model in the repository (holds `cube.js` and `model/`).', default: '.' },
  { name: 'branch-prefix', description: 'Prefix of the shared branch of a PR: `<branch-prefix>pr-<number>`.', default: DEFAULTS.branchPrefix },
  { name: 'dry-run', description: 'Print the calls a mutating step would make, and make none.', default: 'false' },
  {
    name: 'request-timeout',
    description: 'Seconds one platform request may take before it is retried or fails.',
    default: String(DEFAULTS.requestTimeoutSeconds),
  },
];

const BRANCH: InputSpec = {
  name: 'branch',
  description: 'Shared branch to use; default: the one recorded for this PR, else `<branch-prefix>pr-<number>`.',
  default: '',
};
const EXCLUDE: InputSpec = {
  name: 'exclude',
  description:
    'Files of `model-dir` to leave out (neither uploaded nor read): globs of paths relative to it, one per line or comma-separated (e.g. `model/drafts/**`). Dot-files other than `.gitignore`, `node_modules` and `dashboard-app` are never uploaded.',
  default: '',
};
const UPLOAD_VIA: InputSpec = {
  name: 'upload-via',
  description:
    "`auto` (default): upload straight to the shared branch, as the vendor's `deploy --branch` does, and fall back to dev mode if the tenant refuses; `direct`; or `dev-mode` (upload to a fork, commit it to the shared branch). `datamodel-ci doctor` tells which your tenant takes.",
  default: 'auto',
};
const DEPLOY_ON_MERGE: InputSpec = {
  name: 'deploy-on-merge',
  description:
    "When the deployment deploys with the CLI (`deployMode: cli`), a merge does not rebuild production: upload the merged model from `model-dir` to the deploy branch after the merge, as the vendor's `deploy` does.",
  default: 'false',
};
const PROOF_WAIT: InputSpec = {
  name: 'proof-wait',
  description:
    "After a merge, how long to wait for production's build newer than the merge (`90s`, `15m`) before the proof says `not-proven`: the proof then compares production's files and semantic layer with the validated model (docs/production.md).",
  default: DEFAULTS.productionProofWait,
};
const ALLOW_MODEL_DELETION: InputSpec = {
  name: 'allow-model-deletion',
  description:
    'Allow an upload that deletes most of the model files on the branch, or leaves it with no cube or view (refused by default: almost always a wrong `model-dir`).',
  default: 'false',
};
const WITHOUT_CREDENTIALS: InputSpec = {
  name: 'without-credentials',
  description:
    "With `api-key` empty on a run that has the repository's secrets (anything but a fork's or Dependabot's pull request): `fail` (default) fails the step, and `pr` and `validate` write the \"datamodel-ci / validation\" check `failure` naming the input and the secret; `skip` ends it with a notice and writes no check (a required check stays pending). A fork's or Dependabot's pull request, which gets no secrets, is skipped with a warning and no check.",
  default: 'fail',
};
/** Replaced by `without-credentials`; still read, with a warning, so no workflow breaks. */
const FAIL_WITHOUT_CREDENTIALS: InputSpec = {
  name: 'fail-without-credentials',
  description:
    "Deprecated: use `without-credentials`. `false` is `without-credentials: skip`; `true` is `fail`, and also fails a fork's or Dependabot's pull request (as it always did). When given, it decides.",
  default: '',
  boolean: true,
};
const CREDENTIALS = [WITHOUT_CREDENTIALS, FAIL_WITHOUT_CREDENTIALS];

/** Several models of one repository, each its own deployment (the root action). */
const MODELS_INPUTS: InputSpec[] = [
  {
    name: 'deployments',
    description:
      'Several data models in one repository: a YAML or JSON map of model folder to deployment id, or to `{ deployment-id, api-url }` (docs/merge-queues-and-monorepos.md). Replaces `deployment-id` and `model-dir`; one comment with a section per model.',
    default: '',
  },
  { name: 'deployments-concurrency', description: 'With `deployments`: models previewed at once at most.', default: String(DEFAULTS.deploymentsConcurrency) },
  {
    name: 'preview-untouched',
    description:
      'Preview a model even when the pull request changes no file under its folder (by default it is skipped with a line saying so; one with a preview already is always updated).',
    default: 'false',
  },
];

const O = {
  branch: { name: 'branch', description: 'Shared branch of the PR.' },
  devBranch: { name: 'dev-branch', description: 'Dev-mode fork the upload went through (empty for a direct upload).' },
  uploaded: { name: 'uploaded', description: 'Number of files sent (new or changed).' },
  deleted: { name: 'deleted', description: 'Number of files deleted on the platform (or branches, for cleanup).' },
  valid: { name: 'valid', description: '`true` when the data model compiles.' },
  errorCount: {
    name: 'error-count',
    description: 'Number of validation errors (root causes: an error that only echoes another, such as a join to the cube that failed, is counted under it).',
  },
  agentsErrors: { name: 'agents-errors', description: 'Errors the check of the `agents/` folder found (docs/agents.md); empty without the folder.' },
  stagingUrl: { name: 'staging-url', description: 'REST API address of the staging environment.' },
  environmentId: { name: 'environment-id', description: 'Id of the staging environment.' },
  syncJobId: { name: 'sync-job-id', description: 'Id of the dbt sync run.' },
  status: { name: 'status', description: 'Final status of the operation.' },
  timedOut: { name: 'timed-out', description: '`true` when the wait ended at its deadline.' },
  merged: { name: 'merged', description: '`true` when the branch was merged into the deploy branch.' },
  productionProof: {
    name: 'production-proof',
    description:
      "After a merge (on a repository-fed deployment, GitHub's): `proven` (production = the validated model: a build newer than the merge, the same files and the same semantic layer), `differs` (the step fails, naming the files and members), or `not-proven` (the reason is in the log and the comment); empty when nothing was merged.",
  },
  skipped: {
    name: 'skipped',
    description: "`true` when nothing ran (a fork's or Dependabot's PR, a missing key with `without-credentials: skip`, a stale run).",
  },
  previews: {
    name: 'previews',
    description:
      'With `deployments`: a JSON map of model folder to its outcome (`status`, `branch`, `valid`, `error-count`, `staging-url`, `production-proof`); the other outputs then add up the models (`valid` only when every previewed one is).',
  },
} satisfies Record<string, OutputSpec>;

export const ACTIONS: ActionSpec[] = [
  {
    command: 'start-dev-branch',
    dir: 'actions/start-dev-branch',
    title: 'datamodel-ci: start dev branch',
    description: "Make sure the PR's shared branch exists (created from the deploy branch), fork its dev branch, and release the key's dev-mode session.",
    inputs: [BRANCH, ...CREDENTIALS],
    outputs: [O.branch, O.devBranch, O.status, O.skipped],
  },
  {
    command: 'upload-model',
    dir: 'actions/upload-model',
    title: 'datamodel-ci: upload model',
    description: 'Upload the data model to the shared branch (only new and changed files), straight or through a dev-mode fork where the tenant requires it.',
    inputs: [
      BRANCH,
      { name: 'concurrency', description: 'Files uploaded in parallel at most (the connection pool holds 16).', default: String(DEFAULTS.uploadConcurrency) },
      { name: 'commit-message', description: 'Commit message; default names the PR and the head commit.', default: '' },
      EXCLUDE,
      UPLOAD_VIA,
      ALLOW_MODEL_DELETION,
      ...CREDENTIALS,
    ],
    outputs: [O.branch, O.devBranch, O.uploaded, O.deleted, O.status, O.skipped],
  },
  {
    command: 'validate',
    dir: 'actions/validate',
    title: 'datamodel-ci: validate',
    description: "Validate a branch with the platform's own compiler; annotate errors on the repository files.",
    inputs: [
      BRANCH,
      {
        name: 'fail-on-invalid',
        description: 'Fail the step when the model is invalid, or the `agents/` folder has an error (docs/agents.md).',
        default: 'true',
      },
      AGENTS_FOLDER_INPUT,
      ...CREDENTIALS,
    ],
    outputs: [O.branch, O.valid, O.errorCount, O.agentsErrors, O.status, O.skipped],
  },
  {
    command: 'enable-staging',
    dir: 'actions/enable-staging',
    title: 'datamodel-ci: enable staging',
    description: 'Enable the always-on staging environment of the shared branch and output its address.',
    inputs: [
      BRANCH,
      { name: 'smoke-test', description: 'Query `/meta` and one `/load` through the staging environment.', default: 'false' },
      { name: 'smoke-timeout-seconds', description: 'Deadline of the smoke test (it retries "Continue wait").', default: String(DEFAULTS.smokeTimeoutSeconds) },
      ...CREDENTIALS,
    ],
    outputs: [O.branch, O.stagingUrl, O.environmentId, O.status, O.skipped],
  },
  {
    command: 'dbt-sync-and-wait',
    dir: 'actions/dbt-sync-and-wait',
    title: 'datamodel-ci: dbt sync and wait',
    description: 'Start a dbt sync, stream its logs by phase, and wait for it; cancel it on timeout or when the job is cancelled.',
    inputs: [
      { name: 'ref', description: 'Branch or tag of the dbt project (not a commit SHA).', default: '' },
      { name: 'branch-name', description: 'Name of the branch the sync creates; default chosen by the platform.', default: '' },
      { name: 'source', description: '`git` (default) or `manifest`.', default: 'git' },
      { name: 'timeout-minutes', description: 'How long to wait before cancelling the run.', default: String(DEFAULTS.dbtTimeoutMinutes) },
      {
        name: 'first-poll-seconds',
        description: 'Seconds before the first status read; later reads come every 1 s growing to 45 s (0 reads at once).',
        default: String(DEFAULTS.dbtFirstPollSeconds),
      },
      ...CREDENTIALS,
    ],
    outputs: [O.syncJobId, O.branch, O.status, O.timedOut, O.skipped],
  },
  {
    command: 'merge-to-default',
    dir: 'actions/merge-to-default',
    title: 'datamodel-ci: merge to default',
    description: "Merge the PR's shared branch into the deploy branch.",
    inputs: [
      BRANCH,
      { name: 'keep-branch', description: 'Keep the shared branch after the merge.', default: 'false' },
      { name: 'message', description: 'Merge message; default names the PR.', default: '' },
      DEPLOY_ON_MERGE,
      PROOF_WAIT,
      EXCLUDE,
      ALLOW_MODEL_DELETION,
      ...CREDENTIALS,
    ],
    outputs: [O.branch, O.merged, O.productionProof, O.status, O.skipped],
  },
  {
    command: 'cleanup-branch',
    dir: 'actions/cleanup-branch',
    title: 'datamodel-ci: cleanup branch',
    description: "Disable staging and delete the PR's shared and dev branches; or, with `mode: sweep`, delete the branches of closed PRs.",
    inputs: [
      BRANCH,
      { name: 'mode', description: '`pr` (the PR of the event) or `sweep` (branches under `branch-prefix` of PRs closed or gone: faults.md).', default: 'pr' },
      {
        name: 'min-age',
        description: 'Sweep: PRs closed (orphans: branches idle) at least this long ago (`30m`, `12h`, `7d`).',
        default: DEFAULTS.sweepMinAge,
      },
      {
        name: 'remove-on-upstream',
        description:
          "Also delete the branch's git ref in the deployment's connected repository: only for a branch whose name the toolkit generates and that a run of the PR created, as its comment's ledger records (`false` keeps every ref).",
        default: 'true',
      },
      {
        name: 'delete-orphans',
        description:
          "Sweep: also delete the preview branches no ledger of this repository claims (their pull request is missing, never had the toolkit's comment, or its comment does not say a run created the branch: another repository's previews look like that), once idle for `min-age`; never their refs upstream. Off, they are listed and kept.",
        default: 'false',
      },
      ...CREDENTIALS,
    ],
    outputs: [O.branch, O.deleted, O.status, O.skipped],
  },
  {
    command: 'impact',
    dir: 'actions/impact',
    title: 'datamodel-ci: impact',
    description:
      "Compare the semantic layer of the PR's staging environment with production's (`/meta` of each) and list the reports, dashboards and notifications the breaking changes hit; check the `agents/` folder against it, and (`evals: on`) compare the agents' eval questions.",
    inputs: [BRANCH, FAIL_ON_BREAKING, ...DATA_DIFF_INPUTS, ...ACCESS_INPUTS, FAIL_ON_VERSION_SKEW, AGENTS_FOLDER_INPUT, ...EVAL_INPUTS, ...CREDENTIALS],
    outputs: [O.branch, ...IMPACT_OUTPUTS, O.agentsErrors, ...EVAL_OUTPUTS, O.status, O.skipped],
  },
  {
    command: 'drift',
    dir: 'actions/drift',
    title: 'datamodel-ci: drift',
    description:
      'Compare what production holds and serves (its model files, its whole /meta) with the model in git (the checkout in `model-dir`) and the last validated record, and name the likely cause when they differ; keep one GitHub issue per deployment, opened when they differ, updated in place, closed when they match again. Writes nothing to the platform.',
    inputs: [EXCLUDE, ...DRIFT_INPUTS, ...CREDENTIALS],
    outputs: [...DRIFT_OUTPUTS, O.skipped],
  },
  {
    command: 'revert',
    dir: 'actions/revert',
    title: 'datamodel-ci: revert',
    description:
      "Restore production to a validated model: the last validation record's (or a named commit's) model uploaded to a fresh branch, validated, what it changes in production's semantic layer printed, merged only with `confirm: true` (then production proven against it); the branch is deleted after, also on failure or cancel.",
    inputs: [...REVERT_INPUTS, EXCLUDE, UPLOAD_VIA, ALLOW_MODEL_DELETION, ...CREDENTIALS],
    outputs: [REVERT_OUTPUT.branch, REVERT_OUTPUT.commit, O.valid, O.errorCount, O.merged, REVERT_OUTPUT.proof, O.status, O.skipped],
  },
  {
    command: 'pr',
    dir: '.',
    title: 'datamodel-ci',
    description:
      'Data-model preview per pull request: a shared branch, the model uploaded and validated, an always-on staging environment and one PR comment; merge or clean up on close; in a merge queue, the merge commit validated. Several models with `deployments`.',
    inputs: [
      BRANCH,
      ...PR_OWN_INPUTS,
      EXCLUDE,
      UPLOAD_VIA,
      DEPLOY_ON_MERGE,
      PROOF_WAIT,
      ALLOW_MODEL_DELETION,
      ...PR_PREVIEW_INPUTS,
      FAIL_ON_BREAKING,
      ...DATA_DIFF_INPUTS,
      ...ACCESS_INPUTS,
      FAIL_ON_VERSION_SKEW,
      AGENTS_FOLDER_INPUT,
      ...EVAL_INPUTS,
      ...MODELS_INPUTS,
      ...CREDENTIALS,
    ],
    outputs: rootOutputs(),
    optional: ['deployment-id'],
  },
];

/** Every output, in the order the root action has always listed them. */
function rootOutputs(): OutputSpec[] {
  const { previews, ...own } = O;
  const I = IMPACT_OUTPUT;
  const counts = [
    I.breakingCount,
    I.addedCount,
    I.changedCount,
    I.affectedContentCount,
    I.valuesChangedCount,
    I.dataChangedCount,
    I.dataDiffFile,
    I.accessChangedCount,
    I.exposedCount,
    I.rollupsLostCount,
    I.rollupsRebuiltCount,
    I.versionSkewCount,
  ];
  return [...Object.values(own), ...counts, previews, I.changeSetFile, ...EVAL_OUTPUTS];
}

export function actionSpec(command: CommandName): ActionSpec {
  const spec = ACTIONS.find((a) => a.command === command);
  if (!spec) throw new Error(`no action ${command}`);
  return spec;
}

/** Inputs that are true or false (their default says so): bare `--flag` on the command line. */
export function isBooleanInput(input: InputSpec): boolean {
  return input.boolean === true || input.default === 'true' || input.default === 'false';
}

/** The command-line flags of some inputs: the true-or-false ones as boolean flags, the rest taking a value. */
export function flagsOf(inputs: readonly InputSpec[]): { boolean: string[]; string: string[] } {
  return { boolean: inputs.filter(isBooleanInput).map((i) => i.name), string: inputs.filter((i) => !isBooleanInput(i)).map((i) => i.name) };
}

/** The inputs of a command that only talks to the platform (`check`, `api`): the connection part of the common inputs. */
export const CONNECTION_INPUTS: readonly InputSpec[] = COMMON_INPUTS.filter((i) =>
  ['api-url', 'api-key', 'auth-scheme', 'ca-cert', 'request-timeout'].includes(i.name),
);

/** Every input an action takes: the common ones, then its own. */
export function inputsOf(spec: ActionSpec): InputSpec[] {
  const common = COMMON_INPUTS.map((i) =>
    spec.optional?.includes(i.name) ? { ...i, required: false, description: `${i.description} Required unless \`deployments\` is given.` } : i,
  );
  return [...common, ...spec.inputs];
}
