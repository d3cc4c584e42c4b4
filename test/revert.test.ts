/**
 * `datamodel-ci revert` (issue 37) in-process, against the emulator over HTTPS and the GitHub stand-in:
 * production changed out of band is put back to the last validation record, and then holds exactly the
 * recorded file hashes (of the files the walk reads; `exclude`d files kept), with nothing left behind (no
 * revert branch, staging, dev fork or session). A dry run merges nothing and deletes its branch; a model
 * that no longer validates is never merged; no record, or a checkout that is not the named commit, is
 * refused before any write; a named commit on a CLI-deploy deployment is checked with git and deployed.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDevBranch } from '@datamodel-ci/platform-api';
import { collect } from '../src/client/index.js';
import { runActionCommand } from '../src/commands/index.js';
import { createGitHubApi } from '../src/github/octokit.js';
import { excludeFilter } from '../src/model/local-model.js';
import { manifestOf, walked, type Manifest } from '../src/operations/upload-transaction.js';
import { makeRecord, type ValidationRecord } from '../src/operations/validation-record.js';
import { writeProductionRecord } from '../src/pr/production-record.js';
import {
  crlfOnPlatform,
  dbtMerge,
  DEMO_MODEL,
  failedProductionBuild,
  mergeWithoutBuild,
  outOfBandUpload,
  productionView,
  startGitHubStandin,
  uiMerge,
  type FileChanges,
  type GitHubStandin,
} from '../packages/emulator/src/index.js';
import { control, emulatorFixture, localOf, uploadTree, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
let gh: GitHubStandin;
const root = mkdtempSync(join(tmpdir(), 'dmci-revert-'));
const EXCLUDE = 'model/generated/**';
const excluded = excludeFilter([EXCLUDE]);
/** A folder the platform writes on the deploy branch (never in git): `exclude`d, kept through the revert. */
const GENERATED = { 'model/generated/by_platform.yml': 'cubes: []\n' };
const EXTRA = 'cubes:\n  - name: extra\n    sql_table: public.orders\n    measures:\n      - name: count\n        type: count\n';
/** Production changed: a measure's aggregation changed, a cube added, the view's file removed. */
const DRIFT: FileChanges = {
  'model/cubes/orders.yml': DEMO_MODEL['model/cubes/orders.yml']!.replace('type: sum', 'type: avg'),
  'model/cubes/extra.yml': EXTRA,
  'model/views/orders_view.yml': null,
};
/** The change back: the deploy branch holds the validated files again. */
const UNDRIFT: FileChanges = {
  'model/cubes/orders.yml': DEMO_MODEL['model/cubes/orders.yml']!,
  'model/cubes/extra.yml': null,
  'model/views/orders_view.yml': DEMO_MODEL['model/views/orders_view.yml']!,
};
const BROKEN = {
  ...DEMO_MODEL,
  'model/cubes/broken.yml': 'cubes:\n  - name: broken\n    sql_table: public.orders\n    measures:\n      - name: count\n        type: cnt\n',
};

function tree(dir: string, files: Record<string, string>): string {
  rmSync(dir, { recursive: true, force: true });
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
  return dir;
}
const good = tree(join(root, 'good'), DEMO_MODEL);
const broken = tree(join(root, 'broken'), BROKEN);

const api = () => createGitHubApi({ token: 'ghs_revert_token_0123456789', repository: gh.repository, apiUrl: gh.url, ca: gh.ca });
const sha = (c: string) => c.repeat(40).slice(0, 40);

/** A validation record of the model in `dir`, written to GitHub as a merged close writes it. */
async function recordOf(dir: string, commit: string, deploymentId = 1): Promise<ValidationRecord> {
  const record = makeRecord({
    deploymentId,
    branch: 'preview-pr-9',
    commit,
    files: manifestOf(await localOf(dir, [EXCLUDE])),
    status: { buildJobId: 1, updatedAt: '2026-12-01T10:00:00.000Z' },
  });
  await writeProductionRecord(api(), { ref: sha('e'), record, proof: { status: 'proven', files: [], members: [] } });
  return record;
}

interface Run {
  code: number;
  outputs: Record<string, string>;
  result: any;
  errors: string[];
}

async function revert(modelDir: string, env: Record<string, string> = {}, deploymentId = 1): Promise<Run> {
  const stdout: string[] = [];
  const io = {
    out: (l: string) => stdout.push(l),
    err: (l: string) => (process.env.DEBUG_REVERT ? console.log(l) : undefined),
    env: {
      DATAMODEL_CI_API_URL: fx.em.baseUrl,
      DATAMODEL_CI_API_KEY: fx.em.credentials.admin,
      DATAMODEL_CI_CA_CERT: `${fx.em.ca}\n${gh.ca}`,
      DATAMODEL_CI_DEPLOYMENT_ID: String(deploymentId),
      DATAMODEL_CI_GITHUB_TOKEN: 'ghs_revert_token_0123456789',
      DATAMODEL_CI_MODEL_DIR: modelDir,
      DATAMODEL_CI_EXCLUDE: EXCLUDE,
      GITHUB_REPOSITORY: gh.repository,
      GITHUB_API_URL: gh.url,
      ...env,
    },
  };
  const code = await runActionCommand('revert', ['--json'], io);
  const doc = JSON.parse(stdout.at(-1) ?? '{}') as { outputs?: Record<string, string>; result?: unknown; errors?: { message: string }[] };
  return { code, outputs: doc.outputs ?? {}, result: doc.result, errors: (doc.errors ?? []).map((e) => e.message) };
}

/** The deploy branch's files as the walk reads them (`exclude` honoured). */
const production = async (deploymentId = 1): Promise<Manifest> =>
  walked(await fx.admin.dataModel.fileHashes({ deploymentId, query: { branchName: 'main' } }), excluded);

/** What a revert could leave behind: its branches, dev forks, dev-mode sessions. */
async function leftovers(deploymentId = 1): Promise<string[]> {
  const names = (await collect(fx.admin.branches.iterate({ deploymentId, query: { first: 100 } }))).map((b) => b.name);
  const sessions = fx.em.state.deployments.find((d) => d.id === deploymentId)!.devSessions;
  return [...names.filter((n) => n.includes('revert') || isDevBranch(n)), ...Object.keys(sessions).map((s) => `session ${s}`)];
}
/** What the platform holds, to show a refused run wrote nothing. */
const platform = () =>
  JSON.stringify(fx.em.state.deployments.map((d) => ({ branches: Object.keys(d.branches).sort(), uploads: Object.keys(d.uploads).length })));

/** Production back to the validated model (with the platform's own folder), built: each test's start. */
const reset = () => uploadTree(fx.admin, 1, 'main', { ...DEMO_MODEL, ...GENERATED });
/** What production serves (the emulator's own view): the served build's files as the walk reads them. */
const served = () => walked(Object.fromEntries(Object.entries(productionView(fx.em, 1).served?.files ?? {}).map(([p, hash]) => [p, { hash }])), excluded);
const recorded = (r: ValidationRecord): Manifest => walked(Object.fromEntries(Object.entries(r.files).map(([p, hash]) => [p, { hash }])), excluded);

beforeAll(async () => {
  fx = await emulatorFixture();
  gh = await startGitHubStandin();
  await reset();
});
afterAll(async () => {
  await fx.close();
  await gh.close();
});

describe('revert to the last validation record', () => {
  it('no record on GitHub and no commit named: refused before any write, saying how to name one', async () => {
    const before = platform();
    const r = await revert(good, {}, 2);
    expect(r.code).toBe(2);
    expect(r.errors.join('\n')).toContain(
      'commit: got nothing, expected a commit to revert to: deployment 2 has no validation record on GitHub (no deployment to the environment datamodel-ci-production-2',
    );
    expect(platform()).toBe(before);
  }, 60_000);

  it('restores exactly the recorded file hashes after an out-of-band upload, proves it, and leaves nothing behind', async () => {
    await reset();
    const record = await recordOf(good, sha('a'));
    outOfBandUpload(fx.em, { deploymentId: 1, files: DRIFT });
    expect(await production()).not.toEqual(recorded(record));
    const r = await revert(good, { DATAMODEL_CI_CONFIRM: 'true' });
    expect(r.code, r.errors.join('\n')).toBe(0);
    expect(r.outputs).toMatchObject({ status: 'merged', merged: 'true', valid: 'true', 'production-proof': 'proven', commit: record.commit });
    expect(r.outputs.branch).toBe('preview-revert-aaaaaaa');
    // Exactly the record's files, of those the walk reads; the platform's own folder kept as it was.
    expect(await production()).toEqual(recorded(record));
    expect(served()).toEqual(recorded(record));
    const raw = await fx.admin.dataModel.fileHashes({ deploymentId: 1, query: { branchName: 'main' } });
    expect(raw['model/generated/by_platform.yml']).toBeDefined();
    // What it undid, file by file and member by member.
    expect(r.result.production.files).toEqual([
      { path: 'model/cubes/extra.yml', change: 'added' },
      { path: 'model/cubes/orders.yml', change: 'changed' },
      { path: 'model/views/orders_view.yml', change: 'removed' },
    ]);
    expect(r.result.members).toEqual(
      expect.arrayContaining([
        { member: 'extra.count', change: 'removed' },
        { member: 'orders.total_amount', change: 'changed', detail: 'measure avg → measure sum' },
        { member: 'orders_view.count', change: 'added' },
      ]),
    );
    expect(r.result.proof).toMatchObject({ status: 'proven', files: [], members: [] });
    expect(await leftovers()).toEqual([]);
  }, 120_000);

  it.each([
    ['a merge made in the platform UI', () => uiMerge(fx.em, { deploymentId: 1, files: DRIFT })],
    ["a dbt sync's branch merged in the UI", () => dbtMerge(fx.em, { deploymentId: 1 })],
  ])(
    'restores the recorded model after %s, proven, nothing left behind',
    async (_name, change) => {
      await reset();
      const record = await recordOf(good, sha('a'));
      expect(change().changed.length).toBeGreaterThan(0);
      const r = await revert(good, { DATAMODEL_CI_CONFIRM: 'true' });
      expect(r.code, r.errors.join('\n')).toBe(0);
      expect(r.outputs).toMatchObject({ status: 'merged', 'production-proof': 'proven' });
      expect(await production()).toEqual(recorded(record));
      expect(served()).toEqual(recorded(record));
      expect(await leftovers()).toEqual([]);
    },
    120_000,
  );

  it.each([
    ['a production build that failed', () => failedProductionBuild(fx.em, { deploymentId: 1, files: UNDRIFT })],
    ['a merge production never rebuilt', () => mergeWithoutBuild(fx.em, { deploymentId: 1, files: UNDRIFT })],
  ])(
    'the deploy branch holding the recorded files while production serves the old model (%s): said, nothing done',
    async (_name, change) => {
      await reset();
      await recordOf(good, sha('a'));
      outOfBandUpload(fx.em, { deploymentId: 1, files: DRIFT });
      change();
      const before = platform();
      const r = await revert(good, { DATAMODEL_CI_CONFIRM: 'true' });
      expect(r.code).toBe(1);
      expect(r.outputs).toMatchObject({ status: 'served-differs', merged: 'false' });
      expect(r.result.production).toMatchObject({ files: [], members: expect.arrayContaining([{ member: 'extra.count', change: 'added' }]) });
      expect(r.errors.join('\n')).toContain("production holds aaaaaaa's files but serves another semantic layer");
      expect(platform()).toBe(before);
    },
    120_000,
  );

  it('production built from a tree git never held (a UI merge) is said too; CRLF copies of the same files are nothing to revert', async () => {
    await reset();
    await recordOf(good, sha('a'));
    uiMerge(fx.em, { deploymentId: 1, files: DRIFT, neverInGit: true });
    const off = await revert(good, { DATAMODEL_CI_CONFIRM: 'true' });
    expect(off.outputs).toMatchObject({ status: 'served-differs', merged: 'false' });
    await reset();
    crlfOnPlatform(fx.em, { deploymentId: 1 });
    const before = platform();
    const same = await revert(good, { DATAMODEL_CI_CONFIRM: 'true' });
    expect(same.code, same.errors.join('\n')).toBe(0);
    expect(same.outputs).toMatchObject({ status: 'in-sync', merged: 'false' });
    expect(platform()).toBe(before);
  }, 120_000);

  it('a dry run (confirm off) validates and shows the change, merges nothing and deletes its branch', async () => {
    await reset();
    await recordOf(good, sha('a'));
    outOfBandUpload(fx.em, { deploymentId: 1, files: DRIFT });
    const drifted = await production();
    // Through a dev-mode fork, as a tenant that refuses direct uploads takes it: the fork goes too.
    const r = await revert(good, { DATAMODEL_CI_UPLOAD_VIA: 'dev-mode' });
    expect(r.code, r.errors.join('\n')).toBe(0);
    expect(r.outputs).toMatchObject({ status: 'validated', merged: 'false', valid: 'true', 'production-proof': '' });
    expect(r.result.members).toEqual(expect.arrayContaining([{ member: 'extra.count', change: 'removed' }]));
    expect(r.result.cleanup.deleted).toContain('preview-revert-aaaaaaa');
    expect(await production()).toEqual(drifted);
    expect(await leftovers()).toEqual([]);
  }, 120_000);

  it('dry-run: true (with confirm) only says what it would do: no branch, no upload, no merge', async () => {
    await reset();
    await recordOf(good, sha('a'));
    outOfBandUpload(fx.em, { deploymentId: 1, files: DRIFT });
    const before = platform();
    const drifted = await production();
    const r = await revert(good, { DATAMODEL_CI_CONFIRM: 'true', DATAMODEL_CI_DRY_RUN: 'true' });
    expect(r.code, r.errors.join('\n')).toBe(0);
    expect(r.outputs).toMatchObject({ status: 'dry-run', merged: 'false' });
    expect(platform()).toBe(before);
    expect(await production()).toEqual(drifted);
  }, 60_000);

  it("production's build failing after the merge (the old model still served) is 'differs', never proven; nothing more is merged", async () => {
    await reset();
    await recordOf(good, sha('a'));
    outOfBandUpload(fx.em, { deploymentId: 1, files: DRIFT });
    await control(fx.em, 'builds/fail-next', { deploymentId: 1, branchName: 'main', errorText: 'Build failed: out of memory' });
    const r = await revert(good, { DATAMODEL_CI_CONFIRM: 'true' });
    expect(r.code).toBe(1);
    expect(r.outputs).toMatchObject({ status: 'merged', merged: 'true', 'production-proof': 'differs' });
    // The files are the record's (the merge landed); the layer served is still the drifted one.
    expect(r.result.proof.files).toEqual([]);
    expect(r.result.proof.members).toEqual(expect.arrayContaining([{ member: 'extra.count', change: 'added' }]));
    expect(r.result.proof.reason).toContain('Build failed: out of memory');
    expect(r.errors.join('\n')).toContain("production differs from aaaaaaa's model after the revert's merge");
    expect(await leftovers()).toEqual([]);
  }, 120_000);

  it('a recorded model that no longer validates is refused: nothing merged, its branch deleted', async () => {
    await recordOf(broken, sha('b'));
    const drifted = await production();
    const r = await revert(broken, { DATAMODEL_CI_CONFIRM: 'true' });
    expect(r.code).toBe(1);
    expect(r.outputs).toMatchObject({ status: 'invalid', merged: 'false', valid: 'false', 'production-proof': '' });
    expect(r.errors.join('\n')).toContain("bbbbbbb's model is invalid on the platform today: nothing was merged");
    expect(await production()).toEqual(drifted);
    expect(await leftovers()).toEqual([]);
  }, 120_000);

  it('a checkout that is not the recorded model is refused before any write, naming the commit to check out', async () => {
    await recordOf(good, sha('c'));
    const before = platform();
    const r = await revert(broken, { DATAMODEL_CI_CONFIRM: 'true' });
    expect(r.code).toBe(2);
    expect(r.errors.join('\n')).toMatch(
      /model-dir: got ".*broken", expected a checkout of the recorded model \(validated at ccccccc, deployed as eeeeeee\).*model\/cubes\/broken\.yml.*Check out e{40}/,
    );
    expect(platform()).toBe(before);
  }, 60_000);
});

describe('revert to a named commit', () => {
  const repo = join(root, 'repo');
  const dir = join(repo, 'analytics');
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' }).trim();
  let first: string;
  let second: string;
  beforeAll(() => {
    tree(dir, DEMO_MODEL);
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'first');
    first = git('rev-parse', 'HEAD');
    writeFileSync(join(dir, 'model/cubes/extra.yml'), EXTRA);
    git('add', '-A');
    git('commit', '-qm', 'second');
    second = git('rev-parse', 'HEAD');
  });

  it('a checkout that is not that commit is refused before any write (git compares them)', async () => {
    const before = platform();
    const r = await revert(dir, { DATAMODEL_CI_COMMIT: first, DATAMODEL_CI_CONFIRM: 'true' });
    expect(r.code).toBe(2);
    expect(r.errors.join('\n')).toContain(`commit: got "${first}", expected the commit checked out in model-dir`);
    expect(r.errors.join('\n')).toContain(`the checkout's model is not ${first.slice(0, 7)}'s: they differ in model/cubes/extra.yml`);
    const unknown = await revert(dir, { DATAMODEL_CI_COMMIT: 'abcdef1' });
    expect(unknown.code).toBe(2);
    expect(unknown.errors.join('\n')).toContain('it is not a commit of the repository checked out in');
    expect(platform()).toBe(before);
  }, 60_000);

  it('when the last record is of that commit, the checkout is compared with the record', async () => {
    await recordOf(good, second);
    const before = platform();
    // The checkout is `second` for git, but the record of `second` says other files: the record wins, refused.
    const r = await revert(dir, { DATAMODEL_CI_COMMIT: second.slice(0, 7) });
    expect(r.code).toBe(2);
    expect(r.errors.join('\n')).toContain("its validation record's files and the checkout's differ in model/cubes/extra.yml");
    expect(platform()).toBe(before);
  }, 60_000);

  it('on a CLI-deploy deployment: the checkout of the commit is uploaded, validated, merged and deployed, and production proven', async () => {
    git('checkout', '-q', first);
    await uploadTree(fx.admin, 2, 'main', { ...DEMO_MODEL, 'model/cubes/extra.yml': EXTRA });
    const r = await revert(dir, { DATAMODEL_CI_COMMIT: first, DATAMODEL_CI_CONFIRM: 'true' }, 2);
    expect(r.code, r.errors.join('\n')).toBe(0);
    expect(r.outputs).toMatchObject({ status: 'merged', 'production-proof': 'proven', commit: first });
    expect(r.result.production.files).toEqual([{ path: 'model/cubes/extra.yml', change: 'added' }]);
    expect(await production(2)).toEqual(walked(manifestOf(await localOf(dir)), excluded));
    expect(await leftovers(2)).toEqual([]);
  }, 120_000);
});
