/**
 * The bench (`npm run bench`): each figure is a ratio or a count measured side by side in one run, so
 * it holds on any machine. vitest is only the TypeScript runner here: nothing is asserted about times;
 * every figure is printed with its target and written to bench/results.json. See bench/README.md.
 * The figures are in bench/figures/, registered here in order: one file, so one results.json.
 */
import { afterAll } from 'vitest';
import { accessProbesFigure } from './figures/access-probes.js';
import { bundleFigure, hashMemoryFigure } from './figures/bundle.js';
import { dataDiffFigures } from './figures/data-diff.js';
import { dbtFigure } from './figures/dbt.js';
import { driftFigure } from './figures/drift.js';
import { locateFigure } from './figures/locate.js';
import { engineFigures } from './figures/engine.js';
import { impactFigure } from './figures/impact.js';
import { previewFigure } from './figures/preview.js';
import { rollupPlansFigure } from './figures/rollup-plans.js';
import { uploadFigures } from './figures/upload.js';
import { removeTempDirs, writeResults } from './lib.js';

afterAll(() => {
  writeResults();
  removeTempDirs();
});

uploadFigures();
previewFigure();
dbtFigure();
bundleFigure();
hashMemoryFigure();
locateFigure();
engineFigures();
impactFigure();
dataDiffFigures();
accessProbesFigure();
rollupPlansFigure();
driftFigure();
