/**
 * `npm run test:unit`: the tests of pure logic, in seconds. Its setup refuses sockets, listening and child
 * processes (test/support/no-sockets.ts), so a file listed here that needs one fails instead of slowing down.
 */
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

export const UNIT_TESTS = [
  'access-comment',
  'access-probes',
  'access-policy',
  'access-review',
  'adaptive-pool',
  'agents-lint',
  'boundaries',
  'cli-docs',
  'compiler-text',
  'contract-generation',
  'credentials-policy',
  'drift-render',
  'examples',
  'facet-verdicts',
  'harness-commands',
  'harness-expressions',
  'impact-references',
  'locate',
  'markdown',
  'model-scan-errors',
  'models-and-queue',
  'no-sockets',
  'preview-comment',
  'proof-comment',
  'reporters',
  'rollup-builds',
  'rollup-compare',
  'rollup-verdicts',
  'route-table',
  'self-contained',
  'slow-first',
  'tls',
  'vendor-data',
  'version-skew',
  'whole-layer',
  'workflow-security',
].map((name) => `test/${name}.test.ts`);

export default defineConfig({ ...base, test: { ...base.test, include: UNIT_TESTS, setupFiles: ['test/support/unit-setup.ts'] } });
