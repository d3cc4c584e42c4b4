/**
 * `validate`: compile a branch on the platform; errors become annotations and the comment's error list.
 * The `agents/` folder is checked too, against the checkout's model files (validate reads no `/meta`):
 * its findings are annotations on the same check, and its errors fail it as the model's do.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { walkModel } from '../model/local-model.js';
import type { AgentsCheck } from '../model/agents/index.js';
import { agentsCheckOf } from '../operations/agents-check.js';
import { presentAgents } from '../pr/present-agents.js';
import { ensureBuilt, enableBranchStaging, deployTarget, markOf, waitForServedBuild } from '../operations/branch-build.js';
import { ledgerOf } from '../operations/ledger.js';
import { validateBranch, validateWhenBuilt, type ValidateResult } from '../operations/validate.js';
import { annotate } from '../pr/check-run.js';
import { presentValidation } from '../pr/presenters.js';
import { publish } from '../pr/publish.js';
import type { ActionRun } from './action-run.js';
import { StepFailed } from './exit-codes.js';

/**
 * The platform validates with the branch's running instance: it must run and be built. The build is the
 * change's when a run of this pull request landed files on the branch (the ledger's mark, from
 * `upload-model`): only then is the verdict the push's. Without one, the build the branch serves now is
 * validated and said to be just that; on a pull request that is no verdict on its push.
 */
async function validateOnEvidence(run: ActionRun<'validate'>, branch: string): Promise<ValidateResult> {
  const { modelDir } = run.settings;
  const ledger = ledgerOf(run.op);
  const landed = ledger.landed?.branch === branch ? ledger.landed : undefined;
  if (landed?.mark) {
    const mark = landed.mark;
    const r = await validateWhenBuilt(run.op, { branch, modelDir }, async () => (await ensureBuilt(run.op, branch, { since: mark }))!);
    ledger.recordValidated({
      branch,
      headSha: run.event.pr?.headSha ?? '',
      valid: r.valid,
      digest: landed.digest,
      ...(r.accepted ? { build: markOf(r.accepted.status) } : {}),
    });
    return r;
  }
  const { deployBranch } = await deployTarget(run.op);
  if (branch !== deployBranch) await enableBranchStaging(run.op, branch);
  if (!run.op.dryRun) await waitForServedBuild(run.op, branch);
  run.reporter.info(
    `validating the build ${branch} serves now: no run of this pull request landed files on it (upload-model), so it is not shown to be any push's`,
  );
  return validateBranch(run.op, { branch, modelDir });
}

/** Validate needs no checkout: without the agents folder (`agents-folder`) under `model-dir` nothing is read. */
async function agentsOfCheckout(modelDir: string, folder: string): Promise<AgentsCheck | undefined> {
  const found = await stat(join(modelDir, folder)).catch(() => undefined);
  if (!found?.isDirectory()) return undefined;
  return agentsCheckOf(await walkModel(modelDir), modelDir, {}, undefined, folder);
}

export async function validateCommand(run: ActionRun<'validate'>): Promise<number> {
  const { inputs, modelDir } = run.settings;
  // Offline, before the first platform call: the agents folder against the model files of the checkout.
  const agentsCheck = await agentsOfCheckout(modelDir, inputs.agentsFolder);
  const agents = agentsCheck ? presentAgents(agentsCheck, inputs.failOnInvalid) : undefined;
  const branch = await run.pr.resolveBranch(inputs.branch);
  run.op.ledger = await run.pr.runLedger();
  const r = await validateOnEvidence(run, branch);
  // On a pull request, a verdict not shown to be of its push is no verdict: the check does not pass on it.
  const unproven =
    run.event.pr && !r.accepted
      ? `${branch} was validated as it is built now, but no run of this pull request uploaded its files (run upload-model first): not a verdict on this push`
      : undefined;
  await annotate(run.pr, r.errors, r, unproven, agentsCheck);
  const shown = presentValidation(r, inputs.failOnInvalid);
  run.out.branch = branch;
  Object.assign(run.out, shown.outputs, agents?.outputs, { status: unproven ? 'not-proven' : shown.status });
  const view = agents ? { agents: agents.view } : {};
  await publish(run.pr, { branch, ...shown.view, ...view }, { branch }, { errors: shown.errors, ...view });
  if (unproven) throw new StepFailed(unproven);
  if (shown.failure) throw new StepFailed(shown.failure);
  if (agents?.failure) throw new StepFailed(agents.failure);
  return 0;
}
