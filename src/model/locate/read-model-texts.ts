/** The texts the locator reads: the YAML and JS files of the model's one walk, read only when there are errors to place. */
import { modelTexts, type ModelEntry } from '../local-model.js';

/** A file the locator can read (a model language). */
export const isLocatorFile = (path: string) => /\.(ya?ml|[cm]?js)$/i.test(path);

/** YAML and JS texts of a walk of the model, by POSIX path relative to the model folder (the platform's keys). */
export function readModelTexts(model: readonly ModelEntry[]): Promise<Map<string, string>> {
  return modelTexts(model, isLocatorFile);
}
