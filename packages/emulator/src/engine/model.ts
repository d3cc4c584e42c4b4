/**
 * A branch's tree as Cube reads it (the files under the model folder), and its compiles, kept by
 * content: validating an unchanged branch, or serving its /meta, does not compile it again.
 */
import { createHash } from 'node:crypto';
import type { FileMap } from '../build/models.js';
import { decodeFile } from '../build/trees.js';
import { compileFiles, type Compilation, type ModelError } from './compile.js';
import type { CompilerFile } from './vendor.js';

/** The files Cube's file repository hands to the compiler (it skips every other file itself). */
const MODEL_FILE = /\.(js|ya?ml|jinja|py)$/;

/** The model folder of a tree: `model/`, else (older projects) `schema/`, as Cube looks for them. */
export function modelRoot(tree: FileMap): string {
  const paths = Object.keys(tree);
  if (paths.some((p) => p.startsWith('model/')) || !paths.some((p) => p.startsWith('schema/'))) return 'model';
  return 'schema';
}

export interface ModelTree {
  /** The model folder, `model` or `schema`. */
  root: string;
  /** Its files, named relative to it, in path order. */
  files: CompilerFile[];
  /** SHA-256 of the names and texts: the cache key. */
  hash: string;
}

export function modelTree(tree: FileMap): ModelTree {
  const root = modelRoot(tree);
  const files = Object.keys(tree)
    .filter((p) => p.startsWith(`${root}/`) && MODEL_FILE.test(p) && !p.split('/').includes('node_modules'))
    .sort()
    .map((p) => ({ fileName: p.slice(root.length + 1), content: decodeFile(tree[p] as string).toString('utf8') }));
  const h = createHash('sha256');
  for (const f of files) h.update(`${f.fileName}\0${f.content}\0`);
  return { root, files, hash: h.digest('hex') };
}

/** A compile of a tree: errors name files by their path in the repository (`model/cubes/orders.yml`). */
export interface CompiledModel extends Compilation {
  root: string;
  hash: string;
  /** True when this answer came from the cache. */
  cached: boolean;
}

/** Compiles kept, by content hash (a compile of a small model is about 0.05 s, of a large one seconds). */
const CACHE_SIZE = 16;
const compiles = new Map<string, Promise<Compilation>>();

function remember(hash: string, compilation: Promise<Compilation>): void {
  compiles.set(hash, compilation);
  while (compiles.size > CACHE_SIZE) compiles.delete(compiles.keys().next().value as string);
  // An internal failure (not a model error) is not kept: the next call tries again.
  compilation.catch(() => compiles.delete(hash));
}

/**
 * Compile a tree, or answer from the cache (shared by every emulator of the process: a compile
 * depends on the files' names and texts only). Concurrent calls for one tree share one compile.
 */
export async function compileTree(tree: FileMap): Promise<CompiledModel> {
  const model = modelTree(tree);
  let compilation = compiles.get(model.hash);
  const cached = compilation !== undefined;
  if (compilation) {
    compiles.delete(model.hash);
    compiles.set(model.hash, compilation);
  } else {
    compilation = compileFiles(model.files);
    remember(model.hash, compilation);
  }
  const c = await compilation;
  const inRepo = (e: ModelError): ModelError => ({ ...e, fileName: e.fileName === null ? null : `${model.root}/${e.fileName}` });
  return { ...c, errors: c.errors.map(inRepo), root: model.root, hash: model.hash, cached };
}

/** Forget every kept compile (tests measuring a cold compile). */
export function forgetCompiles(): void {
  compiles.clear();
}
