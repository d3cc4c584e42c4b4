/** The suite's order (test/support/slow-first.ts): the slowest files start first, the rest keep vitest's order. */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import config from '../vitest.config.js';
import { SLOWEST, SlowestFirstSequencer, slowestFirst } from './support/slow-first.js';

describe('the slowest files first', () => {
  it('names only test files that exist, each once (a renamed file would silently go back to the end)', () => {
    const files = new Set(readdirSync(new URL('.', import.meta.url)).filter((f) => f.endsWith('.test.ts')));
    expect(SLOWEST.filter((name) => !files.has(name))).toEqual([]);
    expect(new Set(SLOWEST).size).toBe(SLOWEST.length);
  });

  it('puts the listed files first, in the list order, and keeps the order it was given for the rest', () => {
    const given = ['/r/test/a.test.ts', `/r/test/${SLOWEST[2]}`, '/r/test/b.test.ts', `/r/test/${SLOWEST[0]}`, '/r/test/c.test.ts'];
    expect(slowestFirst(given, (f) => f)).toEqual([
      `/r/test/${SLOWEST[0]}`,
      `/r/test/${SLOWEST[2]}`,
      '/r/test/a.test.ts',
      '/r/test/b.test.ts',
      '/r/test/c.test.ts',
    ]);
  });

  it('is the sequencer of the suite', () => {
    expect(config.test?.sequence?.sequencer).toBe(SlowestFirstSequencer);
  });
});
