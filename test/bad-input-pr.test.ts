/**
 * The `pr` command (the root action) refuses every bad input before it sends anything to the
 * platform: each case exits 2 naming the input, and the emulator saw no request at all.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputsOf, actionSpec, envName } from '../src/action-spec.js';
import { runActionCommand } from '../src/commands/index.js';
import type { Io } from '../src/io.js';
import { DEMO_MODEL, startGitHubStandin, type GitHubStandin } from '../packages/emulator/src/index.js';
import { emulatorFixture, type EmulatorFixture } from './support/emulator.js';
import { pullRequestEvent, writeEvent } from './support/payloads.js';

let fx: EmulatorFixture;
let gh: GitHubStandin;
const root = mkdtempSync(join(tmpdir(), 'dmci-bad-pr-'));

function model(name: string, files: Record<string, string | Buffer>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
  return dir;
}

/** One bad value per input of the root action (several for the model dir), and what the error must say. */
const cases = (): { input: string; value: string; says: string }[] => [
  { input: 'api-url', value: 'http://platform.example', says: 'api-url: got "http://platform.example", expected an https:// URL' },
  { input: 'api-key', value: 'Bearer abc def', says: 'api-key: got "(hidden)", expected a key without spaces' },
  { input: 'auth-scheme', value: 'basic', says: 'auth-scheme: got "basic", expected "bearer" or "api-key"' },
  { input: 'ca-cert', value: join(root, 'no-ca.pem'), says: 'ca-cert: got "' },
  { input: 'deployment-id', value: 'analytics', says: 'deployment-id: got "analytics", expected an integer of at least 1' },
  { input: 'github-token', value: 'ghs_a b', says: 'github-token: got "(hidden)", expected a token without spaces' },
  { input: 'model-dir', value: '../elsewhere', says: 'model-dir: got "../elsewhere", expected a folder inside the repository' },
  { input: 'model-dir', value: join(root, 'missing'), says: 'model-dir: got "' },
  { input: 'model-dir', value: join(root, 'empty'), says: 'expected a data model' },
  { input: 'model-dir', value: join(root, 'latin1'), says: 'model-dir file model/cubes/x.yml: got "bytes that are not UTF-8"' },
  { input: 'model-dir', value: join(root, 'symlink'), says: 'expected a symlink that stays inside the model dir' },
  { input: 'branch-prefix', value: 'Preview-', says: 'branch-prefix: got "Preview-", expected lower-case letters' },
  { input: 'dry-run', value: 'yes', says: 'dry-run: got "yes", expected true or false' },
  { input: 'request-timeout', value: '0', says: 'request-timeout: got "0", expected a positive number' },
  { input: 'branch', value: 'my branch', says: 'branch: got "my branch", expected a branch name' },
  { input: 'merge-on-close', value: 'maybe', says: 'merge-on-close: got "maybe", expected "auto" or "true" or "false"' },
  { input: 'allow-model-deletion', value: 'sure', says: 'allow-model-deletion: got "sure", expected true or false' },
  { input: 'fail-on-invalid', value: 'maybe', says: 'fail-on-invalid: got "maybe", expected true or false' },
  { input: 'smoke-test', value: 'yes', says: 'smoke-test: got "yes", expected true or false' },
  { input: 'concurrency', value: '0', says: 'concurrency: got "0", expected an integer from 1 to 64' },
  { input: 'remove-on-upstream', value: 'nope', says: 'remove-on-upstream: got "nope", expected true or false' },
  { input: 'exclude', value: '../secrets/**', says: 'exclude: got "../secrets/**", expected globs of paths relative to model-dir' },
  { input: 'upload-via', value: 'ftp', says: 'upload-via: got "ftp", expected "auto" or "direct" or "dev-mode"' },
  { input: 'deploy-on-merge', value: 'yes', says: 'deploy-on-merge: got "yes", expected true or false' },
  { input: 'proof-wait', value: '10 minutes', says: 'proof-wait: got "10 minutes", expected a duration such as 90s, 30m, 12h or 7d' },
  { input: 'preflight', value: 'please', says: 'preflight: got "please", expected true or false' },
  { input: 'environment-prefix', value: 'pr<1>', says: 'environment-prefix: got "pr<1>", expected letters, digits' },
  { input: 'impact', value: 'sometimes', says: 'impact: got "sometimes", expected true or false' },
  { input: 'fail-on-breaking', value: 'if-used', says: 'fail-on-breaking: got "if-used", expected true or false' },
  { input: 'without-credentials', value: 'ignore', says: 'without-credentials: got "ignore", expected "fail" or "skip"' },
  { input: 'fail-without-credentials', value: 'perhaps', says: 'fail-without-credentials: got "perhaps", expected true or false' },
  { input: 'data-diff', value: 'maybe', says: 'data-diff: got "maybe", expected "off" or "values" or "relative"' },
  { input: 'data-diff-allow-public', value: 'sure', says: 'data-diff-allow-public: got "sure", expected true or false' },
  { input: 'data-diff-queries', value: join(root, 'no-queries.json'), says: 'expected a readable JSON file of key queries (ENOENT)' },
  { input: 'data-diff-base-queries', value: 'base.json', says: 'data-diff-base-queries: got "base.json", expected data-diff-queries too' },
  { input: 'data-diff-security-context', value: '["tenant"]', says: 'data-diff-security-context: got "(not shown)", expected a JSON object' },
  { input: 'data-diff-max-queries', value: '0', says: 'data-diff-max-queries: got "0", expected an integer from 1 to 500' },
  { input: 'data-diff-max-rows', value: 'all', says: 'data-diff-max-rows: got "all", expected an integer from 1 to 50000' },
  { input: 'data-diff-concurrency', value: '99', says: 'data-diff-concurrency: got "99", expected an integer from 1 to 16' },
  { input: 'data-diff-query-timeout', value: 'soon', says: 'data-diff-query-timeout: got "soon", expected an integer from 1 to 600' },
  { input: 'data-diff-abs-tolerance', value: 'abc', says: 'data-diff-abs-tolerance: got "abc", expected a number of at least 0' },
  { input: 'data-diff-rel-tolerance', value: '-0.1', says: 'data-diff-rel-tolerance: got "-0.1", expected a number of at least 0' },
  { input: 'fail-on-data-change', value: 'if-big', says: 'fail-on-data-change: got "if-big", expected true or false' },
  { input: 'fail-on-rollup-loss', value: 'sometimes', says: 'fail-on-rollup-loss: got "sometimes", expected true or false' },
  { input: 'evals', value: 'yes', says: 'evals: got "yes", expected "off" or "on"' },
  { input: 'fail-on-eval-regression', value: 'maybe', says: 'fail-on-eval-regression: got "maybe", expected true or false' },
  { input: 'evals-timeout', value: '30', says: 'evals-timeout: got "30", expected a duration such as 90s, 30m, 12h or 7d' },
  { input: 'evals-timeout', value: '0m', says: 'evals-timeout: got "0m", expected a duration above zero such as 30m' },
  { input: 'evals-agent', value: 'sales desk', says: 'evals-agent: got "sales desk", expected an agent name' },
  { input: 'agents-folder', value: '../agents', says: 'agents-folder: got "../agents", expected a folder inside model-dir' },
  { input: 'evals-production', value: 'latest', says: 'evals-production: got "latest", expected "run" or "last-complete"' },
  { input: 'evals-runs', value: '4', says: 'evals-runs: got "4", expected an integer from 1 to 3' },
  { input: 'evals-runs', value: 'twice', says: 'evals-runs: got "twice", expected an integer from 1 to 3' },
  { input: 'data-diff-build-rollups', value: 'yes', says: 'data-diff-build-rollups: got "yes", expected true or false' },
  { input: 'deployments', value: 'analytics: [1', says: 'deployments: got "analytics: [1", expected a map of model folder to deployment' },
  { input: 'deployments', value: '- analytics', says: 'deployments: got "- analytics", expected a map of model folder to deployment' },
  { input: 'deployments', value: 'analytics: twelve', says: 'deployments (entry analytics): got "twelve", expected the id of the platform deployment' },
  { input: 'deployments', value: '../shared: 1', says: 'deployments (entry "../shared"): got "../shared", expected a folder inside the repository' },
  { input: 'deployments', value: 'a: 1\nb: 1', says: 'deployments (entries a and b): got 1, expected a deployment of its own for each model' },
  { input: 'deployments', value: 'a: 1\na/b: 2', says: 'deployments (entries a and a/b): got "a, a/b", expected model folders apart' },
  { input: 'deployments', value: 'a: { deployment-id: 1, token: x }', says: 'deployments (entry a): got "token", expected only deployment-id and api-url' },
  {
    input: 'deployments',
    value: 'a: { deployment-id: 2, api-url: "http://x" }',
    says: 'deployments (entry a).api-url: got "http://x", expected an https:// URL',
  },
  { input: 'deployments', value: 'a: 2', says: 'deployment-id: got 1, expected empty when `deployments` names each model' },
  { input: 'deployments-concurrency', value: '0', says: 'deployments-concurrency: got "0", expected an integer from 1 to 8' },
  { input: 'preview-untouched', value: 'maybe', says: 'preview-untouched: got "maybe", expected true or false' },
  { input: 'personas', value: join(root, 'no-personas.yml'), says: 'expected a readable YAML or JSON file of personas (ENOENT)' },
  { input: 'personas', value: join(root, 'personas-list.json'), says: 'personas: got "' },
  { input: 'personas', value: join(root, 'personas-context.yml'), says: 'expected a file whose personas[0].securityContext is a map' },
  { input: 'fail-on-exposure', value: 'maybe', says: 'fail-on-exposure: got "maybe", expected true or false' },
  { input: 'fail-on-version-skew', value: 'warn', says: 'fail-on-version-skew: got "warn", expected true or false' },
];

beforeAll(async () => {
  fx = await emulatorFixture();
  gh = await startGitHubStandin();
  gh.addPull({ number: 9, headSha: 'c'.repeat(40), headRef: 'feature' });
  writeFileSync(join(root, 'outside.yml'), 'x');
  writeFileSync(join(root, 'personas-list.json'), '{ "personas": { "name": "analyst" } }');
  writeFileSync(join(root, 'personas-context.yml'), 'personas:\n  - name: analyst\n    securityContext: region=EU\n');
  model('good', DEMO_MODEL);
  model('empty', {});
  model('latin1', { ...DEMO_MODEL, 'model/cubes/x.yml': Buffer.from([0x63, 0xe9, 0x0a]) });
  model('symlink', DEMO_MODEL);
  symlinkSync(join(root, 'outside.yml'), join(root, 'symlink', 'model', 'escape.yml'));
});
afterAll(async () => {
  await fx.close();
  await gh.close();
});

describe('bad input to the pr command', () => {
  it('has a case for every input the root action declares', () => {
    const covered = new Set(cases().map((c) => c.input));
    expect(
      inputsOf(actionSpec('pr'))
        .map((i) => i.name)
        .filter((n) => !covered.has(n)),
    ).toEqual([]);
  });

  it.each(cases().map((c) => [`${c.input}=${c.value.replace(root, '<tmp>')}`, c] as const))('%s is refused before any platform request', async (_name, c) => {
    const env: NodeJS.ProcessEnv = {
      DATAMODEL_CI_API_URL: fx.em.baseUrl,
      DATAMODEL_CI_API_KEY: fx.em.credentials.admin,
      DATAMODEL_CI_CA_CERT: `${fx.em.ca}\n${gh.ca}`,
      DATAMODEL_CI_DEPLOYMENT_ID: '1',
      DATAMODEL_CI_GITHUB_TOKEN: 'ghs_bad_input_token_0123',
      DATAMODEL_CI_MODEL_DIR: join(root, 'good'),
      GITHUB_REPOSITORY: gh.repository,
      GITHUB_API_URL: gh.url,
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: writeEvent(pullRequestEvent('opened', { number: 9, headSha: 'c'.repeat(40) })),
      [envName(c.input)]: c.value,
    };
    const requestsBefore = JSON.stringify(fx.em.counts);
    const stderr: string[] = [];
    const io: Io = { out: () => undefined, err: (l) => stderr.push(l), env };
    const code = await runActionCommand('pr', [], io);
    expect(stderr.join('\n')).toContain(c.says);
    expect(code).toBe(2);
    expect(JSON.stringify(fx.em.counts), 'the platform saw a request').toBe(requestsBefore);
  });
});
