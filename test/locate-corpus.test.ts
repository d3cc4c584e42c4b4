/**
 * The locator over the corpus of broken models (test/fixtures/broken-models/): each error the
 * compiler reports must land on its hand-marked line. The messages are Cube's own: each model is compiled
 * by the emulator's engine, the real `@cubejs-backend/schema-compiler` (test/support/broken-models.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { CompilerError } from '../src/workflows/locate/index.js';
import { compileCorpus, loadBrokenModels, placeCorpus } from './support/broken-models.js';

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

  it('has at least 40 models with the place of every error marked', () => {
    expect(models.length).toBeGreaterThanOrEqual(40);
    for (const m of models) expect(m.intended.length, m.name).toBeGreaterThan(0);
  });

  it('puts each error on its intended line (figure: on the intended line / errors)', () => {
    const placed = placeCorpus(models, compiled);
    const hits = placed.filter((p) => p.onIntendedLine).length;
    console.log(`locator: ${hits} of ${placed.length} errors on the intended line (${models.length} models)`);
    const misses = placed.filter((p) => !p.onIntendedLine);
    expect(misses.map((p) => `${p.model} → ${p.located.file}:${p.located.line}`)).toEqual(
      Object.keys(KNOWN_MISSES).map((name) => {
        const p = placed.find((x) => x.model === name)!;
        return `${name} → ${p.located.file}:${p.located.line}`;
      }),
    );
    expect(hits / placed.length).toBeGreaterThanOrEqual(0.9);
    // Never another file than the intended one.
    for (const p of placed) if (p.located.file !== undefined) expect(p.located.file, p.model).toBe(p.intended.file);
  });

  it('still places most errors when the platform names no file', () => {
    const placed = placeCorpus(models, compiled, { withoutFileName: true });
    const hits = placed.filter((p) => p.onIntendedLine).length;
    console.log(`locator without file names: ${hits} of ${placed.length} errors on the intended line`);
    expect(hits / placed.length).toBeGreaterThanOrEqual(0.9);
  });
});
