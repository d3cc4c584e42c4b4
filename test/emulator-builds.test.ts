/**
 * The emulator behaves as the vendor's documents say the real service does (issue 10), build side:
 * build status on the clock, validation needing a running branch, commit on a dev fork syncing its
 * parent, deploy mode and production, the staging URL of a branch with `/`, createBranch's default.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError, ConflictError, type PlatformClient } from '../src/client/index.js';
import { environmentRestUrl } from '@datamodel-ci/platform-api';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';
import { control, emulatorFixture, failure, snapshot, uploadTree, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
let c: PlatformClient;
const BUILD_MS = 3_000;
const WARMUP_MS = 5_000;

beforeAll(async () => {
  fx = await emulatorFixture({ buildMs: BUILD_MS, warmupMs: WARMUP_MS });
  c = fx.admin;
});
afterAll(() => fx.close());

const status = (deploymentId: number, branchName?: string) => c.deployments.buildStatus({ deploymentId, query: branchName ? { branchName } : {} });
const NEW_CUBE = 'cubes:\n  - name: fresh\n    sql_table: public.fresh\n    measures:\n      - name: count\n        type: count\n';

async function shared(name: string, deploymentId = 1): Promise<string> {
  await c.branches.create({ deploymentId, body: { name, from: 'main' } });
  return name;
}

/** Cube names production (or a branch) serves through the data API. */
async function served(deploymentId: number, branch?: string): Promise<string[]> {
  const { cubeApiToken } = await c.deployments.token({ deploymentId, body: { expiresIn: 600 } });
  const url = fx.em.deployments.find((d) => d.id === deploymentId)!.deploymentUrl;
  const base = branch ? `${url}/dev-mode/${encodeURIComponent(branch)}` : url;
  const res = await c.http.send({ method: 'GET', path: new URL(`${base}/cubejs-api/v1/meta`).pathname, headers: { authorization: cubeApiToken } });
  return (JSON.parse(res.text!) as { cubes: { name: string }[] }).cubes.map((x) => x.name).sort();
}

describe('build status (vendor states, on the emulator clock)', () => {
  it('the deploy branch is built, its hashes those of its last commit', async () => {
    const s = await status(1, 'main');
    expect(s).toMatchObject({ deploymentId: 1, branchName: 'main', mode: 'production', status: 'built', errorText: null });
    expect(s.lastHash).toBe(fx.em.state.deployments[0]!.branches.main!.lastHash);
    expect(s.filesHash).toBe(s.lastHash);
    expect(typeof s.updatedAt).toBe('string');
  });

  it('an unknown branch is "building" with errorText "Bad branch"; an inactive shared one with "Branch is not active"', async () => {
    expect(await status(1, 'no-such-branch')).toMatchObject({ status: 'building', errorText: 'Bad branch' });
    expect(await status(1, 'feature-revenue')).toMatchObject({ status: 'building', errorText: 'Branch is not active', mode: 'production' });
  });

  it('enabling staging warms up, then built; disabling stops it', async () => {
    const name = await shared('bs-staging');
    await c.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: name } });
    expect(await status(1, name)).toMatchObject({ status: 'warmup', errorText: null });
    fx.em.clock.advance(WARMUP_MS - 1);
    expect((await status(1, name)).status).toBe('warmup');
    fx.em.clock.advance(1);
    const built = await status(1, name);
    expect(built).toMatchObject({ status: 'built', errorText: null });
    expect(built.lastHash).toBe(built.filesHash);
    await c.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: false, branchName: name } });
    expect(await status(1, name)).toMatchObject({ status: 'stopped', errorText: 'Branch is not active' });
  });

  it('a finish on an active branch builds for buildMs: lastHash is the old build until then, filesHash the new commit', async () => {
    const name = await shared('bs-finish');
    await c.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: name } });
    fx.em.clock.advance(WARMUP_MS);
    const old = (await status(1, name)).lastHash;
    const { lastHash } = await uploadTree(c, 1, name, { ...DEMO_MODEL, 'model/cubes/fresh.yml': NEW_CUBE });
    const building = await status(1, name);
    expect(building).toMatchObject({ status: 'building', filesHash: lastHash, lastHash: old });
    fx.em.clock.advance(BUILD_MS);
    expect(await status(1, name)).toMatchObject({ status: 'built', filesHash: lastHash, lastHash });
    expect(await served(1, name)).toContain('fresh');
  });

  it('a finish on an inactive shared branch commits but builds nothing', async () => {
    const name = await shared('bs-inactive');
    const { lastHash } = await uploadTree(c, 1, name, DEMO_MODEL);
    expect(await status(1, name)).toMatchObject({ status: 'building', errorText: 'Branch is not active', filesHash: lastHash });
  });

  it('the control route fails (or cancels) the next build; a failed text stays while the next build runs', async () => {
    const name = await shared('bs-fail');
    await c.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: name } });
    fx.em.clock.advance(WARMUP_MS);
    await control(fx.em, 'builds/fail-next', { deploymentId: 1, branchName: name, errorText: 'Error: Compile error: cube "x" not found' });
    await uploadTree(c, 1, name, DEMO_MODEL);
    expect((await status(1, name)).status).toBe('building');
    fx.em.clock.advance(BUILD_MS);
    expect(await status(1, name)).toMatchObject({ status: 'failed', errorText: 'Error: Compile error: cube "x" not found' });
    await uploadTree(c, 1, name, DEMO_MODEL);
    expect(await status(1, name)).toMatchObject({ status: 'building', errorText: 'Error: Compile error: cube "x" not found' });
    fx.em.clock.advance(BUILD_MS);
    expect(await status(1, name)).toMatchObject({ status: 'built', errorText: null });
    await control(fx.em, 'builds/fail-next', { deploymentId: 1, branchName: name, status: 'cancelled', errorText: 'Build cancelled' });
    await uploadTree(c, 1, name, DEMO_MODEL);
    fx.em.clock.advance(BUILD_MS);
    expect(await status(1, name)).toMatchObject({ status: 'cancelled', errorText: 'Build cancelled' });
    await expect(control(fx.em, 'builds/fail-next', { deploymentId: 9, branchName: name })).rejects.toThrow('deploymentId: got 9');
  });

  it('a dev branch runs while its session is open (mode dev_mode) and keeps its parent active; no branch named means the session’s', async () => {
    const name = await shared('bs-dev');
    const dev = (await c.branches.startDevMode({ deploymentId: 1, body: { branchName: name } })).branchName!;
    expect(await status(1)).toMatchObject({ branchName: dev, mode: 'dev_mode', status: 'warmup' });
    expect((await status(1, name)).status).toBe('warmup');
    fx.em.clock.advance(WARMUP_MS);
    expect((await status(1, dev)).status).toBe('built');
    await c.branches.stopDevMode({ deploymentId: 1 });
    expect(await status(1, dev)).toMatchObject({ status: 'stopped', errorText: 'Branch is not active' });
    expect(await status(1, name)).toMatchObject({ status: 'stopped', errorText: 'Branch is not active' });
    expect((await status(1)).branchName).toBe('main');
  });

  it('a new deployment’s deploy branch has never been built: none', async () => {
    const created = await c.deployments.create({
      body: { name: 'bs-new', cloudProvider: 'aws', region: 'us-east-1', targetPlatform: 'aws', isManaged: true, creationStep: 'project' },
    });
    expect(await status(Number(created.id), 'main')).toMatchObject({ status: 'none', errorText: null, lastHash: null });
  });

  it('durations are options, 0 allowed: a build is over at once', async () => {
    const quick = await emulatorFixture({ buildMs: 0, warmupMs: 0 });
    try {
      await quick.admin.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: 'feature-revenue' } });
      expect((await quick.admin.deployments.buildStatus({ deploymentId: 1, query: { branchName: 'feature-revenue' } })).status).toBe('built');
    } finally {
      await quick.close();
    }
  });
});

describe('validation needs a running branch', () => {
  it('a shared branch that is not active: 400 "Branch is not active", changing nothing; active by staging or a dev session on a fork: validates', async () => {
    const name = await shared('val-inactive');
    const before = snapshot(fx.em);
    const err = (await failure(c.dataModel.validate({ deploymentId: 1, query: { branchName: name } }))) as BadRequestError;
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.platformMessage).toBe('Branch is not active');
    expect(snapshot(fx.em)).toBe(before);
    await c.branches.startDevMode({ deploymentId: 1, body: { branchName: name } });
    expect((await c.dataModel.validate({ deploymentId: 1, query: { branchName: name } })).valid).toBe(true);
    await c.branches.stopDevMode({ deploymentId: 1 });
    await c.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: name } });
    expect((await c.dataModel.validate({ deploymentId: 1, query: { branchName: name } })).valid).toBe(true);
    expect((await c.dataModel.validate({ deploymentId: 1 })).branchName).toBe('main');
  });
});

describe('commit on a dev fork pushes to the shared branch it was forked from', () => {
  it('commits the fork, merges it into its parent and builds the parent; the fork stays until deleted, which ends the session', async () => {
    const name = await shared('fork-commit');
    const dev = (await c.branches.startDevMode({ deploymentId: 1, body: { branchName: name } })).branchName!;
    fx.em.clock.advance(WARMUP_MS);
    await c.dataModel.updateFiles({ deploymentId: 1, body: { branchName: dev, files: [{ path: 'model/cubes/fresh.yml', content: NEW_CUBE }] } });
    await c.branches.commit({ deploymentId: 1, body: { branchName: dev, message: 'fresh' } });
    expect((await c.dataModel.fileHashes({ deploymentId: 1, query: { branchName: name } }))['model/cubes/fresh.yml']).toBeDefined();
    const parent = await status(1, name);
    expect(parent).toMatchObject({ status: 'building', filesHash: fx.em.state.deployments[0]!.branches[name]!.lastHash });
    fx.em.clock.advance(BUILD_MS);
    expect((await status(1, name)).status).toBe('built');
    expect(fx.em.state.deployments[0]!.branches[dev]).toBeDefined();
    await c.branches.remove({ deploymentId: 1, query: { branchName: dev } });
    expect(Object.values(fx.em.state.deployments[0]!.devSessions)).not.toContain(dev);
    expect(await status(1, dev)).toMatchObject({ errorText: 'Bad branch' });
  });

  it('a conflict with the parent is a 409 that changes nothing (the fork stays uncommitted)', async () => {
    const name = await shared('fork-conflict');
    const dev = (await c.branches.startDevMode({ deploymentId: 1, body: { branchName: name } })).branchName!;
    await uploadTree(c, 1, name, { ...DEMO_MODEL, 'cube.js': 'module.exports = { a: 1 };\n' });
    await c.dataModel.updateFiles({ deploymentId: 1, body: { branchName: dev, files: [{ path: 'cube.js', content: 'module.exports = { b: 2 };\n' }] } });
    const before = snapshot(fx.em);
    expect(await failure(c.branches.commit({ deploymentId: 1, body: { branchName: dev } }))).toBeInstanceOf(ConflictError);
    expect(snapshot(fx.em)).toBe(before);
    await c.branches.stopDevMode({ deploymentId: 1 });
  });
});

describe('deploy mode and production', () => {
  it('settings carry deployMode and deployBranchName: analytics deploys from git, marketing from the CLI', async () => {
    expect(await c.deployments.settings({ deploymentId: 1 })).toMatchObject({ deployMode: 'git', deployBranchName: 'main' });
    expect(await c.deployments.settings({ deploymentId: 2 })).toMatchObject({ deployMode: 'cli', deployBranchName: 'main' });
  });

  it('git mode: a merge into the deploy branch rebuilds production, which serves the new model once built', async () => {
    const name = await shared('git-prod');
    await uploadTree(c, 1, name, { ...DEMO_MODEL, 'model/cubes/fresh.yml': NEW_CUBE });
    await c.branches.mergeToDefault({ deploymentId: 1, body: { branchName: name, message: 'ship' } });
    const s = await status(1, 'main');
    expect(s.status).toBe('building');
    expect(s.lastHash).not.toBe(s.filesHash);
    expect(await served(1)).not.toContain('fresh');
    fx.em.clock.advance(BUILD_MS);
    expect(await status(1, 'main')).toMatchObject({ status: 'built', lastHash: s.filesHash });
    expect(await served(1)).toContain('fresh');
    await uploadTree(c, 1, 'main', DEMO_MODEL);
    fx.em.clock.advance(BUILD_MS);
  });

  it('cli mode: merges and dev-fork commits update the deploy branch but not production; an upload finish on it does', async () => {
    const name = await shared('cli-prod', 2);
    await uploadTree(c, 2, name, { ...DEMO_MODEL, 'model/cubes/fresh.yml': NEW_CUBE });
    const built = (await status(2, 'main')).lastHash;
    await c.branches.mergeToDefault({ deploymentId: 2, body: { branchName: name, message: 'merge in the UI' } });
    const merged = await status(2, 'main');
    expect(merged).toMatchObject({ status: 'built', lastHash: built });
    expect(merged.filesHash).not.toBe(built);
    expect((await c.dataModel.fileHashes({ deploymentId: 2, query: { branchName: 'main' } }))['model/cubes/fresh.yml']).toBeDefined();
    expect(await served(2)).not.toContain('fresh');
    const dev = (await c.branches.startDevMode({ deploymentId: 2, body: { branchName: 'main' } })).branchName!;
    await c.dataModel.updateFiles({ deploymentId: 2, body: { branchName: dev, files: [{ path: 'model/cubes/more.yml', content: 'cubes: []\n' }] } });
    await c.branches.commit({ deploymentId: 2, body: { branchName: dev } });
    await c.branches.stopDevMode({ deploymentId: 2 });
    expect((await status(2, 'main')).lastHash).toBe(built);
    const { lastHash } = await uploadTree(c, 2, 'main', { ...DEMO_MODEL, 'model/cubes/fresh.yml': NEW_CUBE });
    expect((await status(2, 'main')).status).toBe('building');
    fx.em.clock.advance(BUILD_MS);
    expect(await status(2, 'main')).toMatchObject({ status: 'built', lastHash, filesHash: lastHash });
    expect(await served(2)).toContain('fresh');
  });
});

describe('staging URL and createBranch default', () => {
  it('reports <deploymentUrl>/dev-mode/<branch, "/" kept>/cubejs-api/v1 (the vendor\'s examples); the data API serves the branch', async () => {
    const name = await shared('team/pr-11');
    await c.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: name } });
    const env = (await c.deployments.environments({ deploymentId: 1, query: { type: 'staging' } })).items.find((e) => e.name === name)!;
    expect(environmentRestUrl(env)).toBe(`${fx.em.deployments[0]!.deploymentUrl}/dev-mode/team/pr-11/cubejs-api/v1`);
    expect(await served(1, name)).toEqual(['customers', 'orders', 'orders_view']);
  });

  it('createBranch without `from` forks the deploy branch named in the settings', async () => {
    const own = await emulatorFixture({ buildMs: BUILD_MS, warmupMs: WARMUP_MS });
    try {
      const a = own.admin;
      await a.branches.create({ deploymentId: 1, body: { name: 'release', from: 'main' } });
      await a.deployments.update({ deploymentId: 1, body: { deployBranchName: 'release' } });
      expect((await a.deployments.settings({ deploymentId: 1 })).deployBranchName).toBe('release');
      expect(await a.branches.create({ deploymentId: 1, body: { name: 'from-default' } })).toMatchObject({ parentBranch: 'release' });
      const before = snapshot(own.em);
      await expect(a.deployments.update({ deploymentId: 1, body: { deployBranchName: 'nope', name: 'renamed' } })).rejects.toThrow(
        'deployBranchName: got "nope"',
      );
      expect(snapshot(own.em)).toBe(before);
    } finally {
      await own.close();
    }
  });
});
