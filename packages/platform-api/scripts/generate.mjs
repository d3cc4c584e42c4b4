#!/usr/bin/env node
// Run generate.ts without a build step: Vite's module runner (installed with vitest) loads the TypeScript directly.
import { runnerImport } from 'vite';

const { module } = await runnerImport(new URL('./generate.ts', import.meta.url).pathname);
process.exitCode = module.main(process.argv.slice(2));
