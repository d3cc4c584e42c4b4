#!/usr/bin/env node
// Run scripts/demo.ts without a build step: Vite's module runner (installed with vitest) loads the
// TypeScript sources directly.
import { runnerImport } from 'vite';

const { module } = await runnerImport(new URL('./demo.ts', import.meta.url).pathname);
process.exitCode = await module.main(process.argv.slice(2));
