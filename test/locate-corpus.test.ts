/**
 * The locator over the corpus of broken models (test/fixtures/broken-models/): each root cause the
 * compiler reports must land on its hand-marked line, and each echo of one (a join to the cube that
 * failed) must be folded under it, never left as an error on a file the pull request did not change.
 * The messages are Cube's own: each model is compiled by the emulator's engine, the real
 * `@cubejs-backend/schema-compiler` (test/support/broken-models.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { CompilerError } from '../src/model/locate/index.js';
import { compileCorpus, corpusFigures, loadBrokenModels, placeCorpus } from './support/broken-models.js';

/** Errors whose intended line the message cannot lead to, and why. */
const KNOWN_MISSES: Record<string, string> = {
  '71-js-syntax-stray-token': 'a stray `}` on line 4 closes the object early; Babel only fails at the `}` of line 6, the position the message gives',
};

describe('the corpus of broken models', () => {
  const models = loadBrokenModels();
  let compiled: Map<string, CompilerError[]>;

  beforeAll(async () => {
    compiled = await compileCorpus(models);
  }, 600_000);

  it("has at least 120 models, 40 of them in the shapes of the vendor's examples, with the place of every error marked", () => {
    expect(models.length).toBeGreaterThanOrEqual(120);
    expect(models.filter((m) => /^1\d\d-/.test(m.name)).length).toBeGreaterThanOrEqual(40);
    for (const m of models) expect(m.intended.length, m.name).toBeGreaterThan(0);
  });

  it('puts each root cause on its intended line (figure: on the intended line / root causes)', () => {
    const placed = placeCorpus(models, compiled);
    const f = corpusFigures(placed);
    console.log(`locator: ${f.rootsOnIntendedLine} of ${f.roots} root causes on the intended line (${models.length} models)`);
    const misses = placed.filter((p) => !p.onIntendedLine && p.intended.echoOf === undefined);
    expect(misses.map((p) => `${p.model} → ${p.located.file}:${p.located.line}`)).toEqual(
      Object.keys(KNOWN_MISSES).map((name) => {
        const p = placed.find((x) => x.model === name)!;
        return `${name} → ${p.located.file}:${p.located.line}`;
      }),
    );
    expect(f.rootsOnIntendedLine / f.roots).toBeGreaterThanOrEqual(0.97);
    // Never another file than the intended one.
    for (const p of placed) if (p.located.file !== undefined && p.intended.line !== null) expect(p.located.file, p.model).toBe(p.intended.file);
  });

  it('folds every echo under its root cause, and no root cause under another (figure: echoes left as errors on unchanged files)', () => {
    const f = corpusFigures(placeCorpus(models, compiled));
    console.log(`echoes: ${f.echoesFolded} of ${f.echoes} folded; ${f.echoesAsErrorsOnUnchangedFiles.length} left as errors on unchanged files`);
    expect(f.echoes).toBeGreaterThanOrEqual(15);
    expect(f.echoesAsErrorsOnUnchangedFiles).toEqual([]);
    expect(f.rootsHidden).toEqual([]);
    expect(f.echoesFolded).toBe(f.echoes);
  });

  it('still places most errors when the platform names no file', () => {
    const f = corpusFigures(placeCorpus(models, compiled, { withoutFileName: true }));
    console.log(`locator without file names: ${f.rootsOnIntendedLine} of ${f.roots} root causes on the intended line`);
    expect(f.rootsOnIntendedLine / f.roots).toBeGreaterThanOrEqual(0.9);
  });
});
