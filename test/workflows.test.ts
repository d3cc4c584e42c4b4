/** The seven operations (src/operations) against the emulator over HTTPS. */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError, collect } from '../src/client/index.js';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';
import { cleanupBranch } from '../src/operations/cleanup-branch.js';
import type { OpContext } from '../src/operations/context.js';
import { dbtSyncAndWait } from '../src/operations/dbt-sync-and-wait.js';
import { nextPollDelay } from '../src/operations/dbt-progress.js';
import { enableStaging } from '../src/operations/enable-staging.js';
import { scanModel } from '../src/model/local-model.js';
import { mergeToDefault } from '../src/operations/merge-to-default.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { ensureSharedBranch, startDevBranch } from '../src/operations/start-dev-branch.js';
import { markBuild, ensureBuilt } from '../src/operations/branch-build.js';
import { uploadModel } from '../src/operations/upload-model.js';
import { repoPath, validateBranch } from '../src/operations/validate.js';
import { localOf, emulatorFixture, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
const sha1 = (s: string | Buffer) => createHash('sha1').update(s).digest('hex');

beforeAll(async () => {
  fx = await emulatorFixture();
});
afterAll(() => fx.close());

function ctx(extra: Partial<OpContext> = {}): OpContext & { reporter: MemoryReporter } {
  return { client: fx.admin, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false, ...extra } as OpContext & { reporter: MemoryReporter };
}

/** A model dir with the demo model plus/minus changes. */
function modelDir(changes: Record<string, string | null> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'dmci-model-'));
  const files: Record<string, string | null> = { ...DEMO_MODEL, ...changes };
  for (const [path, content] of Object.entries(files)) {
    if (content === null) continue;
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

async function sharedHashes(branch: string): Promise<Record<string, string>> {
  const h = await fx.admin.dataModel.fileHashes({ deploymentId: 1, query: { branchName: branch } });
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k, v.hash]));
}

function devBranchesOf(keyId = 'key-admin') {
  return Object.values(fx.em.state.deployments[0]!.branches).filter((b) => b.kind === 'dev' && b.owner === keyId);
}

describe('start-dev-branch', () => {
  it('creates the shared branch from the deploy branch, and a rerun finds it instead of creating another', async () => {
    // One run's context: its ledger records the branch it created and the fork dev mode answered with.
    const run = ctx();
    const a = await startDevBranch(run, { branch: 'preview-pr-1' });
    expect(a).toMatchObject({ branch: 'preview-pr-1', created: true });
    expect(a.devBranch).toMatch(/^dev-/);
    const b = await startDevBranch(ctx(), { branch: 'preview-pr-1' });
    expect(b).toMatchObject({ branch: 'preview-pr-1', created: false, devBranch: a.devBranch });
    const names = (await collect(fx.admin.branches.iterate({ deploymentId: 1 }))).map((x) => x.name);
    expect(names.filter((n) => n === 'preview-pr-1')).toHaveLength(1);
    const gone = await cleanupBranch(run, { branch: 'preview-pr-1', generatedName: true, removeOnUpstream: false });
    expect(gone.deleted.sort()).toEqual([a.devBranch!, 'preview-pr-1'].sort());
  });

  it('in dry-run mode makes no call that changes anything', async () => {
    const before = JSON.stringify(fx.em.state);
    const c = ctx({ dryRun: true });
    const r = await startDevBranch(c, { branch: 'preview-pr-dry' });
    expect(r.devBranch).toBeUndefined();
    expect(c.reporter.text()).toContain('dry run: would create shared branch preview-pr-dry');
    expect(JSON.stringify(fx.em.state)).toBe(before);
  });
});

describe('upload-model', () => {
  /** The shared branch alone (no dev mode): the direct upload needs nothing else. */
  const shared = (branch: string) => ensureSharedBranch(ctx(), branch, 'main');

  it('sends only new and changed files straight to the shared branch, deletes what is gone, and leaves it equal to the local files', async () => {
    await shared('preview-pr-2');
    const dir = modelDir({ 'model/cubes/extra.yml': 'cubes: []\n', 'model/views/orders_view.yml': null });
    const c = ctx();
    const r = await uploadModel(c, { branch: 'preview-pr-2', modelDir: dir, local: await localOf(dir), concurrency: 4, commitMessage: 'PR #2' });
    expect(r).toMatchObject({ uploaded: 1, deleted: 1, unchanged: 3, stale: false, via: 'direct', devBranch: undefined });
    expect(r.files).toEqual({ sent: ['model/cubes/extra.yml'], deleted: ['model/views/orders_view.yml'] });
    const local = Object.fromEntries((await scanModel(dir)).map((f) => [f.path, f.sha1]));
    expect(await sharedHashes('preview-pr-2')).toEqual(local);
    // No dev mode, no fork, no commit, no merge: one upload transaction.
    expect(devBranchesOf()).toEqual([]);
    expect(fx.em.state.deployments[0]!.devSessions['key-admin']).toBeUndefined();
    // A second run with nothing changed sends nothing and starts no transaction.
    const starts = fx.em.counts.startUpload ?? 0;
    const again = await uploadModel(ctx(), { branch: 'preview-pr-2', modelDir: dir, local: await localOf(dir), concurrency: 4, commitMessage: 'PR #2' });
    expect(again).toMatchObject({ uploaded: 0, deleted: 0, unchanged: 4, via: 'none' });
    expect(fx.em.counts.startUpload ?? 0).toBe(starts);
    expect(await sharedHashes('preview-pr-2')).toEqual(local);
  });

  it('falls back to dev mode on a tenant that refuses direct uploads: fork, commit to the shared branch, nothing left behind', async () => {
    await shared('preview-pr-8');
    fx.em.controls.behaviour.directUploads = false;
    try {
      const dir = modelDir({ 'model/cubes/via_fork.yml': 'cubes: []\n' });
      const c = ctx();
      const r = await uploadModel(c, { branch: 'preview-pr-8', modelDir: dir, local: await localOf(dir), concurrency: 2, commitMessage: 'PR #8' });
      expect(r).toMatchObject({ via: 'dev-mode', uploaded: 1, stale: false });
      expect(r.devBranch).toMatch(/^dev-/);
      expect(c.reporter.text()).toContain('this tenant refuses direct uploads to a shared branch');
      const local = Object.fromEntries((await scanModel(dir)).map((f) => [f.path, f.sha1]));
      expect(await sharedHashes('preview-pr-8')).toEqual(local);
      expect(devBranchesOf()).toEqual([]);
      expect(fx.em.state.deployments[0]!.devSessions['key-admin']).toBeUndefined();
    } finally {
      fx.em.controls.behaviour.directUploads = true;
    }
  });

  it('leaves no fork or session behind when a step of the dev-mode path fails', async () => {
    await shared('preview-pr-3');
    const before = await sharedHashes('preview-pr-3');
    const dir = modelDir({ 'model/cubes/late.yml': 'cubes: []\n' });
    const err = await uploadModel(ctx(), {
      branch: 'preview-pr-3',
      modelDir: dir,
      local: await localOf(dir),
      concurrency: 2,
      commitMessage: 'x',
      via: 'dev-mode',
      isStale: () => Promise.reject(new Error('GitHub is down')),
    }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('GitHub is down');
    expect(devBranchesOf()).toEqual([]);
    expect(fx.em.state.deployments[0]!.devSessions['key-admin']).toBeUndefined();
    expect(await sharedHashes('preview-pr-3')).toEqual(before);
  });

  it('does not commit when a newer run owns the PR (checked right before finish)', async () => {
    await shared('preview-pr-4');
    const before = await sharedHashes('preview-pr-4');
    const stale = modelDir({ 'model/cubes/stale.yml': 'cubes: []\n' });
    const r = await uploadModel(ctx(), {
      branch: 'preview-pr-4',
      modelDir: stale,
      local: await localOf(stale),
      concurrency: 2,
      commitMessage: 'x',
      isStale: () => Promise.resolve(true),
    });
    expect(r.stale).toBe(true);
    expect(await sharedHashes('preview-pr-4')).toEqual(before);
    const fresh = modelDir({ 'model/cubes/new.yml': 'cubes: []\n' });
    await uploadModel(ctx(), { branch: 'preview-pr-4', modelDir: fresh, local: await localOf(fresh), concurrency: 2, commitMessage: 'y' });
    expect((await sharedHashes('preview-pr-4'))['model/cubes/new.yml']).toBeDefined();
    expect((await sharedHashes('preview-pr-4'))['model/cubes/stale.yml']).toBeUndefined();
  });

  it('refuses a symlink that leaves the model dir, naming the file, before any call', async () => {
    const dir = modelDir();
    const outside = mkdtempSync(join(tmpdir(), 'dmci-outside-'));
    writeFileSync(join(outside, 'secret.yml'), 'x');
    symlinkSync(join(outside, 'secret.yml'), join(dir, 'model', 'cubes', 'link.yml'));
    const before = JSON.stringify(fx.em.state);
    // The model is read and checked before the upload's first call.
    const err = await localOf(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(/^model-dir file model\/cubes\/link\.yml: got ".*secret\.yml", expected a symlink that stays inside the model dir/);
    expect(JSON.stringify(fx.em.state)).toBe(before);
    rmSync(outside, { recursive: true });
  });

  it('follows a symlink inside the model dir, and refuses a non-UTF-8 model file', async () => {
    const dir = modelDir();
    symlinkSync(join(dir, 'model', 'cubes', 'orders.yml'), join(dir, 'model', 'cubes', 'orders-copy.yml'));
    const files = await scanModel(dir);
    expect(files.find((f) => f.path === 'model/cubes/orders-copy.yml')?.sha1).toBe(sha1(DEMO_MODEL['model/cubes/orders.yml']!));
    writeFileSync(join(dir, 'model', 'cubes', 'latin1.yml'), Buffer.from([0x63, 0x75, 0x62, 0x65, 0xe9, 0x0a]));
    await expect(scanModel(dir)).rejects.toThrow('model-dir file model/cubes/latin1.yml: got "bytes that are not UTF-8", expected a UTF-8 text file');
  });

  it('names a missing model dir', async () => {
    await expect(scanModel('/no/such/dir')).rejects.toThrow(/^model-dir: got "\/no\/such\/dir", expected an existing directory/);
  });
});

describe('validate', () => {
  it('maps each error to its repository file and line (once the branch runs and is built)', async () => {
    await ensureSharedBranch(ctx(), 'preview-pr-5', 'main');
    const broken = DEMO_MODEL['model/cubes/orders.yml']!.replace('type: sum', 'type: summ');
    const dir = modelDir({ 'model/cubes/orders.yml': broken });
    await uploadModel(ctx(), { branch: 'preview-pr-5', modelDir: dir, local: await localOf(dir), concurrency: 2, commitMessage: 'x' });
    // A shared branch nobody runs cannot be validated; the toolkit turns its staging on and waits for the build.
    await expect(validateBranch(ctx(), { branch: 'preview-pr-5', modelDir: '.' })).rejects.toThrow(/-> 400: Branch is not active/);
    // The status before it runs is the mark: the build that follows is the upload's.
    const since = await markBuild(ctx(), 'preview-pr-5');
    const building = ensureBuilt(ctx(), 'preview-pr-5', { deployBranch: 'main', pollMs: 1, maxPollMs: 1, ...(since ? { since } : {}) });
    const tick = setInterval(() => fx.em.clock.advance(1_000), 2);
    await building.finally(() => clearInterval(tick));
    // The checkout holds the model under analytics/cube: the place is found in its files.
    const repo = mkdtempSync(join(tmpdir(), 'dmci-repo-'));
    mkdirSync(join(repo, 'analytics/cube/model/cubes'), { recursive: true });
    writeFileSync(join(repo, 'analytics/cube/model/cubes/orders.yml'), broken);
    const cwd = process.cwd();
    const c = ctx();
    process.chdir(repo);
    const r = await validateBranch(c, { branch: 'preview-pr-5', modelDir: 'analytics/cube' }).finally(() => process.chdir(cwd));
    expect(r.valid).toBe(false);
    const line = broken.split('\n').findIndex((l) => l.includes('summ')) + 1;
    expect(r.errors[0]).toMatchObject({ file: 'analytics/cube/model/cubes/orders.yml', line, precision: 'exact' });
    // The platform's message, unchanged (the caller pins it: a check run or the step's annotations).
    const platform = await fx.admin.dataModel.validate({ deploymentId: 1, query: { branchName: 'preview-pr-5' } });
    expect(r.errors[0]?.message).toBe(platform.errors[0]?.message);
    expect(c.reporter.lines.filter((l) => l.level === 'error')).toEqual([]);
    // A file that is not in the checkout gets the file alone.
    const elsewhere = await validateBranch(ctx(), { branch: 'preview-pr-5', modelDir: 'no/such/checkout' });
    expect(elsewhere.errors[0]).toMatchObject({ file: 'no/such/checkout/model/cubes/orders.yml', line: undefined, precision: 'file' });
    rmSync(repo, { recursive: true, force: true });
  });

  it('joins platform file names to model-dir safely', () => {
    expect(repoPath('.', 'model/a.yml')).toBe('model/a.yml');
    expect(repoPath('./cube/', 'model/a.yml')).toBe('cube/model/a.yml');
    expect(repoPath('cube', '../../etc/passwd')).toBe('../../etc/passwd'.replace(/^/, ''));
  });
});

describe('enable-staging', () => {
  it('outputs the staging URL and environment id, and smoke-tests it with a masked token', async () => {
    await ensureSharedBranch(ctx(), 'preview-pr-6', 'main');
    const c = ctx();
    const r = await enableStaging({ ...c, ca: fx.em.ca }, { branch: 'preview-pr-6', smokeTest: true, smoke: { timeoutMs: 10_000 } });
    expect(r.stagingUrl).toBe(`${fx.em.deployments[0]!.deploymentUrl}/dev-mode/preview-pr-6/cubejs-api/v1`);
    expect(r.environmentId).toBeTruthy();
    expect(r.smoke).toMatchObject({ cubes: 3, rows: 1, waits: 2 });
    expect(c.reporter.secrets.length).toBeGreaterThan(0);
    for (const s of c.reporter.secrets) expect(c.reporter.text()).not.toContain(s);
  });

  it('fails the smoke test when /load still says "Continue wait" at its deadline, naming the path and the polls', async () => {
    await ensureSharedBranch(ctx(), 'preview-pr-8', 'main');
    const before = fx.em.controls.behaviour;
    fx.em.controls.behaviour = { ...before, continueWaitPolls: 1_000_000 };
    try {
      const c = ctx();
      const started = enableStaging({ ...c, ca: fx.em.ca }, { branch: 'preview-pr-8', smokeTest: true, smoke: { timeoutMs: 2_000 } });
      await expect(started).rejects.toThrow(/^smoke test: \/load: no answer within 2 s \(\d+ "Continue wait" polls\)$/);
    } finally {
      fx.em.controls.behaviour = before;
    }
  });
});

describe('dbt-sync-and-wait', () => {
  const clockCtl = () => ({ now: () => fx.em.clock.now(), sleep: (ms: number) => Promise.resolve(fx.em.clock.advance(ms)) });

  it('waits to COMPLETED, printing log lines by phase', async () => {
    const c = ctx();
    const r = await dbtSyncAndWait(c, { ref: 'main', timeoutMs: 10 * 60_000, ...clockCtl() });
    expect(r).toMatchObject({ status: 'COMPLETED', timedOut: false, cancelled: false });
    const text = c.reporter.text();
    for (const phase of ['clone', 'deps', 'parse', 'generate', 'commit']) expect(text).toMatch(new RegExp(`── ${phase} \\(\\d+\\.\\d s\\)`));
    expect(r.polls).toBeLessThanOrEqual(12);
  });

  it('reports a failed run as FAILED with the reason', async () => {
    fx.em.controls.failNextDbtSync = { phase: 'parse', message: 'dbt parse failed: boom' };
    const r = await dbtSyncAndWait(ctx(), { ref: 'main', timeoutMs: 10 * 60_000, ...clockCtl() });
    expect(r).toMatchObject({ status: 'FAILED', error: 'dbt parse failed: boom' });
  });

  it('checks once more at the deadline, then cancels the remote run and says timed out', async () => {
    const r = await dbtSyncAndWait(ctx(), { ref: 'main', timeoutMs: 10_000, ...clockCtl() });
    expect(r).toMatchObject({ status: 'TIMED_OUT', timedOut: true });
    const run = fx.em.state.deployments[0]!.dbtRuns.find((x) => x.syncJobId === r.syncJobId)!;
    expect(run.cancelledAt).toBeDefined();
    const history = await collect(fx.admin.dbtSync.iterate({ deploymentId: 1, query: { status: 'CANCELLED' } }));
    expect(history.some((h) => h.syncJobId === r.syncJobId)).toBe(true);
  });

  it('cancels the remote run when the job is cancelled (signal)', async () => {
    const controller = new AbortController();
    const c = ctx({ signal: controller.signal });
    const r = await dbtSyncAndWait(c, {
      ref: 'main',
      timeoutMs: 10 * 60_000,
      now: () => fx.em.clock.now(),
      sleep: (ms) => {
        fx.em.clock.advance(ms);
        controller.abort(new Error('SIGINT'));
        return Promise.reject(new Error('aborted'));
      },
    });
    expect(r).toMatchObject({ status: 'CANCELLED', cancelled: true });
    expect(fx.em.state.deployments[0]!.dbtRuns.find((x) => x.syncJobId === r.syncJobId)?.cancelledAt).toBeDefined();
  });

  it('polls just past the estimated end, within bounds', () => {
    expect(nextPollDelay(10_000, 50, 1_000, 30_000)).toBe(10_500);
    expect(nextPollDelay(100_000, 10, 1_000, 30_000)).toBe(30_000);
    expect(nextPollDelay(10_000, 99, 1_000, 30_000)).toBe(1_000);
    expect(nextPollDelay(0, 0, 1_000, 30_000)).toBe(1_000);
  });
});

describe('merge-to-default and cleanup-branch', () => {
  it('merges the shared branch into the deploy branch (keep-branch honoured), then cleans up; already gone is done', async () => {
    const run = ctx();
    await ensureSharedBranch(run, 'preview-pr-7', 'main');
    const dir = modelDir({ 'model/cubes/merged.yml': 'cubes: []\n' });
    const local = await localOf(dir);
    await uploadModel(run, { branch: 'preview-pr-7', modelDir: dir, local, concurrency: 2, commitMessage: 'x' });
    await enableStaging(run, { branch: 'preview-pr-7', smokeTest: false });
    // The checkout is what the branch must hold to be merged.
    const model = { local, concurrency: 2, modelDir: dir, allowModelDeletion: false, excluded: () => false };
    const m = await mergeToDefault(run, { branch: 'preview-pr-7', message: 'Merge PR #7', keepBranch: true, model });
    expect(m).toEqual({
      branch: 'preview-pr-7',
      merged: true,
      branchDeleted: false,
      deployBranch: 'main',
      deployMode: 'git',
      productionUpdated: true,
    });
    expect((await sharedHashes('main'))['model/cubes/merged.yml']).toBe(sha1('cubes: []\n'));
    // A reviewer's dev-mode session on the branch: no run made that fork, so it stays.
    const dev = (await fx.admin.branches.startDevMode({ deploymentId: 1, body: { branchName: 'preview-pr-7' } })).branchName!;
    const c1 = await cleanupBranch(run, { branch: 'preview-pr-7', generatedName: true, removeOnUpstream: false });
    expect(c1.deleted).toEqual(['preview-pr-7']);
    expect(c1.othersForks).toEqual([dev]);
    expect((await fx.admin.deployments.environments({ deploymentId: 1, query: { type: 'staging' } })).items.some((e) => e.name === 'preview-pr-7')).toBe(false);
    const c2 = await cleanupBranch(run, { branch: 'preview-pr-7', generatedName: true, removeOnUpstream: false });
    expect(c2).toMatchObject({ deleted: [], alreadyGone: ['preview-pr-7'] });
    // Undo the merge for the other tests.
    const undo = (await fx.admin.branches.startDevMode({ deploymentId: 1, body: { branchName: 'main' } })).branchName!;
    await fx.admin.dataModel.removeFiles({ deploymentId: 1, body: { branchName: undo, files: [{ path: 'model/cubes/merged.yml' }] } });
    await fx.admin.branches.commit({ deploymentId: 1, body: { branchName: undo } });
    await fx.admin.branches.merge({ deploymentId: 1, body: { branchName: undo } });
  });
});
