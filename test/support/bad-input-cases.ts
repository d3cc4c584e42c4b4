/**
 * The bad-input cases: each input wrong in one way, what the command must say and its exit code. The
 * folders they name are made by makeBadInputModels() (test/bad-input.test.ts runs them).
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CommandName } from '../../src/action-spec.js';
import { DEMO_MODEL } from '../../packages/emulator/src/index.js';
import { CREDENTIAL_CASES } from './bad-input-credentials.js';
import { DRIFT_CASES } from './bad-input-drift.js';
import { AGENTS_CASES } from './bad-input-agents.js';
import { VALUE_CASES } from './bad-input-values.js';
import { IMPACT_EVALS_CASES } from './bad-input-evals.js';
import { writeEvent } from './payloads.js';

export const root = mkdtempSync(join(tmpdir(), 'dmci-bad-'));
export const goodModel = join(root, 'good');
/** Paths are known when the cases are collected; the files are made in beforeAll. */
export const dirs = {
  empty: join(root, 'empty'),
  latin1: join(root, 'latin1'),
  big: join(root, 'big'),
  symlink: join(root, 'symlink'),
  file: join(root, 'a-file.txt'),
  /** A personas file naming one persona twice. */
  personasTwice: join(root, 'personas-twice.yml'),
};

function model(name: string, files: Record<string, string | Buffer>): string {
  const dir = join(root, name);
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The folders the cases name: a good model, an empty one, non-UTF-8, 50 MB, a symlink out, a file. */
export function makeBadInputModels(): void {
  writeFileSync(join(root, 'outside.yml'), 'x');
  model('good', DEMO_MODEL);
  model('empty', {});
  model('latin1', { ...DEMO_MODEL, 'model/cubes/x.yml': Buffer.from([0x63, 0xe9, 0x0a]) });
  model('big', { ...DEMO_MODEL });
  writeFileSync(join(dirs.big, 'model', 'huge.yml'), Buffer.alloc(50 * 1024 * 1024, 0x61));
  model('symlink', { ...DEMO_MODEL });
  symlinkSync(join(root, 'outside.yml'), join(dirs.symlink, 'model', 'escape.yml'));
  writeFileSync(dirs.file, 'x');
  writeFileSync(dirs.personasTwice, 'personas:\n  - name: analyst\n  - name: analyst\n');
}

export interface Case {
  name: string;
  command: CommandName | 'cli';
  env?: Record<string, string>;
  argv?: string[];
  /** Expected exit code: 2 bad input, 1 refused by the platform. */
  code: 1 | 2 | 3;
  /** What stderr must contain (the input, the value, the expectation). */
  says: (string | RegExp)[];
}

export const cases = (): Case[] => [
  {
    name: 'http:// URL',
    command: 'validate',
    env: { DATAMODEL_CI_API_URL: 'http://platform.example' },
    code: 2,
    says: ['api-url: got "http://platform.example", expected an https:// URL'],
  },
  {
    name: 'malformed URL',
    command: 'validate',
    env: { DATAMODEL_CI_API_URL: 'platform dot example' },
    code: 2,
    says: ['api-url: got "platform dot example", expected an absolute https:// URL'],
  },
  {
    name: 'URL with a password',
    command: 'validate',
    env: { DATAMODEL_CI_API_URL: 'https://me:pw@platform.example' },
    code: 2,
    says: [/api-url: got "https:\/\/\*\*\*@platform\.example\/", expected a URL without user:password/],
  },
  {
    name: 'missing URL',
    command: 'validate',
    env: { DATAMODEL_CI_API_URL: '' },
    code: 2,
    says: ["api-url: got nothing, expected the platform's https:// address (input api-url, --api-url or DATAMODEL_CI_API_URL)"],
  },
  ...CREDENTIAL_CASES,
  ...DRIFT_CASES,
  ...AGENTS_CASES,
  ...IMPACT_EVALS_CASES,
  {
    name: 'key with a scheme in it',
    command: 'validate',
    env: { DATAMODEL_CI_API_KEY: 'Bearer abcdefgh' },
    code: 2,
    says: ['api-key: got "(hidden)", expected a key without spaces'],
  },
  {
    name: 'unknown key',
    command: 'validate',
    env: { DATAMODEL_CI_API_KEY: 'dmci_nope_0123456789' },
    code: 3,
    says: [
      'GET /api/v1/deployments/1/settings -> 401: invalid credential: unknown API key',
      'hint: the platform refused the API key (401)',
      'Admin → API Keys',
    ],
  },
  {
    name: 'expired key',
    command: 'validate',
    env: { DATAMODEL_CI_API_KEY: 'dmci_expired_bad_input_0123' },
    code: 3,
    says: [/-> 401: expired credential: the key expired at /, 'that it was not revoked'],
  },
  {
    name: 'key scoped to another deployment',
    command: 'validate',
    env: { DATAMODEL_CI_API_KEY: 'SCOPED', DATAMODEL_CI_DEPLOYMENT_ID: '2' },
    code: 3,
    says: [
      'GET /api/v1/deployments/2/settings -> 403: this API key is scoped to deployment(s) 1, not 2',
      'hint: the key may not act on deployment 2: its deployment scope (Admin → API Keys) must include 2 or all deployments',
    ],
  },
  {
    name: 'key without a permission',
    command: 'start-dev-branch',
    env: { DATAMODEL_CI_API_KEY: 'dmci_lin_bad_input_0123456' },
    code: 3,
    says: [/-> 403: missing permission Schema/, "its owner's role needs Access deployment, View data model and Edit data model there"],
  },
  {
    name: 'non-admin on an admin call',
    command: 'cli',
    argv: ['api', 'POST', '/api/v1/usage-analytics/token'],
    env: { DATAMODEL_CI_API_KEY: 'MEMBER' },
    code: 3,
    says: [
      'POST /api/v1/usage-analytics/token -> 403: POST /api/v1/usage-analytics/token needs the admin role',
      "hint: the key is valid but its owner may not do this (403): some endpoints need an admin's key",
    ],
  },
  {
    name: 'unknown deployment',
    command: 'validate',
    env: { DATAMODEL_CI_DEPLOYMENT_ID: '99' },
    code: 1,
    says: ['GET /api/v1/deployments/99/settings -> 404: deployment 99 not found'],
  },
  {
    name: 'deployment-id not a number',
    command: 'validate',
    env: { DATAMODEL_CI_DEPLOYMENT_ID: 'analytics' },
    code: 2,
    says: ['deployment-id: got "analytics", expected an integer of at least 1'],
  },
  {
    name: 'deployment-id zero',
    command: 'validate',
    env: { DATAMODEL_CI_DEPLOYMENT_ID: '0' },
    code: 2,
    says: ['deployment-id: got "0", expected an integer of at least 1'],
  },
  {
    name: 'deployment-id missing',
    command: 'validate',
    env: { DATAMODEL_CI_DEPLOYMENT_ID: '' },
    code: 2,
    says: ['deployment-id: got nothing, expected the id of the platform deployment'],
  },
  {
    name: 'unknown auth-scheme',
    command: 'validate',
    env: { DATAMODEL_CI_AUTH_SCHEME: 'basic' },
    code: 2,
    says: ['auth-scheme: got "basic", expected "bearer" or "api-key"'],
  },
  {
    name: 'CA file missing',
    command: 'validate',
    env: { DATAMODEL_CI_CA_CERT: '/no/such/ca.pem' },
    code: 2,
    says: ['ca-cert: got "/no/such/ca.pem", expected PEM text or the path of a readable PEM file'],
  },
  {
    name: 'CA file without a certificate',
    command: 'validate',
    env: { DATAMODEL_CI_CA_CERT: join(root, 'outside.yml') },
    code: 2,
    says: [/ca-cert: got ".*outside\.yml", expected PEM text or the path of a PEM file \(the file holds no certificate\)/],
  },
  {
    name: 'branch with spaces',
    command: 'validate',
    env: { DATAMODEL_CI_BRANCH: 'my branch' },
    code: 2,
    says: ['branch: got "my branch", expected a branch name of letters, digits'],
  },
  { name: 'branch with ..', command: 'validate', env: { DATAMODEL_CI_BRANCH: 'a/../b' }, code: 2, says: ['branch: got "a/../b", expected a branch name'] },
  {
    name: 'branch-prefix upper case',
    command: 'validate',
    env: { DATAMODEL_CI_BRANCH_PREFIX: 'Preview-' },
    code: 2,
    says: ['branch-prefix: got "Preview-", expected lower-case letters'],
  },
  {
    name: 'branch-prefix dev-',
    command: 'validate',
    env: { DATAMODEL_CI_BRANCH_PREFIX: 'dev-' },
    code: 2,
    says: ['branch-prefix: got "dev-", expected lower-case letters'],
  },
  {
    name: 'model-dir with ..',
    command: 'upload-model',
    env: { DATAMODEL_CI_MODEL_DIR: '../elsewhere' },
    code: 2,
    says: ['model-dir: got "../elsewhere", expected a folder inside the repository, without ".." segments'],
  },
  {
    name: 'model-dir missing',
    command: 'upload-model',
    env: { DATAMODEL_CI_MODEL_DIR: join(root, 'nope') },
    code: 2,
    says: [/model-dir: got ".*nope", expected an existing directory/],
  },
  {
    name: 'model-dir is a file',
    command: 'upload-model',
    env: { DATAMODEL_CI_MODEL_DIR: dirs.file },
    code: 2,
    says: [/model-dir: got ".*a-file\.txt", expected a directory/],
  },
  {
    name: 'symlink leaving the model dir',
    command: 'upload-model',
    env: { DATAMODEL_CI_MODEL_DIR: dirs.symlink },
    code: 2,
    says: [/model-dir file model\/escape\.yml: got ".*outside\.yml", expected a symlink that stays inside the model dir/],
  },
  {
    name: 'non-UTF-8 model file',
    command: 'upload-model',
    env: { DATAMODEL_CI_MODEL_DIR: dirs.latin1 },
    code: 2,
    says: ['model-dir file model/cubes/x.yml: got "bytes that are not UTF-8", expected a UTF-8 text file'],
  },
  {
    name: 'empty model',
    command: 'upload-model',
    env: { DATAMODEL_CI_MODEL_DIR: dirs.empty },
    code: 2,
    says: [/model-dir: got ".*empty \(no files\)", expected a data model/],
  },
  {
    name: '50 MB file',
    command: 'upload-model',
    env: { DATAMODEL_CI_MODEL_DIR: dirs.big },
    code: 2,
    says: ['model-dir file model/huge.yml: got "52428800 bytes", expected at most 10485760 bytes per file'],
  },
  ...VALUE_CASES,
  {
    name: 'malformed event payload',
    command: 'validate',
    env: { GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: join(root, 'outside.yml') },
    code: 2,
    says: [/GITHUB_EVENT_PATH: got ".*outside\.yml", expected a readable JSON event file/],
  },
  {
    name: 'event without pull_request',
    command: 'validate',
    env: { GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: writeEvent({ action: 'opened' }) },
    code: 2,
    says: ['event payload.pull_request: got nothing, expected a pull_request object'],
  },
  {
    name: 'event file missing',
    command: 'validate',
    env: { GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: join(root, 'no-event.json') },
    code: 2,
    says: [/GITHUB_EVENT_PATH: got ".*no-event\.json", expected a readable JSON event file/],
  },
  {
    name: 'pr command without a PR event',
    command: 'pr',
    env: { DATAMODEL_CI_BRANCH: 'main' },
    code: 2,
    says: ['event: got nothing, expected a pull_request or merge_group event'],
  },
  {
    name: 'impact: personas file missing',
    command: 'impact',
    env: { DATAMODEL_CI_PERSONAS: join(root, 'no-personas.yml') },
    code: 2,
    says: [/personas: got ".*no-personas\.yml", expected a readable YAML or JSON file of personas \(ENOENT\)/],
  },
  {
    name: 'diff --personas naming a persona twice',
    command: 'cli',
    argv: ['diff', '--personas', dirs.personasTwice],
    code: 2,
    says: ['expected a file whose persona names are unique (personas[1].name "analyst" is used twice)'],
  },
  {
    name: 'sweep without a repository',
    command: 'cleanup-branch',
    env: { DATAMODEL_CI_MODE: 'sweep', GITHUB_REPOSITORY: '' },
    code: 2,
    says: ['github-token: got nothing, expected a token and GITHUB_REPOSITORY'],
  },
];
