/**
 * What the action commands share, in the GitHub Actions step and the terminal alike: read every
 * input, decide whether to run at all (a fork's or Dependabot's PR, a missing key: without-key.ts), make the clients, run the command, set
 * the outputs, write the PR comment and the job summary. Exit codes (terminal): 0 done, 1 failed,
 * 2 bad input, 3 platform unreachable or refused; in Actions every failure is 1.
 */
import { InputError, messageOf, PlatformError } from '../client/errors.js';
import { PlatformClient } from '../client/client.js';
import type { CommandName } from '../action-spec.js';
import { readRunContext, type RunContext } from '../github/event.js';
import type { Outputs } from '../pr/presenters.js';
import { PullRequestSide } from '../pr/pull-request.js';
import { createGitHubApi } from '../github/octokit.js';
import type { GitHubApi } from '../github/types.js';
import type { Io } from '../io.js';
import { ActionsReporter } from '../report/actions.js';
import { hintFor } from '../report/hints.js';
import { exitCodeFor, StepFailed } from './exit-codes.js';
import { JsonReporter } from '../report/json.js';
import { retryNotice } from '../report/retry-notice.js';
import type { Reporter } from '../report/reporter.js';
import { TerminalReporter } from '../report/terminal.js';
import { readSettings, sourceOf, type ConnectionSettings, type Settings } from '../settings.js';
import type { OpContext } from '../operations/context.js';
import { UsageError } from './args.js';
import { runWithoutKey, withoutSecrets } from './without-key.js';
import { ACTION_FLAGS, parseFor, type FlagDoc } from './spec.js';
import { RecordsFolder } from '../pr/records.js';

/** One run of an action command: its settings, the event, the platform's side, the pull request's side, and where results go. */
export interface ActionRun<C extends CommandName = CommandName> {
  settings: Settings<C>;
  event: RunContext;
  /** The platform operations' context (client, deployment, reporter, dry run, signal). */
  op: OpContext;
  /** The pull request's side: GitHub, the comment thread, the branch and the PR helpers. */
  pr: PullRequestSide;
  reporter: Reporter;
  out: Outputs;
  /** A JSON value the command's `--json` output carries as `result` (the impact's change set). */
  setResult(value: unknown): void;
  /** The command line's flags as parsed (the inputs are in `settings`; a command's own flags, such as `--keep`, only here). */
  flags: Readonly<Record<string, string | boolean>>;
  /** Where the run's detail files go (the change set, the data diff). */
  records: RecordsFolder;
  /** The process's environment as the command was given it (`plan` names its branch after USER). */
  env: NodeJS.ProcessEnv;
  /** A line of the result on stdout (a command that prints no name=value outputs: `plan`). */
  print(line: string): void;
}

/** An action's handler run as a command of another name (`diff`, `plan`): the name typed, its flags, whether the outputs are printed. */
export interface RunAs {
  name: string;
  /** Its flags (default: the action's inputs, `--json` and `--verbose`). */
  flags?: FlagDoc[];
  /** In a terminal, print the outputs as name=value lines after the run (default true). */
  outputs?: boolean;
}

export type ActionHandler<C extends CommandName> = (run: ActionRun<C>) => Promise<number>;

/** A platform client for `apiUrl` with the run's key and settings (several models may name other tenants). */
export function platformClient(connection: ConnectionSettings & { apiKey: string }, apiUrl: string, reporter: Reporter, inActions: boolean): PlatformClient {
  return new PlatformClient({
    baseUrl: apiUrl,
    apiKey: connection.apiKey,
    authScheme: connection.authScheme,
    timeoutMs: connection.requestTimeoutMs,
    ca: connection.caCert,
    onSecret: (s) => reporter.secret(s),
    logger: { debug: (m) => reporter.debug(m) },
    // In Actions a log line: an annotation would outlive a retry that then succeeded.
    onRetry: retryNotice(inActions ? { warning: (m) => reporter.info(m) } : reporter, apiUrl),
    userAgentSuffix: inActions ? 'github-action' : 'cli',
  });
}

/** Logs and progress go to stderr; stdout keeps the result (name=value outputs, or the JSON document). */
function pickReporter(io: Io, inActions: boolean, json: boolean, verbose: boolean): Reporter {
  if (inActions) return new ActionsReporter();
  return json ? new JsonReporter(io.err, verbose, io.status) : new TerminalReporter(io.err, io.err, verbose, io.status);
}

/** Run an action command with its handler; returns the exit code. Never throws. */
/** `runAs`: the name the user typed when it differs from the action's (`diff` runs `impact`), and that command's flags. */
export async function runAction<C extends CommandName>(
  command: C,
  handler: ActionHandler<C>,
  argv: string[],
  io: Io,
  runAs: string | RunAs = command,
): Promise<number> {
  const { name: as, flags: flagDocs = ACTION_FLAGS(command), outputs: printOutputs = true } = typeof runAs === 'string' ? { name: runAs } : runAs;
  const inActions = io.env.GITHUB_ACTIONS === 'true';
  const out: Outputs = {};
  let reporter: Reporter = pickReporter(io, inActions, false, false);
  let json = false;
  let client: PlatformClient | undefined;
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    reporter.warning(`received ${sig}: stopping`);
    controller.abort(new Error(sig));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let code = 1;
  let apiUrl: string | undefined;
  let result: unknown;
  try {
    const { flags } = parseFor({ name: as, flags: flagDocs }, argv);
    json = flags.json === true;
    reporter = pickReporter(io, inActions, json, flags.verbose === true);
    // Every input, and the event, before anything is sent.
    const settings = readSettings(command, sourceOf(flags, io.env));
    const { connection } = settings;
    apiUrl = connection.apiUrl;
    // Mask before anything can print them.
    if (connection.apiKey) reporter.secret(connection.apiKey);
    if (settings.githubToken) reporter.secret(settings.githubToken);
    const run = readRunContext(io.env);
    // A bad --out is refused here, before any call.
    const records = RecordsFolder.of({ inActions, runnerTemp: io.env.RUNNER_TEMP, out: typeof flags.out === 'string' ? flags.out : undefined });
    if (settings.credentials.deprecation) reporter.warning(settings.credentials.deprecation);
    if (!connection.apiKey && !inActions && !withoutSecrets(run, false)) {
      // In a terminal a missing key is bad input: there is no secret to forget.
      throw new InputError(
        'api-key',
        undefined,
        `an API key (--api-key or DATAMODEL_CI_API_KEY; see docs/cli.md#the-api-key-and-the-deployment-id). In GitHub Actions a missing key fails the step too, unless without-credentials: skip; a fork's or Dependabot's pull request, which gets no secrets, is skipped`,
      );
    }
    // Made only where it is used: after the platform client, whose CA error names the ca-cert input.
    const githubApi = (): GitHubApi | undefined =>
      settings.githubToken && run.repository
        ? createGitHubApi({ token: settings.githubToken, repository: run.repository, apiUrl: run.apiUrl, ca: connection.caCert })
        : undefined;
    const side = (github: GitHubApi | undefined, label?: string) =>
      new PullRequestSide(run, github, reporter, {
        deploymentId: settings.deploymentId,
        apiUrl: connection.apiUrl,
        dryRun: settings.dryRun,
        branchPrefix: settings.branchPrefix,
        ...(label ? { label } : {}),
      });
    if (withoutSecrets(run, !!connection.apiKey) || !connection.apiKey) {
      const sides = () => {
        const github = githubApi();
        return (settings.targets?.map((t) => t.key) ?? [undefined]).map((l) => side(github, l));
      };
      code = await runWithoutKey({ command, run, policy: settings.credentials, reporter, sides });
      out.skipped = 'true';
      return code;
    }
    client = platformClient({ ...connection, apiKey: connection.apiKey }, connection.apiUrl, reporter, inActions);
    const actionRun: ActionRun<C> = {
      settings,
      event: run,
      op: {
        client,
        deploymentId: settings.deploymentId,
        reporter,
        dryRun: settings.dryRun,
        signal: controller.signal,
        requestTimeoutMs: connection.requestTimeoutMs,
        ...(connection.caCert ? { ca: connection.caCert } : {}),
      },
      pr: side(githubApi()),
      reporter,
      out,
      setResult: (value) => {
        result = value;
      },
      flags,
      records,
      env: io.env,
      print: (line) => io.out(line),
    };
    out.skipped = 'false';
    code = await handler(actionRun);
    return code;
  } catch (error) {
    const message = messageOf(error);
    const text = error instanceof StepFailed ? message : `${as}: ${message}`;
    const hint = hintFor(error, apiUrl);
    if (reporter instanceof JsonReporter) reporter.failure(text, hint);
    else reporter.error(hint ? `${text}\nhint: ${hint}` : text);
    const badInput = error instanceof UsageError || error instanceof InputError;
    code = inActions ? 1 : exitCodeFor(error);
    if (!(error instanceof StepFailed || badInput || error instanceof PlatformError) && error instanceof Error && error.stack) reporter.debug(error.stack);
    return code;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    reporter.progress('');
    await client?.close().catch(() => undefined);
    if (reporter instanceof ActionsReporter) {
      for (const [k, v] of Object.entries(out)) reporter.setOutput(k, v);
      await reporter.flush().catch(() => undefined);
    } else if (json) {
      const errors = reporter instanceof JsonReporter ? reporter.errors : [];
      const warnings = reporter instanceof JsonReporter ? reporter.warnings : [];
      io.out(JSON.stringify({ command, exitCode: code, outputs: out, errors, warnings, ...(result !== undefined ? { result } : {}) }));
    } else if (printOutputs) for (const [k, v] of Object.entries(out)) io.out(`${k}=${v}`);
  }
}
