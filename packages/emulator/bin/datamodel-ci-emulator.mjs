#!/usr/bin/env node
// In a checkout the emulator runs from its TypeScript sources through Vite's module runner (a dev
// dependency); the installed package runs its bundle, dist/index.js (built by `npm pack`).
import { existsSync } from 'node:fs';

const source = new URL('../src/main.ts', import.meta.url);
let main;
if (existsSync(source)) {
  const { runnerImport } = await import('vite');
  ({ main } = (await runnerImport(source.pathname)).module);
} else {
  ({ main } = await import('../dist/index.js'));
}
process.exitCode = await main(process.argv.slice(2));
