/** The bad-input cases of the inputs that say what a run without an API key does (docs/security.md), the revert's and the api-url's web page (bad-input-cases.ts is at its size). */
import type { Case } from './bad-input-cases.js';

export const CREDENTIAL_CASES: Case[] = [
  {
    name: "the web app's address of a deployment (/d/<id>/…)",
    command: 'validate',
    env: { DATAMODEL_CI_API_URL: 'https://acme.cubecloud.dev/d/12/schema' },
    code: 2,
    says: ['api-url: got "https://acme.cubecloud.dev/d/12/schema", expected the tenant\'s origin https://acme.cubecloud.dev', 'deployment-id 12'],
  },
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
  {
    name: 'revert: a commit that is a branch name',
    command: 'revert',
    env: { DATAMODEL_CI_COMMIT: 'main' },
    code: 2,
    says: ['commit: got "main", expected a commit SHA: 7 to 40 hexadecimal characters'],
  },
  {
    name: 'revert: confirm yes',
    command: 'revert',
    env: { DATAMODEL_CI_CONFIRM: 'yes' },
    code: 2,
    says: ['confirm: got "yes", expected true or false'],
  },
  {
    name: 'revert: no validation record and no commit',
    command: 'revert',
    code: 2,
    says: ['commit: got nothing, expected a commit to revert to: deployment 1 has no validation record on GitHub'],
  },
];
