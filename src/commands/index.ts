/**
 * Every command of the CLI in one table: the actions of src/action-spec.ts (each with that action's
 * inputs as flags) and the platform tools. Help, completion and docs/cli.md are generated from it, so
 * a command added here (or an action added to ACTIONS) shows up in all three.
 */
import { ACTIONS, type CommandName } from '../action-spec.js';
import type { Io } from '../io.js';
import type { ActionHandler, RunAs } from './action-run.js';
import { completion } from './completion.js';
import { ACTION_FLAGS, type Command, type CommandSpec } from './spec.js';
import { apiSpec, checkSpec, DATA_FLAG, doctorSpec, endpointsSpec, hashModelSpec, OUT_FLAG, planSpec, type ToolSpec } from './specs.js';

export type { Command, CommandSpec } from './spec.js';

// Every command's code is loaded when it runs, not at start-up: each step of a composite action and
// each CLI call loads the table and the one command it names (`--version` and `--help` load nothing more).
const actionHandlers: { [C in CommandName]: () => Promise<ActionHandler<C>> } = {
  'start-dev-branch': () => import('./start-dev-branch.js').then((m) => m.startDevBranchCommand),
  'upload-model': () => import('./upload-model.js').then((m) => m.uploadModelCommand),
  validate: () => import('./validate.js').then((m) => m.validateCommand),
  'enable-staging': () => import('./enable-staging.js').then((m) => m.enableStagingCommand),
  'dbt-sync-and-wait': () => import('./dbt-sync-and-wait.js').then((m) => m.dbtSyncCommand),
  'merge-to-default': () => import('./merge-to-default.js').then((m) => m.mergeToDefaultCommand),
  'cleanup-branch': () => import('./cleanup-branch.js').then((m) => m.cleanupBranchCommand),
  impact: () => import('./impact.js').then((m) => m.impactCommand),
  drift: () => import('./drift.js').then((m) => m.driftCommand),
  revert: () => import('./revert.js').then((m) => m.revertCommand),
  pr: () => import('./pr.js').then((m) => m.prCommand),
};

/** A platform tool's table entry with its run, loaded on first use. */
function tool(spec: ToolSpec, load: () => Promise<Command>): CommandSpec {
  return { ...spec, run: async (argv, io) => (await load())(argv, io) };
}

/** One example per action; an action without one gets the generic line. */
const EXAMPLES: Partial<Record<CommandName, string>> = {
  pr: 'GITHUB_EVENT_PATH=event.json datamodel-ci pr --deployment-id 1 --dry-run',
  'start-dev-branch': 'datamodel-ci start-dev-branch --deployment-id 1 --branch preview-pr-12',
  'upload-model': 'datamodel-ci upload-model --deployment-id 1 --branch preview-pr-12 --model-dir analytics --dry-run',
  validate: 'datamodel-ci validate --deployment-id 1 --branch preview-pr-12',
  'enable-staging': 'datamodel-ci enable-staging --deployment-id 1 --branch preview-pr-12 --smoke-test',
  'dbt-sync-and-wait': 'datamodel-ci dbt-sync-and-wait --deployment-id 1 --ref main --timeout-minutes 20',
  'merge-to-default': 'datamodel-ci merge-to-default --deployment-id 1 --branch preview-pr-12 --dry-run',
  'cleanup-branch': 'datamodel-ci cleanup-branch --deployment-id 1 --mode sweep --min-age 7d --dry-run',
  impact: 'datamodel-ci impact --deployment-id 1 --branch preview-pr-12 --json',
  drift: 'datamodel-ci drift --deployment-id 1 --model-dir analytics --json',
  revert: 'datamodel-ci revert --deployment-id 1 --model-dir analytics --commit 3f2c1ab --confirm',
};

/** Run an action command (as its composite step does, or under another name: `as`); returns the exit code. Never throws. */
export async function runActionCommand<C extends CommandName>(command: C, argv: string[], io: Io, as?: string | RunAs): Promise<number> {
  const [{ runAction }, handler] = await Promise.all([import('./action-run.js'), actionHandlers[command]()]);
  return runAction(command, handler, argv, io, as);
}

const actionCommands: CommandSpec[] = ACTIONS.map((a) => ({
  name: a.command,
  summary: a.description,
  description: `Runs as the GitHub Action "${a.title}" too (${a.dir === '.' ? 'action.yml' : `${a.dir}/action.yml`}); in a terminal, the outputs are printed as name=value lines.`,
  flags: ACTION_FLAGS(a.command),
  example: EXAMPLES[a.command] ?? `datamodel-ci ${a.command} --deployment-id 1`,
  action: true,
  run: (argv: string[], io: Io) => runActionCommand(a.command, argv, io),
}));

const DIFF_FLAGS = [...ACTION_FLAGS('impact'), DATA_FLAG, OUT_FLAG];

/** `diff`: the impact action under the name a terminal user looks for; `--json` carries the change set as `result`. */
const diff: CommandSpec = {
  name: 'diff',
  summary: "What a branch changes in the semantic layer against production's, the content its breaking changes hit, and (--data) how the numbers move.",
  description:
    "The impact action under another name: compares the branch's staging /meta and model files with production's; --data also runs the key queries on both (the data diff); the agents/ folder is checked against the branch's compiled model (an error exits 1), and --evals on compares the agents' eval questions on the branch and production (docs/agents.md); --json carries the whole change set (and data diff) as \"result\". The log ends with the review by name (the members changed, the content the breaking ones hit, each persona's changes, each key query, the rollups) and where the detail files went (--out, else a folder of the run's own).",
  flags: DIFF_FLAGS,
  example: 'datamodel-ci diff --deployment-id 1 --branch preview-pr-12 --data',
  action: false,
  run: (argv: string[], io: Io) => runActionCommand('impact', dataFlag(argv), io, { name: 'diff', flags: DIFF_FLAGS }),
};

/** `plan`: the `pr` action's preview on a branch of its own, printed and removed (plan.ts); it prints no name=value outputs. */
const plan: CommandSpec = {
  ...planSpec,
  run: async (argv: string[], io: Io) => {
    const [{ runAction }, { planCommand }] = await Promise.all([import('./action-run.js'), import('./plan.js')]);
    return runAction('pr', planCommand, dataFlag(argv), io, { name: 'plan', flags: planSpec.flags, outputs: false });
  },
};

/** `--data` (`--data=true`) as the input it stands for, `--data=false` as nothing; anything else as given. */
function dataFlag(argv: string[]): string[] {
  const out: string[] = [];
  for (const a of argv) {
    if (a === '--' || out.includes('--')) out.push(a);
    else if (a === '--data' || a === '--data=true') out.push('--data-diff=values');
    else if (a !== '--data=false') out.push(a);
  }
  return out;
}

/** Every command, in the order of the help. */
export const COMMANDS: readonly CommandSpec[] = [
  ...actionCommands,
  plan,
  diff,
  tool(checkSpec, () => import('./check.js').then((m) => m.checkCommand)),
  tool(doctorSpec, () => import('./doctor.js').then((m) => m.doctorCommand)),
  tool(apiSpec, () => import('./api.js').then((m) => m.apiCommand)),
  tool(endpointsSpec, () => import('./endpoints.js').then((m) => m.endpointsCommand)),
  completion(() => COMMANDS),
  tool(hashModelSpec, () => import('./hash-model.js').then((m) => m.hashModelCommand)),
];

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}
