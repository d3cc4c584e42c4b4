/** The bad-input cases of the inputs that say what a run without an API key does (docs/security.md). */
import type { Case } from './bad-input-cases.js';

export const CREDENTIAL_CASES: Case[] = [
  {
    name: 'without-credentials: warn',
    command: 'validate',
    env: { DATAMODEL_CI_WITHOUT_CREDENTIALS: 'warn' },
    code: 2,
    says: ['without-credentials: got "warn", expected "fail" or "skip"'],
  },
  {
    name: 'missing key, fail-without-credentials',
    command: 'validate',
    env: { DATAMODEL_CI_API_KEY: '', DATAMODEL_CI_FAIL_WITHOUT_CREDENTIALS: 'true' },
    code: 2,
    says: ['api-key: got nothing, expected an API key'],
  },
];
