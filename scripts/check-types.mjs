#!/usr/bin/env node
// `npm run check-types`: tsc's check and eslint over ONE TypeScript program (CI's typecheck and lint). Run
// apart, each builds its own program and type-checks every file; here eslint's type-aware rules read the
// types tsc's check already computed. Prints what `tsc --noEmit` and `eslint .` print; exits 1 on either.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { ESLint } from 'eslint';
import { lintConfig } from '../eslint.config.js';

/** Check the project in `cwd` (its tsconfig.json, every file eslint lints there); `pretty`: tsc's terminal form. */
export async function checkTypes(cwd, { pretty = false } = {}) {
  const started = Date.now();
  const seconds = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => cwd, getNewLine: () => ts.sys.newLine };
  let output = '';
  const config = ts.getParsedCommandLineOfConfigFile(resolve(cwd, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!config || config.errors.length) {
    return { typeErrors: 1, lintErrors: 0, output: config ? ts.formatDiagnostics(config.errors, host) : `no tsconfig.json in ${cwd}\n` };
  }
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, projectReferences: config.projectReferences });

  const diagnostics = ts.getPreEmitDiagnostics(program);
  // As tsc prints them: with colour and context on a terminal, one line each otherwise.
  if (diagnostics.length) output += (pretty ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics)(diagnostics, host);
  const typeErrors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error).length;
  output += `check-types: tsc: ${typeErrors} error(s) in ${program.getRootFileNames().length} files [${seconds()}]\n`;

  const eslint = new ESLint({ cwd, overrideConfigFile: true, baseConfig: lintConfig({ programs: [program] }) });
  const results = await eslint.lintFiles(['.']);
  output += await (await eslint.loadFormatter('stylish')).format(results);
  // A fatal error (a file no program holds, one that does not parse) is among errorCount.
  const lintErrors = results.reduce((n, r) => n + r.errorCount, 0);
  output += `check-types: eslint: ${lintErrors} error(s) in ${results.length} files [${seconds()}]\n`;
  return { typeErrors, lintErrors, output };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { typeErrors, lintErrors, output } = await checkTypes(process.cwd(), { pretty: Boolean(process.stdout.isTTY) });
  process.stdout.write(output);
  process.exitCode = typeErrors || lintErrors ? 1 : 0;
}
