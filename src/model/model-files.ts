/**
 * The files Cube compiles as the model: under `model/` (else the older `schema/`), in a model language,
 * as its file repository picks them. The pull request's side is read from the run's walk of the
 * checkout: a `model-dir` that holds no model is a clear error, never an empty side that turns every
 * member "made private" into "removed".
 */
import { InputError } from '../client/errors.js';
import { isModelFile, otherModelsHint } from './guard.js';
import { modelTexts, type ModelEntry } from './local-model.js';

/** Paths (repository-relative, POSIX) to texts. */
export type FileTexts = Map<string, string>;

/** Of these paths, those Cube reads as the model: under `model/`, else under `schema/` when there is no `model/`. */
export function modelPaths(paths: readonly string[]): Set<string> {
  const root = paths.some((p) => p.startsWith('model/')) || !paths.some((p) => p.startsWith('schema/')) ? 'model/' : 'schema/';
  return new Set(paths.filter((p) => p.startsWith(root) && isModelFile(p) && !p.split('/').includes('node_modules')));
}

/** The files Cube reads as the model, of a set of texts. */
export function modelFilesOf(all: ReadonlyMap<string, string>): FileTexts {
  const keep = modelPaths([...all.keys()]);
  return new Map([...all].filter(([p]) => keep.has(p)));
}

/**
 * The checkout's model files, read from the run's walk (what is uploaded); an InputError when
 * `modelDir` holds none, unless `emptyAllowed` (the PR lifecycle, whose upload guard decides whether an
 * empty model may go, with `allow-model-deletion`; the definition diff then says it did not run).
 */
export async function localModelFiles(model: readonly ModelEntry[], modelDir: string, options: { emptyAllowed?: boolean } = {}): Promise<FileTexts> {
  const keep = modelPaths(model.map((f) => f.path));
  const files = await modelTexts(model, (p) => keep.has(p));
  if (files.size || options.emptyAllowed) return files;
  throw new InputError(
    'model-dir',
    modelDir,
    `a folder whose model/ (or schema/) holds the data model's YAML or JS files: it holds none${await otherModelsHint(modelDir)}`,
  );
}
