/** The texts the locator reads: the YAML and JS files of the model's one walk, read only when there are errors to place. */
import { modelTexts, walkModel, type ModelEntry } from '../local-model.js';

/** A file the locator can read (a model language). */
export const isLocatorFile = (path: string) => /\.(ya?ml|[cm]?js)$/i.test(path);

/**
 * YAML and JS texts of the model, by POSIX path relative to `modelDir` (the platform's keys): from the
 * run's walk when given, else from a walk made now; a folder that cannot be walked places nothing.
 */
export async function readModelTexts(modelDir: string, model?: readonly ModelEntry[]): Promise<Map<string, string>> {
  const files = model ?? (await walkModel(modelDir).catch(() => []));
  return modelTexts(files, isLocatorFile);
}
