/**
 * The revert's parts against the emulator over HTTPS: a cancelled revert (the runner's signal, here the
 * run's AbortSignal) still deletes the branch it made and leaves no fork or session; the proof says "not
 * proven" when production shows no build newer than its mark, never "proven"; and git decides whether a
 * checkout is a commit's model (an edit or an untracked file is not; a dotfile or an `exclude`d file is
 * no part of the model).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDevBranch } from '@datamodel-ci/platform-api';
import { collect } from '../src/client/index.js';
import { excludeFilter } from '../src/model/local-model.js';
import { checkoutIsCommit } from '../src/model/git-commit.js';
import { deployTarget, markBuild } from '../src/operations/branch-build.js';
import type { OpContext } from '../src/operations/context.js';
import { productionLayer } from '../src/operations/production-state.js';
import { runRevert } from '../src/operations/revert.js';
import { proveProduction } from '../src/operations/revert-proof.js';
import { manifestOf } from '../src/operations/upload-transaction.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';
import { emulatorFixture, localOf, uploadTree, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
const root = mkdtempSync(join(tmpdir(), 'dmci-revert-ops-'));
const model = join(root, 'model');
const EXTRA = 'cubes:\n  - name: extra\n    sql_table: public.orders\n    measures:\n      - name: count\n        type: count\n';

function write(dir: string, files: Record<string, string>): void {
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
}

beforeAll(async () => {
  // Builds take an emulated minute on a clock that only the test moves: a build never ends by itself.
  fx = await emulatorFixture({ buildMs: 60_000 });
  write(model, DEMO_MODEL);
});
afterAll(() => fx.close());

const ctx = (reporter = new MemoryReporter(), signal?: AbortSignal): OpContext => ({
  client: fx.admin,
  deploymentId: 1,
  reporter,
  dryRun: false,
  ca: fx.em.ca,
  ...(signal ? { signal } : {}),
});

describe('a cancelled revert', () => {
  it('deletes the branch it made (and its fork) on its own signal, and says the run failed', async () => {
    await uploadTree(fx.admin, 1, 'main', { ...DEMO_MODEL, 'model/cubes/extra.yml': EXTRA });
    fx.em.clock.advance(60_000);
    const local = await localOf(model);
    const files = Object.fromEntries(local.map((f) => [f.path, f.sha1]));
    const reporter = new MemoryReporter();
    const controller = new AbortController();
    const running = runRevert(ctx(reporter, controller.signal), {
      source: { commit: 'd'.repeat(40), files, from: 'commit' },
      branch: 'preview-revert-ddddddd',
      confirm: true,
      local,
      modelDir: model,
      excluded: excludeFilter([]),
      via: 'dev-mode',
      allowModelDeletion: false,
      groups: [],
      declared: [],
      message: 'revert',
    });
    // Cancelled once the model has landed on the branch and the revert waits for its build (which never ends here).
    for (let i = 0; i < 400 && !reporter.lines.some((l) => /deleted dev branch/.test(l.message)); i++) await new Promise((r) => setTimeout(r, 25));
    controller.abort(new Error('SIGINT'));
    const r = await running;
    expect(r.status).toBe('failed');
    expect(r.merged).toBe(false);
    expect(r.failure).toBe('cancelled before it ended (SIGINT); production was not touched');
    expect(r.cleanup).toEqual({ deleted: ['preview-revert-ddddddd'], left: [] });
    const names = (await collect(fx.admin.branches.iterate({ deploymentId: 1, query: { first: 100 } }))).map((b) => b.name);
    expect(names.filter((n) => n.includes('revert') || isDevBranch(n))).toEqual([]);
    expect(fx.em.state.deployments[0]!.devSessions).toEqual({});
    // Production untouched.
    expect(Object.keys(await fx.admin.dataModel.fileHashes({ deploymentId: 1, query: { branchName: 'main' } }))).toContain('model/cubes/extra.yml');
  }, 60_000);
});

describe('the proof after a merge', () => {
  it('is "not proven" when production shows no build newer than its mark, though its files and layer are the expected ones', async () => {
    await uploadTree(fx.admin, 1, 'main', DEMO_MODEL);
    fx.em.clock.advance(60_000);
    const c = ctx();
    const target = await deployTarget(c);
    const mark = await markBuild(c, 'main');
    const expected = await productionLayer(c, []);
    const files = Object.fromEntries((await localOf(model)).map((f) => [f.path, f.sha1]));
    const proof = await proveProduction(c, target, {
      commit: 'd'.repeat(40),
      files,
      excluded: excludeFilter([]),
      mark,
      expected,
      groups: [],
      timeoutMs: 1_000,
    });
    expect(proof.status).toBe('not-proven');
    expect(proof.reason).toMatch(/^no build of production newer than the merge was shown/);
    expect(proof).toMatchObject({ files: [], members: [] });
  }, 60_000);

  it('lists what production holds and serves relative to the expected model once it has built', async () => {
    await uploadTree(fx.admin, 1, 'main', DEMO_MODEL);
    fx.em.clock.advance(60_000);
    const c = ctx();
    const target = await deployTarget(c);
    const expected = await productionLayer(c, []);
    const mark = await markBuild(c, 'main');
    await uploadTree(fx.admin, 1, 'main', { ...DEMO_MODEL, 'model/cubes/extra.yml': EXTRA });
    fx.em.clock.advance(60_000);
    const files = Object.fromEntries((await localOf(model)).map((f) => [f.path, f.sha1]));
    const proof = await proveProduction(c, target, {
      commit: 'd'.repeat(40),
      files,
      excluded: excludeFilter([]),
      mark,
      expected,
      groups: [],
      timeoutMs: 30_000,
    });
    expect(proof).toMatchObject({
      status: 'differs',
      files: [{ path: 'model/cubes/extra.yml', change: 'added' }],
      members: [{ member: 'extra.count', change: 'added' }],
    });
  }, 60_000);
});

describe("whether a checkout is a commit's model (git)", () => {
  const repo = join(root, 'repo');
  const dir = join(repo, 'analytics');
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' }).trim();
  let head: string;
  beforeAll(() => {
    write(dir, { ...DEMO_MODEL, '.github/notes.md': 'not the model\n' });
    write(repo, { 'README.md': 'outside model-dir\n' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'one');
    head = git('rev-parse', 'HEAD');
  });
  const check = async (exclude: string[] = []) => checkoutIsCommit(dir, head.slice(0, 7), await localOf(dir, exclude), excludeFilter(exclude));

  it('the checkout of the commit is it (dotfiles and files outside model-dir are no part of the model)', async () => {
    expect(await check()).toEqual({ commit: head });
  });

  it('an untracked model file or an edited one is not; an `exclude`d one is no difference', async () => {
    write(dir, { 'model/drafts/new.yml': EXTRA });
    expect(await check()).toEqual({ problem: `the checkout's model is not ${head.slice(0, 7)}'s: they differ in model/drafts/new.yml` });
    expect(await check(['model/drafts/**'])).toEqual({ commit: head });
    write(dir, { 'model/cubes/orders.yml': `${DEMO_MODEL['model/cubes/orders.yml']}# edited\n` });
    expect(await check(['model/drafts/**'])).toMatchObject({ problem: expect.stringContaining('differ in model/cubes/orders.yml') });
    git('checkout', '--', '.');
  });

  it('a commit the repository lacks, or a folder outside any repository, is said', async () => {
    const local = manifestOf(await localOf(dir, ['model/drafts/**']));
    expect(Object.keys(local).length).toBeGreaterThan(0);
    expect(await checkoutIsCommit(dir, 'abcdef1', await localOf(dir), excludeFilter([]))).toMatchObject({
      problem: expect.stringContaining('it is not a commit of the repository checked out in'),
    });
    expect(await checkoutIsCommit(model, head, await localOf(model), excludeFilter([]))).toMatchObject({
      problem: expect.stringMatching(/git could not find it .*not a git repository/),
    });
  });
});
