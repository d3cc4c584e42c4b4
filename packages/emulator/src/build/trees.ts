/** File trees: encoding, SHA-1 hashes of the exact bytes, commit-like tree hashes and the three-way merge. */
import { createHash } from 'node:crypto';
import type { FileMap } from './models.js';

export function sha1Hex(data: Buffer | string): string {
  return createHash('sha1').update(data).digest('hex');
}

export function decodeFile(b64: string): Buffer {
  return Buffer.from(b64, 'base64');
}

export function encodeFile(data: Buffer | string): string {
  return Buffer.from(data).toString('base64');
}

/** A tree of text files (`path -> content`) as a FileMap. */
export function filesOf(model: Record<string, string>): FileMap {
  const out: FileMap = {};
  for (const [path, text] of Object.entries(model)) out[path] = encodeFile(text);
  return out;
}

/** SHA-1 of every file of a tree, keyed by path. */
export function hashTree(files: FileMap): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, b64] of Object.entries(files)) out[path] = sha1Hex(decodeFile(b64));
  return out;
}

/** A commit-like hash of a tree and a counter. */
export function treeHash(files: FileMap, salt: string): string {
  const h = createHash('sha1');
  h.update(salt);
  for (const path of Object.keys(files).sort()) h.update(`${path}\0${sha1Hex(decodeFile(files[path] as string))}\n`);
  return h.digest('hex');
}

/** Do two trees hold the same paths with the same bytes? */
export function sameTree(a: FileMap, b: FileMap): boolean {
  return treeHash(a, '') === treeHash(b, '');
}

type Merge = { ok: true; files: FileMap } | { ok: false; conflicts: string[] };

/** Three-way merge by file: apply `theirs` changes relative to `base` onto `ours`. */
export function mergeTrees(base: Record<string, string>, theirs: FileMap, ours: FileMap): Merge {
  const theirsH = hashTree(theirs);
  const oursH = hashTree(ours);
  const out: FileMap = { ...ours };
  const conflicts: string[] = [];
  for (const path of new Set([...Object.keys(base), ...Object.keys(theirsH), ...Object.keys(oursH)])) {
    const b = base[path];
    const t = theirsH[path];
    const o = oursH[path];
    if (t === b || t === o) continue;
    if (o === b) {
      if (t === undefined) delete out[path];
      else out[path] = theirs[path] as string;
    } else conflicts.push(path);
  }
  return conflicts.length ? { ok: false, conflicts: conflicts.sort() } : { ok: true, files: out };
}
