#!/usr/bin/env node
// Run a TypeScript developer script (scripts/<name>.ts) without a build step: Vite's module runner
// (installed with vitest) loads the sources directly. Usage: node scripts/run-ts.mjs <name> [args...]
import { runnerImport } from 'vite';

const [name, ...args] = process.argv.slice(2);
const { module } = await runnerImport(new URL(`./${name}.ts`, import.meta.url).pathname);
process.exitCode = await module.main(args);
