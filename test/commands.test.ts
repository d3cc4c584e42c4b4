/**
 * The action commands in-process (src/commands.ts): inputs from DATAMODEL_CI_* variables, the event from
 * GITHUB_EVENT_PATH, the emulator as the platform and the GitHub stand-in for the PR and its comment.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runActionCommand } from '../src/commands/index.js';
import type { Io } from '../src/io.js';
import type { CommandName } from '../src/action-spec.js';
import { DEMO_MODEL, startGitHubStandin, type GitHubStandin } from '../packages/emulator/src/index.js';
import { emulatorFixture, type EmulatorFixture } from './support/emulator.js';
import { pullRequestEvent, writeEvent } from './support/payloads.js';

let fx: EmulatorFixture;
let gh: GitHubStandin;
const TOKEN = 'ghs_test_token_0123456789';
const repoDir = mkdtempSync(join(tmpdir(), 'dmci-repo-'));
const modelDir = join(repoDir, 'analytics');

function writeModel(files: Record<string, string | null>): void {
  for (const [path, content] of Object.entries(files)) {
    const abs = join(modelDir, path);
    mkdirSync(dirname(abs), { recursive: true });
    if (content === null) writeFileSync(abs, '');
    else writeFileSync(abs, content);
  }
}

beforeAll(async () => {
  fx = await emulatorFixture();
  gh = await startGitHubStandin();
  writeModel(DEMO_MODEL);
});
afterAll(async () => {
  await fx.close();
  await gh.close();
});

interface Result {
  code: number;
  stdout: string[];
  stderr: string[];
  outputs: Record<string, string>;
}

async function run(command: CommandName, event: Record<string, unknown> | undefined, extra: Record<string, string> = {}): Promise<Result> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const env: NodeJS.ProcessEnv = {
    DATAMODEL_CI_API_URL: fx.em.baseUrl,
    DATAMODEL_CI_API_KEY: fx.em.credentials.admin,
    DATAMODEL_CI_CA_CERT: `${fx.em.ca}\n${gh.ca}`,
    DATAMODEL_CI_DEPLOYMENT_ID: '1',
    DATAMODEL_CI_GITHUB_TOKEN: TOKEN,
    DATAMODEL_CI_MODEL_DIR: modelDir,
    GITHUB_REPOSITORY: gh.repository,
    GITHUB_API_URL: gh.url,
    GITHUB_RUN_ID: '4242',
    GITHUB_SERVER_URL: 'https://github.com',
    ...(event ? { GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: writeEvent(event) } : {}),
    ...extra,
  };
  const io: Io = { out: (l) => stdout.push(l), err: (l) => stderr.push(l), env };
  const code = await runActionCommand(command, ['--json'], io);
  const last = JSON.parse(stdout.at(-1) ?? '{}') as { outputs?: Record<string, string> };
  return { code, stdout, stderr, outputs: last.outputs ?? {} };
}

const sha = (n: number) => n.toString(16).padStart(40, 'a');
const PAYMENTS = 'cubes:\n  - name: payments\n    sql_table: public.payments\n    measures:\n      - name: count\n        type: count\n';

describe('the pr lifecycle command', () => {
  const PR = 11;

  it('opened: shared branch, upload, validation, staging, one comment with the URL and "valid"', async () => {
    gh.addPull({ number: PR, headSha: sha(1), headRef: 'feature/revenue', baseRef: 'master', title: 'Add @team revenue <b>cube</b>' });
    writeModel({ 'model/cubes/payments.yml': PAYMENTS });
    const r = await run('pr', pullRequestEvent('opened', { number: PR, headSha: sha(1) }));
    // --json: stdout is the one JSON document; the log goes to stderr, with no warning or error in it.
    expect(r.stdout).toHaveLength(1);
    expect(r.stderr.filter((l) => /^(warning|error):/.test(l))).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.outputs).toMatchObject({ branch: 'preview-pr-11', valid: 'true', 'error-count': '0', skipped: 'false' });
    expect(r.outputs['staging-url']).toBe(`${fx.em.deployments[0]!.deploymentUrl}/dev-mode/preview-pr-11/cubejs-api/v1`);
    const comments = gh.comments(PR);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain('### ✅ Data-model preview · ready');
    expect(comments[0]!.body).toContain('/dev-mode/preview-pr-11/cubejs-api/v1');
    expect(gh.violations).toEqual([]);
  });

  it('synchronize with a broken model: fails, annotates file and line, updates the same comment', async () => {
    gh.setHead(PR, sha(2));
    const broken = DEMO_MODEL['model/cubes/orders.yml']!.replace('type: sum', 'type: summ');
    writeModel({ 'model/cubes/orders.yml': broken });
    const r = await run('pr', pullRequestEvent('synchronize', { number: PR, headSha: sha(2) }));
    expect(r.code).toBe(1);
    const line = broken.split('\n').findIndex((l) => l.includes('summ')) + 1;
    // The token may write checks: every error is an annotation of the "datamodel-ci / validation" check,
    // placed from the checkout, the platform's message worded by the one rewriter (src/model/compiler-text.ts).
    const check = gh
      .checkRuns()
      .filter((c) => c.name === 'datamodel-ci / validation')
      .at(-1)!;
    expect(check).toMatchObject({ headSha: sha(2), conclusion: 'failure' });
    expect(check.annotations).toHaveLength(1);
    expect(check.annotations[0]).toMatchObject({ path: `${modelDir}/model/cubes/orders.yml`, startLine: line, level: 'failure' });
    expect(check.annotations[0]!.message).toContain('"measures.total_amount.type" must be one of');
    expect(r.outputs).toMatchObject({ valid: 'false', 'error-count': '1' });
    const comments = gh.comments(PR);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain('### ❌ Data-model preview · 1 error in 1 file');
    // The value given and the suggestion, in the comment; the link only for a repository path.
    expect(comments[0]!.body).toContain('must be one of 11 allowed values, not `summ`. Did you mean `sum`?');
    expect(comments[0]!.body).not.toContain(`/blob/${sha(2)}//`);
  });

  it('a push fixing it passes; still one comment', async () => {
    gh.setHead(PR, sha(3));
    writeModel({ 'model/cubes/orders.yml': DEMO_MODEL['model/cubes/orders.yml']! });
    const r = await run('pr', pullRequestEvent('synchronize', { number: PR, headSha: sha(3) }));
    expect(r.code).toBe(0);
    expect(r.outputs).toMatchObject({ valid: 'true', uploaded: '1' });
    expect(gh.comments(PR)).toHaveLength(1);
    expect(gh.comments(PR)[0]!.body).toContain('### ✅ Data-model preview · ready');
    expect(gh.comments(PR)[0]!.body).not.toMatch(/\bsumm\b/);
  });

  it('a rerun of the same event creates no second branch and no second comment', async () => {
    const r = await run('pr', pullRequestEvent('synchronize', { number: PR, headSha: sha(3) }));
    expect(r.code).toBe(0);
    expect(r.outputs).toMatchObject({ uploaded: '0', deleted: '0' });
    expect(gh.comments(PR)).toHaveLength(1);
    const names = Object.keys(fx.em.state.deployments[0]!.branches).filter((n) => n.startsWith('preview-pr-11'));
    expect(names).toEqual(['preview-pr-11']);
  });

  it('a push breaking a cube others join: one annotation, on it, naming the files it also breaks; the echo on orders.yml is no annotation and is not counted', async () => {
    gh.setHead(PR, sha(6));
    const customers = DEMO_MODEL['model/cubes/customers.yml']!;
    const broken = customers.replace('        sql: country\n        type: string', '        sql: country\n        type: text');
    writeModel({ 'model/cubes/customers.yml': broken });
    const r = await run('pr', pullRequestEvent('synchronize', { number: PR, headSha: sha(6) }));
    expect(r.code).toBe(1);
    const check = gh
      .checkRuns()
      .filter((c) => c.name === 'datamodel-ci / validation')
      .at(-1)!;
    expect(check.annotations.map((a) => [a.path, a.startLine])).toEqual([
      [`${modelDir}/model/cubes/customers.yml`, broken.split('\n').indexOf('        type: text') + 1],
    ]);
    expect(check.annotations[0]!.message).toContain(`also breaks: ${modelDir}/model/cubes/orders.yml`);
    expect(check.output.summary).toMatch(/1 error from the platform's compiler; 1 placed on a line\. 1 more error only echoes them/);
    expect(r.outputs).toMatchObject({ valid: 'false', 'error-count': '1' });
    const body = gh.comments(PR)[0]!.body;
    expect(body).toContain('### ❌ Data-model preview · 1 error in 1 file');
    // (Outside text is escaped for Markdown.)
    expect(body).toMatch(/\n {2}- also breaks\\: .*orders\\\.yml/);
    // Fixed again for what follows.
    writeModel({ 'model/cubes/customers.yml': customers });
    gh.setHead(PR, sha(7));
    expect((await run('pr', pullRequestEvent('synchronize', { number: PR, headSha: sha(7) }))).code).toBe(0);
  });

  it('a stale run (the PR moved on) writes no comment and merges nothing', async () => {
    gh.setHead(PR, sha(5));
    const before = gh.comments(PR)[0]!.body;
    writeModel({ 'model/cubes/stale.yml': 'cubes: []\n' });
    const r = await run('pr', pullRequestEvent('synchronize', { number: PR, headSha: sha(4) }));
    expect(r.code).toBe(0);
    expect(r.outputs).toMatchObject({ skipped: 'true', status: 'stale' });
    expect(gh.comments(PR)[0]!.body).toBe(before);
    const shared = await fx.admin.dataModel.fileHashes({ deploymentId: 1, query: { branchName: 'preview-pr-11' } });
    expect(shared['model/cubes/stale.yml']).toBeUndefined();
    rmSync(join(modelDir, 'model/cubes/stale.yml'));
  });

  it('closed and merged: merged into the deploy branch, branches gone, the comment says merged', async () => {
    gh.setHead(PR, sha(3));
    gh.closePull(PR, true);
    const r = await run('pr', pullRequestEvent('closed', { number: PR, headSha: sha(3), merged: true }));
    // --json: stdout is the one JSON document; the log goes to stderr, with no warning or error in it.
    expect(r.stdout).toHaveLength(1);
    expect(r.stderr.filter((l) => /^(warning|error):/.test(l))).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.outputs.merged).toBe('true');
    expect(fx.em.state.deployments[0]!.branches['preview-pr-11']).toBeUndefined();
    expect(Object.values(fx.em.state.deployments[0]!.branches).filter((b) => b.kind === 'dev')).toEqual([]);
    const main = await fx.admin.dataModel.fileHashes({ deploymentId: 1, query: { branchName: 'main' } });
    expect(main['model/cubes/payments.yml']).toBeDefined();
    expect(main['model/cubes/stale.yml']).toBeUndefined();
    expect(gh.comments(PR)[0]!.body).toContain('### 🔀 Data-model preview · merged into `main`');
    expect(gh.comments(PR)[0]!.body).not.toContain('cubejs-api');
    expect(gh.violations).toEqual([]);
  });
});

describe('skips and failures', () => {
  it('a fork PR is skipped with a notice and exit 0', async () => {
    gh.addPull({ number: 21, headSha: sha(21), headRef: 'f', fork: true });
    const r = await run('pr', pullRequestEvent('opened', { number: 21, headSha: sha(21), fork: true }));
    expect(r.code).toBe(0);
    expect(r.outputs.skipped).toBe('true');
    expect(r.stderr.join('\n')).toContain('comes from a fork');
    expect(gh.comments(21)).toEqual([]);
  });

  it('a missing key is bad input in a terminal (GitHub Actions: e2e-credentials.test.ts), and with fail-without-credentials', async () => {
    gh.addPull({ number: 22, headSha: sha(22), headRef: 'g' });
    const terminal = await run('validate', pullRequestEvent('opened', { number: 22, headSha: sha(22) }), { DATAMODEL_CI_API_KEY: '' });
    expect(terminal).toMatchObject({ code: 2, outputs: {} });
    expect(terminal.stderr.join('\n')).toContain('api-key: got nothing, expected an API key (--api-key or DATAMODEL_CI_API_KEY;');
    expect(terminal.stderr.join('\n')).toContain('In GitHub Actions a missing key fails the step too, unless without-credentials: skip');
    expect(gh.checkRuns().filter((c) => c.headSha === sha(22))).toEqual([]);
    const failed = await run('validate', pullRequestEvent('opened', { number: 22, headSha: sha(22) }), {
      DATAMODEL_CI_API_KEY: '',
      DATAMODEL_CI_FAIL_WITHOUT_CREDENTIALS: 'true',
    });
    expect(failed.code).toBe(2);
    expect(failed.stderr.join('\n')).toContain('api-key: got nothing, expected an API key');
  });

  it('a Dependabot PR with the key (a Dependabot secret of the same name) validates like any other: only a missing key skips it', async () => {
    const event = pullRequestEvent('opened', { number: 24, headSha: sha(24) });
    (event.pull_request as { user: { login: string } }).user.login = 'dependabot[bot]';
    gh.addPull({ number: 24, headSha: sha(24), headRef: 'dependabot/npm/x' });
    const r = await run('pr', event, { GITHUB_ACTOR: 'dependabot[bot]' });
    expect(r.code, r.stderr.join('\n')).toBe(0);
    expect(r.outputs).toMatchObject({ skipped: 'false', valid: 'true' });
    expect(gh.checkRuns().find((c) => c.headSha === sha(24))).toMatchObject({ name: 'datamodel-ci / validation', conclusion: 'success' });
  });

  it('closing a PR whose preview was never created succeeds', async () => {
    gh.addPull({ number: 23, headSha: sha(23), headRef: 'h' });
    gh.closePull(23, false);
    const r = await run('pr', pullRequestEvent('closed', { number: 23, headSha: sha(23), merged: false }));
    expect(r.code).toBe(0);
    expect(r.outputs).toMatchObject({ merged: 'false', deleted: '0' });
  });

  it('names a bad input and its value', async () => {
    const r = await run('validate', undefined, { DATAMODEL_CI_DEPLOYMENT_ID: 'one', DATAMODEL_CI_BRANCH: 'x' });
    expect(r.code).toBe(2);
    expect(r.stderr.join('\n')).toContain('deployment-id: got "one", expected an integer of at least 1');
  });

  it('never prints the key or the GitHub token', async () => {
    const r = await run('validate', undefined, { DATAMODEL_CI_BRANCH: 'main', DATAMODEL_CI_VERBOSE: 'true' });
    const all = [...r.stdout, ...r.stderr].join('\n');
    expect(all).not.toContain(fx.em.credentials.admin);
    expect(all).not.toContain(TOKEN);
  });
});

describe('dry run', () => {
  it('the lifecycle on a new PR changes nothing on the platform or GitHub', async () => {
    gh.addPull({ number: 41, headSha: sha(41), headRef: 'dry' });
    const before = JSON.stringify(fx.em.state);
    const r = await run('pr', pullRequestEvent('opened', { number: 41, headSha: sha(41) }), { DATAMODEL_CI_DRY_RUN: 'true' });
    expect(r.code).toBe(0);
    expect(r.stderr.join('\n')).toContain('dry run: would create shared branch preview-pr-41');
    expect(r.stderr.join('\n')).toMatch(/dry run: would upload \d+ files?/);
    expect(r.outputs.status).toBe('dry-run');
    expect(JSON.stringify(fx.em.state)).toBe(before);
    expect(gh.comments(41)).toEqual([]);
  });
});
