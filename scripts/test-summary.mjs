#!/usr/bin/env node
// Print the plain `N passed, N failed` line from vitest's JSON report (the line CI reads).
// A failed check-dist counts as one failed check. Exits 1 when nothing ran or anything failed.
import { existsSync, readFileSync } from 'node:fs';

const [reportPath = '.vitest-report.json', distFailed = '0'] = process.argv.slice(2);
let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(reportPath)) {
  const report = JSON.parse(readFileSync(reportPath, 'utf8'));
  passed = report.numPassedTests ?? 0;
  // A file that failed to load has no test results of its own: count it as one failure.
  const brokenFiles = (report.testResults ?? []).filter(
    (f) => f.status === 'failed' && (f.assertionResults ?? []).length === 0,
  ).length;
  failed = (report.numFailedTests ?? 0) + brokenFiles;
  skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
} else {
  console.error(`test-summary: no report at ${reportPath} (the test run did not finish)`);
  failed += 1;
}
if (distFailed === '1') failed += 1;
if (passed + failed === 0) {
  console.error('test-summary: no test ran');
  failed = 1;
}
console.log(skipped ? `${passed} passed, ${failed} failed, ${skipped} skipped` : `${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
