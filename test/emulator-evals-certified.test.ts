/**
 * The emulator's reading of Markdown certified queries, as yaml-config.mdx infers them: a missing name is
 * the file's base name, a missing kind its nearest folder's (`certified_queries/`, `certified-queries/`,
 * `queries/`; `rules/` is a rule) or its frontmatter's shape. Before, a file without `name` was no ground
 * truth ("Ground truth not found") while the toolkit's check accepted it.
 */
import { describe, expect, it } from 'vitest';
import { encodeFile } from '../packages/emulator/src/build/trees.js';
import { readCertifiedQueries } from '../packages/emulator/src/evals/questions.js';

const SQL = 'SELECT status, MEASURE(count) FROM orders_view GROUP BY 1';
const files = (tree: Record<string, string>) => Object.fromEntries(Object.entries(tree).map(([p, t]) => [p, encodeFile(t)]));

describe('the emulator reads Markdown certified queries as the manual infers them', () => {
  it('names a query by its file when the frontmatter has no name, in the space it names', () => {
    const q = readCertifiedQueries(files({ 'agents/certified_queries/by-status.md': `---\nspace: sales\nuser_request: Orders per status?\n---\n${SQL}\n` }));
    expect([...q]).toEqual([['sales/by-status', SQL]]);
  });

  it.each([
    ['agents/certified-queries/a.md', '---\ndescription: x\n---\n'],
    ['agents/queries/a.md', '---\ndescription: x\n---\n'],
    ['agents/a.md', '---\nuser_request: x\n---\n'],
    ['agents/a.md', `---\nkind: certified_query\n---\n`],
  ])('%s with %j is a certified query', (path, head) => {
    expect([...readCertifiedQueries(files({ [path]: `${head}${SQL}\n` }))]).toEqual([['auto/a', SQL]]);
  });

  it.each([
    ['agents/rules/a.md', '---\ndescription: x\n---\n'],
    ['agents/a.md', '---\ntype: always\n---\n'],
    ['agents/certified_queries/a.md', '---\nkind: rule\n---\n'],
    ['agents/a.md', '---\ndescription: x\n---\n'],
  ])('%s with %j is not', (path, head) => {
    expect([...readCertifiedQueries(files({ [path]: `${head}${SQL}\n` }))]).toEqual([]);
  });
});
