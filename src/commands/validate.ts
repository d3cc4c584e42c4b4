/** `validate`: compile a branch on the platform; errors become annotations and the comment's error list. */
import { ensureBuilt } from '../operations/branch-build.js';
import { validateBranch } from '../operations/validate.js';
import { resolveBranch, StepFailed, type ActionRun } from './action-run.js';
import { annotate } from './annotate.js';
import { publish, viewErrors } from './publish.js';
import { plural } from '../report/plural.js';

export async function validateCommand(x: ActionRun<'validate'>): Promise<number> {
  const branch = await resolveBranch(x);
  // The platform validates with the branch's running instance: make sure it runs and is built.
  await ensureBuilt(x.op, branch);
  const r = await validateBranch(x.op, { branch, modelDir: x.settings.modelDir });
  await annotate(x, r.errors, r);
  x.out.branch = branch;
  x.out.valid = String(r.valid);
  x.out['error-count'] = String(r.errors.length);
  x.out.status = r.valid ? 'valid' : 'invalid';
  const errors = viewErrors(r.errors);
  await publish(
    x,
    { branch, validation: { valid: r.valid, errorCount: r.errors.length, errors, ...(r.cubes !== undefined ? { cubes: r.cubes } : {}) } },
    { branch },
    { errors },
  );
  if (!r.valid && x.settings.inputs.failOnInvalid) throw new StepFailed(`the data model on ${branch} is invalid: ${plural(r.errors.length, 'error')}`);
  return 0;
}
