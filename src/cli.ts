/** The terminal entry: `datamodel-ci <command> [--flags]`. Exit 0 success, 1 failure, 2 usage error. */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError, PlatformError } from './client/errors.js';
import { HttpClient, type HttpMethod } from './client/http.js';
import { PlatformClient, allEndpoints } from './client/client.js';
import { VERSION } from './version.js';
import { UsageError, parseArgs } from './cli/args.js';
import { CONNECTION_FLAGS, connectionOptions } from './cli/connection.js';
import { ACTIONS } from './action-spec.js';
import { renderActionReadme, renderActionYml, updateReadme, updateReadmeExamples } from './action-files.js';
import { runActionCommand } from './commands.js';
import { scanModel } from './workflows/local-model.js';

export interface Io {
  out(line: string): void;
  err(line: string): void;
  env: NodeJS.ProcessEnv;
}

const defaultIo: Io = {
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
  env: process.env,
};

const HELP = `datamodel-ci ${VERSION}: data-model previews for pull requests, on the platform's API.

Usage: datamodel-ci <command> [--flags]

Commands (each also runs as a GitHub Action; inputs as --flags or DATAMODEL_CI_* variables):
  pr                          the PR lifecycle for the pull_request event in GITHUB_EVENT_PATH
  start-dev-branch            make sure the shared branch exists; open dev mode on it
  upload-model                upload the model dir (changed files only), commit, merge into the shared branch
  validate                    validate a branch; errors as file:line annotations
  enable-staging              enable the staging environment of the shared branch
  dbt-sync-and-wait           start a dbt sync and wait for it (--ref, --timeout-minutes)
  merge-to-default            merge the shared branch into the deploy branch
  cleanup-branch              delete the PR's branches, or --mode sweep for closed PRs
  Common: --deployment-id N --branch NAME --model-dir DIR --branch-prefix P --dry-run --json
  See the README of each action in actions/ for all inputs.

Other commands:
  check                       check the connection and the key: list the deployments the key can see
  api <METHOD> <PATH>         send one request to the platform API and print the JSON answer
                              (--data '<json>' for a body)
  endpoints                   list every API operation the client knows (method, path, spec section)
  version                     print the version

Connection (every command that talks to the platform), from flags or variables:
  --api-url URL               DATAMODEL_CI_API_URL     https:// address of the tenant
  --api-key KEY               DATAMODEL_CI_API_KEY     API key (never printed)
  --auth-scheme bearer|api-key DATAMODEL_CI_AUTH_SCHEME Authorization scheme (default bearer)
  --ca-cert PEM|FILE          DATAMODEL_CI_CA_CERT     extra trusted CA (NODE_EXTRA_CA_CERTS works too)
  --timeout SECONDS           DATAMODEL_CI_TIMEOUT     per-request timeout (default 30)
  --json                      machine-readable output
`;

type Command = (argv: string[], io: Io) => Promise<number>;

const commands: Record<string, Command> = {
  ...Object.fromEntries(ACTIONS.map((a) => [a.command, (argv: string[], io: Io) => runActionCommand(a.command, argv, io)])),
  /** Write every action.yml and action README from src/action-spec.ts. */
  async 'generate-actions'(_argv, io) {
    for (const spec of ACTIONS) {
      mkdirSync(spec.dir, { recursive: true });
      writeFileSync(join(spec.dir, 'action.yml'), renderActionYml(spec));
      if (spec.dir !== '.') writeFileSync(join(spec.dir, 'README.md'), renderActionReadme(spec));
      io.out(`wrote ${join(spec.dir, 'action.yml')}`);
    }
    const readme = updateReadme(readFileSync('README.md', 'utf8'), ACTIONS);
    writeFileSync('README.md', updateReadmeExamples(readme, (f) => readFileSync(join('examples', 'workflows', f), 'utf8')));
    io.out('updated the action tables of README.md');
    return 0;
  },
  /** Hidden (bench/): list and hash a model dir as upload-model does; prints the files, bytes and peak RSS. */
  async 'hash-model'(argv, io) {
    const { flags, positionals } = parseArgs(argv, { boolean: ['json'] });
    const [dir] = positionals;
    if (!dir || positionals.length > 1) throw new UsageError(`hash-model: expected one model directory, got ${JSON.stringify(positionals)}`);
    const started = Date.now();
    const files = await scanModel(dir);
    const result = {
      files: files.length,
      bytes: files.reduce((a, f) => a + f.size, 0),
      ms: Date.now() - started,
      // Peak resident set size of this process so far (resourceUsage reports kilobytes).
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
    };
    io.out(flags.json ? JSON.stringify(result) : `${result.files} files, ${result.bytes} bytes in ${result.ms} ms; peak RSS ${result.maxRssBytes} bytes`);
    return 0;
  },
  async version(_argv, io) {
    io.out(VERSION);
    return 0;
  },
  async help(_argv, io) {
    io.out(HELP);
    return 0;
  },
  async endpoints(argv, io) {
    const { flags } = parseArgs(argv, { boolean: ['json'] });
    const list = allEndpoints().map((e) => ({ id: e.id, method: e.method, path: e.path, section: e.section }));
    if (flags.json) io.out(JSON.stringify(list, null, 2));
    else for (const e of list) io.out(`${e.method.padEnd(6)} ${e.path}  (${e.section}, ${e.id})`);
    return 0;
  },
  async check(argv, io) {
    const { flags } = parseArgs(argv, { boolean: ['json'], string: CONNECTION_FLAGS });
    const client = new PlatformClient({ ...connectionOptions(flags, io.env), onSecret: maskInActions(io) });
    try {
      const ids: { id: string | number; name: string }[] = [];
      // Both response forms of spec 4.1 (data.deployments and the vendor's items) are read by the area.
      for await (const d of client.deployments.iterate()) ids.push({ id: d.id, name: d.name });
      if (io.env.GITHUB_OUTPUT) appendFileSync(io.env.GITHUB_OUTPUT, `deployments=${ids.length}\n`);
      if (flags.json) io.out(JSON.stringify({ ok: true, deployments: ids }));
      else {
        io.out(`ok: ${client.http.baseUrl.origin} accepted the key; ${ids.length} deployment(s) visible`);
        for (const d of ids) io.out(`  ${d.id}  ${d.name}`);
      }
      return 0;
    } finally {
      await client.close();
    }
  },
  async api(argv, io) {
    const { flags, positionals } = parseArgs(argv, { boolean: ['json'], string: [...CONNECTION_FLAGS, 'data'] });
    const [method, path] = positionals;
    const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
    if (!method || !methods.includes(method.toUpperCase())) {
      throw new UsageError(`api: expected a method (${methods.join(', ')}) and a path, got ${JSON.stringify(positionals)}`);
    }
    if (!path || !path.startsWith('/')) throw new UsageError(`api: expected a path starting with "/", got ${JSON.stringify(path ?? '')}`);
    let json: unknown;
    if (typeof flags.data === 'string') {
      try {
        json = JSON.parse(flags.data);
      } catch (e) {
        throw new InputError('--data', flags.data, `JSON (${(e as Error).message})`);
      }
    }
    const http = new HttpClient({ ...connectionOptions(flags, io.env), onSecret: maskInActions(io) });
    try {
      const res = await http.send({ method: method.toUpperCase() as HttpMethod, path, json });
      const text = res.text ?? '';
      http.redactor.harvest(safeJson(text));
      io.out(http.redactor.redactText(text));
      return 0;
    } finally {
      await http.close();
    }
  },
};

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** In a GitHub Actions step, mask every secret the client learns. */
function maskInActions(io: Io): ((secret: string) => void) | undefined {
  if (io.env.GITHUB_ACTIONS !== 'true') return undefined;
  return (secret) => io.out(`::add-mask::${secret}`);
}

/** Run a command line; returns the exit code. Never throws. */
export async function runCli(argv: string[], io: Io = defaultIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v') return commands.version!(rest, io);
  if (!name || name === '--help' || name === '-h') {
    io.out(HELP);
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) {
    io.err(`datamodel-ci: unknown command "${name}". Run "datamodel-ci help" for the list.`);
    return 2;
  }
  try {
    return await command(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`datamodel-ci ${name}: ${error.message}`);
      return 2;
    }
    if (error instanceof InputError) {
      io.err(`datamodel-ci ${name}: ${error.message}`);
      return 2;
    }
    if (error instanceof PlatformError) {
      io.err(`datamodel-ci ${name}: ${error.message}`);
      return 1;
    }
    io.err(`datamodel-ci ${name}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

export { PlatformClient };
