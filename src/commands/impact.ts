/**
 * `impact` (and `datamodel-ci diff`): what the PR's branch changes in the semantic layer and which
 * content that breaks, and (when asked) how the numbers move; the check of the `agents/` folder against
 * the compiled model the impact read, and (`evals: on`) the eval delta; its outputs, the JSON files of
 * the whole change set and data diff, and the comment's sections.
 */
import { planDataDiff } from '../impact/data/plan.js';
import { readPersonas } from '../personas-input.js';
import { readsAfterImpact } from '../operations/rollup-builds.js';
import { presentRollups, withRollups } from '../pr/present-rollups.js';
import { walkModel } from '../model/local-model.js';
import { localModelFiles } from '../model/model-files.js';
import { deployTarget } from '../operations/branch-build.js';
import { analyseImpact } from '../operations/impact.js';
import { agentsCheckOf } from '../operations/agents-check.js';
import { evalDelta, evalsNotStarted } from '../operations/evals/run.js';
import { presentAgents, presentEvals, reportAgentsFindings } from '../pr/present-agents.js';
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
  const entries = await walkModel(modelDir);
  const headFiles = await localModelFiles(entries, modelDir);
  const plan = await planDataDiff(inputs.dataDiff, run.event);
  const personas = await readPersonas(inputs.access);
  const [branch, target] = await Promise.all([run.pr.resolveBranch(inputs.branch), deployTarget(run.op)]);
  run.out.branch = branch;
  const checked = checkCubeVersions(run.op, headFiles, modelDir);
  checked.catch(() => undefined);
  const r = await run.reporter.group('Impact on the semantic layer', () =>
    analyseImpact(run.op, { branch, deployBranch: target.deployBranch, headFiles, cliDeploy: target.deployMode === 'cli', personas }),
  );
  // The agents folder, offline: against the compiled model the impact read whole (production's the base), else the files.
  const agentsCheck = await agentsCheckOf(entries, modelDir, { impact: r }, headFiles, inputs.agentsFolder);
  const agents = agentsCheck ? presentAgents(agentsCheck, true) : undefined;
  if (agents) Object.assign(run.out, agents.outputs);
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
      run.setResult({ ...presented.changeSet, versions: versions.json, ...(agents ? { agents: agents.json } : {}) });
      return presented;
    },
    skew,
  );
  const { rollups, numbers: d, before: impact } = reads;
  // The eval delta (`evals: on`): the branch against the deploy branch, with its own bounded wait; not
  // started when the branch's own model could not be read (its agents would not answer from it).
  const asked = inputs.evals;
  const sides = { previewBranch: branch, productionBranch: target.deployBranch };
  const delta = !asked
    ? undefined
    : r.headUnavailable
      ? evalsNotStarted({ ...sides, failOnRegression: asked.failOnRegression }, r.headUnavailable)
      : await run.reporter.group('Agent evals', () => evalDelta(run.op, { ...sides, ...asked }));
  const evals = delta ? presentEvals(delta) : undefined;
  if (evals) Object.assign(run.out, evals.outputs);
  const agentsParts = { ...(agents ? { agents: agents.json } : {}), ...(evals?.json ? { evals: evals.json } : {}) };
  const changeSet = { ...impact.changeSet, versions: versions.json, ...agentsParts };
  const numbers = presentDataDiff(run.records, deploymentId, d, r, inputs.dataDiff.failOnChange);
  Object.assign(run.out, numbers.outputs);
  // The change set again, with the eval delta and the data diff the result gained.
  run.setResult({ ...changeSet, ...(d.result ? { dataDiff: d.result } : {}) });
  const rolled = presentRollups(rollups, r.head, !!r.rollupsInModel, !!inputs.dataDiff.failOnRollupLoss);
  Object.assign(run.out, rolled.outputs);
  if (rolled.json) run.setResult({ ...changeSet, ...(d.result ? { dataDiff: d.result } : {}), ...rolled.json });
  // The file holds what --json holds but the data diff (its own file).
  const changeSetFile = recordChangeSet(run.records, { ...changeSet, ...rolled.json });
  const cost = withRollups(versions.view.cost, rolled.part);
  // The review by name (members, content, personas, key queries, rollups), as `plan` prints it.
  const files = { changeSet: changeSetFile, ...(numbers.outputs['data-diff-file'] ? { dataDiff: numbers.outputs['data-diff-file'] } : {}) };
  const parts = { impact: impact.impact, ...(impact.access ? { access: impact.access } : {}), ...(numbers.numbers ? { numbers: numbers.numbers } : {}) };
  const shownAgents = { ...(agents ? { agents: agents.view } : {}), ...(evals ? { evals: evals.view } : {}) };
  for (const line of ['', ...reviewText({ ...parts, ...(cost ? { cost } : {}), ...shownAgents, files })]) run.reporter.info(line);
  // In a workflow, annotations on their lines; with --json, the document's errors and warnings (as `plan` does).
  if (agents && (run.env.GITHUB_ACTIONS === 'true' || run.flags.json === true)) reportAgentsFindings(run.reporter, agents.json.findings);
  const full = { impact: impact.impact, ...numbers.view, ...(impact.access ? { access: impact.access } : {}), ...(cost ? { cost } : {}), ...shownAgents };
  await publish(run.pr, { branch, ...impact.view, ...numbers.view, ...(cost ? { cost } : {}), ...shownAgents }, { branch }, full);
  // A check per facet on the pull request's head, as the `pr` action writes them.
  await writeFacetChecks(
    run.pr,
    facetChecks({ impact: r, numbers: d, rollups, versions: skew, ...(delta ? { evals: delta } : {}) }, facetSettings(inputs, modelDir)),
  );
  // The key-queries file's own mistake is bad input (exit 2 in a terminal), named before any other failure.
  if (d.refused) throw new InputRefused(d.refused);
  const failure = impact.failure ?? versions.failure ?? numbers.failure ?? rolled.failure ?? agents?.failure ?? evals?.failure;
  if (failure) throw new StepFailed(failure);
  return 0;
}
