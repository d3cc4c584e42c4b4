/**
 * The guard against a wrong `model-dir`: an upload that would delete most of the branch's model, or
 * leave it without any cube or view file, is refused unless `allow-model-deletion` says it is meant.
 * Left at `.` when the model lives in `analytics/`, an upload would otherwise empty the branch (and,
 * once merged, production).
 */
import { readdir } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { InputError } from '../client/errors.js';
import { skippedName } from './local-model.js';

/** A file that defines cubes or views: under `model/` (or the older `schema/`), in a model language. */
export function isModelFile(path: string): boolean {
  return /^(model|schema)\//.test(path) && /\.(ya?ml|js|jinja|py)$/i.test(path);
}

/** Folders under `root` (two levels deep) that hold `cube.js` or a `model/` folder, relative to the working directory. */
export async function modelFolders(root: string, depth = 2): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, level: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (entries.some((e) => (e.isFile() && e.name === 'cube.js') || (e.isDirectory() && (e.name === 'model' || e.name === 'schema')))) {
      found.push(relative(process.cwd(), dir).split(sep).join('/') || '.');
    }
    if (level >= depth) return;
    for (const e of entries) if (e.isDirectory() && !skippedName(e.name)) await walk(join(dir, e.name), level + 1);
  };
  await walk(resolve(root), 0);
  return found.sort();
}

/** `; "analytics" holds cube.js or model/`: the other folders under `modelDir` that hold a model, for an error about `model-dir` ('' when none). */
export async function otherModelsHint(modelDir: string): Promise<string> {
  const where = (await modelFolders(modelDir)).filter((f) => resolve(f) !== resolve(modelDir));
  return where.length ? `; ${where.map((f) => JSON.stringify(f)).join(', ')} ${where.length === 1 ? 'holds' : 'hold'} cube.js or model/` : '';
}

export interface GuardInput {
  branch: string;
  modelDir: string;
  /** Paths of the local model. */
  local: readonly string[];
  /** Paths on the branch now. */
  remote: readonly string[];
  /** Paths the upload would delete. */
  remove: readonly string[];
  allow: boolean;
}

/** Throw an InputError when the upload would wipe the branch's model (nothing has been written yet). */
export async function guardModelDeletion(input: GuardInput): Promise<void> {
  if (input.allow) return;
  const remoteModel = input.remote.filter(isModelFile).length;
  if (remoteModel === 0) return;
  const removed = input.remove.filter(isModelFile).length;
  const leftNone = !input.local.some(isModelFile);
  if (!leftNone && removed * 2 <= remoteModel) return;
  const hint = await otherModelsHint(input.modelDir);
  const what = leftNone
    ? `would leave ${input.branch} with no cube or view (${removed} of its ${remoteModel} model files deleted)`
    : `would delete ${removed} of the ${remoteModel} model files on ${input.branch}`;
  throw new InputError(
    'model-dir',
    input.modelDir,
    `the folder that holds cube.js and model/ (the upload ${what}${hint}); set allow-model-deletion: true if the deletion is meant`,
  );
}
