/** The emulator's build API through the real client over HTTPS: section 3 states, 4.4, 4.13, 4.15. */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError, ConflictError, NotFoundError, PermissionDeniedError, collect, type PlatformClient } from '../src/client/index.js';
import { environmentRestUrl } from '@datamodel-ci/platform-api';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';
import { flattenSourceTree } from '../src/impact/definition/files.js';
import { emulatorFixture, snapshot, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
let c: PlatformClient;
const D = 1;
const sha1 = (s: string | Buffer) => createHash('sha1').update(s).digest('hex');

beforeAll(async () => {
  fx = await emulatorFixture();
  c = fx.admin;
});
afterAll(() => fx.close());

async function freshShared(name: string): Promise<string> {
  await c.branches.create({ deploymentId: D, body: { name, from: 'main' } });
  return name;
}

describe('dev mode (section 3)', () => {
  it('forks a personal dev branch per credential and returns its real name', async () => {
    const shared = await freshShared('dm-fork');
    const a = await c.branches.startDevMode({ deploymentId: D, body: { branchName: shared } });
    const b = await fx.member.branches.startDevMode({ deploymentId: D, body: { branchName: shared } });
    expect(a.active).toBe(true);
    expect(a.branchName).toMatch(/^dev-[0-9a-f]+$/);
    expect(b.branchName).toMatch(/^dev-/);
    expect(a.branchName).not.toBe(b.branchName);
    expect(a.parentBranch).toBe(shared);
    expect(fx.em.state.deployments[0]!.branches[a.branchName!]!.kind).toBe('dev');
  });

  it('operations that omit the branch target the dev branch; DELETE ends the session', async () => {
    const shared = await freshShared('dm-omit');
    const dev = await c.branches.startDevMode({ deploymentId: D, body: { branchName: shared } });
    await c.dataModel.updateFiles({ deploymentId: D, body: { files: [{ path: 'model/cubes/extra.yml', content: 'cubes: []\n' }] } });
    const hashes = await c.dataModel.fileHashes({ deploymentId: D });
    expect(hashes['model/cubes/extra.yml']?.hash).toBe(sha1('cubes: []\n'));
    const onDev = await c.dataModel.fileHashes({ deploymentId: D, query: { branchName: dev.branchName! } });
    expect(onDev['model/cubes/extra.yml']).toBeDefined();
    const onShared = await c.dataModel.fileHashes({ deploymentId: D, query: { branchName: shared } });
    expect(onShared['model/cubes/extra.yml']).toBeUndefined();
    await c.branches.stopDevMode({ deploymentId: D });
    const err = await c.dataModel.updateFiles({ deploymentId: D, body: { files: [{ path: 'a.yml', content: 'x' }] } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as Error).message).toContain('no dev-mode session open');
  });

  it('rejects file writes on a branch that is not a dev-mode branch, changing nothing', async () => {
    const before = snapshot(fx.em);
    for (const branchName of ['main', 'feature-revenue']) {
      const err = await c.dataModel
        .updateFiles({ deploymentId: D, body: { branchName, files: [{ path: 'model/x.yml', content: 'x' }] } })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadRequestError);
      expect((err as BadRequestError).platformMessage).toBe(
        `branch "${branchName}" is not a dev-mode branch: file writes are accepted on a personal dev-mode branch only`,
      );
    }
    expect(snapshot(fx.em)).toBe(before);
  });

  it('refuses another credential writing to my dev branch', async () => {
    const shared = await freshShared('dm-owner');
    const mine = await c.branches.startDevMode({ deploymentId: D, body: { branchName: shared } });
    const err = await fx.member.dataModel
      .updateFiles({ deploymentId: D, body: { branchName: mine.branchName!, files: [{ path: 'a.yml', content: 'x' }] } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermissionDeniedError);
  });
});

describe('uploads and hashes', () => {
  it('file-hashes are the SHA-1 hex of the raw bytes keyed by POSIX path', async () => {
    const hashes = await c.dataModel.fileHashes({ deploymentId: D, query: { branchName: 'main' } });
    expect(Object.keys(hashes).sort()).toEqual(Object.keys(DEMO_MODEL).sort());
    for (const [path, text] of Object.entries(DEMO_MODEL)) expect(hashes[path]?.hash).toBe(sha1(text));
  });

  it('runs a transaction: start, multipart files, finish with the full manifest; autoRemoveFiles deletes the rest', async () => {
    const shared = await freshShared('up-tx');
    const dev = (await c.branches.startDevMode({ deploymentId: D, body: { branchName: shared } })).branchName!;
    const before = await c.dataModel.fileHashes({ deploymentId: D, query: { branchName: dev } });
    const tx = await c.dataModel.startUpload({ deploymentId: D, query: { branchName: dev } });
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x41]); // not UTF-8: hashed as raw bytes
    await c.dataModel.uploadFile({
      deploymentId: D,
      query: { branchName: dev },
      body: { transaction: JSON.stringify(tx.transaction), fileName: 'model/cubes/new.yml', file: Buffer.from('cubes: []\n') },
    });
    await c.dataModel.uploadFile({
      deploymentId: D,
      query: { branchName: dev },
      body: { transaction: JSON.stringify(tx.transaction), fileName: 'data/blob.bin', file: bytes },
    });
    const manifest: Record<string, { hash: string }> = {
      'model/cubes/new.yml': { hash: sha1('cubes: []\n') },
      'data/blob.bin': { hash: sha1(bytes) },
      'model/cubes/orders.yml': before['model/cubes/orders.yml']!,
    };
    await c.dataModel.finishUpload({
      deploymentId: D,
      query: { branchName: dev },
      body: { transaction: tx.transaction, files: manifest, autoRemoveFiles: true },
    });
    const after = await c.dataModel.fileHashes({ deploymentId: D, query: { branchName: dev } });
    expect(after).toEqual(manifest);
    // The transaction is gone.
    const again = await c.dataModel
      .finishUpload({ deploymentId: D, query: { branchName: dev }, body: { transaction: tx.transaction, files: manifest } })
      .catch((e: unknown) => e);
    expect(again).toBeInstanceOf(NotFoundError);
  });

  it('keeps files missing from the manifest when autoRemoveFiles is false', async () => {
    const shared = await freshShared('up-keep');
    const dev = (await c.branches.startDevMode({ deploymentId: D, body: { branchName: shared } })).branchName!;
    const tx = await c.dataModel.startUpload({ deploymentId: D, query: { branchName: dev } });
    await c.dataModel.uploadFile({
      deploymentId: D,
      query: { branchName: dev },
      body: { transaction: JSON.stringify(tx.transaction), fileName: 'model/cubes/k.yml', file: 'cubes: []\n' },
    });
    await c.dataModel.finishUpload({
      deploymentId: D,
      query: { branchName: dev },
      body: { transaction: tx.transaction, files: { 'model/cubes/k.yml': { hash: sha1('cubes: []\n') } }, autoRemoveFiles: false },
    });
    const after = await c.dataModel.fileHashes({ deploymentId: D, query: { branchName: dev } });
    expect(Object.keys(after).sort()).toEqual([...Object.keys(DEMO_MODEL), 'model/cubes/k.yml'].sort());
  });

  it('rejects a manifest whose hash does not match, or that lists a file never sent, and changes nothing', async () => {
    const shared = await freshShared('up-bad');
    const dev = (await c.branches.startDevMode({ deploymentId: D, body: { branchName: shared } })).branchName!;
    const tx = await c.dataModel.startUpload({ deploymentId: D, query: { branchName: dev } });
    await c.dataModel.uploadFile({
      deploymentId: D,
      query: { branchName: dev },
      body: { transaction: JSON.stringify(tx.transaction), fileName: 'a.yml', file: 'a' },
    });
    const before = snapshot(fx.em);
    const wrong = await c.dataModel
      .finishUpload({ deploymentId: D, query: { branchName: dev }, body: { transaction: tx.transaction, files: { 'a.yml': { hash: sha1('b') } } } })
      .catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(BadRequestError);
    expect((wrong as Error).message).toContain(`got ${sha1('b')}, expected ${sha1('a')}`);
    const unsent = await c.dataModel
      .finishUpload({
        deploymentId: D,
        query: { branchName: dev },
        body: { transaction: tx.transaction, files: { 'a.yml': { hash: sha1('a') }, 'ghost.yml': { hash: sha1('g') } } },
      })
      .catch((e: unknown) => e);
    expect(unsent).toBeInstanceOf(BadRequestError);
    expect((unsent as Error).message).toContain('ghost.yml');
    const escape = await c.dataModel
      .uploadFile({ deploymentId: D, query: { branchName: dev }, body: { transaction: JSON.stringify(tx.transaction), fileName: '../etc/passwd', file: 'x' } })
      .catch((e: unknown) => e);
    expect(escape).toBeInstanceOf(BadRequestError);
    expect(snapshot(fx.em)).toBe(before);
  });

  it('renames and removes files on the dev branch', async () => {
    const shared = await freshShared('files-ops');
    const dev = (await c.branches.startDevMode({ deploymentId: D, body: { branchName: shared } })).branchName!;
    await c.dataModel.renameFiles({ deploymentId: D, body: { branchName: dev, files: [{ path: 'cube.js', newPath: 'cube.config.js' }] } });
    await c.dataModel.removeFiles({ deploymentId: D, body: { branchName: dev, files: [{ path: 'model/views/orders_view.yml' }] } });
    // The vendor's nested source tree: absolute paths, directories with children.
    const nodes = await collect(c.dataModel.iterateFiles({ deploymentId: D, query: { branchName: dev, withContent: true } }));
    expect(nodes.map((n) => [n.path, n.type])).toEqual([
      ['/cube.config.js', 'file'],
      ['/model', 'directory'],
    ]);
    const files = flattenSourceTree(nodes);
    expect([...files.keys()].sort()).toEqual(['cube.config.js', 'model/cubes/customers.yml', 'model/cubes/orders.yml']);
    expect(files.get('cube.config.js')).toBe(DEMO_MODEL['cube.js']);
    const missing = await c.dataModel.removeFiles({ deploymentId: D, body: { branchName: dev, files: [{ path: 'nope.yml' }] } }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
  });
});

it('lists files flat on a tenant that answers so (flatFileList)', async () => {
  const shared = await freshShared('files-flat');
  fx.em.controls.behaviour.flatFileList = true;
  try {
    const nodes = await collect(c.dataModel.iterateFiles({ deploymentId: D, query: { branchName: shared } }));
    expect(nodes.map((n) => n.path)).toEqual(['cube.js', 'model/cubes/customers.yml', 'model/cubes/orders.yml', 'model/views/orders_view.yml']);
  } finally {
    fx.em.controls.behaviour.flatFileList = false;
  }
});

describe('git workflow', () => {
  async function devWith(shared: string, files: Record<string, string>) {
    const dev = (await c.branches.startDevMode({ deploymentId: D, body: { branchName: shared } })).branchName!;
    await c.dataModel.updateFiles({ deploymentId: D, body: { branchName: dev, files: Object.entries(files).map(([path, content]) => ({ path, content })) } });
    return dev;
  }

  it('commit, then merge into the parent deletes the merged branch unless told to keep it', async () => {
    const shared = await freshShared('git-merge');
    const dev = await devWith(shared, { 'model/cubes/m.yml': 'cubes: []\n' });
    await c.branches.commit({ deploymentId: D, body: { message: 'add m' } });
    const kept = await c.branches.merge({ deploymentId: D, body: { branchName: dev, deleteBranch: false } });
    expect(kept).toEqual({ merged: true, branchDeleted: false });
    expect(fx.em.state.deployments[0]!.branches[dev]).toBeDefined();
    const hashes = await c.dataModel.fileHashes({ deploymentId: D, query: { branchName: shared } });
    expect(hashes['model/cubes/m.yml']).toBeDefined();
    await c.dataModel.updateFiles({ deploymentId: D, body: { branchName: dev, files: [{ path: 'model/cubes/m2.yml', content: 'cubes: []\n' }] } });
    await c.branches.commit({ deploymentId: D, body: { message: 'add m2' } });
    const gone = await c.branches.merge({ deploymentId: D, body: { branchName: dev } });
    expect(gone).toEqual({ merged: true, branchDeleted: true });
    expect(fx.em.state.deployments[0]!.branches[dev]).toBeUndefined();
  });

  it('merge carries committed changes only', async () => {
    const shared = await freshShared('git-uncommitted');
    const dev = await devWith(shared, { 'model/cubes/u.yml': 'cubes: []\n' });
    await c.branches.merge({ deploymentId: D, body: { branchName: dev } });
    const hashes = await c.dataModel.fileHashes({ deploymentId: D, query: { branchName: shared } });
    expect(hashes['model/cubes/u.yml']).toBeUndefined();
  });

  it('reports a conflict when both sides changed a file, and changes nothing', async () => {
    const shared = await freshShared('git-conflict');
    const b = (await fx.member.branches.startDevMode({ deploymentId: D, body: { branchName: shared } })).branchName!;
    await devWith(shared, { 'cube.js': 'module.exports = { a: 1 };\n' });
    // Commit on a dev fork pushes to the shared branch at once (the vendor's "Commit & Sync").
    await c.branches.commit({ deploymentId: D, body: { message: 'a' } });
    await fx.member.dataModel.updateFiles({ deploymentId: D, body: { branchName: b, files: [{ path: 'cube.js', content: 'module.exports = { b: 2 };\n' }] } });
    const before = snapshot(fx.em);
    const err = await fx.member.branches.commit({ deploymentId: D, body: { message: 'b' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as Error).message).toContain('merge conflict');
    expect((err as Error).message).toContain('cube.js');
    expect(snapshot(fx.em)).toBe(before);
  });

  it('pull brings the parent’s new commits into a branch', async () => {
    const shared = await freshShared('git-pull');
    const dev = await devWith('main', { 'model/cubes/p.yml': 'cubes: []\n' });
    await c.branches.commit({ deploymentId: D, body: { message: 'p' } });
    await c.branches.merge({ deploymentId: D, body: { branchName: dev } });
    expect((await c.dataModel.fileHashes({ deploymentId: D, query: { branchName: shared } }))['model/cubes/p.yml']).toBeUndefined();
    expect(await c.branches.pull({ deploymentId: D, body: { branchName: shared } })).toEqual({ buildTriggered: true });
    expect((await c.dataModel.fileHashes({ deploymentId: D, query: { branchName: shared } }))['model/cubes/p.yml']).toBeDefined();
    // Undo for the other tests: the deploy branch is shared by them.
    const undo = (await c.branches.startDevMode({ deploymentId: D, body: { branchName: 'main' } })).branchName!;
    await c.dataModel.removeFiles({ deploymentId: D, body: { branchName: undo, files: [{ path: 'model/cubes/p.yml' }] } });
    await c.branches.commit({ deploymentId: D, body: {} });
    await c.branches.merge({ deploymentId: D, body: { branchName: undo } });
  });

  it('merge-to-default merges a shared branch into the deploy branch and removes it unless kept', async () => {
    const shared = await freshShared('git-mtd');
    const dev = await devWith(shared, { 'model/cubes/mtd.yml': 'cubes: []\n' });
    await c.branches.commit({ deploymentId: D, body: {} });
    await c.branches.merge({ deploymentId: D, body: { branchName: dev } });
    const r = await c.branches.mergeToDefault({ deploymentId: D, body: { branchName: shared, message: 'Merge PR #7' } });
    expect(r).toEqual({ merged: true, branchDeleted: true });
    expect((await c.dataModel.fileHashes({ deploymentId: D, query: { branchName: 'main' } }))['model/cubes/mtd.yml']).toBeDefined();
    expect(fx.em.state.deployments[0]!.branches[shared]).toBeUndefined();
  });

  it('repeating a merge (a lost answer) changes nothing more, even when the target moved on', async () => {
    const shared = await freshShared('git-twice');
    const dev = await devWith(shared, { 'model/cubes/twice.yml': 'cubes: []\n' });
    await c.branches.commit({ deploymentId: D, body: { branchName: dev } });
    await c.branches.merge({ deploymentId: D, body: { branchName: dev } });
    // Someone else changes the deploy branch after the shared branch forked.
    const other = await devWith('main', { 'model/cubes/other.yml': 'cubes: []\n' });
    await c.branches.commit({ deploymentId: D, body: { branchName: other } });
    await c.branches.merge({ deploymentId: D, body: { branchName: other } });
    await c.branches.mergeToDefault({ deploymentId: D, body: { branchName: shared, message: 'once', removeBranchAfterMerge: false } });
    const before = await c.dataModel.fileHashes({ deploymentId: D, query: { branchName: 'main' } });
    await c.branches.mergeToDefault({ deploymentId: D, body: { branchName: shared, message: 'twice', removeBranchAfterMerge: false } });
    expect(await c.dataModel.fileHashes({ deploymentId: D, query: { branchName: 'main' } })).toEqual(before);
    expect(before['model/cubes/other.yml']).toBeDefined();
    // Undo for the other tests.
    const undo = (await c.branches.startDevMode({ deploymentId: D, body: { branchName: 'main' } })).branchName!;
    await c.dataModel.removeFiles({
      deploymentId: D,
      body: { branchName: undo, files: [{ path: 'model/cubes/other.yml' }, { path: 'model/cubes/twice.yml' }] },
    });
    await c.branches.commit({ deploymentId: D, body: { branchName: undo } });
    await c.branches.merge({ deploymentId: D, body: { branchName: undo } });
  });

  it('branch delete re-parents children onto the deleted branch’s parent', async () => {
    const parent = await freshShared('tree-parent');
    await c.branches.create({ deploymentId: D, body: { name: 'tree-child', from: parent } });
    await c.branches.remove({ deploymentId: D, query: { branchName: parent, removeOnUpstream: true } });
    const all = await collect(c.branches.iterate({ deploymentId: D }));
    expect(all.find((b) => b.name === 'tree-child')?.parentBranch).toBe('main');
    expect(all.find((b) => b.name === parent)).toBeUndefined();
  });

  it('refuses to delete the deploy branch, a second branch of the same name, and bad names', async () => {
    const before = snapshot(fx.em);
    await expect(c.branches.remove({ deploymentId: D, query: { branchName: 'main' } })).rejects.toThrow(/deploy branch and cannot be deleted/);
    await expect(c.branches.create({ deploymentId: D, body: { name: 'feature-revenue' } })).rejects.toBeInstanceOf(ConflictError);
    await expect(c.branches.create({ deploymentId: D, body: { name: 'has space' } })).rejects.toThrow(/expected a branch name/);
    await expect(c.branches.create({ deploymentId: D, body: { name: 'a/../b' } })).rejects.toThrow(/expected a branch name/);
    await expect(c.branches.remove({ deploymentId: D, query: { branchName: 'no-such' } })).rejects.toBeInstanceOf(NotFoundError);
    expect(snapshot(fx.em)).toBe(before);
  });
});

describe('staging environment (4.4)', () => {
  it('enables a shared branch: listed as an environment of type staging with the dev-mode URL', async () => {
    const shared = await freshShared('stg-on');
    const r = await c.branches.setStagingEnvironment({ deploymentId: D, body: { enabled: true, branchName: shared } });
    expect(r!.data).toMatchObject({ name: shared, isStagingEnvironmentEnabled: true, parentBranch: 'main' });
    const envs = await c.deployments.environments({ deploymentId: D, query: { type: 'staging' } });
    const list = envs.items.filter((e) => e.name === shared);
    expect(list).toHaveLength(1);
    expect(list[0]!.type).toBe('staging');
    expect(environmentRestUrl(list[0]!)).toBe(`${fx.em.deployments[0]!.deploymentUrl}/dev-mode/${shared}/cubejs-api/v1`);
    await c.branches.setStagingEnvironment({ deploymentId: D, body: { enabled: false, branchId: r!.data.id } });
    const after = await c.deployments.environments({ deploymentId: D, query: { type: 'staging' } });
    expect(after.items.some((e) => e.name === shared)).toBe(false);
  });

  it('rejects dev branches and the deploy branch, changing nothing', async () => {
    const shared = await freshShared('stg-reject');
    const dev = (await c.branches.startDevMode({ deploymentId: D, body: { branchName: shared } })).branchName!;
    const before = snapshot(fx.em);
    await expect(c.branches.setStagingEnvironment({ deploymentId: D, body: { enabled: true, branchName: dev } })).rejects.toThrow(/personal dev-mode branch/);
    await expect(c.branches.setStagingEnvironment({ deploymentId: D, body: { enabled: true, branchName: 'main' } })).rejects.toThrow(
      /production \(deploy\) branch/,
    );
    expect(snapshot(fx.em)).toBe(before);
  });
});

describe('validation (4.13)', () => {
  it("answers 200 valid:false with the errors of a real compile: Cube's own message, the file as a repository path", async () => {
    const shared = await freshShared('val-broken');
    const dev = (await c.branches.startDevMode({ deploymentId: D, body: { branchName: shared } })).branchName!;
    const broken = DEMO_MODEL['model/cubes/orders.yml']!.replace('type: sum', 'type: summ');
    await c.dataModel.updateFiles({ deploymentId: D, body: { branchName: dev, files: [{ path: 'model/cubes/orders.yml', content: broken }] } });
    const r = await c.dataModel.validate({ deploymentId: D, query: { devMode: true } });
    expect(r.valid).toBe(false);
    expect(r.mode).toBe('dev_mode');
    expect(r.branchName).toBe(dev);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ fileName: 'model/cubes/orders.yml' });
    expect(r.errors[0]!.message).toMatch(
      /^orders cube: "measures\.total_amount\.type" must be one of \[count, number, string, boolean, time, sum, avg, min, max, countDistinct, countDistinctApprox\]/,
    );
    const main = await c.dataModel.validate({ deploymentId: D });
    expect(main).toMatchObject({ valid: true, branchName: 'main', mode: 'production', errors: [], cubesCount: 3 });
  });
});

describe('data REST API of a staging environment', () => {
  it('serves /meta and /load (Continue wait first) with a minted token, refused while staging is disabled', async () => {
    const shared = await freshShared('data-api');
    const { cubeApiToken } = await c.deployments.token({ deploymentId: D, body: { expiresIn: 600 } });
    const base = `${fx.em.deployments[0]!.deploymentUrl}/dev-mode/${shared}/cubejs-api/v1`;
    const get = async (path: string) => {
      const res = await c.http
        .send({ method: 'GET', path: new URL(`${base}${path}`).pathname + new URL(`${base}${path}`).search, headers: { authorization: cubeApiToken } })
        .catch((e: unknown) => e);
      return res;
    };
    const refused = (await get('/meta')) as PermissionDeniedError;
    expect(refused).toBeInstanceOf(PermissionDeniedError);
    expect(refused.platformMessage).toContain('staging environment');
    await c.branches.setStagingEnvironment({ deploymentId: D, body: { enabled: true, branchName: shared } });
    const meta = JSON.parse(((await get('/meta')) as { text: string }).text) as { cubes: { name: string }[] };
    expect(meta.cubes.map((x) => x.name).sort()).toEqual(['customers', 'orders', 'orders_view']);
    const q = encodeURIComponent(JSON.stringify({ measures: ['orders.count'], dimensions: ['orders.status'], order: { 'orders.status': 'asc' } }));
    const answers: unknown[] = [];
    for (let i = 0; i < 3; i++) answers.push(JSON.parse(((await get(`/load?query=${q}`)) as { text: string }).text));
    expect(answers[0]).toEqual({ error: 'Continue wait' });
    expect(answers[1]).toEqual({ error: 'Continue wait' });
    const data = (answers[2] as { data: Record<string, string>[] }).data;
    expect(data.map((r) => r['orders.status'])).toEqual(['cancelled', 'completed', 'new', 'processing', 'shipped']);
    expect(data.reduce((n, r) => n + Number(r['orders.count']), 0)).toBe(5000);
  });
});
