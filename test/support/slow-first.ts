/**
 * The suite's order: its slowest files first, so the last minute is not one long file running alone.
 * Vitest orders by the durations it cached from the last run, and without them (a clean clone, CI) by
 * file size, largest first: the tenant matrix (three 4-line files, two minutes each) then started last.
 * Durations from a whole run on 2 cores (`--reporter=json`); a file not listed keeps vitest's order.
 */
import { basename } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const SLOWEST = [
  'tenant-matrix-1',
  'readme',
  'reliability',
  'tenant-matrix-2',
  'emulator-engine',
  'tenant-matrix-3',
  'cli-bundle',
  'install',
  'project-root',
  'production-proof',
  'e2e',
  'emulator-temp-folder',
  'rollup-builds-emulator',
  'evals-delta',
  'evals-e2e',
  'e2e-monorepo',
  'close-invariants',
  'production-proof-modes',
  'e2e-queue',
  'plan',
].map((name) => `${name}.test.ts`);

/** Where a file goes: its place in SLOWEST, or after all of them. */
const rank = (file: string) => {
  const at = SLOWEST.indexOf(basename(file));
  return at < 0 ? SLOWEST.length : at;
};

/** The slowest files in SLOWEST's order, then the rest in vitest's own order (cached durations, else size). */
export function slowestFirst<T>(files: T[], path: (file: T) => string): T[] {
  return files
    .map((file, at) => ({ file, at }))
    .sort((a, b) => rank(path(a.file)) - rank(path(b.file)) || a.at - b.at)
    .map(({ file }) => file);
}

export class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return slowestFirst(await super.sort(files), (f) => f.moduleId);
  }
}
