/**
 * `revert`: restore production to a validated model (the last validation record's, or a named commit's),
 * merged only with `confirm`. Everything it checks (the checkout, the record, their agreement) is read
 * before the first platform call; the operation (operations/revert.ts) does the rest.
 */
import { policyGroups } from '../impact/access/layer.js';
import { modelDefinition } from '../impact/definition/source.js';
import { membersOfModel } from '../impact/layer-digest.js';
import { excludeFilter, readLocalModel } from '../model/local-model.js';
import { localModelFiles } from '../model/model-files.js';
import { runRevert } from '../operations/revert.js';
import { revertSource } from '../operations/revert-source.js';
import { annotationText } from '../pr/check-run.js';
import { productionEnvironment, readProductionRecord } from '../pr/production-record.js';
import { revertSummary } from '../pr/revert-summary.js';
import type { ActionRun } from './action-run.js';
import { StepFailed } from './exit-codes.js';

export async function revertCommand(run: ActionRun<'revert'>): Promise<number> {
  const { inputs, modelDir, deploymentId, branchPrefix } = run.settings;
  const local = await readLocalModel(run.reporter, modelDir, inputs.exclude);
  const excluded = excludeFilter(inputs.exclude);
  const environment = productionEnvironment(deploymentId);
  // The last record GitHub keeps (a read of GitHub only): what to restore, or what a named commit is checked against.
  const github = run.pr.github;
  const read = github
    ? await readProductionRecord(github, deploymentId)
    : { problem: `the validation records cannot be read without a GitHub token and GITHUB_REPOSITORY (github-token; the job needs deployments: read)` };
  const last = read && 'record' in read ? { record: read.record, ref: read.ref } : undefined;
  const problem = read && 'problem' in read ? read.problem : undefined;
  if (problem && inputs.commit) run.reporter.warning(`${problem}: ${inputs.commit} is checked with git alone`);
  const source = await revertSource({ modelDir, local, excluded, deploymentId, commit: inputs.commit, last, problem, environment });
  // The model's layer as its files declare it, and the groups its policies name (each layer is read whole with them).
  const definition = modelDefinition(await localModelFiles(local, modelDir));
  const sha7 = source.commit.slice(0, 7);
  const branch = `${branchPrefix}revert-${sha7}`;
  Object.assign(run.out, { branch, commit: source.commit, merged: 'false', 'production-proof': '' });
  run.reporter.info(
    `reverting deployment ${deploymentId} to the model of ${source.commit} (${source.from === 'record' ? `the last validation record, ${environment}` : 'the commit given'}${source.record ? `, validated ${source.record.validatedAt}` : ''})${inputs.confirm ? '' : '; confirm is off: a dry run that merges nothing'}`,
  );
  const r = await runRevert(run.op, {
    source,
    branch,
    confirm: inputs.confirm,
    local,
    modelDir,
    excluded,
    via: inputs.via,
    allowModelDeletion: inputs.allowModelDeletion,
    groups: policyGroups(definition),
    declared: membersOfModel(definition),
    message: `datamodel-ci: revert to ${sha7}${run.event.runId ? ` (run ${run.event.runId})` : ''}`,
  });
  for (const e of r.validation?.errors ?? []) run.reporter.error(annotationText(e), { file: e.file, line: e.line, title: 'data model' });
  Object.assign(run.out, {
    status: r.status,
    merged: String(r.merged),
    'production-proof': r.proof?.status ?? '',
    ...(r.validation ? { valid: String(r.validation.valid), 'error-count': String(r.validation.errors.length) } : {}),
  });
  run.setResult({
    status: r.status,
    commit: r.commit,
    from: source.from,
    branch: r.branch,
    deployBranch: r.deployBranch,
    production: { files: r.before, ...(r.served ? { members: r.served } : {}) },
    ...(r.validation ? { valid: r.validation.valid, errors: r.validation.errors } : {}),
    ...(r.members ? { members: r.members } : r.membersProblem ? { membersProblem: r.membersProblem } : {}),
    merged: r.merged,
    ...(r.proof ? { proof: r.proof } : {}),
    ...(r.cleanup ? { cleanup: r.cleanup } : {}),
  });
  run.reporter.summary(revertSummary(r));
  if (r.failureCause) throw r.failureCause;
  if (r.status === 'served-differs')
    throw new StepFailed(
      `production holds ${sha7}'s files but serves another semantic layer (listed above): nothing a revert merges can change that; rebuild production on the platform`,
    );
  if (r.status === 'invalid') throw new StepFailed(`${sha7}'s model is invalid on the platform today: nothing was merged`);
  if (r.proof && r.proof.status !== 'proven')
    throw new StepFailed(
      r.proof.status === 'differs'
        ? `production differs from ${sha7}'s model after the revert's merge (listed above); nothing more was merged or uploaded`
        : `not proven that production = ${sha7}'s model: ${r.proof.reason ?? 'no reason given'}`,
    );
  return 0;
}
