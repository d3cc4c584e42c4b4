/**
 * The local data model: the one walk of `model-dir` (exclude honoured), each file's POSIX path and
 * SHA-1, and the texts read on demand. A run walks it once and passes the list down.
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { lstat, open, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import { InputError } from '../client/errors.js';
import type { Reporter } from '../report/reporter.js';
import { languageOf } from './locate/model-set.js';

/** A file of the model as the walk finds it. */
export interface ModelEntry {
  /** POSIX path relative to the model dir (the platform's key). */
  path: string;
  /** Absolute path on disk. */
  abs: string;
  size: number;
  /** The bytes, for a file made in memory (the doctor's), instead of reading `abs`. */
  bytes?: Buffer;
}

/** A file of the model, hashed as the platform keys it. */
export interface LocalFile extends ModelEntry {
  sha1: string;
}

/** SHA-1 hex of bytes in memory (the platform's file hash). */
export function sha1Of(bytes: Buffer): string {
  return createHash('sha1').update(bytes).digest('hex');
}

/**
 * Names never uploaded, at any depth (the vendor's own selection): every dot-name but `.gitignore`
 * (so `.env`, `.git`, `.github` stay home), `node_modules` and `dashboard-app`.
 */
export function skippedName(name: string): boolean {
  return (name.startsWith('.') && name !== '.gitignore') || name === 'node_modules' || name === 'dashboard-app';
}
/** A path the walk never reaches: one of its folders or its own name is skipped (a remote `.github/…`, say). */
export function skippedPath(path: string): boolean {
  return path.split('/').some(skippedName);
}

/** A test on a POSIX path of the model (relative to the model dir): `exclude`'s globs, say. */
export type PathFilter = (path: string) => boolean;

/** The paths `exclude`'s globs leave out (dotfiles matched too); nothing for no globs. */
export function excludeFilter(globs: readonly string[] = []): PathFilter {
  return globs.length ? picomatch([...globs], { dot: true }) : () => false;
}

/** The largest file the toolkit sends (the platform's data models are text). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** Files the platform reads as text: they must be UTF-8. */
const TEXT_FILE = /\.(ya?ml|js|cjs|mjs|ts|json|sql|jinja|md)$/i;

/** Bytes read at a time; a file that fits is hashed and checked from one read. */
const CHUNK_BYTES = 256 * 1024;

/** Read buffers, reused across files: hashing a large model allocates a few, not one per file. */
const spare: Buffer[] = [];

/** SHA-1 of a file, read in chunks into a reused buffer; with `utf8Name`, also check the bytes are UTF-8. */
export async function sha1File(abs: string, utf8Name?: string): Promise<string> {
  const buffer = spare.pop() ?? Buffer.allocUnsafeSlow(CHUNK_BYTES);
  const file = await open(abs, 'r');
  try {
    const hash = createHash('sha1');
    const decoder = utf8Name ? new TextDecoder('utf-8', { fatal: true }) : undefined;
    for (let first = true; ; first = false) {
      let filled = 0;
      for (let n = -1; n !== 0 && filled < buffer.length; filled += n) n = (await file.read(buffer, filled, buffer.length - filled)).bytesRead;
      const chunk = buffer.subarray(0, filled);
      hash.update(chunk);
      const last = filled < buffer.length;
      // A file read in one go is checked without decoding it; a longer one is decoded as a stream.
      if (utf8Name && first && last) {
        // Decoding as a stream leaves a sequence cut short at the end undecoded, where it refuses a bad one inside.
        if (!isUtf8(chunk))
          throw refusal(
            utf8Name,
            decodes(() => new TextDecoder('utf-8', { fatal: true }).decode(chunk, { stream: true })),
          );
      } else if (decoder) {
        if (!decodes(() => decoder.decode(chunk, { stream: true }))) throw refusal(utf8Name as string, false);
        if (last && !decodes(() => decoder.decode())) throw refusal(utf8Name as string, true);
      }
      if (last) return hash.digest('hex');
    }
  } finally {
    await file.close();
    spare.push(buffer);
  }
}

const decodes = (decode: () => unknown): boolean => {
  try {
    decode();
    return true;
  } catch {
    return false;
  }
};

/** The refusal of a file that is not UTF-8: a bad sequence inside, or one cut short at its end. */
const refusal = (name: string, cutShort: boolean) =>
  new InputError(`model-dir file ${name}`, cutShort ? 'a truncated UTF-8 sequence at the end' : 'bytes that are not UTF-8', 'a UTF-8 text file');

/** Run `fn` over `items` with at most `limit` in flight; results keep the input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  // The first failure, rethrown as caught once the workers stop.
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i] as T, i);
      } catch (e) {
        failure ??= { error: e };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure !== undefined) throw failure.error;
  return out;
}

/**
 * List the model (the one walk). Refuses a symlink that leaves the model dir, a path with `..`, and a
 * file over MAX_FILE_BYTES, naming the file; symlinks inside the dir are followed.
 */
export interface ScanOptions {
  concurrency?: number;
  /** Globs of POSIX paths (relative to the model dir) not to upload, e.g. `model/drafts/**`. */
  exclude?: readonly string[];
}

export async function walkModel(modelDir: string, options: Pick<ScanOptions, 'exclude'> = {}): Promise<ModelEntry[]> {
  const excluded = excludeFilter(options.exclude);
  const root = resolve(modelDir);
  let rootReal: string;
  try {
    const st = await stat(root);
    if (!st.isDirectory()) throw new InputError('model-dir', modelDir, 'a directory');
    rootReal = await realpath(root);
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError('model-dir', modelDir, `an existing directory (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const found: { path: string; abs: string; size: number }[] = [];
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  /** `chain`: real paths of the folders being walked, to refuse a symlink that loops back into one. */
  const walk = async (dir: string, chain: string[]): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true, encoding: 'buffer' });
    for (const entry of entries) {
      let name: string;
      try {
        name = utf8.decode(entry.name);
      } catch {
        // The platform keys files by UTF-8 path: a name in another encoding cannot be uploaded.
        const where = relative(root, dir).split(sep).join('/') || '.';
        throw new InputError(`model-dir file in ${where}`, JSON.stringify(entry.name.toString('latin1')).slice(1, -1), 'a file name in UTF-8');
      }
      const abs = join(dir, name);
      const rel = relative(root, abs).split(sep).join('/');
      if (rel.split('/').some((seg) => seg === '..')) throw new InputError('model-dir', rel, 'paths inside the model dir (no "..")');
      if (skippedName(name) || excluded(rel)) continue;
      let info = await lstat(abs);
      let real = abs;
      if (info.isSymbolicLink()) {
        try {
          real = await realpath(abs);
        } catch {
          throw new InputError(`model-dir file ${rel}`, rel, 'a symlink whose target exists');
        }
        if (real !== rootReal && !real.startsWith(rootReal + sep)) {
          throw new InputError(`model-dir file ${rel}`, real, `a symlink that stays inside the model dir ${rootReal}`);
        }
        info = await stat(abs);
        if (info.isDirectory() && chain.includes(real)) {
          throw new InputError(`model-dir file ${rel}`, relative(rootReal, real) || '.', 'a symlink that does not loop back to a folder that contains it');
        }
      }
      if (info.isDirectory()) await walk(abs, [...chain, real]);
      else if (info.isFile()) {
        if (info.size > MAX_FILE_BYTES) {
          throw new InputError(`model-dir file ${rel}`, `${info.size} bytes`, `at most ${MAX_FILE_BYTES} bytes per file`);
        }
        found.push({ path: rel, abs, size: info.size });
      }
    }
  };
  await walk(root, [rootReal]);
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** List and hash the model: what an upload sends (each text file checked to be UTF-8). */
export async function scanModel(modelDir: string, options: ScanOptions = {}): Promise<LocalFile[]> {
  const found = await walkModel(modelDir, options);
  return mapLimit(found, options.concurrency ?? 16, async (f) => ({ ...f, sha1: await sha1File(f.abs, TEXT_FILE.test(f.path) ? f.path : undefined) }));
}

/** The run's one read of the model, in its own log group: an empty one is refused (it would delete every file of the branch). */
export async function readLocalModel(reporter: Pick<Reporter, 'group' | 'info'>, modelDir: string, exclude: readonly string[] = []): Promise<LocalFile[]> {
  return reporter.group(`Hash the local model (${modelDir})`, async () => {
    const files = await scanModel(modelDir, { exclude });
    // An empty model would delete every file of the shared branch: almost always a wrong model-dir.
    if (files.length === 0) throw new InputError('model-dir', `${modelDir} (no files)`, 'a data model (cube.js and model/ files)');
    reporter.info(`${files.length} files, ${files.reduce((a, f) => a + f.size, 0)} bytes`);
    return files;
  });
}

/** Read one file's bytes (at upload time, one at a time per worker). */
export function readLocal(file: ModelEntry): Promise<Buffer> {
  return file.bytes ? Promise.resolve(file.bytes) : readFile(file.abs);
}

/** The largest file whose text is read for the locator or the definition diff. */
const MAX_TEXT_BYTES = 2 * 1024 * 1024;

/** The texts of the files `pick` keeps, read now (a file that cannot be read, or is over 2 MB, is left out). */
export async function modelTexts(files: readonly ModelEntry[], pick: (path: string) => boolean): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const f of files) {
    if (!pick(f.path) || f.size > MAX_TEXT_BYTES) continue;
    const text = await readLocal(f).then(
      (b) => b.toString('utf8'),
      () => undefined,
    );
    if (text !== undefined) out.set(f.path, text);
  }
  return out;
}

/** The locator's texts: the YAML and JS files of the model's one walk, by POSIX path under the model folder (the platform's keys), read only when there are errors to place. */
export function readModelTexts(model: readonly ModelEntry[]): Promise<Map<string, string>> {
  return modelTexts(model, (p) => languageOf(p) !== 'other');
}
