import { defineConfig } from 'vitest/config';
import { SlowestFirstSequencer } from './test/support/slow-first.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Sized for CI's 2 cores: vitest's default (cores - 1) runs one file at a time there, while most files
    // spend their time waiting on servers and child processes.
    maxWorkers: 3,
    // A worker keeps its modules from one file to the next (loading Cube's compiler and the sources again
    // for every file cost a third of the suite's CPU): a test that changes global state puts it back.
    isolate: false,
    server: { deps: { inline: ['@actions/workflow-parser'] } },
    // The slowest files start first (test/support/slow-first.ts): a clean clone has no durations cached.
    sequence: { sequencer: SlowestFirstSequencer },
  },
});
