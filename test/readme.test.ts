import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ACTIONS } from '../src/action-spec.js';
import { README_END, README_START, updateReadme, updateReadmeExamples } from '../src/action-files.js';

const readme = readFileSync('README.md', 'utf8');

describe('README', () => {
  it('carries the current inputs and outputs of every action (run `npm run generate-actions` when this fails)', () => {
    expect(readme).toContain(README_START);
    expect(readme).toContain(README_END);
    expect(updateReadme(readme, ACTIONS)).toBe(readme);
    for (const spec of ACTIONS) expect(readme).toContain(`### ${spec.title}`);
  });

  it('shows exactly the example workflows the end-to-end tests run', () => {
    const files = ['preview.yml', 'validation-gate.yml', 'dbt-sync.yml', 'cleanup.yml'];
    for (const f of files) expect(readme).toContain(`<!-- example:start ${f} -->`);
    expect(updateReadmeExamples(readme, (f) => readFileSync(join('examples', 'workflows', f), 'utf8'))).toBe(readme);
  });

  it('starts with the demo command, then the test command', () => {
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
    expect(blocks[0]).toBe('npm ci && npm run demo');
    expect(blocks[1]).toBe('npm ci && npm test');
  });

  it('refuses to update a README without the markers', () => {
    expect(() => updateReadme('# x', ACTIONS)).toThrow('markers are missing');
  });
});

describe('npm run demo', () => {
  it('plays one pull request to the end and exits 0', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['scripts/run-ts.mjs', 'demo'], { encoding: 'utf8', timeout: 120_000 });
    expect(stdout).toContain('1. The pull request is opened');
    expect(stdout).toContain('job failure');
    expect(stdout).toContain('5. The pull request is merged');
    // The comment after each event, one comment rewritten in place: ready, broken, ready again, ready with a breaking change, merged.
    expect(stdout.match(/The PR comment now \(1 comment on the PR, rewritten in place\)/g)).toHaveLength(5);
    const headings = [...stdout.matchAll(/^ {2}│ (#+ .*)$/gm)].map((m) => m[1]);
    expect(headings).toHaveLength(5);
    expect(headings[0]).toMatch(/ready/);
    expect(headings[1]).toMatch(/1 error in 1 file/);
    expect(headings[2]).toMatch(/ready/);
    expect(headings[3]).toMatch(/ready/);
    expect(headings[4]).toMatch(/merged into/);
    // The semantic-layer section: the payments cube added at first; after the fourth push, the removed
    // member is breaking and the report that uses it is named.
    const comments = stdout.split('The PR comment now').slice(1);
    expect(comments[0]).toContain('**Semantic layer** (`main` → `preview-pr-1`): 0 breaking, 2 added, 0 changed; no content affected');
    expect(comments[1]).not.toContain('**Semantic layer**');
    expect(comments[3]).toContain('2 breaking, 2 added, 0 changed; 1 report, 1 dashboard and 1 notification affected');
    expect(comments[3]).toContain('| `customers.country` | cube `customers` | removed |');
    expect(comments[3]).toMatch(/\| Report \| Revenue by country \| `orders_view\.customers_country` in dimensions \|/);
    expect(stdout).toMatch(/4\. A push removes a member a report uses[\s\S]*breaking-count=2 added-count=2 changed-count=0 affected-content-count=3/);
    expect(stdout).toMatch(/✓ done in \d/);
    expect(stdout).not.toContain('✗');
  });
});
