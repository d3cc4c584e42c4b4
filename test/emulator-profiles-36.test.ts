/**
 * The tenant profiles of issue 36, as the emulator answers them over HTTPS through the toolkit's own
 * client (and what it answers without them): pushes that sync branches already added, a blank and
 * lagging build status, a 500 for a duplicate branch, another repository's previews under our prefix,
 * files the platform wrote on the deploy branch itself.
 */
import { describe, expect, it } from 'vitest';
import { collect, ServerError, ConflictError, type PlatformError } from '../src/client/index.js';
import { prOfBranch, prOfQueueBranch } from '../src/branch-names.js';
import { DEFAULTS } from '../src/defaults.js';
import {
  DEMO_MODEL,
  FINANCE_MODEL,
  OTHER_REPOSITORY,
  OTHER_REPOSITORY_PREVIEWS,
  PLATFORM_WRITTEN_FILES,
  PLATFORM_WRITTEN_ROOT,
  startGitHubStandin,
} from '../packages/emulator/src/index.js';
import { BLANK_STALE_READS } from '../packages/emulator/src/build/runtime.js';
import { parseProfiles } from '../packages/emulator/src/profiles.js';
import type { EmulatorOptions } from '../packages/emulator/src/server.js';
import { control, emulatorFixture, failure, rawRequest, snapshot, uploadTree, type EmulatorFixture } from './support/emulator.js';

const CUBE = (name: string) => `cubes:\n  - name: ${name}\n    sql_table: public.orders\n    measures:\n      - name: count\n        type: count\n`;
const BUILD_MS = 3_000;

/** Run `fn` on an emulator of its own with these profiles (closed after). */
async function tenant(profiles: EmulatorOptions['profiles'], fn: (fx: EmulatorFixture) => Promise<void>, extra: EmulatorOptions = {}): Promise<void> {
  const fx = await emulatorFixture({ profiles, ...extra });
  try {
    await fn(fx);
  } finally {
    await fx.close();
  }
}

const status = (fx: EmulatorFixture, branchName: string, deploymentId = 1) => fx.admin.deployments.buildStatus({ deploymentId, query: { branchName } });
const dep = (fx: EmulatorFixture, id = 1) => fx.em.state.deployments.find((d) => d.id === id)!;
const validCubes = async (fx: EmulatorFixture, branchName: string, deploymentId = 1) =>
  (await fx.admin.dataModel.validate({ deploymentId, query: { branchName } })).cubesCount ?? 0;

/** Cube names production (no branch) or a branch's staging environment serves through the data API. */
async function served(fx: EmulatorFixture, branch?: string, deploymentId = 1): Promise<string[]> {
  const { cubeApiToken } = await fx.admin.deployments.token({ deploymentId, body: { expiresIn: 600 } });
  const url = fx.em.deployments.find((d) => d.id === deploymentId)!.deploymentUrl;
  const base = branch ? `${url}/dev-mode/${encodeURIComponent(branch)}` : url;
  const res = await fx.admin.http.send({ method: 'GET', path: new URL(`${base}/cubejs-api/v1/meta`).pathname, headers: { authorization: cubeApiToken } });
  return (JSON.parse(res.text!) as { cubes: { name: string }[] }).cubes.map((x) => x.name).sort();
}

/** A shared branch with its staging environment on (so its runtime runs and builds). */
async function stagingBranch(fx: EmulatorFixture, name: string, deploymentId = 1): Promise<void> {
  await fx.admin.branches.create({ deploymentId, body: { name } });
  await fx.admin.branches.setStagingEnvironment({ deploymentId, body: { enabled: true, branchName: name } });
}

describe('push-syncs-added-branches', () => {
  const push = (fx: EmulatorFixture, branch: string, files: Record<string, string>, sha: string) =>
    control(fx.em, 'repository/push', { deploymentId: 1, branch, files, sha }) as Promise<{ synced: boolean }>;

  it('a push to a branch already added syncs it at once and builds it; the later pull finds nothing new', async () => {
    await tenant(
      ['github-connected', 'push-syncs-added-branches'],
      async (fx) => {
        await stagingBranch(fx, 'feature/sync');
        const before = await status(fx, 'feature/sync');
        expect(before.status).toBe('built');
        const sha = 'c'.repeat(40);
        expect(await push(fx, 'feature/sync', { ...DEMO_MODEL, 'model/cubes/pushed.yml': CUBE('pushed') }, sha)).toMatchObject({ synced: true });
        // Before any pull: the platform branch is at the pushed commit and its build runs.
        expect(dep(fx).branches['feature/sync']).toMatchObject({ lastHash: sha });
        const building = await status(fx, 'feature/sync');
        expect(building).toMatchObject({ status: 'building', filesHash: sha });
        expect(building.buildJobId).not.toBe(before.buildJobId);
        fx.em.clock.advance(BUILD_MS);
        expect(await status(fx, 'feature/sync')).toMatchObject({ status: 'built', lastHash: sha, buildJobId: building.buildJobId });
        expect(await served(fx, 'feature/sync')).toContain('pushed');
        expect(await fx.admin.branches.pull({ deploymentId: 1, body: { branchName: 'feature/sync' } })).toEqual({ buildTriggered: false });
        // A branch the platform has not added waits for a pull (or the branch switcher), as without the profile.
        expect(await push(fx, 'feature/not-added', { ...DEMO_MODEL }, 'd'.repeat(40))).toMatchObject({ synced: false });
        expect(dep(fx).branches['feature/not-added']).toBeUndefined();
      },
      { buildMs: BUILD_MS },
    );
  });

  it('also on a CLI deployment with a repository: an added branch syncs, production still waits for an upload', async () => {
    await tenant(['cli-with-repository', 'push-syncs-added-branches'], async (fx) => {
      const prodJob = (await status(fx, 'main')).buildJobId;
      const tree = { ...DEMO_MODEL, 'model/cubes/cli.yml': CUBE('cli') };
      expect(await push(fx, 'feature-revenue', tree, 'e'.repeat(40))).toMatchObject({ synced: true });
      expect(dep(fx).branches['feature-revenue']).toMatchObject({ lastHash: 'e'.repeat(40) });
      expect(await push(fx, 'main', tree, 'f'.repeat(40))).toMatchObject({ synced: true });
      expect((await status(fx, 'main')).buildJobId).toBe(prodJob);
    });
  });

  it('without it: a push leaves the added branch where it was until pull, which then builds it', async () => {
    await tenant(['github-connected'], async (fx) => {
      await stagingBranch(fx, 'feature/wait');
      const was = dep(fx).branches['feature/wait']!.lastHash;
      expect(await push(fx, 'feature/wait', { ...DEMO_MODEL, 'model/cubes/pushed.yml': CUBE('pushed') }, 'c'.repeat(40))).toMatchObject({ synced: false });
      expect(dep(fx).branches['feature/wait']!.lastHash).toBe(was);
      expect(await fx.admin.branches.pull({ deploymentId: 1, body: { branchName: 'feature/wait' } })).toEqual({ buildTriggered: true });
      expect(dep(fx).branches['feature/wait']!.lastHash).toBe('c'.repeat(40));
    });
  });
});

describe('blank-build-status', () => {
  const BLANK = ['buildJobId', 'updatedAt', 'lastHash', 'filesHash'];

  it('answers no job, time or hash; after a change, built while the old model serves, then building, then built', async () => {
    await tenant(
      ['blank-build-status'],
      async (fx) => {
        await stagingBranch(fx, 'blank');
        const first = await status(fx, 'blank');
        expect(first).toMatchObject({ status: 'built', branchName: 'blank', errorText: null });
        for (const key of BLANK) expect(first).not.toHaveProperty(key);
        // An unknown branch's answer is blank too.
        for (const key of BLANK) expect(await status(fx, 'no-such-branch')).not.toHaveProperty(key);
        const cubes = await validCubes(fx, 'blank');
        await uploadTree(fx.admin, 1, 'blank', { ...DEMO_MODEL, 'model/cubes/fresh.yml': CUBE('fresh') });
        for (let i = 0; i < BLANK_STALE_READS; i++) {
          const s = await status(fx, 'blank');
          expect(s).toMatchObject({ status: 'built', errorText: null });
          for (const key of BLANK) expect(s).not.toHaveProperty(key);
          // The worker still serves the model before the upload: validation and /meta say so.
          expect(await validCubes(fx, 'blank')).toBe(cubes);
          expect(await served(fx, 'blank')).not.toContain('fresh');
        }
        expect(await status(fx, 'blank')).toMatchObject({ status: 'building' });
        fx.em.clock.advance(BUILD_MS);
        expect(await status(fx, 'blank')).toMatchObject({ status: 'built' });
        expect(await validCubes(fx, 'blank')).toBe(cubes + 1);
        expect(await served(fx, 'blank')).toContain('fresh');

        // Once the new build has ended, no stale read is left to answer: the worker's swap is seen once
        // (`building`), then `built` is the truth.
        await uploadTree(fx.admin, 1, 'blank', { ...DEMO_MODEL, 'model/cubes/fresh.yml': CUBE('fresh'), 'model/cubes/later.yml': CUBE('later') });
        expect(await status(fx, 'blank')).toMatchObject({ status: 'built' });
        expect(await served(fx, 'blank')).not.toContain('later');
        fx.em.clock.advance(BUILD_MS);
        expect(await status(fx, 'blank')).toMatchObject({ status: 'building' });
        expect(await status(fx, 'blank')).toMatchObject({ status: 'built' });
        expect(await served(fx, 'blank')).toContain('later');
      },
      { buildMs: BUILD_MS },
    );
  });

  it('goes with no-hash, not with short-hash (that would report hashes build status has none of)', () => {
    expect(parseProfiles('blank-build-status,no-hash')).toEqual(['blank-build-status', 'no-hash']);
    expect(() => parseProfiles('blank-build-status,short-hash')).toThrow('--profile: got short-hash with blank-build-status, expected at most one of them');
  });

  it('without it: the first read after the change is the new build, with its job, time and hashes', async () => {
    await tenant(
      [],
      async (fx) => {
        await stagingBranch(fx, 'plain');
        const before = await status(fx, 'plain');
        await uploadTree(fx.admin, 1, 'plain', { ...DEMO_MODEL, 'model/cubes/fresh.yml': CUBE('fresh') });
        const s = await status(fx, 'plain');
        expect(s).toMatchObject({ status: 'building', lastHash: before.lastHash, updatedAt: expect.any(String) });
        expect(s.buildJobId).not.toBe(before.buildJobId);
      },
      { buildMs: BUILD_MS },
    );
  });
});

describe('create-500-existing', () => {
  /** A branch made by the member credential, staging on, with a file of its own. */
  async function existing(fx: EmulatorFixture): Promise<void> {
    await fx.member.branches.create({ deploymentId: 1, body: { name: 'taken' } });
    await fx.member.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: 'taken' } });
    await uploadTree(fx.member, 1, 'taken', { ...DEMO_MODEL, 'model/cubes/mine.yml': CUBE('mine') });
  }

  it('creating a name that exists answers 500 and leaves the branch as it was; a new name is created', async () => {
    await tenant(['create-500-existing'], async (fx) => {
      await existing(fx);
      const memberKey = dep(fx).branches.taken!.createdBy;
      expect(memberKey).toBeDefined();
      const before = snapshot(fx.em);
      const e = (await failure(fx.admin.branches.create({ deploymentId: 1, body: { name: 'taken' } }))) as PlatformError;
      expect(e).toBeInstanceOf(ServerError);
      expect(e.status).toBe(500);
      expect(e.message).toContain('Internal Server Error');
      expect(snapshot(fx.em)).toBe(before);
      expect(dep(fx).branches.taken).toMatchObject({ createdBy: memberKey, staging: true });
      // The listing shows the branch, as it would if the request had made it: a 5xx is no proof either way.
      const listed = (await collect(fx.admin.branches.iterate({ deploymentId: 1 }))).filter((b) => b.name === 'taken');
      expect(listed).toHaveLength(1);
      // The body is the service's internal error, as the wire carries it.
      const raw = await rawRequest(fx.em, {
        method: 'POST',
        path: '/build/api/v1/deployments/1/branches',
        headers: { authorization: `Bearer ${fx.em.credentials.admin}`, 'content-type': 'application/json', 'content-length': '16' },
        body: '{"name":"taken"}',
      });
      expect(raw.status, raw.text).toBe(500);
      expect(JSON.parse(raw.text)).toEqual({ error: expect.stringContaining('duplicate key value violates unique constraint') });
      expect(await fx.admin.branches.create({ deploymentId: 1, body: { name: 'brand-new' } })).toMatchObject({ branchName: 'brand-new', parentBranch: 'main' });
      expect(dep(fx).branches['brand-new']!.createdBy).not.toBe(memberKey);
    });
  });

  it('without it: 409; it cannot go with duplicate-branch-400 (the same point answered two ways)', async () => {
    await tenant([], async (fx) => {
      await existing(fx);
      const before = snapshot(fx.em);
      expect(await failure(fx.admin.branches.create({ deploymentId: 1, body: { name: 'taken' } }))).toBeInstanceOf(ConflictError);
      expect(snapshot(fx.em)).toBe(before);
    });
    expect(() => parseProfiles('duplicate-branch-400,create-500-existing')).toThrow('expected at most one of them');
  });
});

describe('another-repository-previews', () => {
  const NAMES = OTHER_REPOSITORY_PREVIEWS.map((p) => p.branch);

  it("every deployment holds the other repository's previews under our prefix: staging on, built, a cube each, another credential's", async () => {
    await tenant(['another-repository-previews'], async (fx) => {
      // The names are those our sweep takes for ours: PRs 1, 2, 3 and a queue entry of PR 2.
      expect(NAMES.map((n) => prOfBranch(DEFAULTS.branchPrefix, n) ?? prOfQueueBranch(DEFAULTS.branchPrefix, n))).toEqual([1, 2, 3, 2]);
      for (const d of fx.em.state.deployments) {
        const listed = await collect(fx.admin.branches.iterate({ deploymentId: d.id }));
        for (const name of NAMES) {
          expect(listed.find((b) => b.name === name)).toMatchObject({ parentBranch: 'main', isStagingEnvironmentEnabled: true });
          expect(d.branches[name]!.createdBy).toBe(OTHER_REPOSITORY.createdBy);
        }
        expect(d.otherPreviews).toEqual(NAMES);
      }
      for (const p of OTHER_REPOSITORY_PREVIEWS) {
        expect(await status(fx, p.branch)).toMatchObject({ status: 'built', errorText: null });
        expect(await served(fx, p.branch)).toEqual(['customers', 'orders', 'orders_view', p.cube].sort());
      }
      expect(await validCubes(fx, 'preview-pr-3')).toBe(4);
      expect(await served(fx, 'preview-pr-1', 3)).toContain('other_repo_1');
    });
  });

  it("our repository's GitHub knows none of their numbers; turning it on later seeds them once, off keeps them; a connected repository gets their refs", async () => {
    const gh = await startGitHubStandin({ repository: 'acme/analytics' });
    try {
      for (const p of OTHER_REPOSITORY_PREVIEWS) expect(gh.pull(p.pr)).toBeUndefined();
    } finally {
      await gh.close();
    }
    await tenant(['github-connected'], async (fx) => {
      expect(Object.keys(dep(fx).branches).filter((n) => n.startsWith('preview-'))).toEqual([]);
      await control(fx.em, 'profiles', { profiles: ['github-connected', 'another-repository-previews'] });
      const ids = NAMES.map((n) => dep(fx).branches[n]!.id);
      const refs = (await control(fx.em, 'repository?deploymentId=1')) as { refs: Record<string, string> };
      for (const n of NAMES) expect(refs.refs[n]).toBe(dep(fx).branches[n]!.lastHash);
      await control(fx.em, 'profiles', { profiles: [] });
      await control(fx.em, 'profiles', { profiles: ['another-repository-previews'] });
      expect(NAMES.map((n) => dep(fx).branches[n]!.id)).toEqual(ids);
    });
  });
});

describe('platform-written-files', () => {
  const WRITTEN = Object.keys(PLATFORM_WRITTEN_FILES);
  const paths = async (fx: EmulatorFixture, branchName: string, deploymentId = 1) =>
    Object.keys(await fx.admin.dataModel.fileHashes({ deploymentId, query: { branchName } }));

  it('the deploy branch of every deployment holds them; production serves them; branches made from it inherit them', async () => {
    await tenant(['platform-written-files'], async (fx) => {
      expect(WRITTEN.every((p) => p.startsWith(PLATFORM_WRITTEN_ROOT))).toBe(true);
      for (const [id, model] of [
        [1, DEMO_MODEL],
        [2, DEMO_MODEL],
        [3, FINANCE_MODEL],
      ] as const) {
        expect((await paths(fx, 'main', id)).sort()).toEqual([...Object.keys(model), ...WRITTEN].sort());
        const v = await fx.admin.dataModel.validate({ deploymentId: id, query: { branchName: 'main' } });
        expect(v).toMatchObject({ valid: true, errors: [] });
        expect(await served(fx, undefined, id)).toEqual(expect.arrayContaining(['dbt_statuses', 'ai_payment_methods']));
        expect(dep(fx, id).platformWritten).toEqual(WRITTEN);
      }
      expect(await paths(fx, 'feature-revenue')).toEqual(expect.arrayContaining(WRITTEN));
      await stagingBranch(fx, 'inherits');
      expect(await paths(fx, 'inherits')).toEqual(expect.arrayContaining(WRITTEN));
      expect(await served(fx, 'inherits')).toEqual(expect.arrayContaining(['dbt_statuses', 'ai_payment_methods']));
      // An upload from a checkout that lacks them prunes them (finish's autoRemoveFiles): what `exclude` must prevent.
      await uploadTree(fx.admin, 1, 'inherits', DEMO_MODEL);
      expect(await paths(fx, 'inherits')).not.toEqual(expect.arrayContaining([WRITTEN[0]]));
    });
  });

  it('without it: no deployment holds them', async () => {
    await tenant([], async (fx) => {
      for (const d of fx.em.state.deployments) {
        expect((await paths(fx, 'main', d.id)).filter((p) => p.startsWith(PLATFORM_WRITTEN_ROOT))).toEqual([]);
        expect(d.platformWritten).toBeUndefined();
      }
    });
  });

  it('with the other repository previews on too, the previews are made from the deploy branch with them', async () => {
    await tenant(['platform-written-files', 'another-repository-previews'], async (fx) => {
      expect(await paths(fx, 'preview-pr-2')).toEqual(expect.arrayContaining([...WRITTEN, 'model/cubes/other_repo_2.yml']));
      expect(await served(fx, 'preview-pr-2')).toEqual(expect.arrayContaining(['dbt_statuses', 'other_repo_2']));
    });
  });
});

describe('switching them on', () => {
  it('--help and the control route list each by name', async () => {
    const { main } = await import('../packages/emulator/src/main.js');
    const out: string[] = [];
    expect(await main(['--help'], { out: (l) => out.push(l), err: (l) => out.push(l) })).toBe(0);
    const help = out.join('\n');
    for (const p of ['push-syncs-added-branches', 'blank-build-status', 'create-500-existing', 'another-repository-previews', 'platform-written-files']) {
      expect(help).toContain(`  ${p}`);
    }
    await tenant([], async (fx) => {
      const listed = (await control(fx.em, 'profiles')) as { available: Record<string, string> };
      expect(Object.keys(listed.available)).toEqual(expect.arrayContaining(['blank-build-status', 'create-500-existing']));
      expect(await control(fx.em, 'profiles', { profiles: ['create-500-existing', 'blank-build-status'] })).toEqual({
        on: ['create-500-existing', 'blank-build-status'],
      });
    });
  });
});
