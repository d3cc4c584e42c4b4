/** validate: compile a branch with the platform's own compiler; place each error in the repository's model files. */
import { existsSync } from 'node:fs';
import { isAbsolute, posix, relative, sep } from 'node:path';
import { BadRequestError } from '../client/errors.js';
import type { OpContext } from './context.js';
import { createLocator, type Precision } from './locate/index.js';
import { readModelTexts } from './locate/read-model-texts.js';
import { plural } from '../report/plural.js';

export interface ModelError {
  /** Repository path (model-dir joined with the file's path under it), when known. */
  file: string | undefined;
  line: number | undefined;
  /** 1-based, when the place is a key, a reference or a parser's position. */
  column?: number;
  /** How the place was found (see src/workflows/locate/). */
  precision: Precision;
  /** The platform's message, unchanged. */
  message: string;
}

export interface ValidateResult {
  branch: string;
  valid: boolean;
  errors: ModelError[];
  /** Cubes and views the platform counted, when it says. */
  cubes?: number;
}

/** `model-dir` + name, normalised, never escaping the repository. */
function under(modelDir: string, fileName: string): string | undefined {
  if (fileName.split(/[\\/]/).includes('..')) return undefined;
  const joined = posix.normalize(posix.join(modelDir.split('\\').join('/'), fileName.replace(/^\/+/, '')));
  return joined.startsWith('../') || joined === '..' ? undefined : joined.replace(/^\.\//, '');
}

/**
 * Repository path of a platform file name. The platform names files relative to the project root
 * (`model/cubes/orders.yml`) or to its `model/` folder (`cubes/orders.yml`, as Cube's compiler does):
 * whichever exists in the checkout wins, the project root first.
 */
export function repoPath(modelDir: string, fileName: string): string {
  // An absolute model-dir inside the working directory (the checkout in Actions) becomes repository-relative.
  const rel = isAbsolute(modelDir) ? relative(process.cwd(), modelDir).split(sep).join('/') : undefined;
  if (rel !== undefined && !rel.startsWith('..') && !isAbsolute(rel)) modelDir = rel || '.';
  const candidates = [under(modelDir, fileName), under(posix.join(modelDir.split('\\').join('/'), 'model'), fileName)].filter((c): c is string => !!c);
  return candidates.find((c) => existsSync(c)) ?? candidates[0] ?? fileName;
}

export async function validateBranch(ctx: OpContext, input: { branch: string; modelDir: string }): Promise<ValidateResult> {
  const r = await ctx.client.dataModel.validate({ deploymentId: ctx.deploymentId, query: { branchName: input.branch } }, { signal: ctx.signal });
  // The checkout's model files, read only when there is something to place in them.
  const locate = createLocator(r.errors.length > 0 ? await readModelTexts(input.modelDir) : new Map());
  const errors = r.errors.map((e): ModelError => {
    const at = locate(e);
    const error: ModelError = { file: at.file ? repoPath(input.modelDir, at.file) : undefined, line: at.line, precision: at.precision, message: e.message };
    if (at.column !== undefined) error.column = at.column;
    return error;
  });
  // The errors are pinned to their lines by the caller (a check run, or the step's annotations).
  ctx.reporter.info(
    r.valid ? `${input.branch}: the data model is valid (${r.cubesCount ?? '?'} cubes and views)` : `${input.branch}: ${plural(errors.length, 'error')}`,
  );
  return { branch: input.branch, valid: r.valid, errors, ...(typeof r.cubesCount === 'number' ? { cubes: r.cubesCount } : {}) };
}

/**
 * Wait for the build, then validate; a staging environment that fell asleep between the two (validation
 * answers `Branch is not active`) is waited for once more (`built` wakes it) before validating again.
 */
export async function validateWhenBuilt(ctx: OpContext, input: { branch: string; modelDir: string }, built: () => Promise<unknown>): Promise<ValidateResult> {
  await built();
  try {
    return await validateBranch(ctx, input);
  } catch (e) {
    if (!(e instanceof BadRequestError && /not active/i.test(e.platformMessage ?? ''))) throw e;
    ctx.reporter.info(`${input.branch}: validation answered ${e.platformMessage}; waiting for it to run again`);
    await built();
    return validateBranch(ctx, input);
  }
}
