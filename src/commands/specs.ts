/**
 * What each platform tool (the commands that are not actions) takes: its flags, arguments and example.
 * Kept apart from what the commands do, so the command table, help and completion load none of it.
 */
import { COMMON_INPUTS } from '../action-spec.js';
import { AGENTS_FOLDER_INPUT } from '../action-spec-agents.js';
import { ACTION_FLAGS, cliFlag, CONNECTION_FLAGS, inputFlags, JSON_FLAG, VERBOSE_FLAG, type CommandSpec, type FlagDoc } from './spec.js';

/** A command's table entry without its run (the command table adds it, loaded on first use). */
export type ToolSpec = Omit<CommandSpec, 'run'>;

export const checkSpec: ToolSpec = {
  name: 'check',
  summary: 'Check the address and the key: list the deployments the key can see, with their ids.',
  flags: [...CONNECTION_FLAGS, JSON_FLAG],
  example: 'datamodel-ci check --api-url https://acme.cubecloud.dev',
  action: false,
};

/** The inputs of `doctor`: the connection, the deployment, dry run, and the agents folder it compares with the deployment's. */
export const DOCTOR_INPUTS = [
  ...COMMON_INPUTS.filter((i) => ['api-url', 'api-key', 'auth-scheme', 'ca-cert', 'request-timeout', 'deployment-id', 'dry-run'].includes(i.name)),
  AGENTS_FOLDER_INPUT,
];

export const doctorSpec: ToolSpec = {
  name: 'doctor',
  summary:
    'Check a real tenant first, on a throwaway branch it removes: upload path, hashes, build states, validation errors, staging URL, auth scheme, one rollup plan on production (the data API scopes), one persona token (do groups reach the access policies, through which claim), and the agents folder the deployment loads (CUBE_CLOUD_AGENTS_CONFIG_PATH) beside --agents-folder.',
  description:
    'One line per check (✓, ✗ or -) on stdout as it is made, then the verdict; exit 1 when a check failed. --dry-run only reads: the checks that write are listed as not made.',
  flags: [...inputFlags(DOCTOR_INPUTS), JSON_FLAG, VERBOSE_FLAG],
  example: 'datamodel-ci doctor --deployment-id 1 --dry-run',
  action: false,
};

export const API_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export const apiSpec: ToolSpec = {
  name: 'api',
  summary: 'Send one request to the platform API and print its JSON answer (secrets masked).',
  args: { usage: '<METHOD> <PATH>', min: 0, max: 2, values: API_METHODS },
  flags: [...CONNECTION_FLAGS, cliFlag('data', 'JSON body of the request.', false), JSON_FLAG],
  example: 'datamodel-ci api GET /api/v1/deployments/1',
  action: false,
};

export const endpointsSpec: ToolSpec = {
  name: 'endpoints',
  summary: 'List every platform API operation the client knows (method, path, spec section).',
  flags: [JSON_FLAG],
  example: 'datamodel-ci endpoints --json',
  action: false,
};

export const hashModelSpec: ToolSpec = {
  name: 'hash-model',
  summary: 'List and hash a model folder as an upload does: files, bytes, time and peak memory.',
  args: { usage: '<DIR>', min: 1, max: 1 },
  flags: [JSON_FLAG],
  example: 'datamodel-ci hash-model analytics --json',
  action: false,
  hidden: true,
};

/** `--out DIR` of `diff` and `plan`: where the detail files go in a terminal (in Actions: RUNNER_TEMP). */
export const OUT_FLAG = cliFlag(
  'out',
  'Folder for the detail files (the change set, the data diff); default: a new folder of the run under the system temporary folder (in GitHub Actions: RUNNER_TEMP/datamodel-ci). Their paths are printed.',
  false,
);

/** `--data`: the data diff in values mode (`--data-diff values`), for `diff` and `plan`. */
export const DATA_FLAG: FlagDoc = {
  name: 'data',
  description: 'Run the data diff too: the same as `--data-diff values` (`--data-diff relative` shows relative changes and row counts only).',
  env: false,
  boolean: true,
};

/** The inputs of the `pr` action that `plan` takes (its branch is its own; nothing of GitHub, no close, no preflight). */
const PLAN_INPUTS = new Set([
  'api-url',
  'api-key',
  'auth-scheme',
  'ca-cert',
  'deployment-id',
  'model-dir',
  'branch-prefix',
  'request-timeout',
  'fail-on-invalid',
  'smoke-test',
  'concurrency',
  'exclude',
  'upload-via',
  'allow-model-deletion',
  'fail-on-breaking',
  'data-diff',
  'data-diff-allow-public',
  'data-diff-build-rollups',
  'data-diff-queries',
  'data-diff-base-queries',
  'data-diff-security-context',
  'data-diff-max-queries',
  'data-diff-max-rows',
  'data-diff-concurrency',
  'data-diff-query-timeout',
  'data-diff-abs-tolerance',
  'data-diff-rel-tolerance',
  'fail-on-data-change',
  'fail-on-rollup-loss',
  'personas',
  'fail-on-exposure',
  'fail-on-version-skew',
  'agents-folder',
  'evals',
  'fail-on-eval-regression',
  'evals-timeout',
  'evals-agent',
  'evals-production',
  'evals-runs',
]);

/** What plan's branch is named (the pr action's own says `pr-<number>`). */
const PLAN_PREFIX = 'Prefix of the throwaway branch: `<branch-prefix>plan-<user>-<random>`.';

export const PLAN_FLAGS: FlagDoc[] = [
  ...ACTION_FLAGS('pr')
    .filter((f) => PLAN_INPUTS.has(f.name))
    .map((f) => (f.name === 'branch-prefix' ? { ...f, description: PLAN_PREFIX } : f)),
  DATA_FLAG,
  cliFlag(
    'keep',
    'Keep the branch and its staging environment after a run that was not cancelled (the staging URL is printed); delete it on the platform when done.',
    true,
  ),
  cliFlag('format', '`text` (default): the review as tables; `markdown`: exactly the body of the pull request comment the `pr` action would write.', false),
  OUT_FLAG,
  JSON_FLAG,
  VERBOSE_FLAG,
];

export const planSpec: ToolSpec = {
  name: 'plan',
  summary:
    'The whole review of a working copy before any pull request: upload to a throwaway branch, validate, then what changes in the semantic layer, the content it breaks, numbers, who can see what and cost against production, by name; then remove the branch.',
  description:
    "Runs the pr action's preview on a branch it creates (`<branch-prefix>plan-…`), prints the review as tables on stdout (`--format markdown`: the PR comment's body; `--json`: the change set as `result`), and removes what it made (the branch, its staging environment, its dev-mode forks) also on failure and on Ctrl-C, saying so in one line. Exit 1 when the model is invalid or a --fail-on-… input trips.",
  flags: PLAN_FLAGS,
  example: 'datamodel-ci plan --deployment-id 1 --model-dir analytics --data --personas personas.yml',
  action: false,
};
