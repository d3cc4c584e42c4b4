#!/usr/bin/env node
// Print the plain `N passed, N failed` line CI reads, from vitest's JSON reports (one per Node
// version) and the other checks of the run (`--check name=exitcode`, e.g. check-dist or lint: a
// failed check counts as one failure). Exits 1 when nothing ran or anything failed.
// Usage: node scripts/test-summary.mjs --report a.json [--report b.json] [--check check-dist=0 ...]
import { existsSync, readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const reports = [];
const checks = [];
for (let i = 0; i < args.length; i += 2) {
  if (args[i] === '--report') reports.push(args[i + 1]);
  else if (args[i] === '--check') checks.push(args[i + 1]);
  else {
    console.error(`test-summary: unknown argument ${args[i]}`);
    process.exit(2);
  }
}

let passed = 0;
let failed = 0;
let skipped = 0;
for (const path of reports) {
  if (!existsSync(path)) {
    console.error(`test-summary: no report at ${path} (that test run did not finish)`);
    failed += 1;
    continue;
  }
  const report = JSON.parse(readFileSync(path, 'utf8'));
  passed += report.numPassedTests ?? 0;
  // A file that failed to load has no test results of its own: count it as one failure.
  const brokenFiles = (report.testResults ?? []).filter((f) => f.status === 'failed' && (f.assertionResults ?? []).length === 0).length;
  failed += (report.numFailedTests ?? 0) + brokenFiles;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  console.error(`test-summary: ${path}: ${report.numPassedTests ?? 0} passed, ${(report.numFailedTests ?? 0) + brokenFiles} failed`);
}
for (const check of checks) {
  const [name, code] = check.split('=');
  if (code !== '0') {
    console.error(`test-summary: ${name} failed`);
    failed += 1;
  }
}
if (passed + failed === 0) {
  console.error('test-summary: no test ran');
  failed = 1;
}
console.log(skipped ? `${passed} passed, ${failed} failed, ${skipped} skipped` : `${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
