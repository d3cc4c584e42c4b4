/**
 * `impact` (and `datamodel-ci diff`): what the PR's branch changes in the semantic layer and which
 * content that breaks, and (when asked) how the numbers move; its outputs, the JSON files of the whole
 * change set and data diff, and the comment's sections.
 */
import { planDataDiff } from '../impact/data/plan.js';
import { readPersonas } from '../personas-input.js';
import { readsAfterImpact } from '../operations/rollup-builds.js';
import { presentRollups, withRollups } from '../pr/present-rollups.js';
import { walkModel } from '../model/local-model.js';
import { localModelFiles } from '../model/model-files.js';
import { deployTarget } from '../operations/branch-build.js';
import { analyseImpact } from '../operations/impact.js';
import { checkCubeVersions } from '../operations/cube-versions.js';
import { publish } from '../pr/publish.js';
import { writeFacetChecks } from '../pr/check-run.js';
import { facetChecks, facetSettings } from '../pr/facet-checks.js';
import { presentChangeSet, presentDataDiff, recordChangeSet } from '../pr/records.js';
import { presentVersions } from '../pr/presenters.js';
import { reviewText } from '../pr/review-text.js';
import type { ActionRun } from './action-run.js';
import { InputRefused, StepFailed } from './exit-codes.js';

export async function impactCommand(run: ActionRun<'impact'>): Promise<number> {
  const { modelDir, inputs, deploymentId } = run.settings;
  // The checkout's model, the key queries and the personas are read (and checked) before the first platform call.
  const headFiles = await localModelFiles(await walkModel(modelDir), modelDir);
  const plan = await planDataDiff(inputs.dataDiff, run.event);
  const personas = await readPersonas(inputs.access);
  const [branch, target] = await Promise.all([run.pr.resolveBranch(inputs.branch), deployTarget(run.op)]);
  run.out.branch = branch;
  const checked = checkCubeVersions(run.op, headFiles, modelDir);
  checked.catch(() => undefined);
  const r = await run.reporter.group('Impact on the semantic layer', () =>
    analyseImpact(run.op, { branch, deployBranch: target.deployBranch, headFiles, cliDeploy: target.deployMode === 'cli', personas }),
  );
  const skew = await checked;
  const versions = presentVersions(skew, inputs.failOnVersionSkew);
  // The rollup plans, then the persona probes (the change set, its file and `--json` carry their evidence), then the data diff.
  const reads = await readsAfterImpact(
    run.op,
    plan,
    r,
    () => {
      const presented = presentChangeSet(run.records, deploymentId, r, inputs.failOnBreaking, inputs.access.failOnExposure);
      Object.assign(run.out, presented.outputs, versions.outputs, { status: presented.status });
      // Set before the data diff, so a failure there still carries the change set.
      run.setResult({ ...presented.changeSet, versions: versions.json });
      return presented;
    },
    skew,
  );
  const { rollups, numbers: d, before: impact } = reads;
  const changeSet = { ...impact.changeSet, versions: versions.json };
  const numbers = presentDataDiff(run.records, deploymentId, d, r, inputs.dataDiff.failOnChange);
  Object.assign(run.out, numbers.outputs);
  if (d.result) run.setResult({ ...changeSet, dataDiff: d.result });
  const rolled = presentRollups(rollups, r.head, !!r.rollupsInModel, !!inputs.dataDiff.failOnRollupLoss);
  Object.assign(run.out, rolled.outputs);
  if (rolled.json) run.setResult({ ...changeSet, ...(d.result ? { dataDiff: d.result } : {}), ...rolled.json });
  // The file holds what --json holds but the data diff (its own file).
  const changeSetFile = recordChangeSet(run.records, { ...changeSet, ...rolled.json });
  const cost = withRollups(versions.view.cost, rolled.part);
  // The review by name (members, content, personas, key queries, rollups), as `plan` prints it.
  const files = { changeSet: changeSetFile, ...(numbers.outputs['data-diff-file'] ? { dataDiff: numbers.outputs['data-diff-file'] } : {}) };
  const parts = { impact: impact.impact, ...(impact.access ? { access: impact.access } : {}), ...(numbers.numbers ? { numbers: numbers.numbers } : {}) };
  for (const line of ['', ...reviewText({ ...parts, ...(cost ? { cost } : {}), files })]) run.reporter.info(line);
  const full = { impact: impact.impact, ...numbers.view, ...(impact.access ? { access: impact.access } : {}), ...(cost ? { cost } : {}) };
  await publish(run.pr, { branch, ...impact.view, ...numbers.view, ...(cost ? { cost } : {}) }, { branch }, full);
  // A check per facet on the pull request's head, as the `pr` action writes them.
  await writeFacetChecks(run.pr, facetChecks({ impact: r, numbers: d, rollups, versions: skew }, facetSettings(inputs, modelDir)));
  // The key-queries file's own mistake is bad input (exit 2 in a terminal), named before any other failure.
  if (d.refused) throw new InputRefused(d.refused);
  const failure = impact.failure ?? versions.failure ?? numbers.failure ?? rolled.failure;
  if (failure) throw new StepFailed(failure);
  return 0;
}
