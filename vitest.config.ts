import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Sized for CI's 2 cores: vitest's default (cores - 1) runs one file at a time there, while most files
    // spend their time waiting on servers and child processes.
    maxWorkers: 3,
    server: { deps: { inline: ['@actions/workflow-parser'] } },
  },
});
