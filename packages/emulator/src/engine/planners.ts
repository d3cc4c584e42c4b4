/**
 * Which planner an environment's Cube plans with, and the one difference of the two the emulator plays
 * (profile `production-release-channel`). Cube plans with Tesseract, its native planner, by default since
 * 1.7.0 (cube-js/cube #11223; `CUBEJS_TESSERACT_SQL_PLANNER` defaults to true in 1.7.43's shared env), with
 * its JS planner before; the emulator runs the JS planner only (docs/emulator.md, "Pre-aggregations").
 * Tesseract refuses to serve a rolling-window measure from a rollup directly and serves it from the rollup
 * holding its leaves (maintainer's analysis in cube-js/cube #11419): played as a query that names one
 * being planned with no rollup (the rollups here hold the measure, not its leaves).
 */
import type { CubeCompilers } from './vendor.js';
import type { NormalizedQuery } from './query.js';

/** `1.7.20` and later plan with Tesseract, `1.6.33` with the JS planner. */
export function plansWithTesseract(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 1 || (major === 1 && minor >= 7);
}

interface Evaluator {
  cubeFromPath(path: string): { measures?: Record<string, { rollingWindow?: unknown }> };
}

/** Whether the query names a rolling-window measure (of a cube: a view's member reads its cube's). */
export function namesRollingWindow(compilers: CubeCompilers, q: NormalizedQuery): boolean {
  const evaluator = compilers.cubeEvaluator as unknown as Evaluator;
  return (q.measures ?? []).some((m) => {
    const [cube, name] = m.split('.');
    try {
      return !!(cube && name && evaluator.cubeFromPath(cube).measures?.[name]?.rollingWindow);
    } catch {
      return false;
    }
  });
}
