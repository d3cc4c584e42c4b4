import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ACTIONS } from '../src/action-spec.js';
import { README_END, README_START, updateReadme } from '../src/action-files.js';

describe('README', () => {
  it('carries the current inputs and outputs of every action (run `node dist/index.js generate-actions` when this fails)', () => {
    const readme = readFileSync('README.md', 'utf8');
    expect(readme).toContain(README_START);
    expect(readme).toContain(README_END);
    expect(updateReadme(readme, ACTIONS)).toBe(readme);
    for (const spec of ACTIONS) expect(readme).toContain(`### ${spec.title}`);
  });

  it('refuses to update a README without the markers', () => {
    expect(() => updateReadme('# x', ACTIONS)).toThrow('markers are missing');
  });
});
