#!/usr/bin/env node
// The emulator runs from its TypeScript sources through Vite's module runner (installed with the
// project's dev dependencies): it is a development tool, never part of the action's bundle.
import { runnerImport } from 'vite';

const { module } = await runnerImport(new URL('../src/main.ts', import.meta.url).pathname);
process.exitCode = await module.main(process.argv.slice(2));
