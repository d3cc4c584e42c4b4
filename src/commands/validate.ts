/** `validate`: compile a branch on the platform; errors become annotations and the comment's error list. */
import { ensureBuilt } from '../operations/branch-build.js';
import { validateBranch } from '../operations/validate.js';
import { annotate } from '../pr/check-run.js';
import { presentValidation } from '../pr/presenters.js';
import { publish } from '../pr/publish.js';
import type { ActionRun } from './action-run.js';
import { StepFailed } from './exit-codes.js';

export async function validateCommand(run: ActionRun<'validate'>): Promise<number> {
  const { inputs, modelDir } = run.settings;
  const branch = await run.pr.resolveBranch(inputs.branch);
  // The platform validates with the branch's running instance: make sure it runs and is built.
  await ensureBuilt(run.op, branch);
  const r = await validateBranch(run.op, { branch, modelDir });
  await annotate(run.pr, r.errors, r);
  const shown = presentValidation(r, inputs.failOnInvalid);
  run.out.branch = branch;
  Object.assign(run.out, shown.outputs, { status: shown.status });
  await publish(run.pr, { branch, ...shown.view }, { branch }, { errors: shown.errors });
  if (shown.failure) throw new StepFailed(shown.failure);
  return 0;
}
