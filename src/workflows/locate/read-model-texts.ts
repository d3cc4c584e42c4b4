/** The text of the model files in the checkout, for the locator: bounded, and a file it cannot read is left out. */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { skippedName } from '../local-model.js';

const MODEL_FILE = /\.(ya?ml|[cm]?js)$/i;
const MAX_FILES = 10_000;
const MAX_BYTES = 2 * 1024 * 1024;
const MAX_DEPTH = 32;

/** YAML and JS files under `modelDir`, by POSIX path relative to it (the platform's keys); symlinked folders are not followed. */
export async function readModelTexts(modelDir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (dir: string, rel: string, depth: number): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (out.size >= MAX_FILES || skippedName(entry.name)) continue;
      const abs = join(dir, entry.name);
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory() && depth < MAX_DEPTH) await walk(abs, path, depth + 1);
      else if ((entry.isFile() || entry.isSymbolicLink()) && MODEL_FILE.test(entry.name)) {
        const info = await stat(abs).catch(() => undefined);
        if (!info?.isFile() || info.size > MAX_BYTES) continue;
        const text = await readFile(abs, 'utf8').catch(() => undefined);
        if (text !== undefined) out.set(path, text);
      }
    }
  };
  await walk(modelDir, '', 0);
  return out;
}
