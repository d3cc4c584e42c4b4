/**
 * The corpus of broken models (test/fixtures/broken-models/NN-name/): our model files under `model/`
 * and `intended.json`, the hand-marked place of each error the compiler reports, in its order. Used by
 * test/locate-corpus.test.ts and the bench's figure 7.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLocator, type CompilerError, type ErrorLocation } from '../../src/workflows/locate/index.js';

export const BROKEN_MODELS_DIR = fileURLToPath(new URL('../fixtures/broken-models/', import.meta.url));

/** Where an error belongs; `null` when no place in the model is right (a follow-on crash). */
export interface IntendedPlace {
  file: string | null;
  line: number | null;
}

export interface BrokenModel {
  name: string;
  /** File texts by path relative to the case folder (what model-dir would hold). */
  files: Map<string, string>;
  intended: IntendedPlace[];
}

function readTree(root: string, dir = root, out = new Map<string, string>()): Map<string, string> {
  for (const name of readdirSync(dir).sort()) {
    const abs = join(dir, name);
    if (statSync(abs).isDirectory()) readTree(root, abs, out);
    else out.set(relative(root, abs).split(sep).join('/'), readFileSync(abs, 'utf8'));
  }
  return out;
}

export function loadBrokenModels(): BrokenModel[] {
  return readdirSync(BROKEN_MODELS_DIR)
    .filter((d) => /^\d\d-/.test(d))
    .sort()
    .map((name) => {
      const files = readTree(join(BROKEN_MODELS_DIR, name, 'model'));
      const prefixed = new Map([...files].map(([p, text]) => [`model/${p}`, text]));
      const intended = JSON.parse(readFileSync(join(BROKEN_MODELS_DIR, name, 'intended.json'), 'utf8')) as IntendedPlace[];
      return { name, files: prefixed, intended };
    });
}

let recorded: Record<string, CompilerError[]> | undefined;

/**
 * The compiler's errors for one model. Until the emulator runs Cube's compiler they are read from
 * recorded-errors.json; then the body becomes the emulator's compile of `model.files`, e.g.
 * `return (await compileModel(Object.fromEntries(model.files))).errors;`
 * (packages/emulator/src/build/compiler), and recorded-errors.json goes.
 */
export function compilerErrors(model: BrokenModel): Promise<CompilerError[]> {
  recorded ??= (JSON.parse(readFileSync(join(BROKEN_MODELS_DIR, 'recorded-errors.json'), 'utf8')) as { errors: Record<string, CompilerError[]> }).errors;
  const errors = recorded[model.name];
  if (!errors) throw new Error(`no recorded errors for ${model.name}`);
  return Promise.resolve(errors);
}

export interface Placement {
  model: string;
  error: CompilerError;
  intended: IntendedPlace;
  located: ErrorLocation;
  /** On the intended line of the intended file (or, where no place is right, given no line). */
  onIntendedLine: boolean;
}

const onLine = (intended: IntendedPlace, at: ErrorLocation) =>
  intended.line === null ? at.line === undefined : at.file === intended.file && at.line === intended.line;

/** Locate every error of every model; `withoutFileName` drops the platform's file names first. */
export async function placeCorpus(models: BrokenModel[], options: { withoutFileName?: boolean } = {}): Promise<Placement[]> {
  const out: Placement[] = [];
  for (const model of models) {
    const errors = await compilerErrors(model);
    if (errors.length !== model.intended.length) throw new Error(`${model.name}: ${errors.length} errors, ${model.intended.length} intended places`);
    const locate = createLocator(model.files);
    errors.forEach((error, i) => {
      const asked = options.withoutFileName ? { message: error.message } : error;
      const located = locate(asked);
      const intended = model.intended[i] as IntendedPlace;
      out.push({ model: model.name, error, intended, located, onIntendedLine: onLine(intended, located) });
    });
  }
  return out;
}
