/** Every command of the CLI, by name: the nine actions and the platform tools. */
import type { CommandName } from '../action-spec.js';
import type { Io } from '../io.js';
import { runAction, type ActionHandler } from './action-run.js';
import { apiCommand } from './api.js';
import { checkCommand } from './check.js';
import { cleanupBranchCommand } from './cleanup-branch.js';
import { dbtSyncCommand } from './dbt-sync-and-wait.js';
import { enableStagingCommand } from './enable-staging.js';
import { doctorCommand } from './doctor.js';
import { endpointsCommand } from './endpoints.js';
import { hashModelCommand } from './hash-model.js';
import { impactCommand } from './impact.js';
import { mergeToDefaultCommand } from './merge-to-default.js';
import { prCommand } from './pr.js';
import { startDevBranchCommand } from './start-dev-branch.js';
import { uploadModelCommand } from './upload-model.js';
import { validateCommand } from './validate.js';

export type Command = (argv: string[], io: Io) => Promise<number>;

const actionHandlers: { [C in CommandName]: ActionHandler<C> } = {
  'start-dev-branch': startDevBranchCommand,
  'upload-model': uploadModelCommand,
  validate: validateCommand,
  'enable-staging': enableStagingCommand,
  'dbt-sync-and-wait': dbtSyncCommand,
  'merge-to-default': mergeToDefaultCommand,
  'cleanup-branch': cleanupBranchCommand,
  impact: impactCommand,
  pr: prCommand,
};

/** Run an action command (as its composite step does); returns the exit code. Never throws. */
export function runActionCommand<C extends CommandName>(command: C, argv: string[], io: Io): Promise<number> {
  return runAction(command, actionHandlers[command], argv, io);
}

export const commands: Record<string, Command> = {
  ...Object.fromEntries((Object.keys(actionHandlers) as CommandName[]).map((name) => [name, (argv: string[], io: Io) => runActionCommand(name, argv, io)])),
  // `diff` is the impact action under the name a terminal user looks for.
  diff: (argv: string[], io: Io) => runActionCommand('impact', argv, io),
  check: checkCommand,
  doctor: doctorCommand,
  api: apiCommand,
  endpoints: endpointsCommand,
  'hash-model': hashModelCommand,
};
