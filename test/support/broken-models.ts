/**
 * The corpus of broken models (test/fixtures/broken-models/NN-name/): our model files under `model/`
 * and `intended.json`, the hand-marked place of each error Cube's compiler reports (compiled through the
 * emulator's engine, the real `@cubejs-backend/schema-compiler`), in its order. An error that only echoes
 * another (a join to the cube that failed) is marked `echoOf` that error's index; `changed.json` lists
 * the files the pull request changed (without it: the files of the root causes). The `1NN-` models take
 * the shapes of the vendor's examples and tests (extends, views with prefixes and aliases, folders,
 * hierarchies, access policies, pre-aggregations, JS and YAML), written here. Used by
 * test/locate-corpus.test.ts, test/emulator-parity.test.ts and the bench's figure 7.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { placeErrors, type CompilerError, type ErrorLocation } from '../../src/model/locate/index.js';
import { encodeFile } from '../../packages/emulator/src/build/trees.js';
import { compileTree } from '../../packages/emulator/src/engine/model.js';

export const BROKEN_MODELS_DIR = fileURLToPath(new URL('../fixtures/broken-models/', import.meta.url));

/** Where an error belongs; `null` when no place in the model is right (a follow-on crash). */
export interface IntendedPlace {
  /** The file Cube reports the error in (for an echo, its own file). */
  file: string | null;
  line: number | null;
  /** An echo: the index of the root cause it repeats. */
  echoOf?: number;
  /** The file Cube reports the error in when it is not `file` (`null`: none, as for a circular `extends`). */
  reported?: string | null;
}

export interface BrokenModel {
  name: string;
  /** File texts by path relative to the case folder (what model-dir would hold). */
  files: Map<string, string>;
  intended: IntendedPlace[];
  /** Files the pull request changed. */
  changed: string[];
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
    .filter((d) => /^\d{2,3}-/.test(d))
    .sort((a, b) => parseInt(a, 10) - parseInt(b, 10))
    .map((name) => {
      const files = readTree(join(BROKEN_MODELS_DIR, name, 'model'));
      const prefixed = new Map([...files].map(([p, text]) => [`model/${p}`, text]));
      const intended = JSON.parse(readFileSync(join(BROKEN_MODELS_DIR, name, 'intended.json'), 'utf8')) as IntendedPlace[];
      const changedFile = join(BROKEN_MODELS_DIR, name, 'changed.json');
      const roots = intended.filter((p) => p.echoOf === undefined && p.file).map((p) => p.file as string);
      const changed = existsSync(changedFile) ? (JSON.parse(readFileSync(changedFile, 'utf8')) as string[]) : [...new Set(roots)];
      return { name, files: prefixed, intended, changed };
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
  /** The root cause the locator folded this error under (its index), when it called it an echo. */
  echoOf?: number;
  /** On the intended line of the intended file (or, where no place is right, given no line). */
  onIntendedLine: boolean;
  /** The file is one the pull request changed. */
  onChangedFile: boolean;
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
    const placed = placeErrors(
      errors.map((e) => (options.withoutFileName ? { message: e.message } : e)),
      model.files,
    );
    errors.forEach((error, i) => {
      const { at: located, echoOf } = placed[i]!;
      const intended = model.intended[i] as IntendedPlace;
      const onChangedFile = !!located.file && model.changed.includes(located.file);
      out.push({
        model: model.name,
        error,
        intended,
        located,
        ...(echoOf !== undefined ? { echoOf } : {}),
        onIntendedLine: onLine(intended, located),
        onChangedFile,
      });
    });
  }
  return out;
}

/** The three figures of the corpus: root causes on their line, echoes left as errors on unchanged files, and the reverse. */
export function corpusFigures(placed: Placement[]) {
  const roots = placed.filter((p) => p.intended.echoOf === undefined);
  const echoes = placed.filter((p) => p.intended.echoOf !== undefined);
  return {
    roots: roots.length,
    rootsOnIntendedLine: roots.filter((p) => p.onIntendedLine).length,
    echoes: echoes.length,
    echoesFolded: echoes.filter((p) => p.echoOf === p.intended.echoOf).length,
    /** Echoes the toolkit would show as error annotations on files the pull request did not change. */
    echoesAsErrorsOnUnchangedFiles: echoes
      .filter((p) => p.echoOf === undefined && !p.onChangedFile)
      .map((p) => `${p.model}: ${p.error.message.split('\n', 1)[0]}`),
    /** Root causes folded under another error (hidden as errors): must be none. */
    rootsHidden: roots.filter((p) => p.echoOf !== undefined).map((p) => `${p.model}: ${p.error.message.split('\n', 1)[0]}`),
  };
}
