/** The terminal entry: `datamodel-ci <command> [--flags]`. Exit 0 success, 1 failure, 2 usage error. */
import { InputError } from './client/errors.js';
import { UsageError } from './commands/args.js';
import { commands } from './commands/index.js';
import { processIo, type Io } from './io.js';
import { VERSION } from './version.js';

const HELP = `datamodel-ci ${VERSION}: data-model previews for pull requests, on the platform's API.

Usage: datamodel-ci <command> [--flags]

Commands (each also runs as a GitHub Action; inputs as --flags or DATAMODEL_CI_* variables):
  pr                          the PR lifecycle for the pull_request event in GITHUB_EVENT_PATH
  start-dev-branch            make sure the shared branch exists; open dev mode on it
  upload-model                upload the model dir (changed files only) to the shared branch
  validate                    validate a branch; errors as file:line annotations
  enable-staging              enable the staging environment of the shared branch
  dbt-sync-and-wait           start a dbt sync and wait for it (--ref, --timeout-minutes)
  merge-to-default            merge the shared branch into the deploy branch
  cleanup-branch              delete the PR's branches, or --mode sweep for closed PRs
  impact                      compare the branch's semantic layer (staging /meta) with production's;
                              list the reports, dashboards and notifications its breaking changes hit
  Common: --deployment-id N --branch NAME --model-dir DIR --branch-prefix P --dry-run --json
  See the README of each action in actions/ for all inputs.

Other commands:
  diff                        the same as impact: --deployment-id N --branch B [--json] (--json: the
                              whole change set as "result")
  doctor                      check a real tenant first: the upload path, hashes, build states, validation
                              errors, staging URL, auth scheme (--deployment-id N; --dry-run only reads)
  check                       check the connection and the key: list the deployments the key can see
  api <METHOD> <PATH>         send one request to the platform API and print the JSON answer
                              (--data '<json>' for a body)
  endpoints                   list every API operation the client knows (method, path, spec section)
  version                     print the version

Connection (every command that talks to the platform), from flags or variables:
  --api-url URL               DATAMODEL_CI_API_URL          https:// address of the tenant
  --api-key KEY               DATAMODEL_CI_API_KEY          API key (never printed)
  --auth-scheme bearer|api-key DATAMODEL_CI_AUTH_SCHEME     Authorization scheme (default bearer)
  --ca-cert PEM|FILE          DATAMODEL_CI_CA_CERT          extra trusted CA (NODE_EXTRA_CA_CERTS works too)
  --request-timeout SECONDS   DATAMODEL_CI_REQUEST_TIMEOUT  per-request timeout (default 30)
  --json                      machine-readable output

The platform emulator (for trying everything offline) is its own command: npx datamodel-ci-emulator --help
`;

/** Run a command line; returns the exit code. Never throws. */
export async function runCli(argv: string[], io: Io = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v' || name === 'version') {
    io.out(VERSION);
    return 0;
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
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
    io.err(`datamodel-ci ${name}: ${error instanceof Error ? error.message : String(error)}`);
    return error instanceof UsageError || error instanceof InputError ? 2 : 1;
  }
}
