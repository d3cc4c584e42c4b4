/** docs/cli.md stays true: its command reference is the command table's, its examples parse, its anchors exist. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { updateCliDocs } from '../src/cli-docs.js';
import { COMMANDS } from '../src/commands/index.js';
import { parseFor } from '../src/commands/spec.js';
import { anchorOf } from './support/doc-links.js';

const docs = readFileSync('docs/cli.md', 'utf8');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('docs/cli.md', () => {
  it('holds the command reference as `npm run generate-actions` writes it', () => {
    expect(docs).toBe(updateCliDocs(docs, COMMANDS));
  });

  it('lists every listed command with each of its flags', () => {
    for (const c of COMMANDS.filter((x) => !x.hidden)) {
      expect(docs, c.name).toContain(`### \`datamodel-ci ${c.name}`);
      for (const f of c.flags) expect(docs, `${c.name} --${f.name}`).toContain(`\`--${f.name}`);
    }
  });

  it("has every command's example parse with that command's own flags", () => {
    for (const c of COMMANDS) {
      const words = c.example.replace(/^source <\(|\)$/g, '').split(/\s+/);
      const at = words.indexOf('datamodel-ci');
      expect(words[at + 1], c.example).toBe(c.name);
      expect(() => parseFor(c, words.slice(at + 2)), c.example).not.toThrow();
    }
  });

  it('has a heading for every docs/cli.md anchor the code points at', () => {
    const anchors = new Set([...docs.matchAll(/^#+ (.+)$/gm)].map((m) => anchorOf(m[1]!)));
    const pointed = sources('src').flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/docs\/cli\.md#([\w-]+)/g)].map((m) => m[1]!));
    expect(pointed.length).toBeGreaterThan(0);
    for (const a of pointed) expect(anchors, a).toContain(a);
  });
});
