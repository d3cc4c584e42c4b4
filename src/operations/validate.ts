/** validate: compile a branch with the platform's own compiler; place each error in the repository's model files. */
import { existsSync } from 'node:fs';
import { isAbsolute, posix, relative, sep } from 'node:path';
import { BadRequestError } from '../client/errors.js';
import type { OpContext } from './context.js';
import { acceptBuild } from './door.js';
import type { AcceptedBuild, ChangeBuild } from './evidence.js';
import { placeErrors, type Precision } from '../model/locate/index.js';
import { readModelTexts, walkModel, type ModelEntry } from '../model/local-model.js';
import { plural } from '../report/plural.js';

export interface ModelError {
  /** Repository path (model-dir joined with the file's path under it), when known. */
  file: string | undefined;
  line: number | undefined;
  /** 1-based, when the place is a key, a reference or a parser's position. */
  column?: number;
  /** How the place was found (see src/model/locate/). */
  precision: Precision;
  /** The platform's message, unchanged. */
  message: string;
  /** What the model files add to the message (the cycle of a circular `extends`, the cube that lacks a primary key). */
  note?: string;
  /** Errors that only echo this one (a join to the cube that failed), folded under it. */
  echoes?: EchoError[];
}

/** An error the platform reports because of another (its root cause): shown under it, never on its own. */
export interface EchoError {
  file: string | undefined;
  line: number | undefined;
  message: string;
}

export interface ValidateResult {
  branch: string;
  valid: boolean;
  /** The root causes, each with its echoes. */
  errors: ModelError[];
  /** Every error the platform reported, echoes included. */
  reported: number;
  /** Cubes and views the platform counted, when it says. */
  cubes?: number;
  /**
   * The build validated, accepted through the door as the change's own: only then is `valid` a verdict
   * on a push. Absent when the branch's served build was validated without such proof (the `validate`
   * command on a branch no run of the pull request landed files on).
   */
  accepted?: AcceptedBuild;
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

export interface ValidateInput {
  branch: string;
  modelDir: string;
  /** The run's walk of the model, when it made one (else the texts are walked for when there are errors). */
  model?: readonly ModelEntry[];
}

export async function validateBranch(ctx: OpContext, input: ValidateInput): Promise<ValidateResult> {
  const r = await ctx.client.dataModel.validate({ deploymentId: ctx.deploymentId, query: { branchName: input.branch } }, { signal: ctx.signal });
  // The checkout's model files, read only when there is something to place in them: from the run's walk, else
  // walked now (a folder that cannot be walked places nothing).
  const model = r.errors.length > 0 ? (input.model ?? (await walkModel(input.modelDir).catch(() => []))) : [];
  const placed = placeErrors(r.errors, await readModelTexts(model));
  const file = (f: string | undefined) => (f ? repoPath(input.modelDir, f) : undefined);
  const errors: ModelError[] = [];
  const rootAt = new Map<number, ModelError>();
  r.errors.forEach((e, i) => {
    const { at, echoOf } = placed[i]!;
    if (echoOf !== undefined) return;
    const error: ModelError = { file: file(at.file), line: at.line, precision: at.precision, message: e.message };
    if (at.column !== undefined) error.column = at.column;
    if (at.note) error.note = at.note;
    errors.push(error);
    rootAt.set(i, error);
  });
  r.errors.forEach((e, i) => {
    const { at, echoOf } = placed[i]!;
    const root = echoOf === undefined ? undefined : rootAt.get(echoOf);
    if (!root) return;
    (root.echoes ??= []).push({ file: file(at.file), line: at.line, message: e.message });
    ctx.reporter.debug(`echo of the error at ${root.file ?? '?'}:${root.line ?? '?'}: ${file(at.file) ?? 'no file named'}: ${e.message.split('\n', 1)[0]}`);
  });
  // The errors are pinned to their lines by the caller (a check run, or the step's annotations).
  const echoes = r.errors.length - errors.length;
  ctx.reporter.info(
    r.valid
      ? `${input.branch}: the data model is valid (${r.cubesCount ?? '?'} cubes and views)`
      : `${input.branch}: ${plural(errors.length, 'error')}${echoes ? ` (and ${plural(echoes, 'echo', 'echoes')} of ${errors.length === 1 ? 'it' : 'them'} on other files)` : ''}`,
  );
  return { branch: input.branch, valid: r.valid, errors, reported: r.errors.length, ...(typeof r.cubesCount === 'number' ? { cubes: r.cubesCount } : {}) };
}

/** The lines shown under an error: what the model files add, and the files its echoes are on. */
export function errorNotes(e: ModelError): string[] {
  const out = e.note ? [e.note] : [];
  // The root's own file says nothing new: an echo there is folded without a word.
  const others = [...new Set((e.echoes ?? []).map((x) => x.file ?? 'no file named'))].filter((f) => f !== e.file);
  if (others.length) out.push(`also breaks: ${others.join(', ')}`);
  return out;
}

/**
 * Wait for the change's build, accept it through the door, then validate; a staging environment that fell
 * asleep between the two (validation answers `Branch is not active`) is waited for once more (`built`
 * wakes it) before validating again.
 */
export async function validateWhenBuilt(ctx: OpContext, input: ValidateInput, built: () => Promise<ChangeBuild>): Promise<ValidateResult> {
  let accepted = acceptBuild(await built());
  try {
    return { ...(await validateBranch(ctx, input)), accepted };
  } catch (e) {
    if (!(e instanceof BadRequestError && /not active/i.test(e.platformMessage ?? ''))) throw e;
    ctx.reporter.info(`${input.branch}: validation answered ${e.platformMessage}; waiting for it to run again`);
    accepted = acceptBuild(await built());
    return { ...(await validateBranch(ctx, input)), accepted };
  }
}
