/**
 * The terminal entry: `datamodel-ci <command> [--flags]`. Exit codes: 0 done, 1 failed, 2 bad input,
 * 3 platform unreachable or refused (src/commands/exit-codes.ts). stdout carries only the result.
 */
import { messageOf } from './client/errors.js';
import { UsageError } from './commands/args.js';
import { commandHelp, mainHelp } from './commands/help.js';
import { COMMANDS, findCommand } from './commands/index.js';
import { asksForHelp } from './commands/spec.js';
import { processIo, type Io } from './io.js';
import { EXIT, exitCodeFor } from './commands/exit-codes.js';
import { hintFor } from './report/hints.js';
import { VERSION } from './version.js';

/** The --api-url a command line or its variable gives, for the hints (never checked here). */
function apiUrlOf(argv: readonly string[], io: Io): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--api-url') return argv[i + 1];
    if (a.startsWith('--api-url=')) return a.slice('--api-url='.length);
  }
  return io.env.DATAMODEL_CI_API_URL;
}

function unknownCommand(name: string, io: Io): number {
  const near = COMMANDS.filter((c) => !c.hidden && (c.name.startsWith(name.slice(0, 3)) || name.startsWith(c.name))).map((c) => c.name);
  io.err(`datamodel-ci: unknown command "${name}"${near.length ? ` (did you mean ${near.join(' or ')}?)` : ''}. Run "datamodel-ci help" for the list.`);
  return EXIT.badInput;
}

/** Run a command line; returns the exit code. Never throws. */
export async function runCli(argv: string[], io: Io = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v' || name === 'version') {
    io.out(VERSION);
    return EXIT.done;
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    const about = name === 'help' ? rest[0] : undefined;
    if (about) {
      const c = findCommand(about);
      if (!c) return unknownCommand(about, io);
      io.out(commandHelp(c));
      return EXIT.done;
    }
    // No command at all is a usage error: the help goes to stderr, where a script's reader looks.
    if (!name) io.err(mainHelp(COMMANDS));
    else io.out(mainHelp(COMMANDS));
    return name ? EXIT.done : EXIT.badInput;
  }
  const command = findCommand(name);
  if (!command) return unknownCommand(name, io);
  if (asksForHelp(rest)) {
    io.out(commandHelp(command));
    return EXIT.done;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    const message = `datamodel-ci ${name}: ${messageOf(error)}`;
    const hint = hintFor(error, apiUrlOf(rest, io));
    const code = exitCodeFor(error);
    io.err(hint ? `${message}\nhint: ${hint}` : message);
    if (error instanceof UsageError && !message.includes('--help')) io.err(`Run "datamodel-ci ${name} --help" for its flags.`);
    // --json promises one document on stdout, failures included.
    const end = rest.indexOf('--');
    if ((end === -1 ? rest : rest.slice(0, end)).includes('--json')) {
      io.out(JSON.stringify({ command: name, exitCode: code, errors: [{ message, ...(hint ? { hint } : {}) }] }));
    }
    return code;
  }
}
