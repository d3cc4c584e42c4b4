/**
 * The tenant profiles of issue 28, as the emulator answers them over HTTPS (and what it answers without
 * them): lastHash at the commit, pull of a branch not added yet, a deployment connected after an upload,
 * a CLI deployment with a repository (dotfiles), pushes that leave the project untouched, a staging
 * environment that needs a second request to wake; and the listing of production's last CLI upload.
 */
import { describe, expect, it } from 'vitest';
import { NotFoundError, type PlatformError } from '../src/client/index.js';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';
import { main } from '../packages/emulator/src/main.js';
import { parseProfiles } from '../packages/emulator/src/profiles.js';
import type { EmulatorOptions } from '../packages/emulator/src/server.js';
import { control, emulatorFixture, failure, rawRequest, snapshot, uploadTree, type EmulatorFixture } from './support/emulator.js';

const CUBE = (name: string) => `cubes:\n  - name: ${name}\n    sql_table: public.${name}\n    measures:\n      - name: count\n        type: count\n`;
const DOTFILES = ['.github/workflows/ci.yml', '.gitignore'];
const text = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');

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
const settings = (fx: EmulatorFixture, deploymentId = 1) => fx.admin.deployments.settings({ deploymentId });
const dep = (fx: EmulatorFixture, id = 1) => fx.em.state.deployments.find((d) => d.id === id)!;
/** A branch's tree as text, as the repository or the platform holds it. */
const textTree = (files: Record<string, string>) => Object.fromEntries(Object.entries(files).map(([p, b]) => [p, text(b)]));

describe('lasthash-at-commit', () => {
  const BUILD_MS = 3_000;

  /** A shared branch with its staging environment on and built, and its build status before a change. */
  async function stagingBranch(fx: EmulatorFixture, name: string) {
    await fx.admin.branches.create({ deploymentId: 1, body: { name } });
    await fx.admin.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: name } });
    return status(fx, name);
  }

  it('reports the commit at once; the next two reads still show the previous build as built, then the new build shows', async () => {
    await tenant(
      ['lasthash-at-commit'],
      async (fx) => {
        const before = await stagingBranch(fx, 'lh-upload');
        expect(before).toMatchObject({ status: 'built', errorText: null });
        const { lastHash } = await uploadTree(fx.admin, 1, 'lh-upload', { ...DEMO_MODEL, 'model/cubes/fresh.yml': CUBE('fresh') });
        expect(lastHash).toMatch(/^[0-9a-f]{40}$/);
        expect(lastHash).not.toBe(before.lastHash);
        for (let i = 0; i < 2; i++) {
          expect(await status(fx, 'lh-upload')).toMatchObject({
            status: 'built',
            lastHash,
            filesHash: lastHash,
            buildJobId: before.buildJobId,
            updatedAt: before.updatedAt,
            errorText: null,
          });
          // The previous build still serves: validation compiles the model before the upload.
          const v = await fx.admin.dataModel.validate({ deploymentId: 1, query: { branchName: 'lh-upload' } });
          expect(v.cubesCount).toBe((await fx.admin.dataModel.validate({ deploymentId: 1, query: { branchName: 'main' } })).cubesCount);
        }
        const building = await status(fx, 'lh-upload');
        expect(building).toMatchObject({ status: 'building', lastHash, filesHash: lastHash });
        expect(building.buildJobId).not.toBe(before.buildJobId);
        fx.em.clock.advance(BUILD_MS);
        expect(await status(fx, 'lh-upload')).toMatchObject({ status: 'built', lastHash, buildJobId: building.buildJobId });
      },
      { buildMs: BUILD_MS },
    );
  });

  it('a dev-mode commit and a merge set lastHash to the branch head too; with no-hash the hashes stay null', async () => {
    await tenant(['lasthash-at-commit', 'no-hash'], async (fx) => {
      const before = await stagingBranch(fx, 'lh-dev');
      const dev = (await fx.admin.branches.startDevMode({ deploymentId: 1, body: { branchName: 'lh-dev' } })).branchName!;
      await fx.admin.dataModel.updateFiles({ deploymentId: 1, body: { branchName: dev, files: [{ path: 'model/cubes/dev.yml', content: CUBE('dev') }] } });
      await fx.admin.branches.commit({ deploymentId: 1, body: { branchName: dev } });
      expect(await status(fx, 'lh-dev')).toMatchObject({ status: 'built', lastHash: null, filesHash: null, buildJobId: before.buildJobId });
    });
    await tenant(['lasthash-at-commit'], async (fx) => {
      const main = await status(fx, 'main');
      const dev = (await fx.admin.branches.startDevMode({ deploymentId: 1, body: { branchName: 'feature-revenue' } })).branchName!;
      await fx.admin.dataModel.updateFiles({ deploymentId: 1, body: { branchName: dev, files: [{ path: 'model/cubes/m.yml', content: CUBE('m') }] } });
      await fx.admin.branches.commit({ deploymentId: 1, body: { branchName: dev } });
      await fx.admin.branches.mergeToDefault({ deploymentId: 1, body: { branchName: 'feature-revenue', message: 'merge', removeBranchAfterMerge: false } });
      const head = dep(fx).branches.main!.lastHash;
      expect(await status(fx, 'main')).toMatchObject({ status: 'built', lastHash: head, buildJobId: main.buildJobId });
    });
  });

  it('without it: the first read after the change is the new build, and lastHash is what the served build holds', async () => {
    await tenant(
      [],
      async (fx) => {
        const before = await stagingBranch(fx, 'lh-off');
        const { lastHash } = await uploadTree(fx.admin, 1, 'lh-off', { ...DEMO_MODEL, 'model/cubes/fresh.yml': CUBE('fresh') });
        const s = await status(fx, 'lh-off');
        expect(s).toMatchObject({ status: 'building', lastHash: before.lastHash, filesHash: lastHash });
        expect(s.buildJobId).not.toBe(before.buildJobId);
      },
      { buildMs: BUILD_MS },
    );
  });
});

describe('pull-needs-added-branch', () => {
  const push = (fx: EmulatorFixture, branch: string, files: Record<string, string>, sha?: string) =>
    control(fx.em, 'repository/push', { deploymentId: 1, branch, files, ...(sha ? { sha } : {}) });

  it('pull of a repository branch not added answers 404 and changes nothing; dev mode on it adds it and forks dev-…; then pull works', async () => {
    await tenant(['github-connected', 'pull-needs-added-branch'], async (fx) => {
      const files = { ...DEMO_MODEL, 'model/cubes/gh.yml': CUBE('gh') };
      await push(fx, 'feature/gh', files, 'a'.repeat(40));
      const before = snapshot(fx.em);
      const e = (await failure(fx.admin.branches.pull({ deploymentId: 1, body: { branchName: 'feature/gh' } }))) as PlatformError;
      expect(e).toBeInstanceOf(NotFoundError);
      expect(e.message).toContain('branch "feature/gh" is not added to deployment 1: acme/analytics has it');
      expect(e.message).toContain('POST …/dev-mode {"branchName":"feature/gh"}');
      expect(snapshot(fx.em)).toBe(before);
      expect(await status(fx, 'feature/gh')).toMatchObject({ status: 'building', errorText: 'Bad branch' });

      const dev = await fx.admin.branches.startDevMode({ deploymentId: 1, body: { branchName: 'feature/gh' } });
      expect(dev).toMatchObject({ active: true, parentBranch: 'feature/gh', branchName: expect.stringMatching(/^dev-/) });
      const added = dep(fx).branches['feature/gh']!;
      expect(added).toMatchObject({ kind: 'shared', parent: 'main', lastHash: 'a'.repeat(40) });
      expect(textTree(added.head)).toEqual(files);
      expect(textTree(dep(fx).branches[dev.branchName!]!.files)).toEqual(files);

      await push(fx, 'feature/gh', { ...files, 'model/cubes/gh2.yml': CUBE('gh2') }, 'b'.repeat(40));
      expect(await fx.admin.branches.pull({ deploymentId: 1, body: { branchName: 'feature/gh' } })).toEqual({ buildTriggered: true });
      expect(dep(fx).branches['feature/gh']!.lastHash).toBe('b'.repeat(40));
      // A branch already added (made on the platform, a ref since) pulls as before.
      expect(await fx.admin.branches.pull({ deploymentId: 1, body: { branchName: 'feature-revenue' } })).toEqual({ buildTriggered: false });
    });
  });

  it('without it: pull makes the branch, and dev mode on a branch the platform lacks is a 404', async () => {
    await tenant(['github-connected'], async (fx) => {
      await push(fx, 'feature/a', { ...DEMO_MODEL });
      await push(fx, 'feature/b', { ...DEMO_MODEL });
      const e = (await failure(fx.admin.branches.startDevMode({ deploymentId: 1, body: { branchName: 'feature/a' } }))) as PlatformError;
      expect(e).toBeInstanceOf(NotFoundError);
      expect(await fx.admin.branches.pull({ deploymentId: 1, body: { branchName: 'feature/b' } })).toEqual({ buildTriggered: false });
      expect(dep(fx).branches['feature/b']?.kind).toBe('shared');
    });
  });
});

describe('connected-later', () => {
  it('connected as with github-connected, while the settings say it was made by upload', async () => {
    await tenant(['connected-later'], async (fx) => {
      expect(await settings(fx)).toMatchObject({
        creationMethod: 'upload',
        repoType: 'git',
        deployMode: 'git',
        deployBranchReadOnly: true,
        deployBranchMergeAllowed: false,
        repository: 'acme/analytics',
      });
      const before = await status(fx, 'main');
      await control(fx.em, 'repository/push', {
        deploymentId: 1,
        branch: 'main',
        files: { ...DEMO_MODEL, 'model/cubes/p.yml': CUBE('p') },
        sha: 'c'.repeat(40),
      });
      const after = await status(fx, 'main');
      expect(after).toMatchObject({ status: 'built', lastHash: 'c'.repeat(40) });
      expect(after.buildJobId).not.toBe(before.buildJobId);
      const merge = (await failure(
        fx.admin.branches.mergeToDefault({ deploymentId: 1, body: { branchName: 'feature-revenue', message: 'merge' } }),
      )) as PlatformError;
      expect(merge.message).toContain('deployBranchMergeAllowed: false');
      expect(((await failure(uploadTree(fx.admin, 1, 'main', DEMO_MODEL))) as PlatformError).message).toContain('deployBranchReadOnly: true');
      await fx.admin.branches.create({ deploymentId: 1, body: { name: 'later-1' } });
      await fx.admin.branches.remove({ deploymentId: 1, query: { branchName: 'later-1' } });
      expect((await control(fx.em, 'repository?deploymentId=1')).refs['later-1']).toBeDefined();
      // With github-connected too it is the same connection; off, the settings are as before.
      await control(fx.em, 'profiles', { profiles: ['github-connected', 'connected-later'] });
      expect(await settings(fx)).toMatchObject({ creationMethod: 'upload', deployBranchReadOnly: true });
      await control(fx.em, 'profiles', { profiles: ['github-connected'] });
      expect(await settings(fx)).toMatchObject({ creationMethod: 'github', deployBranchReadOnly: true });
      await control(fx.em, 'profiles', { profiles: [] });
      const off = await settings(fx);
      expect(off).toMatchObject({ creationMethod: 'cubecloud', deployMode: 'git', deployBranchReadOnly: false, deployBranchMergeAllowed: true });
      expect(off).not.toHaveProperty('repository');
    });
  });
});

describe('cli-with-repository', () => {
  it('CLI mode with a repository: dotfiles on every branch, listed like any file; pushes build nothing; uploads build production', async () => {
    await tenant(['cli-with-repository'], async (fx) => {
      for (const id of [1, 2]) {
        expect(await settings(fx, id)).toMatchObject({ deployMode: 'cli', repoType: 'git', creationMethod: 'github', deployBranchReadOnly: false });
      }
      const hashes = await fx.admin.dataModel.fileHashes({ deploymentId: 1, query: { branchName: 'main' } });
      for (const p of DOTFILES) expect(hashes[p]).toBeDefined();
      await fx.admin.branches.create({ deploymentId: 1, body: { name: 'cli-shared' } });
      const shared = await fx.admin.dataModel.fileHashes({ deploymentId: 1, query: { branchName: 'cli-shared' } });
      expect(Object.keys(shared).sort()).toEqual(Object.keys(hashes).sort());
      const list = await fx.admin.dataModel.listFiles({ deploymentId: 1, query: { branchName: 'main' } });
      const names = (list as { items: { path: string }[] }).items.map((n) => n.path);
      expect(names).toEqual(expect.arrayContaining(['/.github', '/.gitignore', '/model']));
      const ref = () => control(fx.em, 'repository?deploymentId=1&branch=main');
      expect((await ref()).files).toMatchObject({ '.gitignore': expect.any(String), '.github/workflows/ci.yml': expect.stringContaining('jobs:') });

      // A push to the repository's production branch moves the git branch only.
      const built = await status(fx, 'main');
      await control(fx.em, 'repository/push', {
        deploymentId: 1,
        branch: 'main',
        files: { ...textTree(dep(fx).branches.main!.head), 'model/cubes/q.yml': CUBE('q') },
      });
      expect(await status(fx, 'main')).toMatchObject({ status: 'built', buildJobId: built.buildJobId, lastHash: built.lastHash });
      expect(dep(fx).branches.main!.head['model/cubes/q.yml']).toBeDefined();

      // An upload of the model alone builds production and prunes the dotfiles from the branch and its ref.
      await uploadTree(fx.admin, 1, 'main', DEMO_MODEL);
      const uploaded = await status(fx, 'main');
      expect(uploaded.buildJobId).not.toBe(built.buildJobId);
      const after = await fx.admin.dataModel.fileHashes({ deploymentId: 1, query: { branchName: 'main' } });
      expect(Object.keys(after).sort()).toEqual(Object.keys(DEMO_MODEL).sort());
      expect(Object.keys((await ref()).files).sort()).toEqual(Object.keys(DEMO_MODEL).sort());
      // autoRemoveFiles: false keeps them.
      await uploadTree(fx.admin, 1, 'cli-shared', DEMO_MODEL, false);
      expect(Object.keys(await fx.admin.dataModel.fileHashes({ deploymentId: 1, query: { branchName: 'cli-shared' } }))).toEqual(
        expect.arrayContaining(DOTFILES),
      );
      // Off: each deployment's own deploy mode again.
      await control(fx.em, 'profiles', { profiles: [] });
      expect(await settings(fx, 1)).toMatchObject({ deployMode: 'git', deployBranchReadOnly: false });
      expect(await settings(fx, 2)).toMatchObject({ deployMode: 'cli', creationMethod: 'upload' });
    });
  });

  it('without it: no dotfiles, and a repository-fed deployment is in Git mode', async () => {
    await tenant([], async (fx) => {
      const hashes = await fx.admin.dataModel.fileHashes({ deploymentId: 1, query: { branchName: 'main' } });
      expect(Object.keys(hashes).sort()).toEqual(Object.keys(DEMO_MODEL).sort());
    });
    await tenant(['github-connected'], async (fx) => {
      expect(await settings(fx)).toMatchObject({ deployMode: 'git', creationMethod: 'github', deployBranchReadOnly: true });
    });
  });
});

describe('project-untouched-no-build', () => {
  /** The repository of a monorepo: the project under analytics/ plus `extra`. */
  const repo = (fx: EmulatorFixture, extra: Record<string, string>) => ({
    ...Object.fromEntries(Object.entries(textTree(dep(fx).branches.main!.head)).map(([p, t]) => [`analytics/${p}`, t])),
    'README.md': '# monorepo\n',
    ...extra,
  });

  for (const connection of ['github-connected', 'connected-later'] as const) {
    it(`${connection}: a push leaving the project root untouched builds nothing; one changing it builds`, async () => {
      await tenant([connection, 'project-untouched-no-build'], async (fx) => {
        await control(fx.em, 'repository/project-root', { deploymentId: 1, projectRoot: '/analytics' });
        const before = await status(fx, 'main');
        await control(fx.em, 'repository/push', { deploymentId: 1, branch: 'main', files: repo(fx, { 'docs/x.md': 'x' }), sha: 'd'.repeat(40) });
        expect(await status(fx, 'main')).toEqual(before);
        expect((await control(fx.em, 'repository?deploymentId=1')).refs.main).toBe('d'.repeat(40));
        await control(fx.em, 'repository/push', {
          deploymentId: 1,
          branch: 'main',
          files: repo(fx, { 'analytics/model/cubes/n.yml': CUBE('n') }),
          sha: 'e'.repeat(40),
        });
        const after = await status(fx, 'main');
        expect(after).toMatchObject({ status: 'built', lastHash: 'e'.repeat(40) });
        expect(after.buildJobId).not.toBe(before.buildJobId);
      });
    });
  }

  it('without it: every push to the production branch builds', async () => {
    await tenant(['github-connected'], async (fx) => {
      await control(fx.em, 'repository/project-root', { deploymentId: 1, projectRoot: '/analytics' });
      const before = await status(fx, 'main');
      await control(fx.em, 'repository/push', { deploymentId: 1, branch: 'main', files: repo(fx, { 'docs/x.md': 'x' }), sha: 'f'.repeat(40) });
      const after = await status(fx, 'main');
      expect(after).toMatchObject({ status: 'built', lastHash: 'f'.repeat(40) });
      expect(after.buildJobId).not.toBe(before.buildJobId);
    });
  });
});

describe('staging-needs-second-wake', () => {
  const IDLE_MS = 15 * 60_000;

  /** GET the branch's staging /meta with a deployment token: its status and error. */
  async function meta(fx: EmulatorFixture, branch: string): Promise<{ status: number; error?: string }> {
    const { cubeApiToken } = await fx.admin.deployments.token({ deploymentId: 1, body: { expiresIn: 600 } });
    const res = await rawRequest(fx.em, {
      method: 'GET',
      path: `/d/1/dev-mode/${encodeURIComponent(branch)}/cubejs-api/v1/meta`,
      headers: { authorization: cubeApiToken },
    });
    return { status: res.status, error: (JSON.parse(res.text) as { error?: string }).error };
  }
  const STARTING = 'was asleep and is starting';

  async function enabled(fx: EmulatorFixture, name: string): Promise<void> {
    await fx.admin.branches.create({ deploymentId: 1, body: { name } });
    await fx.admin.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: name } });
  }

  it('the first request to an asleep environment is answered 503 and leaves it asleep; the next wakes it; so again after it idles', async () => {
    await tenant(
      ['staging-needs-second-wake'],
      async (fx) => {
        await enabled(fx, 'wake-2');
        const asleep = { status: 'stopped', errorText: 'Branch is not active' };
        expect(await status(fx, 'wake-2')).toMatchObject(asleep);
        for (let round = 0; round < 2; round++) {
          const first = await meta(fx, 'wake-2');
          expect(first.status).toBe(503);
          expect(first.error).toContain(STARTING);
          expect(await status(fx, 'wake-2')).toMatchObject(asleep);
          const e = (await failure(fx.admin.dataModel.validate({ deploymentId: 1, query: { branchName: 'wake-2' } }))) as PlatformError;
          expect(e.message).toContain('Branch is not active');
          const second = await meta(fx, 'wake-2');
          expect(second.status).toBe(503);
          expect(second.error).toContain(STARTING);
          expect((await status(fx, 'wake-2')).status).toBe('built');
          expect((await meta(fx, 'wake-2')).status).toBe(200);
          fx.em.clock.advance(IDLE_MS + 1);
          expect(await status(fx, 'wake-2')).toMatchObject(asleep);
        }
      },
      { coldMs: 3_600_000 },
    );
  });

  it('staging-cold alone: one request wakes it', async () => {
    await tenant(
      ['staging-cold'],
      async (fx) => {
        await enabled(fx, 'wake-1');
        expect((await meta(fx, 'wake-1')).status).toBe(503);
        expect((await status(fx, 'wake-1')).status).toBe('built');
        expect((await meta(fx, 'wake-1')).status).toBe(200);
      },
      { coldMs: 3_600_000 },
    );
  });
});

describe('data-model/files?showLastCLIUpload=true', () => {
  const listed = async (fx: EmulatorFixture, deploymentId: number, query: Record<string, unknown>) => {
    const res = (await fx.admin.dataModel.listFiles({ deploymentId, query: { branchName: 'main', withContent: true, ...query } })) as {
      items: { path: string; children?: unknown[] }[];
    };
    const out: Record<string, string> = {};
    const walk = (nodes: { path: string; content?: string; children?: unknown[] }[]) =>
      nodes.forEach((n) => (n.children ? walk(n.children as typeof nodes) : (out[n.path.slice(1)] = n.content!)));
    walk(res.items);
    return out;
  };

  it('on a CLI deployment lists what production serves (its last upload), not the git branch merged into since', async () => {
    await tenant([], async (fx) => {
      // marketing (2) deploys from the CLI: a merge into main changes git, not production.
      const dev = (await fx.admin.branches.startDevMode({ deploymentId: 2, body: { branchName: 'feature-revenue' } })).branchName!;
      await fx.admin.dataModel.updateFiles({
        deploymentId: 2,
        body: { branchName: dev, files: [{ path: 'model/cubes/merged.yml', content: CUBE('merged') }] },
      });
      await fx.admin.branches.commit({ deploymentId: 2, body: { branchName: dev, exitDevMode: true } });
      await fx.admin.branches.mergeToDefault({ deploymentId: 2, body: { branchName: 'feature-revenue', message: 'merge', removeBranchAfterMerge: false } });
      expect(Object.keys(await listed(fx, 2, {}))).toContain('model/cubes/merged.yml');
      expect(await listed(fx, 2, { showLastCLIUpload: true })).toEqual(DEMO_MODEL);
      // An upload to main is what production runs from then on.
      const uploaded = { ...DEMO_MODEL, 'model/cubes/up.yml': CUBE('up') };
      await uploadTree(fx.admin, 2, 'main', uploaded);
      expect(await listed(fx, 2, { showLastCLIUpload: true })).toEqual(uploaded);
      // A Git-mode deployment lists its branch either way.
      expect(await listed(fx, 1, { showLastCLIUpload: true })).toEqual(await listed(fx, 1, {}));
    });
  });
});

describe('switching them on', () => {
  it('--help lists each (a long name on a line of its own); the three connecting profiles go together', async () => {
    const out: string[] = [];
    expect(await main(['--help'], { out: (l) => out.push(l), err: (l) => out.push(l) })).toBe(0);
    const help = out.join('\n');
    expect(help).toMatch(/^ {2}lasthash-at-commit {4}build status's lastHash is the branch's head commit/m);
    expect(help).toMatch(/^ {2}project-untouched-no-build\n {24}on a repository-fed deployment, a push/m);
    expect(parseProfiles('github-connected,connected-later,cli-with-repository,staging-cold,staging-needs-second-wake')).toHaveLength(5);
  });
});
