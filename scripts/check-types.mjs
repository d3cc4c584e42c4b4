#!/usr/bin/env node
// `npm run check-types`: tsc's check and eslint over ONE TypeScript program (CI's typecheck and lint). Run
// apart, each builds its own program and type-checks every file; here eslint's type-aware rules read the
// types tsc's check already computed. Prints what `tsc --noEmit` and `eslint .` print; exits 1 on either.
import ts from 'typescript';
import { ESLint } from 'eslint';
import { lintConfig } from '../eslint.config.js';

const started = Date.now();
const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: ts.sys.getCurrentDirectory, getNewLine: () => ts.sys.newLine };
const seconds = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
const config = ts.getParsedCommandLineOfConfigFile('tsconfig.json', {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail([d]) });
if (config.errors.length) fail(config.errors);
const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, projectReferences: config.projectReferences });

const diagnostics = ts.getPreEmitDiagnostics(program);
// As tsc prints them: with colour and context on a terminal, one line each otherwise.
const format = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;
if (diagnostics.length) process.stdout.write(format(diagnostics, host));
const typeErrors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error).length;
console.log(`check-types: tsc: ${typeErrors} error(s) in ${program.getRootFileNames().length} files [${seconds()}]`);

const eslint = new ESLint({ overrideConfigFile: true, baseConfig: lintConfig({ programs: [program] }) });
const results = await eslint.lintFiles(['.']);
const text = await (await eslint.loadFormatter('stylish')).format(results);
if (text) process.stdout.write(text);
// A fatal error (a file no program holds, one that does not parse) is among errorCount.
const lintErrors = results.reduce((n, r) => n + r.errorCount, 0);
console.log(`check-types: eslint: ${lintErrors} error(s) in ${results.length} files [${seconds()}]`);
process.exit(typeErrors || lintErrors ? 1 : 0);

function fail(list) {
  process.stderr.write(ts.formatDiagnostics(list, host));
  process.exit(1);
}
