import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ACTIONS } from '../src/action-spec.js';
import { ACTIONS_DOC, EXAMPLE_DOCS, TABLES_END, TABLES_START, updateActionTables, updateExamples } from '../src/action-files.js';
import { brokenLinks } from './support/doc-links.js';

const readme = readFileSync('README.md', 'utf8');
const DOCS = [
  'README.md',
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('README and docs', () => {
  it('keeps the front page to one screenful or so (under 150 lines)', () => {
    expect(readme.split('\n').length).toBeLessThan(150);
  });

  it('lists the current inputs and outputs of every action in docs/actions.md (run `npm run generate-actions` when this fails)', () => {
    const doc = readFileSync(ACTIONS_DOC, 'utf8');
    expect(doc).toContain(TABLES_START);
    expect(doc).toContain(TABLES_END);
    expect(updateActionTables(doc, ACTIONS)).toBe(doc);
    for (const spec of ACTIONS) expect(doc).toContain(`## ${spec.title}`);
    // The shared inputs are listed once, not per action.
    expect(doc.match(/\| `api-key` \|/g)).toHaveLength(1);
  });

  it('shows exactly the example workflows the end-to-end tests run', () => {
    expect(readme).toContain('<!-- example:start preview.yml -->');
    const all = EXAMPLE_DOCS.map((f) => readFileSync(f, 'utf8')).join('\n');
    for (const f of ['preview.yml', 'validation-gate.yml', 'dbt-sync.yml', 'cleanup.yml']) expect(all).toContain(`<!-- example:start ${f} -->`);
    for (const f of EXAMPLE_DOCS) {
      const doc = readFileSync(f, 'utf8');
      expect(
        updateExamples(doc, (w) => readFileSync(join('examples', 'workflows', w), 'utf8')),
        f,
      ).toBe(doc);
    }
  });

  it('links only to files and headings that exist', () => {
    expect(DOCS.length).toBeGreaterThan(8);
    expect(DOCS.flatMap((f) => brokenLinks(f))).toEqual([]);
    // The checker finds what it should: a missing file and a missing heading.
    expect(brokenLinks('README.md', '[a](docs/nope.md) [b](docs/cli.md#no-such-heading) [c](https://example.com)')).toEqual([
      'README.md: docs/nope.md (no such file)',
      'README.md: docs/cli.md#no-such-heading (no such heading)',
    ]);
  });

  it('starts with the demo command, then the test command', () => {
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
    expect(blocks[0]).toBe('npm ci && npm run demo');
    expect(blocks[1]).toBe('npm ci && npm test');
  });

  it('refuses to update an actions page without the markers', () => {
    expect(() => updateActionTables('# x', ACTIONS)).toThrow('markers are missing');
  });
});

describe('npm run demo', () => {
  // A hang guard, not a verdict: the demo takes about 30 s on a quiet machine and several times that on a loaded one.
  it('plays one pull request to the end, then a monorepo pull request, then one off the rollup, and exits 0', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['scripts/run-ts.mjs', 'demo'], { encoding: 'utf8', timeout: 300_000 });
    expect(stdout).toContain('1. The pull request is opened');
    expect(stdout).toContain('job failure');
    expect(stdout).toContain('7. The pull request is merged');
    // The comment after each event, one comment rewritten in place: ready, broken, ready again, ready with
    // numbers that move, ready with a breaking change, ready with an access policy, merged; then the
    // monorepo's, a section per model; then the distinct count's, ready and merged.
    expect(stdout.match(/The PR comment now \(1 comment on the PR, rewritten in place\)/g)).toHaveLength(12);
    const [prs, watched] = stdout.split('Production watched');
    const headings = [...prs!.matchAll(/^ {2}│ (### .*)$/gm)].map((m) => m[1]);
    expect(headings).toHaveLength(12);
    expect(headings[0]).toMatch(/ready/);
    expect(headings[1]).toMatch(/1 error in 1 file/);
    expect(headings[2]).toMatch(/ready/);
    expect(headings[3]).toMatch(/ready/);
    expect(headings[4]).toMatch(/ready/);
    expect(headings[5]).toMatch(/ready/);
    expect(headings[6]).toMatch(/merged into/);
    expect(headings.slice(7, 10)).toEqual([
      '### ✅ Data-model previews · 2 models: 1 ready, 1 not previewed',
      '### ✅ Data-model previews · 2 models: 2 ready',
      '### 🔀 Data-model previews · 2 models: 2 merged',
    ]);
    expect(headings.slice(10)).toEqual(['### ✅ Data-model preview · ready', '### 🔀 Data-model preview · merged into `main`']);
    // The last merge proves production; then the drift watch: green in sync, red with its issue after a hotfix.
    expect(prs).toContain('✓ production = the validated model');
    expect(watched).toMatch(/13\. The scheduled drift watch[\s\S]*job success\n {2}outputs: status=in-sync drift-files=0 drift-members=0/);
    expect(watched).toMatch(/14\. The next scheduled run[\s\S]*job failure[\s\S]*status=drift drift-files=1 drift-members=1/);
    expect(watched).toContain('│ | `model/cubes/hotfix.yml` | added |');
    expect(watched).toContain('│ | `hotfix.count` | added |');
    // The semantic-layer section: the payments cube added at first; the fourth push changes only a
    // measure's sql: a values change, and the numbers section shows its revenue moving; after the fifth,
    // the removed member is breaking and the report that uses it is named.
    const comments = stdout.split('The PR comment now').slice(1);
    expect(comments[0]).toContain('**Semantic layer** (`main` → `preview-pr-1`): 0 breaking, 2 added, 0 changed; no content affected');
    expect(comments[1]).not.toContain('**Semantic layer**');
    expect(comments[3]).toContain(
      '0 breaking, 1 values change, 2 added, 0 changed; no content breaks; numbers move on 2 reports, 1 dashboard and 1 notification',
    );
    expect(comments[3]).toMatch(/\| `orders\.total_amount` \| measure of cube `orders` \| sql amount → CASE WHEN status/);
    expect(comments[3]).toMatch(
      /\*\*Numbers\*\* \(production → preview, 7 key queries in [\d.]+ s, as a user with no groups \(empty security context\)\): 4 changed, 1 unchanged, 2 new/,
    );
    expect(comments[3]).toMatch(/\| Report “Revenue by month” \| 24 → 24 \| 24 rows changed; largest −13\.7 % \(−13,150\.64\) on `total_amount`/);
    expect(comments[3]).toContain('| status \\= cancelled | `total_amount` | 260,127.56 | 0 | −260,127.56 (−100.0 %) |');
    expect(comments[4]).toContain('2 breaking, 2 added, 0 changed; 1 report, 1 dashboard and 1 notification affected');
    expect(comments[4]).toContain('| `customers.country` | dimension of cube `customers` | removed |');
    expect(comments[4]).toMatch(/\| Report \| Revenue by country \| `orders_view\.customers_country` in dimensions \|/);
    expect(stdout).toMatch(/4\. A push changes how a measure is computed[\s\S]*values-changed-count=1 data-changed-count=4/);
    expect(stdout).toMatch(/5\. A push removes a member a report uses[\s\S]*breaking-count=2 added-count=2 changed-count=0 affected-content-count=3/);
    // The sixth push adds a row-level policy: the personas of the demo's personas.yml are read, and a probe
    // counts the analyst's orders on both sides (everyone but finance loses the cancelled ones).
    // The policy narrows orders_view over orders too: Cube applies the cube's row filter through the view.
    expect(comments[5]).toContain('**Who can see what** (2 personas; 1 access policy touched): 2 changes');
    expect(comments[5]).toMatch(/\| fewer rows \| `orders` \| rows 5,000 → 4,483, counted with orders\\\.count \|/);
    expect(comments[5]).toContain('| fewer rows | `orders_view` | rows 5,000 → 4,483, counted with orders');
    expect(comments[5]).toContain('| `finance` | `orders` | `orders.count` | 5,000 | 5,000 |');
    expect(stdout).toMatch(/6\. A push restores the member[\s\S]*access-changed-count=2 exposed-count=0/);
    // The third pull request makes orders.count a distinct count: a values change whose numbers stay the same,
    // and the Cost section has every key query leaving production's rollup (test/demo-rollup.test.ts: Cube's matcher).
    expect(comments[10]).toMatch(/\| `orders\.count` \| measure of cube `orders` \| aggregation count → count\\_distinct/);
    expect(comments[10]).toMatch(
      /\*\*Numbers\*\* \(production → preview, 8 key queries in [\d.]+ s, as a user with no groups \(empty security context\)\): 0 changed, 8 unchanged/,
    );
    expect(comments[10]).toContain('| Report “Orders by status” | 4 → 4 | unchanged |');
    // The distinct count changes orders_by_status's build: rebuilt on merge, seen from the rollup's own query.
    expect(comments[10]).toContain('Rollups (production → preview, 8 key query plans): 8 changed (8 lost), 1 rollup rebuilt on merge');
    expect(comments[10]).toContain('| `orders.orders_by_status` → — | ⚠️ lost: reaches the warehouse | 8 key queries: `Report “Orders by status”`, ');
    expect(stdout).toMatch(/11\. A pull request makes a measure a distinct count[\s\S]*rollups-lost-count=8 rollups-rebuilt-count=1/);
    // The first two pull requests' models hold no rollup: no Cost line from the plans.
    expect(comments.slice(0, 10).join('')).not.toContain('Rollups (production → preview');
    expect(stdout).toMatch(/✓ done in \d/);
    expect(stdout).not.toContain('✗');
    // Twelve jobs in a child process: about 25 s alone, more beside the rest of the suite.
  }, 300_000);
});
