/** `datamodel-ci --help` and `datamodel-ci <command> --help`, written from the command table. */
import { envName } from '../action-spec.js';
import { VERSION } from '../version.js';
import { FLAG_VALUES, type CommandSpec, type FlagDoc } from './spec.js';

const WIDTH = 100;
const FLAG_COLUMN = 30;

/** Markdown of the action table, read in a terminal: no backticks. */
const plain = (s: string) => s.replace(/`/g, '');

/** Words of `text` in lines of at most `width`, the first `first` characters shorter. */
export function wrap(text: string, width: number, first = 0): string[] {
  const lines: string[] = [];
  let line = '';
  let room = width - first;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
      room = width;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** What a flag's value is, in its usage line. */
const PLACEHOLDERS: Readonly<Record<string, string>> = {
  'api-url': 'URL',
  'api-key': 'KEY',
  'ca-cert': 'FILE',
  'deployment-id': 'ID',
  'github-token': 'TOKEN',
  'model-dir': 'DIR',
  'branch-prefix': 'PREFIX',
  'environment-prefix': 'PREFIX',
  'request-timeout': 'SECONDS',
  'smoke-timeout-seconds': 'SECONDS',
  'timeout-minutes': 'MINUTES',
  'min-age': 'AGE',
  concurrency: 'N',
  exclude: 'GLOBS',
  data: 'JSON',
};

/** `--name VALUE` as the help and the docs show it. */
export function flagUsage(f: FlagDoc): string {
  if (f.boolean) return `--${f.name}`;
  const values = FLAG_VALUES[f.name];
  const name = /(^|-)(branch|ref)(-name)?$/.test(f.name) ? 'NAME' : f.name.includes('message') ? 'TEXT' : 'VALUE';
  return `--${f.name} ${values ? values.join('|') : (PLACEHOLDERS[f.name] ?? name)}`;
}

/** What the help says after a flag's description: required, its default, its variable. */
export function flagFacts(f: FlagDoc): string[] {
  const facts: string[] = [];
  if (f.required) facts.push('required');
  else if (f.default?.includes('${{')) facts.push(`in Actions: ${f.default.replace(/\$\{\{\s*(.*?)\s*\}\}/, '$1')}`);
  else if (f.default && f.default !== 'false') facts.push(`default ${f.default}`);
  if (f.env) facts.push(envName(f.name));
  return facts;
}

function flagLines(f: FlagDoc): string[] {
  const head = `  ${flagUsage(f)}`;
  const facts = flagFacts(f);
  const text = `${plain(f.description)}${facts.length ? ` [${facts.join('; ')}]` : ''}`;
  const pad = ' '.repeat(FLAG_COLUMN);
  if (head.length >= FLAG_COLUMN - 1) return [head, ...wrap(text, WIDTH - FLAG_COLUMN).map((l) => pad + l)];
  const [firstLine = '', ...rest] = wrap(text, WIDTH - FLAG_COLUMN);
  return [head.padEnd(FLAG_COLUMN) + firstLine, ...rest.map((l) => pad + l)];
}

export const EXIT_CODES = [
  ['0', 'done'],
  ['1', 'failed (an invalid model with fail-on-invalid, a failed dbt sync, a platform error about the request)'],
  ['2', 'bad input (a flag, a variable or an argument: nothing was sent; a key-queries file naming a member no semantic layer has: only reads were sent)'],
  ['3', 'the platform is unreachable or refused (connection, TLS, timeout, 401, 403, 429 or 5xx after every retry)'],
] as const;

/** The help of one command: usage, what it does, its flags with defaults and variables, one example. */
export function commandHelp(c: CommandSpec): string {
  const out = [`datamodel-ci ${c.name}: ${plain(c.summary)}`, ''];
  out.push(`Usage: datamodel-ci ${c.name}${c.args ? ` ${c.args.usage}` : ''}${c.flags.length ? ' [--flags]' : ''}`);
  if (c.description) out.push('', ...wrap(plain(c.description), WIDTH));
  out.push('', c.flags.some((f) => f.env) ? 'Flags (a flag with a variable is read from it when not given):' : 'Flags:');
  const example = c.flags.find((f) => f.boolean && f.default === 'true') ?? c.flags.find((f) => f.boolean);
  if (example) out.push(`  (a switch takes no value: --${example.name}, or --${example.name}=false to turn it off)`);
  for (const f of c.flags) out.push(...flagLines(f));
  out.push('  --help'.padEnd(FLAG_COLUMN) + 'Print this help.');
  out.push('', 'Example:', `  ${c.example}`, '');
  out.push(`Exit codes: ${EXIT_CODES.map(([code, what]) => `${code} ${what.split(' (')[0]}`).join(', ')}.`);
  return out.join('\n');
}

/** The help of the whole CLI: the commands, the shared connection and the exit codes. */
export function mainHelp(commands: readonly CommandSpec[]): string {
  const listed = commands.filter((c) => !c.hidden);
  const row = (name: string, text: string) => {
    const [first = '', ...rest] = wrap(plain(text), WIDTH - FLAG_COLUMN);
    return [`  ${name}`.padEnd(FLAG_COLUMN) + first, ...rest.map((l) => ' '.repeat(FLAG_COLUMN) + l)];
  };
  const out = [`datamodel-ci ${VERSION}: data-model previews for pull requests, on the platform's API.`, '', 'Usage: datamodel-ci <command> [--flags]', ''];
  out.push('Commands that also run as GitHub Actions:');
  for (const c of listed.filter((c) => c.action)) out.push(...row(c.name, c.summary));
  out.push('', 'Other commands:');
  for (const c of listed.filter((c) => !c.action)) out.push(...row(c.args ? `${c.name} ${c.args.usage}` : c.name, c.summary));
  out.push(...row('version', 'Print the version.'), ...row('help [COMMAND]', 'This text, or the help of a command (as COMMAND --help).'));
  out.push('', 'Every command that talks to the platform reads its connection from flags or variables:');
  out.push(...row('--api-url URL', 'DATAMODEL_CI_API_URL: https:// address of the tenant'));
  out.push(...row('--api-key KEY', 'DATAMODEL_CI_API_KEY: the API key (never printed)'));
  out.push(...row('--ca-cert FILE', 'DATAMODEL_CI_CA_CERT: extra trusted CA (NODE_EXTRA_CA_CERTS works too)'));
  out.push('', 'stdout carries only the result (name=value outputs, or one JSON document with --json); logs go to stderr.');
  out.push('Exit codes:', ...EXIT_CODES.map(([code, what]) => `  ${code}  ${what}`));
  out.push('', 'Run "datamodel-ci <command> --help" for its flags. Docs: docs/cli.md. The platform emulator: npx datamodel-ci-emulator --help');
  return out.join('\n');
}
