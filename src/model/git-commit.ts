/**
 * Is the checkout in model-dir exactly a commit's model? Asked of git itself: the commit's tree under
 * model-dir (`git ls-tree`, paths as the walk names them, the walk's rules and `exclude` applied) against
 * the walk's files, by git's own object ids of their bytes. A file the commit lacks, one it has that the
 * checkout lacks, and one whose bytes differ (an edit, an untracked file) are all "not that commit".
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { basename, dirname, resolve } from 'node:path';
import { readLocal, skippedPath, type LocalFile, type PathFilter } from './local-model.js';

/** The commit's full id, or why the checkout cannot be shown to be it. */
export type CommitCheck = { commit: string } | { problem: string };

/** Run git in `dir`; its stdout, or an error whose message is git's own words. */
function git(dir: string, args: string[], timeout = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', ['-C', dir, ...args], { maxBuffer: 64 * 1024 * 1024, encoding: 'utf8', timeout }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      const code = (error as NodeJS.ErrnoException).code;
      // An empty message: git said nothing (`rev-parse --quiet` of a name it does not know).
      reject(new Error(code === 'ENOENT' ? 'git is not installed on this machine' : (stderr.trim().split('\n')[0] ?? '')));
    });
  });
}

/** Git's object id of a file's bytes (`blob <size>\0<bytes>`), in the repository's hash (SHA-1, or SHA-256 for a 64-character id). */
const objectId = (bytes: Buffer, algorithm: 'sha1' | 'sha256') => createHash(algorithm).update(`blob ${bytes.length}\0`).update(bytes).digest('hex');

/** Paths where the two lists differ, the first ones, for a message. */
function differing(commit: Map<string, string>, checkout: Map<string, string>, max = 8): string[] {
  const paths = [...new Set([...commit.keys(), ...checkout.keys()])].filter((p) => commit.get(p) !== checkout.get(p)).sort();
  return paths.length > max ? [...paths.slice(0, max), `… ${paths.length - max} more`] : paths;
}

/**
 * Whether `local` (the walk of `modelDir`) is exactly `commit`'s files under `modelDir`. The commit must
 * be in the checkout's repository (actions/checkout with `ref:` fetches it).
 */
export async function checkoutIsCommit(modelDir: string, commit: string, local: readonly LocalFile[], excluded: PathFilter): Promise<CommitCheck> {
  let full: string;
  try {
    full = (await git(modelDir, ['rev-parse', '--verify', '--quiet', `${commit}^{commit}`])).trim();
  } catch (e) {
    const why = (e as Error).message;
    return { problem: why ? `git could not find it in ${modelDir} (${why})` : `it is not a commit of the repository checked out in ${modelDir}` };
  }
  if (!full) return { problem: `it is not a commit of the repository checked out in ${modelDir}` };
  // Within model-dir, ls-tree lists the commit's files relative to it: the walk's own paths.
  const listing = await git(modelDir, ['ls-tree', '-r', '-z', full]).catch((e: unknown) => e as Error);
  if (listing instanceof Error) return { problem: `git could not list its files (${listing.message})` };
  const theirs = new Map<string, string>();
  for (const entry of listing.split('\0')) {
    const m = /^\d+ (\w+) ([0-9a-f]+)\t(.+)$/s.exec(entry);
    if (m && m[1] === 'blob' && !skippedPath(m[3]!) && !excluded(m[3]!)) theirs.set(m[3]!, m[2]!);
  }
  const algorithm = full.length === 64 ? 'sha256' : 'sha1';
  const ours = new Map<string, string>();
  for (const f of local) ours.set(f.path, objectId(await readLocal(f), algorithm));
  const differs = differing(theirs, ours);
  if (differs.length) return { problem: `the checkout's model is not ${full.slice(0, 7)}'s: they differ in ${differs.join(', ')}` };
  return { commit: full };
}

/** The commit checked out where `dir` is (`git rev-parse HEAD`), or undefined outside a repository (or without git). */
export async function headCommit(dir: string): Promise<string | undefined> {
  const out = await git(dir, ['rev-parse', '--verify', '--quiet', 'HEAD']).catch(() => '');
  const sha = out.trim();
  return /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(sha) ? sha : undefined;
}

/** How long fetching one missing commit may take (a read of the checkout's own remote). */
const FETCH_TIMEOUT_MS = 30_000;

/** A file as a commit has it: its text, `missing` when the commit has no such file, or why git could not say. */
export type FileAtCommit = { text: string } | { missing: true } | { problem: string };

/** The file at `path` (in a checkout) as `commit` has it, asked of git in the file's own folder. */
export async function fileAtCommit(path: string, commit: string): Promise<FileAtCommit> {
  const dir = dirname(resolve(path));
  const find = async () => (await git(dir, ['rev-parse', '--verify', '--quiet', `${commit}^{commit}`]).catch(() => '')).trim();
  let full = await find();
  if (!full) {
    // A shallow checkout (actions/checkout's default) lacks the base commit: fetched once with the checkout's own remote.
    await git(dir, ['fetch', '--quiet', '--no-tags', '--depth=1', 'origin', commit], FETCH_TIMEOUT_MS).catch(() => '');
    full = await find();
  }
  if (!full)
    return { problem: `the commit ${commit.slice(0, 12)} is not in the checkout and could not be fetched (actions/checkout with fetch-depth: 0 holds it)` };
  // `<commit>:./name` is the path relative to `dir`, wherever the repository's root is.
  const listed = await git(dir, ['ls-tree', '--name-only', full, '--', basename(path)]).catch((e: unknown) => e as Error);
  if (listed instanceof Error) return { problem: `git could not list it (${listed.message})` };
  if (!listed.trim()) return { missing: true };
  const text = await git(dir, ['show', `${full}:./${basename(path)}`]).catch((e: unknown) => e as Error);
  return text instanceof Error ? { problem: `git could not read it (${text.message})` } : { text };
}
