/** The local data model: every file under `model-dir`, its POSIX path and SHA-1, read as a stream. */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import { InputError } from '../client/errors.js';

export interface LocalFile {
  /** POSIX path relative to the model dir (the platform's key). */
  path: string;
  /** Absolute path on disk. */
  abs: string;
  size: number;
  sha1: string;
  /** The bytes, for a file made in memory (the doctor's), instead of reading `abs`. */
  bytes?: Buffer;
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
/** The largest file the toolkit sends (the platform's data models are text). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** Files the platform reads as text: they must be UTF-8. */
const TEXT_FILE = /\.(ya?ml|js|cjs|mjs|ts|json|sql|jinja|md)$/i;

/** SHA-1 of a file, read as a stream; with `utf8Name`, also check the bytes are UTF-8. */
export async function sha1File(abs: string, utf8Name?: string): Promise<string> {
  const hash = createHash('sha1');
  const decoder = utf8Name ? new TextDecoder('utf-8', { fatal: true }) : undefined;
  for await (const chunk of createReadStream(abs, { highWaterMark: 256 * 1024 })) {
    hash.update(chunk as Buffer);
    if (decoder) {
      try {
        decoder.decode(chunk as Buffer, { stream: true });
      } catch {
        throw new InputError(`model-dir file ${utf8Name}`, 'bytes that are not UTF-8', 'a UTF-8 text file');
      }
    }
  }
  if (decoder) {
    try {
      decoder.decode();
    } catch {
      throw new InputError(`model-dir file ${utf8Name}`, 'a truncated UTF-8 sequence at the end', 'a UTF-8 text file');
    }
  }
  return hash.digest('hex');
}

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
 * List and hash the model. Refuses a symlink that leaves the model dir, a path with `..`, and a file
 * over MAX_FILE_BYTES, naming the file; symlinks inside the dir are followed.
 */
export interface ScanOptions {
  concurrency?: number;
  /** Globs of POSIX paths (relative to the model dir) not to upload, e.g. `model/drafts/**`. */
  exclude?: readonly string[];
}

export async function scanModel(modelDir: string, options: ScanOptions = {}): Promise<LocalFile[]> {
  const excluded = options.exclude?.length ? picomatch([...options.exclude], { dot: true }) : () => false;
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
  found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return mapLimit(found, options.concurrency ?? 16, async (f) => ({ ...f, sha1: await sha1File(f.abs, TEXT_FILE.test(f.path) ? f.path : undefined) }));
}

/** Read one file's bytes (at upload time, one at a time per worker). */
export function readLocal(file: LocalFile): Promise<Buffer> {
  return file.bytes ? Promise.resolve(file.bytes) : readFile(file.abs);
}
