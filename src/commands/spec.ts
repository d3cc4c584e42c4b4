/**
 * What a command takes, in one table per command: its flags (for the action commands, the inputs of
 * src/action-spec.ts), its positional arguments and one example. The parser, `--help`, the docs page
 * and shell completion all read it, so a flag cannot be accepted without being documented.
 */
import { actionSpec, CONNECTION_INPUTS, inputsOf, isBooleanInput, type CommandName, type InputSpec } from '../action-spec.js';
import type { Io } from '../io.js';
import { parseArgs, UsageError, type ParsedArgs } from './args.js';

export type Command = (argv: string[], io: Io) => Promise<number>;

export interface FlagDoc extends InputSpec {
  /** Also read from its `DATAMODEL_CI_*` variable. */
  env: boolean;
  /** Takes no value: `--flag`, `--flag=true`, `--flag=false`. */
  boolean: boolean;
}

export interface CommandSpec {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** More about it, for its own `--help`. */
  description?: string;
  /** Positional arguments: their usage text and how many are taken; none when absent. */
  args?: { usage: string; min: number; max: number; values?: readonly string[] };
  flags: FlagDoc[];
  example: string;
  /** An action of action.yml (its flags are that action's inputs). */
  action: boolean;
  /** Left out of the command list and completion (a bench tool). */
  hidden?: boolean;
  run: Command;
}

/** The inputs of an action or of the connection as flags, each also read from its variable. */
export function inputFlags(inputs: readonly InputSpec[]): FlagDoc[] {
  return inputs.map((i) => ({ ...i, env: true, boolean: isBooleanInput(i) }));
}

/** A flag of the command line only (no variable). */
export function cliFlag(name: string, description: string, boolean: boolean): FlagDoc {
  return { name, description, env: false, boolean, ...(boolean ? { default: 'false' } : {}) };
}

export const JSON_FLAG = cliFlag('json', 'Print one JSON document on stdout (the logs stay on stderr).', true);
export const VERBOSE_FLAG = cliFlag('verbose', 'Print debug lines (each request, each retry) on stderr.', true);
export const HELP_FLAG = cliFlag('help', 'Print this help.', true);

/** The flags of an action command: the action's inputs, then --json and --verbose. */
export function ACTION_FLAGS(command: CommandName): FlagDoc[] {
  return [...inputFlags(inputsOf(actionSpec(command))), JSON_FLAG, VERBOSE_FLAG];
}

/** The connection inputs as flags (each also read from its DATAMODEL_CI_* variable). */
export const CONNECTION_FLAGS = inputFlags(CONNECTION_INPUTS);

/** Values a flag takes, for completion and help (the settings reader checks them). */
export const FLAG_VALUES: Readonly<Record<string, readonly string[]>> = {
  'auth-scheme': ['bearer', 'api-key'],
  'upload-via': ['auto', 'direct', 'dev-mode'],
  mode: ['pr', 'sweep'],
  source: ['git', 'manifest'],
  'data-diff': ['off', 'values', 'relative'],
  'without-credentials': ['fail', 'skip'],
  format: ['text', 'markdown'],
};

/** Flags whose value is a path, for completion. */
export const FLAG_PATHS: Readonly<Record<string, 'file' | 'dir'>> = {
  'ca-cert': 'file',
  'model-dir': 'dir',
  'data-diff-queries': 'file',
  'data-diff-base-queries': 'file',
  personas: 'file',
  out: 'dir',
};

/** Parse `argv` with the command's own flags; refuses unknown flags and arguments it does not take. */
export function parseFor(spec: Pick<CommandSpec, 'name' | 'flags' | 'args'>, argv: readonly string[]): ParsedArgs {
  const parsed = parseArgs(argv, {
    boolean: spec.flags.filter((f) => f.boolean).map((f) => f.name),
    string: spec.flags.filter((f) => !f.boolean).map((f) => f.name),
  });
  const max = spec.args?.max ?? 0;
  if (parsed.positionals.length > max) {
    const extra = parsed.positionals[max];
    throw new UsageError(
      max === 0
        ? `unexpected argument ${JSON.stringify(extra)}: ${spec.name} takes only --flags (see datamodel-ci ${spec.name} --help)`
        : `unexpected argument ${JSON.stringify(extra)} (usage: datamodel-ci ${spec.name} ${spec.args?.usage ?? ''})`,
    );
  }
  if (parsed.positionals.length < (spec.args?.min ?? 0)) {
    throw new UsageError(
      `expected ${spec.args?.usage ?? 'arguments'}, got ${JSON.stringify(parsed.positionals)} (usage: datamodel-ci ${spec.name} ${spec.args?.usage ?? ''})`,
    );
  }
  return parsed;
}

/** True when `--help` or `-h` stands before any `--`. */
export function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}
