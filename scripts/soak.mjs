#!/usr/bin/env node
// Run scripts/soak.ts through Vite's module runner (installed with vitest): no build step.
import { runnerImport } from 'vite';

const { module } = await runnerImport(new URL('./soak.ts', import.meta.url).pathname);
process.exitCode = await module.main(process.argv.slice(2));
