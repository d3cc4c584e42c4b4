/**
 * Figure 7 of the bench: the error locator over the corpus of broken models (test/fixtures/broken-models/):
 * root causes on their intended line, echoes left as errors on files the pull request did not change,
 * and the emulator's error lists against Cube's compiler.
 */
import { describe, it } from 'vitest';
import { compileCorpus, corpusFigures, loadBrokenModels, placeCorpus, type Placement } from '../../test/support/broken-models.js';
import { compareWithCompiler } from '../../test/support/reference-compile.js';
import { countBy, part, record, round } from '../lib.js';

const miss = (p: Placement) => ({
  model: p.model,
  intended: `${p.intended.file}:${p.intended.line}`,
  located: p.located.line ? `${p.located.file}:${p.located.line} (${p.located.precision})` : `${p.located.file ?? '-'} (${p.located.precision})`,
});

const rootMisses = (placed: Placement[]) => placed.filter((p) => p.intended.echoOf === undefined && !p.onIntendedLine).map(miss);

/** Register figure 7. */
export function locateFigure(): void {
  describe('the error locator', () => {
    it.runIf(part(7))('7: root causes on the intended line / root causes, over the corpus of broken models', async () => {
      const models = loadBrokenModels();
      const compiled = await compileCorpus(models);
      const placed = placeCorpus(models, compiled);
      const unnamed = placeCorpus(models, compiled, { withoutFileName: true });
      const f = corpusFigures(placed);
      const ratio = f.rootsOnIntendedLine / f.roots;
      const parity = [];
      for (const model of models) parity.push(await compareWithCompiler(model));
      const equal = parity.filter((p) => p.equal).length;
      record({
        id: 'locate-intended-line',
        name: '7. error locator: root causes on the intended line / root causes (Cube 1.7.43 messages for the corpus of broken models)',
        value: round(ratio, 3),
        unit: 'ratio',
        target: '>= 0.97, no echo an error on an unchanged file, emulator = compiler on every model',
        met: ratio >= 0.97 && f.echoesAsErrorsOnUnchangedFiles.length === 0 && f.rootsHidden.length === 0 && equal === models.length,
        detail: {
          models: models.length,
          vendorShapedModels: models.filter((m) => /^1\d\d-/.test(m.name)).length,
          errors: placed.length,
          rootCauses: f.roots,
          onIntendedLine: f.rootsOnIntendedLine,
          echoes: f.echoes,
          echoesFolded: f.echoesFolded,
          echoesAsErrorsOnUnchangedFiles: f.echoesAsErrorsOnUnchangedFiles,
          rootCausesHidden: f.rootsHidden,
          emulatorEqualsCompiler: { models: equal, of: models.length, differing: parity.filter((p) => !p.equal).map((p) => p.model.name) },
          precision: countBy(placed.filter((p) => p.intended.echoOf === undefined).map((p) => p.located.precision)),
          misses: rootMisses(placed),
          withoutFileName: { onIntendedLine: corpusFigures(unnamed).rootsOnIntendedLine, misses: rootMisses(unnamed) },
        },
      });
    });
  });
}
