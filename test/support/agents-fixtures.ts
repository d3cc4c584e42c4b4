/** The agents fixtures (test/fixtures/agents-*): a project's files keyed by path under its folder, as the run reads them. */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

export function fixtureTexts(...folders: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const folder of folders) {
    const root = join(FIXTURES, folder);
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const abs = join(dir, e.name);
        if (e.isDirectory()) walk(abs);
        else out.set(relative(root, abs).split('\\').join('/'), readFileSync(abs, 'utf8'));
      }
    };
    walk(root);
  }
  return out;
}

/** Only the files under `prefix` (the model's, `model/`). */
export const under = (texts: ReadonlyMap<string, string>, prefix: string) => new Map([...texts].filter(([p]) => p.startsWith(prefix)));
