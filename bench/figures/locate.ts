/** Figure 7 of the bench: the error locator over the corpus of broken models (test/fixtures/broken-models/). */
import { describe, it } from 'vitest';
import { compileCorpus, loadBrokenModels, placeCorpus, type Placement } from '../../test/support/broken-models.js';
import { countBy, part, record, round } from '../lib.js';

const miss = (p: Placement) => ({
  model: p.model,
  intended: `${p.intended.file}:${p.intended.line}`,
  located: p.located.line ? `${p.located.file}:${p.located.line} (${p.located.precision})` : `${p.located.file ?? '-'} (${p.located.precision})`,
});

/** Register figure 7. */
export function locateFigure(): void {
  describe('the error locator', () => {
    it.runIf(part(7))('7: annotations on the intended line / errors, over the corpus of broken models', async () => {
      const models = loadBrokenModels();
      const compiled = await compileCorpus(models);
      const placed = placeCorpus(models, compiled);
      const unnamed = placeCorpus(models, compiled, { withoutFileName: true });
      const hits = placed.filter((p) => p.onIntendedLine).length;
      const ratio = hits / placed.length;
      record({
        id: 'locate-intended-line',
        name: '7. error locator: annotations on the intended line / errors (Cube 1.7.43 messages for the corpus of broken models)',
        value: round(ratio, 3),
        unit: 'ratio',
        target: '>= 0.9',
        met: ratio >= 0.9,
        detail: {
          models: models.length,
          errors: placed.length,
          onIntendedLine: hits,
          precision: countBy(placed.map((p) => p.located.precision)),
          misses: placed.filter((p) => !p.onIntendedLine).map(miss),
          withoutFileName: {
            onIntendedLine: unnamed.filter((p) => p.onIntendedLine).length,
            misses: unnamed.filter((p) => !p.onIntendedLine).map(miss),
          },
        },
      });
    });
  });
}
