/** The model files the locator looks in: parsed once each, on first use; platform file names resolved to them. */
import { readJsModel } from './js-model.js';
import type { Entity, ModelFile } from './model-tree.js';
import { readYamlModel } from './yaml-model.js';

/** File texts keyed by repository path under model-dir. */
export type ModelTexts = ReadonlyMap<string, string> | Readonly<Record<string, string>>;

export function languageOf(path: string): ModelFile['language'] {
  return /\.ya?ml$/i.test(path) ? 'yaml' : /\.[cm]?js$/i.test(path) ? 'js' : 'other';
}

function readModel(path: string, text: string): ModelFile {
  const language = languageOf(path);
  if (language === 'yaml') return readYamlModel(path, text);
  if (language === 'js') return readJsModel(path, text);
  return { path, language, lines: text.split(/\r?\n/), entities: [] };
}

export const cleanPath = (p: string) => p.replace(/\\/g, '/').replace(/^(\.\/|\/)+/, '');

/** `model/cubes/users.yml:32` (Cube's name for the file of a YAML syntax error) → the path and the line. */
export function splitLineSuffix(fileName: string): { name: string; line?: number } {
  const m = /^(.*\.(?:ya?ml|[cm]?js|jinja|py)):(\d+)$/i.exec(fileName);
  return m ? { name: m[1] as string, line: Number(m[2]) } : { name: fileName };
}

/** The key of a platform file name: as given (project root), under `model/` (Cube's own), or the one key that ends with it. */
export function resolveFileName(fileName: string, paths: readonly string[]): string | undefined {
  const name = cleanPath(fileName);
  if (!name || name.split('/').includes('..')) return undefined;
  for (const candidate of [name, `model/${name}`]) if (paths.includes(candidate)) return candidate;
  const tails = paths.filter((p) => p.endsWith(`/${name}`));
  return tails.length === 1 ? tails[0] : undefined;
}

export class ModelSet {
  readonly paths: readonly string[];
  private readonly texts: ReadonlyMap<string, string>;
  private readonly parsed = new Map<string, ModelFile>();

  constructor(texts: ModelTexts) {
    this.texts = texts instanceof Map ? (texts as ReadonlyMap<string, string>) : new Map(Object.entries(texts as Record<string, string>));
    this.paths = [...this.texts.keys()].sort();
  }

  file(path: string): ModelFile {
    let f = this.parsed.get(path);
    if (!f) this.parsed.set(path, (f = readModel(path, this.texts.get(path) ?? '')));
    return f;
  }

  /** Every YAML and JS model file, in path order. */
  models(): ModelFile[] {
    return this.paths.filter((p) => languageOf(p) !== 'other').map((p) => this.file(p));
  }

  /** Entities named `name`: in `file` when given (the platform named it), else across all files. */
  entitiesNamed(name: string, file?: ModelFile): { file: ModelFile; entity: Entity }[] {
    return (file ? [file] : this.models()).flatMap((f) => f.entities.filter((e) => e.name === name).map((entity) => ({ file: f, entity })));
  }
}
