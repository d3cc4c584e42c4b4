/**
 * `npm run test:versions`: the suites whose result can differ by Node.js version, run on every supported
 * one (CI: 22 besides the whole suite on 24): the committed bundle, the CLI and the installed packages.
 */
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

export const VERSION_TESTS = ['cli-bundle', 'cli', 'install'].map((name) => `test/${name}.test.ts`);

export default defineConfig({ ...base, test: { ...base.test, include: VERSION_TESTS } });
