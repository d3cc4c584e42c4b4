/**
 * `plan`: the review a pull request would get, from a working copy, before any pull request. Everything
 * it reads of this machine (the model, the key queries, the personas, the flags) is read and checked
 * before the first platform call; the operation (operations/plan.ts) previews on a branch of its own and
 * removes it; the preview is presented as the `pr` action presents it (pr/preview.ts), then printed: text
 * tables (pr/review-text.ts), the comment's body (pr/comment-body.ts), or the change set (`--json`).
 */
import { randomBytes } from 'node:crypto';
import { branchForPlan } from '../branch-names.js';
import { InputError, messageOf } from '../client/errors.js';
import { DEFAULTS } from '../defaults.js';
import { planDataDiff } from '../impact/data/plan.js';
import { headCommit } from '../model/git-commit.js';
import { readLocalModel } from '../model/local-model.js';
import { localModelFiles } from '../model/model-files.js';
import { deployTarget } from '../operations/branch-build.js';
import { ledgerOf } from '../operations/ledger.js';
import { cleanupLine, runPlan, type PlanOutcome } from '../operations/plan.js';
import { readPersonas } from '../personas-input.js';
import { commentBody } from '../pr/comment-body.js';
import { presentPreview, type PreviewShown } from '../pr/preview.js';
import { reportAgentsFindings } from '../pr/present-agents.js';
import { reviewText, stepsText } from '../pr/review-text.js';
import type { ActionRun } from './action-run.js';
import { InputRefused, StepFailed } from './exit-codes.js';
import { projectModel } from './pr-preview.js';

type Format = 'text' | 'markdown';

/** The flags only `plan` has, checked before any call. */
function planFlags(run: ActionRun<'pr'>): { format: Format; keep: boolean; json: boolean } {
  const given = run.flags.format;
  const format = given === undefined ? 'text' : String(given);
  if (format !== 'text' && format !== 'markdown') throw new InputError('format', format, 'text or markdown');
  const json = run.flags.json === true;
  if (json && given !== undefined) throw new InputError('format', format, 'no --format with --json (--json prints the change set as "result")');
  if (run.settings.targets)
    throw new InputError(
      'deployments',
      '(several models)',
      'nothing: plan reviews one model (--model-dir with --deployment-id); unset DATAMODEL_CI_DEPLOYMENTS',
    );
  if (run.settings.dryRun) throw new InputError('dry-run', 'true', 'false: plan removes everything it makes; unset DATAMODEL_CI_DRY_RUN');
  return { format, keep: run.flags.keep === true, json };
}

export async function planCommand(run: ActionRun<'pr'>): Promise<number> {
  const { inputs, modelDir, deploymentId, branchPrefix, connection } = run.settings;
  const flags = planFlags(run);
  const local = await readLocalModel(run.reporter, modelDir, inputs.exclude);
  const numbers = await planDataDiff(inputs.dataDiff, run.event);
  const personas = await readPersonas(inputs.access);
  // The comment names a commit: the working copy's, else none (`local`).
  const headSha = (await headCommit(modelDir)) ?? 'local';
  const branch = branchForPlan(branchPrefix, run.env.USER ?? run.env.USERNAME, randomBytes(3).toString('hex'));
  run.out.branch = branch;
  const target = await deployTarget(run.op);
  // On a deployment fed from a repository, the project root's folder, as the pr action uploads it.
  const project = projectModel(run.reporter, run.op, modelDir, local, target, inputs.exclude);
  const modelFiles = await localModelFiles(project.local, project.dir, { emptyAllowed: true });
  run.reporter.info(
    `plan: ${modelDir} against production (${target.deployBranch}) of deployment ${deploymentId}, on ${branch}, removed after${flags.keep ? ' unless --keep' : ''}`,
  );
  const o = await runPlan(run.op, {
    branch,
    keep: flags.keep,
    deployBranch: target.deployBranch,
    deployMode: target.deployMode,
    local: project.local,
    modelDir: project.dir,
    excluded: project.excluded,
    concurrency: inputs.concurrency,
    via: inputs.via,
    headSha,
    commitMessage: `datamodel-ci plan of ${modelDir}${headSha === 'local' ? '' : ` at ${headSha.slice(0, 7)}`}`,
    allowModelDeletion: inputs.allowModelDeletion,
    smokeTest: inputs.smokeTest,
    agentsFolder: inputs.agentsFolder,
    ...(inputs.evals ? { evals: inputs.evals } : {}),
    smoke: { timeoutMs: DEFAULTS.smokeTimeoutSeconds * 1000 },
    modelFiles,
    numbers,
    personas,
  });
  const shown = o.preview
    ? presentPreview(o.preview, {
        deploymentId,
        apiUrl: connection.apiUrl,
        deployBranch: target.deployBranch,
        dryRun: false,
        failOnInvalid: inputs.failOnInvalid,
        failOnBreaking: inputs.failOnBreaking,
        failOnDataChange: inputs.dataDiff.failOnChange,
        failOnExposure: inputs.access.failOnExposure,
        failOnRollupLoss: !!inputs.dataDiff.failOnRollupLoss,
        failOnVersionSkew: inputs.failOnVersionSkew,
        records: run.records,
      })
    : undefined;
  if (shown) show(run, o, shown, flags, headSha);
  // No preview to show (the branch or the upload refused): `--json` still says what became of the branch.
  else run.setResult({ plan: { branch: o.branch, ...(o.cleanup ? { cleanup: o.cleanup } : {}) } });
  const line = cleanupLine(o, o.preview?.staging?.stagingUrl);
  if (line && flags.format === 'text' && !flags.json) run.print(line);
  else if (line) run.reporter.info(line);
  if (o.cleanup?.left.length) run.out.left = o.cleanup.left.join(',');
  // A cancel says so, whatever the abort made a step throw.
  if (o.cancelled) throw new StepFailed('plan: cancelled before the review was complete');
  if (o.error !== undefined) throw o.error instanceof Error ? o.error : new Error(messageOf(o.error));
  // The key-queries file's own mistake is bad input (exit 2), as `diff` says it.
  if (o.preview?.numbers?.refused) throw new InputRefused(o.preview.numbers.refused);
  if (shown?.failure) throw new StepFailed(shown.failure, o.preview?.failure ? { cause: o.preview.failureCause } : undefined);
  return 0;
}

/** The review, in the form asked for; its outputs and `--json`'s result. */
function show(run: ActionRun<'pr'>, o: PlanOutcome, shown: PreviewShown, flags: { format: Format; json: boolean }, headSha: string): void {
  Object.assign(run.out, shown.outputs);
  const dataDiff = o.preview?.numbers?.result;
  const files = {
    ...(shown.outputs['change-set-file'] ? { changeSet: shown.outputs['change-set-file'] } : {}),
    ...(shown.outputs['data-diff-file'] ? { dataDiff: shown.outputs['data-diff-file'] } : {}),
  };
  run.setResult({
    ...(shown.result as object | undefined),
    ...(dataDiff ? { dataDiff } : {}),
    plan: { branch: o.branch, ...(o.cleanup ? { cleanup: o.cleanup } : {}) },
  });
  // The errors: in the text review on stdout; else where the JSON document or the log has them.
  if (flags.format !== 'text' || flags.json)
    for (const e of shown.errors) run.reporter.error([e.message, ...(e.notes ?? [])].join('\n'), { file: e.file, line: e.line, title: 'data model' });
  if (flags.format !== 'text' || flags.json) reportAgentsFindings(run.reporter, shown.agents?.findings ?? []);
  if (flags.json) return;
  if (flags.format === 'markdown') {
    // What the comment's ledger would hold of this run (its thread adds it the same way).
    run.print(commentBody(run.pr, shown, { headSha, facts: ledgerOf(run.op).toFacts() }).trimEnd());
    return;
  }
  const title = `Plan of ${run.settings.modelDir} against production (${shown.view.deployBranch ?? 'the deploy branch'}) of deployment ${run.settings.deploymentId}, on ${o.branch}`;
  const parts = { impact: shown.impact, access: shown.access, numbers: shown.numbers, cost: shown.cost, agents: shown.agents, evals: shown.view.evals, files };
  for (const line of [title, '', ...stepsText(shown.view, shown.errors), '', ...reviewText(parts)]) run.print(line);
  run.print('');
}
