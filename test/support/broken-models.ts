/**
 * The corpus of broken models (test/fixtures/broken-models/NN-name/): our model files under `model/`
 * and `intended.json`, the hand-marked place of each error Cube's compiler reports (compiled through the
 * emulator's engine, the real `@cubejs-backend/schema-compiler`), in its order. Used by
 * test/locate-corpus.test.ts and the bench's figure 7.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLocator, type CompilerError, type ErrorLocation } from '../../src/workflows/locate/index.js';
import { encodeFile } from '../../packages/emulator/src/build/trees.js';
import { compileTree } from '../../packages/emulator/src/engine/model.js';

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

/** The compiler's errors for one model: Cube's own compiler, as the emulator's validation runs it. */
export async function compilerErrors(model: BrokenModel): Promise<CompilerError[]> {
  const tree: Record<string, string> = {};
  for (const [path, text] of model.files) tree[path] = encodeFile(text);
  const compiled = await compileTree(tree);
  return compiled.errors.map((e) => (e.fileName ? { fileName: e.fileName, message: e.message } : { message: e.message }));
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

/** Every model's compiler errors, by model name (compiled once: a compile takes about half a second). */
export async function compileCorpus(models: BrokenModel[]): Promise<Map<string, CompilerError[]>> {
  const out = new Map<string, CompilerError[]>();
  for (const model of models) out.set(model.name, await compilerErrors(model));
  return out;
}

/** Locate every error of every model; `withoutFileName` drops the platform's file names first. */
export function placeCorpus(models: BrokenModel[], compiled: Map<string, CompilerError[]>, options: { withoutFileName?: boolean } = {}): Placement[] {
  const out: Placement[] = [];
  for (const model of models) {
    const errors = compiled.get(model.name) ?? [];
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
