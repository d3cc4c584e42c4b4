/**
 * What the action commands share, in the GitHub Actions step and the terminal alike: read every
 * input, decide whether to run at all (fork PR, missing key), make the clients, run the command, set
 * the outputs, write the PR comment and the job summary. Exit codes (terminal): 0 done, 1 failed,
 * 2 bad input, 3 platform unreachable or refused; in Actions every failure is 1.
 */
import { branchForPr } from '@datamodel-ci/platform-api';
import { InputError, PlatformError } from '../client/errors.js';
import { PlatformClient } from '../client/client.js';
import { actionSpec, inputsOf, type CommandName } from '../action-spec.js';
import { CommentThread } from '../github/comment-thread.js';
import { renderPreview } from '../github/render-preview.js';
import { readRunContext, type RunContext } from '../github/event.js';
import { createGitHubApi } from '../github/octokit.js';
import type { GitHubApi } from '../github/types.js';
import type { Io } from '../io.js';
import { ActionsReporter } from '../report/actions.js';
import { exitCodeFor, hintFor } from '../report/hints.js';
import { JsonReporter } from '../report/json.js';
import { retryNotice } from '../report/retry-notice.js';
import type { Reporter } from '../report/reporter.js';
import { TerminalReporter } from '../report/terminal.js';
import { readSettings, sourceOf, type Settings } from '../settings.js';
import type { OpContext } from '../operations/context.js';
import { UsageError } from './args.js';
import { inputFlags, JSON_FLAG, parseFor, VERBOSE_FLAG, type FlagDoc } from './spec.js';

/** The flags of an action command: the action's inputs, then --json and --verbose. */
export function ACTION_FLAGS(command: CommandName): FlagDoc[] {
  return [...inputFlags(inputsOf(actionSpec(command))), JSON_FLAG, VERBOSE_FLAG];
}

export type Outputs = Record<string, string>;

/** One run of an action command: its settings, the event, the clients and where results go. */
export interface ActionRun<C extends CommandName = CommandName> {
  settings: Settings<C>;
  run: RunContext;
  op: OpContext;
  github: GitHubApi | undefined;
  reporter: Reporter;
  out: Outputs;
  /** The PR's conversation with our comment (listed once per run), when there is a PR and a token. */
  thread(): Promise<CommentThread | undefined>;
  /** A JSON value the command's `--json` output carries as `result` (the impact's change set). */
  setResult(value: unknown): void;
}

export type ActionHandler<C extends CommandName> = (x: ActionRun<C>) => Promise<number>;

/** A failure already reported (annotations, comment); the command exits 1. */
export class StepFailed extends Error {}

/**
 * The shared branch: the input, else `<prefix>pr-<n>` of the event. The ledger only confirms it: a
 * ledger naming any other branch is ignored, so no comment can steer a write or a delete elsewhere.
 */
export async function resolveBranch(x: ActionRun<Exclude<CommandName, 'dbt-sync-and-wait'>>): Promise<string> {
  const given = x.settings.inputs.branch;
  if (given) return given;
  const ledger = (await x.thread())?.ledger;
  if (x.run.pr) {
    const ours = branchForPr(x.settings.branchPrefix, x.run.pr.number);
    // A repository-fed preview records the PR's own head branch: not a stray name.
    if (ledger?.branch && ledger.branch !== ours && ledger.branch !== x.run.pr.headRef) {
      x.reporter.warning(`the PR comment's ledger names branch ${JSON.stringify(ledger.branch)}, not this PR's ${ours}: ignoring it`);
    }
    return ours;
  }
  if (ledger?.branch) return ledger.branch;
  throw new InputError('branch', undefined, 'a branch name (this run has no pull_request event to derive it from)');
}

/** True when the PR's head moved on since this run started: a stale run stops quietly. */
export async function isStale(x: ActionRun): Promise<boolean> {
  const pr = x.run.pr;
  if (!pr || !x.github) return false;
  const current = await x.github.getPull(pr.number).catch(() => undefined);
  return !!current && current.headSha !== pr.headSha;
}

/** The commit message of an upload: the input, else one naming the PR and its head. */
export function commitMessage(x: ActionRun, given?: string): string {
  if (given) return given;
  const pr = x.run.pr;
  return pr ? `datamodel-ci: PR #${pr.number} at ${pr.headSha.slice(0, 7)}` : 'datamodel-ci upload';
}

/** Who the token is: only its own comments are ours (another bot's forged ledger steers nothing). */
async function tokenIdentity(github: GitHubApi, reporter: Reporter): Promise<readonly string[]> {
  const login = await github.login?.();
  if (login) return [login];
  reporter.warning(`could not learn which account the github-token acts as: trusting only comments by ${ACTIONS_BOT}`);
  return [ACTIONS_BOT];
}

/** The account GITHUB_TOKEN writes as. */
const ACTIONS_BOT = 'github-actions[bot]';

/** Logs and progress go to stderr; stdout keeps the result (name=value outputs, or the JSON document). */
function pickReporter(io: Io, inActions: boolean, json: boolean, verbose: boolean): Reporter {
  if (inActions) return new ActionsReporter();
  return json ? new JsonReporter(io.err, verbose, io.status) : new TerminalReporter(io.err, io.err, verbose, io.status);
}

/** Run an action command with its handler; returns the exit code. Never throws. */
/** `as`: the name the user typed when it differs from the action's (`diff` runs `impact`). */
export async function runAction<C extends CommandName>(command: C, handler: ActionHandler<C>, argv: string[], io: Io, as: string = command): Promise<number> {
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
    const { flags } = parseFor({ name: as, flags: ACTION_FLAGS(command) }, argv);
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
    if (!connection.apiKey && !inActions && !run.pr?.fork) {
      // In a terminal nobody reads a skip notice as a failure: a missing key is bad input there.
      throw new InputError(
        'api-key',
        undefined,
        `an API key (--api-key or DATAMODEL_CI_API_KEY; see docs/cli.md#the-api-key-and-the-deployment-id). In GitHub Actions a missing key skips the step instead, because a fork's pull request gets no secrets`,
      );
    }
    if (run.pr?.fork || !connection.apiKey) {
      const why = run.pr?.fork
        ? `pull request #${run.pr.number} comes from a fork: secrets are not available to it, so datamodel-ci skips it`
        : 'no api-key: datamodel-ci skips this step, as it does for a fork pull request, which gets no secrets (set the api-key input from a secret; fail-without-credentials: true fails instead)';
      if (settings.failWithoutCredentials) throw new InputError('api-key', undefined, `an API key (${why}; fail-without-credentials is true)`);
      if (run.pr?.fork) {
        // A fork PR's job is green, so say plainly (a warning and the summary) that nothing was validated.
        const what = `Nothing was validated: pull request #${run.pr.number} comes from a fork, and GitHub gives a fork's workflow no secrets (so no platform key) and a read-only token. A maintainer can validate it by pushing its commits to a branch of this repository, or by running \`datamodel-ci validate\` locally.`;
        reporter.warning(what);
        reporter.summary(
          renderPreview(
            {
              state: 'skipped',
              headSha: run.pr.headSha,
              skipped: what,
              ...(run.runUrl ? { runUrl: run.runUrl } : {}),
              ...(run.repoUrl ? { repoUrl: run.repoUrl } : {}),
            },
            { target: 'summary' },
          ),
        );
      } else reporter.notice(why);
      out.skipped = 'true';
      code = 0;
      return code;
    }
    client = new PlatformClient({
      baseUrl: connection.apiUrl,
      apiKey: connection.apiKey,
      authScheme: connection.authScheme,
      timeoutMs: connection.requestTimeoutMs,
      ...(connection.caCert ? { ca: connection.caCert } : {}),
      onSecret: (s) => reporter.secret(s),
      logger: { debug: (m) => reporter.debug(m) },
      // In Actions a log line: an annotation would outlive a retry that then succeeded.
      onRetry: retryNotice(inActions ? { warning: (m) => reporter.info(m) } : reporter, connection.apiUrl),
      userAgentSuffix: inActions ? 'github-action' : 'cli',
    });
    const github =
      settings.githubToken && run.repository
        ? createGitHubApi({
            token: settings.githubToken,
            repository: run.repository,
            apiUrl: run.apiUrl,
            ...(connection.caCert ? { ca: connection.caCert } : {}),
          })
        : undefined;
    let threadOpened: Promise<CommentThread | undefined> | undefined;
    const x: ActionRun<C> = {
      settings,
      run,
      op: {
        client,
        deploymentId: settings.deploymentId,
        reporter,
        dryRun: settings.dryRun,
        signal: controller.signal,
        requestTimeoutMs: connection.requestTimeoutMs,
      },
      github,
      reporter,
      out,
      thread: () => {
        if (!run.pr || !github) return Promise.resolve(undefined);
        threadOpened ??= CommentThread.open(github, {
          pr: run.pr.number,
          deploymentId: String(settings.deploymentId),
          authors: tokenIdentity(github, reporter),
        }).catch((e: unknown) => {
          reporter.warning(`could not read the pull request comments: ${e instanceof Error ? e.message : String(e)}`);
          return undefined;
        });
        return threadOpened;
      },
      setResult: (value) => {
        result = value;
      },
    };
    out.skipped = 'false';
    code = await handler(x);
    return code;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
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
    } else for (const [k, v] of Object.entries(out)) io.out(`${k}=${v}`);
  }
}
