/**
 * `datamodel-ci drift` in-process, the emulator as the platform over HTTPS and the GitHub stand-in: the
 * contract's `--json` result and exit codes (0 in sync, 1 drift, 3 platform unreadable), nothing written
 * to the platform, the requests one check costs, and the deployment's one GitHub issue: opened when
 * production differs, rewritten in place, closed when it matches again, reopened (never a second one);
 * an issue someone else wrote with the same label and marker is left alone.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '@datamodel-ci/platform-api';
import { runActionCommand } from '../src/commands/index.js';
import type { Io } from '../src/io.js';
import { makeRecord } from '../src/operations/validation-record.js';
import { writeProductionRecord } from '../src/pr/production-record.js';
import { parseDriftMarker } from '../src/pr/drift-issue.js';
import { createGitHubApi } from '../src/github/octokit.js';
import { DEMO_MODEL, startGitHubStandin, type GitHubStandin } from '../packages/emulator/src/index.js';
import { emulatorFixture, sha1, uploadTree, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
let gh: GitHubStandin;
const TOKEN = 'ghs_drift_token_0123456789';
const modelDir = join(mkdtempSync(join(tmpdir(), 'dmci-drift-')), 'analytics');
const EXTRA = 'cubes:\n  - name: extra\n    sql_table: public.orders\n    measures:\n      - name: count\n        type: count\n';

function writeModel(files: Record<string, string>): void {
  rmSync(modelDir, { recursive: true, force: true });
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(modelDir, path)), { recursive: true });
    writeFileSync(join(modelDir, path), content);
  }
}

beforeAll(async () => {
  fx = await emulatorFixture();
  gh = await startGitHubStandin();
  writeModel(DEMO_MODEL);
  await uploadTree(fx.admin, 1, 'main', DEMO_MODEL);
});
afterAll(async () => {
  await fx.close();
  await gh.close();
});

interface Result {
  code: number;
  result: Record<string, any>;
  outputs: Record<string, string>;
  stderr: string[];
}

async function drift(extra: Record<string, string> = {}, argv: string[] = ['--json'], standin = gh): Promise<Result> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const env: NodeJS.ProcessEnv = {
    DATAMODEL_CI_API_URL: fx.em.baseUrl,
    DATAMODEL_CI_API_KEY: fx.em.credentials.admin,
    DATAMODEL_CI_CA_CERT: `${fx.em.ca}\n${standin.ca}`,
    DATAMODEL_CI_DEPLOYMENT_ID: '1',
    DATAMODEL_CI_MODEL_DIR: modelDir,
    DATAMODEL_CI_GITHUB_TOKEN: TOKEN,
    GITHUB_REPOSITORY: standin.repository,
    GITHUB_API_URL: standin.url,
    GITHUB_RUN_ID: '5150',
    GITHUB_SERVER_URL: 'https://github.com',
    ...extra,
  };
  const io: Io = { out: (l) => stdout.push(l), err: (l) => stderr.push(l), env };
  const code = await runActionCommand('drift', argv, io);
  const doc = JSON.parse(stdout.at(-1) ?? '{}') as { result?: Record<string, unknown>; outputs?: Record<string, string> };
  return { code, result: doc.result ?? {}, outputs: doc.outputs ?? {}, stderr };
}

/** The platform's write endpoints: everything but GET, the data-API token mints aside (a read of /meta needs one). */
const MINTS = new Set<string>(['createDeploymentEnvironmentToken', 'deploymentToken', 'createDeploymentEnvironmentTokenForMetaSync']);
const WRITES = new Set<string>(Object.values(endpoints).flatMap((e) => (e.method !== 'GET' && !MINTS.has(e.id) ? [e.id] : [])));

/** The requests a call made, by endpoint id (control routes aside). */
async function counted<T>(call: () => Promise<T>): Promise<{ value: T; requests: Record<string, number> }> {
  const before = { ...fx.em.counts };
  const value = await call();
  const requests: Record<string, number> = {};
  for (const [k, n] of Object.entries(fx.em.counts)) if (k !== 'control' && n !== (before[k] ?? 0)) requests[k] = n - (before[k] ?? 0);
  return { value, requests };
}

const ours = () => gh.issues().filter((i) => parseDriftMarker(i.body)?.deploymentId === 1);

describe('the contract', () => {
  it('in sync: exit 0, status in-sync, no files, no members; nothing written to the platform; no issue opened', async () => {
    const state = JSON.stringify(fx.em.state.deployments);
    const { value: r, requests } = await counted(() => drift());
    expect(r.code, r.stderr.join('\n')).toBe(0);
    expect(r.result).toMatchObject({ status: 'in-sync', files: [], members: [], deployBranch: { name: 'main', deployMode: 'git' } });
    expect(r.result.reason).toBeUndefined();
    expect(r.outputs).toMatchObject({ status: 'in-sync', 'drift-files': '0', 'drift-members': '0', cause: '', 'issue-number': '' });
    expect(Object.keys(requests).filter((id) => WRITES.has(id))).toEqual([]);
    expect(JSON.stringify(fx.em.state.deployments)).toBe(state);
    expect(ours()).toEqual([]);
    // The figure of the closing note: the requests one check in sync costs, a model without access policies, Git mode.
    expect(requests).toEqual({
      getDeploymentSettings: 1,
      buildStatus: 1,
      fileHashes: 1,
      getDeploymentEnvironments: 1,
      createDeploymentEnvironmentToken: 1,
      'data-api': 1,
    });
  }, 60_000);

  it('exit 3 when the platform cannot be read: an unknown deployment, a refused key; exit 2 for bad input, before any call', async () => {
    const unknown = await drift({ DATAMODEL_CI_DEPLOYMENT_ID: '99' });
    expect(unknown.code).toBe(3);
    const refused = await drift({ DATAMODEL_CI_API_KEY: 'sk-not-a-key-of-this-tenant' });
    expect(refused.code).toBe(3);
    const { value: bad, requests } = await counted(() => drift({ DATAMODEL_CI_BUILD_WAIT_MINUTES: 'soon' }));
    expect(bad.code).toBe(2);
    expect(requests).toEqual({});
  }, 60_000);
});

describe('the one door', () => {
  it("the watch's code goes nowhere near it: no door, evidence or ledger imported, no mutating call", () => {
    for (const file of ['src/operations/drift.ts', 'src/operations/drift-cause.ts', 'src/commands/drift.ts']) {
      const code = readFileSync(file, 'utf8');
      expect(code, file).not.toMatch(/door\.js|evidence\.js|ledger\.js|\bmutate\(|\bgitWrite\(|\battest\(/);
    }
  });
});

describe('the issue', () => {
  let number = 0;

  it('drift: exit 1, the file and the member production has, a likely cause; one issue opened with them, found again by its marker', async () => {
    await uploadTree(fx.admin, 1, 'main', { ...DEMO_MODEL, 'model/cubes/extra.yml': EXTRA });
    const { value: r, requests } = await counted(() => drift());
    expect(r.code).toBe(1);
    expect(r.result).toMatchObject({
      status: 'drift',
      files: [{ path: 'model/cubes/extra.yml', change: 'added' }],
      members: [{ member: 'extra.count', change: 'added' }],
      likelyCause: { kind: 'platform-merge' },
    });
    expect(Object.keys(requests).filter((id) => WRITES.has(id))).toEqual([]);
    const [issue, ...more] = ours();
    expect(more).toEqual([]);
    expect(issue).toMatchObject({ state: 'open', labels: ['datamodel-ci-drift'], user: 'github-actions[bot]' });
    expect(issue!.body).toContain('`model/cubes/extra.yml`');
    expect(issue!.body).toContain('`extra.count`');
    expect(issue!.body).toContain('Likely a change made in the platform');
    number = issue!.number;
    expect(r.outputs).toMatchObject({ status: 'drift', 'drift-files': '1', 'drift-members': '1', cause: 'platform-merge', 'issue-number': String(number) });
  }, 60_000);

  it('a later run rewrites the same issue in place, keeping since when production differs', async () => {
    const since = parseDriftMarker(ours()[0]!.body)!.state.since;
    await uploadTree(fx.admin, 1, 'main', { ...DEMO_MODEL, 'model/cubes/extra.yml': EXTRA, 'model/cubes/more.yml': EXTRA.replace('extra', 'more') });
    const r = await drift();
    expect(r.code).toBe(1);
    expect(ours()).toHaveLength(1);
    expect(ours()[0]).toMatchObject({ number, state: 'open' });
    expect(ours()[0]!.body).toContain('`model/cubes/more.yml`');
    expect(parseDriftMarker(ours()[0]!.body)!.state.since).toBe(since);
  }, 60_000);

  it('someone else’s issue with the same label and marker is never touched: the watch opens its own', async () => {
    const other = await startGitHubStandin();
    try {
      const forged = other.addIssue({
        title: 'forged',
        body: `<!-- datamodel-ci:drift deployment=1 state= -->\nkeep me`,
        labels: ['datamodel-ci-drift'],
        user: 'mallory',
      });
      expect((await drift({}, ['--json'], other)).code).toBe(1);
      expect(other.issues().find((i) => i.number === forged.number)).toMatchObject({ body: forged.body, state: 'open' });
      expect(other.issues().filter((i) => i.user === 'github-actions[bot]')).toHaveLength(1);
      expect(other.violations).toEqual([]);
    } finally {
      await other.close();
    }
  }, 60_000);

  it('in sync again: exit 0 and the issue closed, what differed kept under it; drift later reopens the same issue', async () => {
    await uploadTree(fx.admin, 1, 'main', DEMO_MODEL);
    const r = await drift();
    expect(r.code).toBe(0);
    const closed = gh.issues().find((i) => i.number === number)!;
    expect(closed.state).toBe('closed');
    expect(closed.body).toContain('Production matches the model in git again');
    expect(closed.body).toContain('`model/cubes/more.yml`');
    await uploadTree(fx.admin, 1, 'main', { ...DEMO_MODEL, 'model/cubes/extra.yml': EXTRA });
    expect((await drift()).code).toBe(1);
    const mine = ours();
    expect(mine.map((i) => [i.number, i.state])).toEqual([[number, 'open']]);
    await uploadTree(fx.admin, 1, 'main', DEMO_MODEL);
    expect((await drift()).code).toBe(0);
  }, 60_000);

  it('dry-run writes no issue; fail-on-drift false exits 0 with status drift; issue false writes none', async () => {
    await uploadTree(fx.admin, 1, 'main', { ...DEMO_MODEL, 'model/cubes/extra.yml': EXTRA });
    const before = JSON.stringify(gh.issues());
    const dry = await drift({ DATAMODEL_CI_DRY_RUN: 'true' });
    expect(dry.code).toBe(1);
    expect(dry.stderr.join('\n')).toContain('dry run: would reopen drift issue');
    const quiet = await drift({ DATAMODEL_CI_FAIL_ON_DRIFT: 'false', DATAMODEL_CI_ISSUE: 'false' });
    expect(quiet.code).toBe(0);
    expect(quiet.result.status).toBe('drift');
    expect(JSON.stringify(gh.issues())).toBe(before);
    await uploadTree(fx.admin, 1, 'main', DEMO_MODEL);
  }, 60_000);

  it('where GitHub drops the label (a token without push access), the next run finds the issue by its author: still one issue', async () => {
    const strict = await startGitHubStandin({ labelsNeedPush: true, permissions: { issues: 'write', contents: 'read', deployments: 'read' } });
    try {
      await uploadTree(fx.admin, 1, 'main', { ...DEMO_MODEL, 'model/cubes/extra.yml': EXTRA });
      expect((await drift({}, ['--json'], strict)).code).toBe(1);
      expect((await drift({}, ['--json'], strict)).code).toBe(1);
      expect(strict.issues().map((i) => [i.labels, i.state])).toEqual([[[], 'open']]);
      await uploadTree(fx.admin, 1, 'main', DEMO_MODEL);
      expect((await drift({}, ['--json'], strict)).code).toBe(0);
      expect(strict.issues().map((i) => i.state)).toEqual(['closed']);
      expect(strict.violations).toEqual([]);
    } finally {
      await strict.close();
    }
  }, 60_000);
});

describe('the last validated record', () => {
  it('production equal to the checkout but not to the record the close left: drift, a change outside the pull-request flow, the record’s commit named', async () => {
    const api = createGitHubApi({ token: TOKEN, repository: gh.repository, apiUrl: gh.url, ca: gh.ca });
    const validated = { ...DEMO_MODEL, 'model/cubes/extra.yml': EXTRA };
    const files = Object.fromEntries(Object.entries(validated).map(([p, t]) => [p, { hash: sha1(t) }]));
    const record = makeRecord({ deploymentId: 1, branch: 'preview-pr-7', commit: 'c'.repeat(40), files, status: { filesHash: 'x' } });
    await writeProductionRecord(api, { ref: record.commit, record });
    const r = await drift();
    expect(r.code).toBe(1);
    expect(r.result).toMatchObject({
      status: 'drift',
      files: [],
      members: [],
      record: { commit: 'c'.repeat(40), files: [{ path: 'model/cubes/extra.yml', change: 'removed' }] },
      likelyCause: { kind: 'unvalidated-change' },
    });
    expect(ours().find((i) => i.state === 'open')!.body).toContain('`ccccccc`');
  }, 60_000);
});
