/**
 * The pull request's model files from the checkout (`model-dir`), read before the first platform call:
 * a `model-dir` that holds no model is a clear error, never an empty side that turns every member
 * "made private" into "removed".
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { InputError } from '../../client/errors.js';
import { skippedName } from '../../workflows/local-model.js';
import { modelFolders } from '../../workflows/model-guard.js';
import { modelFilesOf, type FileTexts } from './files.js';

const MAX_FILES = 10_000;
const MAX_BYTES = 2 * 1024 * 1024;

/** Every file under `model/` and `schema/` of `modelDir`, by repository path (dot-names, `node_modules` skipped). */
async function readTree(modelDir: string): Promise<FileTexts> {
  const out: FileTexts = new Map();
  const walk = async (dir: string, rel: string, depth: number): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      if (out.size >= MAX_FILES || skippedName(e.name)) continue;
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory() && depth < 32) await walk(join(dir, e.name), path, depth + 1);
      else if (e.isFile() && (await stat(join(dir, e.name))).size <= MAX_BYTES) out.set(path, await readFile(join(dir, e.name), 'utf8'));
    }
  };
  for (const root of ['model', 'schema']) await walk(join(modelDir, root), root, 0);
  return out;
}

/**
 * The checkout's model files (those in `only` when given: what is uploaded); an InputError when
 * `modelDir` holds none, unless `emptyAllowed` (the PR lifecycle, whose upload guard decides whether an
 * empty model may go, with `allow-model-deletion`; the definition diff then says it did not run).
 */
export async function localModelFiles(modelDir: string, options: { only?: ReadonlySet<string>; emptyAllowed?: boolean } = {}): Promise<FileTexts> {
  const all = await readTree(modelDir);
  const only = options.only;
  const files = modelFilesOf(only ? new Map([...all].filter(([p]) => only.has(p))) : all);
  if (files.size || options.emptyAllowed) return files;
  const where = (await modelFolders(modelDir)).filter((f) => resolve(f) !== resolve(modelDir));
  const hint = where.length ? `; ${where.map((f) => JSON.stringify(f)).join(', ')} ${where.length === 1 ? 'holds' : 'hold'} cube.js or model/` : '';
  throw new InputError('model-dir', modelDir, `a folder whose model/ (or schema/) holds the data model's YAML or JS files: it holds none${hint}`);
}
