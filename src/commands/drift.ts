/**
 * `drift`: production against the model in git (the checkout in model-dir) and the last validated
 * record; the outputs, `--json`'s `result`, the job summary and the deployment's GitHub issue. Nothing is
 * written to the platform. Exit 0 in sync, 1 drift or not proven (unless `fail-on-drift: false`), 3 when
 * the platform cannot be read.
 */
import { messageOf, PlatformError } from '../client/errors.js';
import { excludeFilter, readLocalModel } from '../model/local-model.js';
import { localModelFiles } from '../model/model-files.js';
import { checkDrift, type DriftReport } from '../operations/drift.js';
import type { ValidationRecord } from '../operations/validation-record.js';
import { keepDriftIssue, type IssueOutcome } from '../pr/drift-issue.js';
import { driftJson, driftLines, renderDrift, type DriftContext } from '../pr/drift-render.js';
import { productionEnvironment, readProductionRecord } from '../pr/production-record.js';
import type { ActionRun } from './action-run.js';
import { EXIT, PlatformUnreadable } from './exit-codes.js';

/** The last record the close left for this deployment, or why there is none to compare with. */
async function lastRecord(run: ActionRun<'drift'>): Promise<{ record?: ValidationRecord; note?: string }> {
  const { github } = run.pr;
  const id = run.settings.deploymentId;
  if (!github) return { note: 'no validation record compared: no GitHub token and repository to read it with (github-token, GITHUB_REPOSITORY)' };
  const read = await readProductionRecord(github, id);
  if (!read)
    return { note: `no validation record compared: no GitHub deployment to ${productionEnvironment(id)} yet (the close of a merged pull request writes it)` };
  if ('problem' in read) {
    run.reporter.warning(`${read.problem}: production is compared with the checkout only (the job needs \`deployments: read\`)`);
    return { note: `no validation record compared: ${read.problem}` };
  }
  if (read.record.deploymentId !== id) return { note: `no validation record compared: the newest one is of deployment ${read.record.deploymentId}` };
  return { record: read.record };
}

export async function driftCommand(run: ActionRun<'drift'>): Promise<number> {
  const { modelDir, inputs, deploymentId } = run.settings;
  // The checkout's model is read and checked before the first call.
  const local = await readLocalModel(run.reporter, modelDir, inputs.exclude);
  const texts = await localModelFiles(local, modelDir);
  const { record, note } = await lastRecord(run);
  let report: DriftReport;
  try {
    report = await run.reporter.group('Production against the model in git', () =>
      checkDrift(run.op, {
        local,
        texts,
        excluded: excludeFilter(inputs.exclude),
        ...(record ? { record } : {}),
        buildWaitMs: inputs.buildWaitMs,
        ...(run.event.sha ? { checkoutCommit: run.event.sha } : {}),
      }),
    );
  } catch (e) {
    // The watch only reads: a read the platform refused or never answered means it cannot be read.
    if (e instanceof PlatformError) throw new PlatformUnreadable(`production of deployment ${deploymentId} could not be read: ${messageOf(e)}`, { cause: e });
    throw e;
  }
  const ctx: DriftContext = {
    deploymentId,
    modelDir,
    checkedAt: new Date().toISOString(),
    ...(run.event.runUrl ? { runUrl: run.event.runUrl } : {}),
    ...(note ? { recordNote: note } : {}),
  };
  for (const line of driftLines(report, modelDir)) run.reporter.info(line);
  let issue: IssueOutcome = { action: 'none' };
  const github = run.pr.github;
  if (inputs.issue && github) {
    issue = await keepDriftIssue(
      { github, authors: run.pr.tokenIdentity(github), label: inputs.issueLabel, dryRun: run.settings.dryRun, reporter: run.reporter },
      report,
      ctx,
    );
  } else if (inputs.issue) run.reporter.info('no drift issue kept: no GitHub token and repository (github-token, GITHUB_REPOSITORY)');
  Object.assign(run.out, {
    status: report.status,
    'drift-files': String(report.files.length),
    'drift-members': String(report.members.length),
    cause: report.cause?.kind ?? '',
    'issue-number': issue.number ? String(issue.number) : '',
    'issue-url': issue.url ?? '',
  });
  run.setResult(driftJson(report, ctx, issue.number ? { number: issue.number, url: issue.url ?? '', action: issue.action } : undefined));
  run.reporter.summary(renderDrift(report, ctx, 'summary'));
  if (report.status === 'in-sync') return EXIT.done;
  const what =
    report.status === 'drift' ? 'production differs from the model in git' : `production not proven equal to the model in git: ${report.reason ?? ''}`;
  if (!inputs.failOnDrift) {
    run.reporter.warning(what);
    return EXIT.done;
  }
  run.reporter.error(what);
  return EXIT.failed;
}
