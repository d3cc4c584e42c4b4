#!/usr/bin/env node
// Run refresh.ts without a build step: Vite's module runner (installed with vitest) loads the TypeScript directly.
import { runnerImport } from 'vite';

const { module } = await runnerImport(new URL('./refresh.ts', import.meta.url).pathname);
process.exitCode = module.main(process.argv.slice(2));
