/**
 * The eight action commands, shared by the GitHub Actions steps and the terminal: read the inputs,
 * decide whether to run at all (fork PR, missing key), run the operation, set the outputs, write the
 * PR comment section and the job summary. Exit code 0 success, 1 failure, 2 bad input (terminal).
 */
import { InputError, PlatformError } from './client/errors.js';
import { PlatformClient } from './client/client.js';
import { actionSpec, inputsOf, type CommandName } from './action-spec.js';
import { parseArgs, UsageError } from './cli/args.js';
import { TerminalReporter } from './cli/terminal-reporter.js';
import { ActionsReporter } from './github/actions-reporter.js';
import { readLedger, upsertStickyComment, type Ledger, type SectionName } from './github/comment.js';
import { branchForPr, readRunContext, type RunContext } from './github/event.js';
import { createGitHubApi } from './github/octokit.js';
import {
  cleanupSection,
  errorSection,
  mergeSection,
  previewSection,
  stagingSection,
  sweepTable,
  uploadSection,
  validateSection,
} from './github/sections.js';
import type { GitHubApi } from './github/types.js';
import { InputReader, checkBranchInput, readCommon, sourceOf, type CommonSettings } from './settings.js';
import { cleanupBranch, sweepBranches } from './workflows/cleanup-branch.js';
import type { OpContext } from './workflows/context.js';
import { dbtSyncAndWait } from './workflows/dbt-sync-and-wait.js';
import { enableStaging, smokeTest, type EnableStagingResult } from './workflows/enable-staging.js';
import { mergeToDefault } from './workflows/merge-to-default.js';
import type { Reporter } from './workflows/reporter.js';
import { ensureSharedBranch, startDevBranch } from './workflows/start-dev-branch.js';
import { uploadModel } from './workflows/upload-model.js';
import { validateBranch, type ValidateResult } from './workflows/validate.js';

export interface Io {
  out(line: string): void;
  err(line: string): void;
  env: NodeJS.ProcessEnv;
}

type Outputs = Record<string, string>;

interface Run {
  command: CommandName;
  r: InputReader;
  common: CommonSettings;
  run: RunContext;
  op: OpContext;
  github: GitHubApi | undefined;
  reporter: Reporter;
  out: Outputs;
  /** The names recorded for the PR in the comment's ledger (read once, lazily). */
  ledger(): Promise<Ledger | undefined>;
}

/** A failure already reported (annotations, comment); the command exits 1. */
class StepFailed extends Error {}

/** The shared branch: the input, else the ledger's, else `<prefix>pr-<n>` of the event. */
async function resolveBranch(x: Run): Promise<string> {
  const given = x.r.string('branch');
  if (given) return checkBranchInput('branch', given);
  const ledger = await x.ledger();
  if (ledger?.branch) return ledger.branch;
  if (x.run.pr) return branchForPr(x.common.branchPrefix, x.run.pr.number);
  throw new InputError('branch', undefined, 'a branch name (this run has no pull_request event to derive it from)');
}

/** Replace one section of the PR comment (and record names in the ledger); never fails the step. */
function publish(x: Run, section: SectionName, markdown: string, ledger: Partial<Ledger> = {}): Promise<void> {
  return publishAll(x, { [section]: markdown }, ledger);
}

/** Fail (after the comment says so) unless the PR moved on: a stale run stops quietly. */
async function isStale(x: Run): Promise<boolean> {
  const pr = x.run.pr;
  if (!pr || !x.github) return false;
  const current = await x.github.getPull(pr.number).catch(() => undefined);
  return !!current && current.headSha !== pr.headSha;
}

function commitMessage(x: Run): string {
  const given = x.r.string('commit-message');
  if (given) return given;
  const pr = x.run.pr;
  return pr ? `datamodel-ci: PR #${pr.number} at ${pr.headSha.slice(0, 7)}` : 'datamodel-ci upload';
}

const commands: Record<CommandName, (x: Run) => Promise<number>> = {
  async 'start-dev-branch'(x) {
    const branch = await resolveBranch(x);
    const r = await startDevBranch(x.op, { branch });
    x.out.branch = r.branch;
    x.out['dev-branch'] = r.devBranch ?? '';
    x.out.status = r.created ? 'created' : 'exists';
    await publish(x, 'preview', previewSection({ branch, devBranch: r.devBranch, headSha: x.run.pr?.headSha ?? '', created: r.created }), {
      branch,
      ...(r.devBranch ? { devBranch: r.devBranch } : {}),
      state: 'open',
    });
    return 0;
  },

  async 'upload-model'(x) {
    const branch = await resolveBranch(x);
    const r = await uploadModel(x.op, {
      branch,
      modelDir: x.common.modelDir,
      concurrency: x.r.int('concurrency', 1, 64) ?? 16,
      commitMessage: commitMessage(x),
      isStale: () => isStale(x),
    });
    x.out.branch = branch;
    x.out['dev-branch'] = r.devBranch ?? '';
    x.out.uploaded = String(r.uploaded);
    x.out.deleted = String(r.deleted);
    x.out.status = r.stale ? 'stale' : 'uploaded';
    if (r.stale) {
      x.out.skipped = 'true';
      return 0;
    }
    await publish(
      x,
      'upload',
      uploadSection({ uploaded: r.uploaded, deleted: r.deleted, unchanged: r.unchanged, sent: r.files.sent, removed: r.files.deleted }),
      { branch },
    );
    return 0;
  },

  async validate(x) {
    const branch = await resolveBranch(x);
    const failOnInvalid = x.r.bool('fail-on-invalid');
    const r = await validateBranch(x.op, { branch, modelDir: x.common.modelDir });
    x.out.branch = branch;
    x.out.valid = String(r.valid);
    x.out['error-count'] = String(r.errors.length);
    x.out.status = r.valid ? 'valid' : 'invalid';
    await publish(x, 'validate', validateSection(r), { branch });
    if (!r.valid && failOnInvalid) throw new StepFailed(`the data model on ${branch} is invalid: ${r.errors.length} error(s)`);
    return 0;
  },

  async 'enable-staging'(x) {
    const branch = await resolveBranch(x);
    const r = await enableStaging(x.op, {
      branch,
      smokeTest: x.r.bool('smoke-test'),
      smoke: { timeoutMs: (x.r.int('smoke-timeout-seconds', 1) ?? 120) * 1000, ...(x.common.connection.caCert ? { ca: x.common.connection.caCert } : {}) },
    });
    x.out.branch = branch;
    x.out['staging-url'] = r.stagingUrl ?? '';
    x.out['environment-id'] = r.environmentId ?? '';
    x.out.status = r.stagingUrl ? 'enabled' : 'dry-run';
    await publish(x, 'staging', stagingSection(r), { branch, ...(r.stagingUrl ? { stagingUrl: r.stagingUrl } : {}) });
    return 0;
  },

  async 'dbt-sync-and-wait'(x) {
    const ref = x.r.string('ref');
    const branchName = x.r.string('branch-name');
    const source = x.r.oneOf('source', ['git', 'manifest'] as const);
    const minutes = x.r.positive('timeout-minutes') ?? 30;
    const r = await dbtSyncAndWait(x.op, {
      ...(ref !== undefined ? { ref } : {}),
      ...(branchName ? { branchName: checkBranchInput('branch-name', branchName) } : {}),
      source,
      timeoutMs: minutes * 60_000,
    });
    x.out['sync-job-id'] = r.syncJobId;
    x.out.branch = r.branch;
    x.out.status = r.status;
    x.out['timed-out'] = String(r.timedOut);
    x.reporter.summary(
      `### datamodel-ci: dbt sync\n\n| Run | Branch | Status | Polls |\n|---|---|---|---|\n| \`${r.syncJobId}\` | \`${r.branch}\` | ${r.status} | ${r.polls} |`,
    );
    if (r.status !== 'COMPLETED') throw new StepFailed(`dbt sync ${r.syncJobId} ended ${r.status}${r.error ? `: ${r.error}` : ''}`);
    return 0;
  },

  async 'merge-to-default'(x) {
    const branch = await resolveBranch(x);
    const pr = x.run.pr;
    const message = x.r.string('message') ?? (pr ? `Merge PR #${pr.number}: ${pr.title}` : `Merge ${branch}`);
    // The lifecycle keeps the branch through the merge: its cleanup then removes the branch and the
    // dev branches forked from it (which a removal would re-parent onto the deploy branch).
    const keepBranch = x.command === 'pr' || x.r.bool('keep-branch');
    const r = await mergeToDefault(x.op, { branch, message, keepBranch });
    x.out.branch = branch;
    x.out.merged = String(r.merged);
    x.out.status = r.merged ? 'merged' : 'dry-run';
    await publish(x, 'merge', mergeSection({ ...r, branchDeleted: r.branchDeleted || x.command === 'pr' }), { state: r.merged ? 'merged' : 'open' });
    return 0;
  },

  async 'cleanup-branch'(x) {
    // The lifecycle (`pr`) has no mode input: it always cleans up its own PR.
    const mode = x.command === 'cleanup-branch' ? x.r.oneOf('mode', ['pr', 'sweep'] as const) : 'pr';
    const removeOnUpstream = x.r.bool('remove-on-upstream');
    if (mode === 'sweep') {
      if (!x.github) throw new InputError('github-token', undefined, 'a token and GITHUB_REPOSITORY: the sweep asks GitHub about each PR');
      const rows = await sweepBranches(x.op, {
        prefix: x.common.branchPrefix,
        minAgeMs: x.r.duration('min-age'),
        github: x.github,
        removeOnUpstream,
      });
      const gone = rows.filter((row) => row.action !== 'kept');
      x.out.deleted = String(x.common.dryRun ? 0 : gone.length);
      x.out.status = x.common.dryRun ? 'dry-run' : 'swept';
      x.reporter.info(`${gone.length} of ${rows.length} preview branch(es) ${x.common.dryRun ? 'would be deleted' : 'deleted'}`);
      x.reporter.summary(`### datamodel-ci: sweep${x.common.dryRun ? ' (dry run)' : ''}\n\n${sweepTable(rows)}`);
      return 0;
    }
    const ledger = await x.ledger();
    const branch = await resolveBranch(x);
    const r = await cleanupBranch(x.op, { branch, devBranches: ledger?.devBranch ? [ledger.devBranch] : [], removeOnUpstream });
    x.out.branch = branch;
    x.out.deleted = String(r.deleted.length);
    x.out.status = 'cleaned';
    const merged = x.run.pr?.merged ?? false;
    await publish(x, 'cleanup', cleanupSection({ ...r, merged }), { state: merged ? 'merged' : 'closed' });
    return 0;
  },

  async pr(x) {
    const pr = x.run.pr;
    if (!pr) throw new InputError('event', x.run.eventName, 'a pull_request event (the lifecycle runs on pull requests)');
    if (pr.action === 'closed') {
      const merged = pr.merged && x.r.bool('merge-on-close');
      if (merged) await commands['merge-to-default'](x);
      await commands['cleanup-branch'](x);
      x.out.merged = String(merged);
      return 0;
    }
    if (!['opened', 'synchronize', 'reopened', 'ready_for_review'].includes(pr.action)) {
      x.reporter.notice(`pull_request ${pr.action}: nothing to do`);
      x.out.skipped = 'true';
      return 0;
    }
    return previewLifecycle(x);
  },
};

/**
 * open/synchronize/reopened: branch, upload, validate, staging, then ONE comment write. Calls that do not
 * depend on each other overlap (bench/README.md, figure 3): the staging environment is enabled while the
 * model uploads (it needs only the shared branch), and validation starts as soon as the merge landed.
 */
async function previewLifecycle(x: Run): Promise<number> {
  const pr = x.run.pr!;
  const branch = await resolveBranch(x);
  const failOnInvalid = x.r.bool('fail-on-invalid');
  const sections: Partial<Record<SectionName, string>> = {};
  let failure: string | undefined;
  let ledger: Partial<Ledger> = { branch, state: 'open' };
  // Started once, early, and awaited later (no log group: they run while the upload's group is open).
  let staging: Promise<EnableStagingResult> | undefined;
  let validation: Promise<ValidateResult> | undefined;
  const enable = () => (staging ??= enableStaging(x.op, { branch, smokeTest: false, smoke: { timeoutMs: 120_000 } }));
  const validate = () => (validation ??= validateBranch(x.op, { branch, modelDir: x.common.modelDir }));
  /** Let work started early finish (its outcome unused) before the step ends. */
  const settle = () => Promise.allSettled([staging, validation]);
  try {
    const started = await x.reporter.group('Shared branch', () => ensureSharedBranch(x.op, branch));
    x.out.branch = branch;
    if (!x.common.dryRun) enable().catch(() => undefined);
    const up = await x.reporter.group('Upload the model', () =>
      uploadModel(x.op, {
        branch,
        modelDir: x.common.modelDir,
        concurrency: x.r.int('concurrency', 1, 64) ?? 16,
        commitMessage: commitMessage(x),
        isStale: () => isStale(x),
        // Each landed merge starts a fresh validation (an upload that had to start over merges again).
        onMerged: () => {
          validation = validateBranch(x.op, { branch, modelDir: x.common.modelDir });
          validation.catch(() => undefined);
        },
      }),
    );
    x.out['dev-branch'] = up.devBranch ?? '';
    x.out.uploaded = String(up.uploaded);
    x.out.deleted = String(up.deleted);
    if (up.stale) {
      await settle();
      x.out.skipped = 'true';
      x.out.status = 'stale';
      return 0;
    }
    sections.preview = previewSection({ branch, headSha: pr.headSha, created: started });
    if (x.common.dryRun) {
      x.reporter.info(`dry run: would validate ${branch}, enable its staging environment and update the pull request comment`);
      x.out.status = 'dry-run';
      return 0;
    }
    sections.upload = uploadSection({ uploaded: up.uploaded, deleted: up.deleted, unchanged: up.unchanged, sent: up.files.sent, removed: up.files.deleted });
    const [v, s] = await Promise.all([validate(), enable()]);
    x.out.valid = String(v.valid);
    x.out['error-count'] = String(v.errors.length);
    x.out['staging-url'] = s.stagingUrl ?? '';
    x.out['environment-id'] = s.environmentId ?? '';
    sections.validate = validateSection(v);
    if (x.r.bool('smoke-test') && v.valid && s.stagingUrl) {
      const smoke = await smokeTest(x.op, s.stagingUrl, { timeoutMs: 120_000, ...(x.common.connection.caCert ? { ca: x.common.connection.caCert } : {}) });
      sections.staging = stagingSection({ stagingUrl: s.stagingUrl, smoke });
    } else sections.staging = stagingSection(s);
    if (s.stagingUrl) ledger = { ...ledger, stagingUrl: s.stagingUrl };
    x.out.status = v.valid ? 'valid' : 'invalid';
    if (!v.valid && failOnInvalid) failure = `the data model on ${branch} is invalid: ${v.errors.length} error(s)`;
  } catch (e) {
    await settle();
    if (e instanceof InputError) throw e;
    failure = e instanceof Error ? e.message : String(e);
    sections.staging = errorSection('Preview', failure);
  }
  await publishAll(x, sections, ledger, ['merge', 'cleanup']);
  if (failure) throw new StepFailed(failure);
  return 0;
}

/**
 * Write sections in one comment update and the job summary. `clear` removes sections of an earlier
 * stage (a new push drops the old merge/cleanup notes). Comment trouble is a warning, never a failure.
 */
async function publishAll(x: Run, sections: Partial<Record<SectionName, string>>, ledger: Partial<Ledger>, clear: SectionName[] = []): Promise<void> {
  for (const md of Object.values(sections)) x.reporter.summary(`### datamodel-ci: ${x.command}\n\n${md}`);
  const pr = x.run.pr;
  if (!pr || !x.github || x.common.dryRun) return;
  try {
    const result = await upsertStickyComment(x.github, {
      pr: pr.number,
      deploymentId: String(x.op.deploymentId),
      headSha: pr.headSha,
      runId: Number(x.run.runId ?? 0),
      ...(x.run.runUrl ? { runUrl: x.run.runUrl } : {}),
      update: (current) => ({
        ledger: { ...current?.ledger, ...ledger },
        sections: { ...current?.sections, ...sections, ...Object.fromEntries(clear.map((c) => [c, undefined])) },
      }),
    });
    if (result.reason === 'stale') x.reporter.notice('a newer commit of this pull request owns the comment: not overwriting it');
    if (result.overflow) x.reporter.summary(result.overflow);
    if (result.duplicates.length) x.reporter.warning(`found ${result.duplicates.length} extra datamodel-ci comment(s); updated the oldest`);
  } catch (e) {
    x.reporter.warning(`could not update the pull request comment: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Run an action command; returns the exit code. Never throws. */
export async function runActionCommand(command: CommandName, argv: string[], io: Io): Promise<number> {
  const inActions = io.env.GITHUB_ACTIONS === 'true';
  const spec = actionSpec(command);
  const out: Outputs = {};
  let reporter: ActionsReporter | TerminalReporter = inActions ? new ActionsReporter() : new TerminalReporter(io.out, io.err);
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
  try {
    const { flags } = parseArgs(argv, { boolean: ['json', 'verbose'], string: inputsOf(spec).map((i) => i.name) });
    json = flags.json === true;
    if (!inActions && flags.verbose) reporter = new TerminalReporter(io.out, io.err, true);
    const r = new InputReader(sourceOf(flags, io.env), command);
    const common = readCommon(r);
    // Mask before anything can print them.
    if (common.connection.apiKey) reporter.secret(common.connection.apiKey);
    if (common.githubToken) reporter.secret(common.githubToken);
    const run = readRunContext(io.env);
    if (run.pr?.fork || !common.connection.apiKey) {
      const why = run.pr?.fork
        ? `pull request #${run.pr.number} comes from a fork: secrets are not available to it, so datamodel-ci skips it`
        : 'no api-key: datamodel-ci skips this step (set the api-key input from a secret)';
      if (common.failWithoutCredentials) throw new InputError('api-key', undefined, `an API key (${why}; fail-without-credentials is true)`);
      reporter.notice(why);
      out.skipped = 'true';
      code = 0;
      return code;
    }
    client = new PlatformClient({
      baseUrl: common.connection.apiUrl,
      apiKey: common.connection.apiKey,
      authScheme: common.connection.authScheme,
      timeoutMs: common.requestTimeoutMs,
      ...(common.connection.caCert ? { ca: common.connection.caCert } : {}),
      onSecret: (s) => reporter.secret(s),
      logger: { debug: (m) => reporter.debug(m) },
      userAgentSuffix: inActions ? 'github-action' : 'cli',
    });
    const github =
      common.githubToken && run.repository
        ? createGitHubApi({ token: common.githubToken, repository: run.repository, apiUrl: run.apiUrl, ...(common.connection.caCert ? { ca: common.connection.caCert } : {}) })
        : undefined;
    let ledgerRead: Promise<Ledger | undefined> | undefined;
    const x: Run = {
      command,
      r,
      common,
      run,
      op: { client, deploymentId: common.deploymentId, reporter, dryRun: common.dryRun, signal: controller.signal },
      github,
      reporter,
      out,
      ledger: () => {
        if (!run.pr || !github) return Promise.resolve(undefined);
        ledgerRead ??= readLedger(github, run.pr.number, String(common.deploymentId)).catch((e: unknown) => {
          reporter.warning(`could not read the pull request comment: ${e instanceof Error ? e.message : String(e)}`);
          return undefined;
        });
        return ledgerRead;
      },
    };
    out.skipped = 'false';
    code = await commands[command](x);
    return code;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof StepFailed) reporter.error(message);
    else if (error instanceof UsageError || error instanceof InputError) reporter.error(`${command}: ${message}`);
    else if (error instanceof PlatformError) reporter.error(`${command}: ${message}`);
    else reporter.error(`${command}: ${message}`);
    code = !inActions && (error instanceof UsageError || error instanceof InputError) ? 2 : 1;
    return code;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await client?.close().catch(() => undefined);
    if (reporter instanceof ActionsReporter) {
      for (const [k, v] of Object.entries(out)) reporter.setOutput(k, v);
      await reporter.flush().catch(() => undefined);
    } else if (json) io.out(JSON.stringify({ command, exitCode: code, outputs: out }));
    else for (const [k, v] of Object.entries(out)) io.out(`${k}=${v}`);
  }
}
