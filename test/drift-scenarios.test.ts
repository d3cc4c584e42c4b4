/**
 * The drift watch against each way production can differ (issue 37), each played by the emulator's own
 * control route (`/_emulator/production/…`, `builds/slow-next`, `repository/push`) over HTTPS: the files
 * and members production has relative to the model in git, and the likely cause named from what the
 * platform shows; then the controls (line endings, dotfiles and unread files, a build that is merely
 * slow) that are no drift, a build still running past the bound (not proven), and the readings of
 * `file-hashes?live=true` (tenant profiles) under which the verdicts hold. The clock is manual: a build
 * ends when a test advances it, so no verdict waits on the wall clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { endpoints } from '@datamodel-ci/platform-api';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';
import type { EmulatorOptions } from '../packages/emulator/src/server.js';
import { sha1Of, type LocalFile } from '../src/model/local-model.js';
import { modelFilesOf } from '../src/model/model-files.js';
import type { OpContext } from '../src/operations/context.js';
import { checkDrift, type DriftInput, type DriftReport } from '../src/operations/drift.js';
import { makeRecord, type ValidationRecord } from '../src/operations/validation-record.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { control, emulatorFixture, sha1, uploadTree, type EmulatorFixture } from './support/emulator.js';

const GIT = 1;
const CLI = 2;
const BUILD_MS = 3_000;
const CUBE = (name: string) => `cubes:\n  - name: ${name}\n    sql_table: public.orders\n    measures:\n      - name: count\n        type: count\n`;
const withCube = (name: string) => ({ ...DEMO_MODEL, [`model/cubes/${name}.yml`]: CUBE(name) });

let open: EmulatorFixture | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function tenant(extra: EmulatorOptions = {}): Promise<EmulatorFixture> {
  open = await emulatorFixture({ buildMs: BUILD_MS, ...extra });
  return open;
}

/** A checkout's files as the walk reads them (bytes in memory). */
const local = (tree: Record<string, string>): LocalFile[] =>
  Object.entries(tree).map(([path, text]) => {
    const bytes = Buffer.from(text);
    return { path, abs: '', size: bytes.length, bytes, sha1: sha1Of(bytes) };
  });

/** The record the close of a merged pull request leaves for `tree`, validated at the emulator's time now. */
function recordOf(fx: EmulatorFixture, deploymentId: number, tree: Record<string, string>): ValidationRecord {
  const files = Object.fromEntries(Object.entries(tree).map(([p, t]) => [p, { hash: sha1(t) }]));
  return makeRecord({ deploymentId, branch: 'preview-pr-5', commit: '5'.repeat(40), files, status: {}, now: new Date(fx.em.clock.now()) });
}

/** The platform's writes: everything but GET, the data-API token mints aside (a read of /meta needs one). */
const MINTS = new Set<string>(['createDeploymentEnvironmentToken', 'deploymentToken', 'createDeploymentEnvironmentTokenForMetaSync']);
const WRITES = new Set<string>(Object.values(endpoints).flatMap((e) => (e.method !== 'GET' && !MINTS.has(e.id) ? [e.id] : [])));

/** The watch with `tree` as the checkout of the model in git; every check proves it wrote nothing (no write endpoint, the state unchanged). */
async function check(fx: EmulatorFixture, deploymentId: number, tree: Record<string, string>, extra: Partial<DriftInput> = {}): Promise<DriftReport> {
  const ctx: OpContext = { client: fx.admin, deploymentId, reporter: new MemoryReporter(), dryRun: false, ca: fx.em.ca };
  const counts = { ...fx.em.counts };
  const branches = JSON.stringify(fx.em.state.deployments.map((d) => d.branches));
  const r = await checkDrift(ctx, { local: local(tree), texts: modelFilesOf(new Map(Object.entries(tree))), buildWaitMs: 60_000, pollMs: 20, ...extra });
  expect(Object.keys(fx.em.counts).filter((id) => WRITES.has(id) && fx.em.counts[id] !== counts[id])).toEqual([]);
  expect(JSON.stringify(fx.em.state.deployments.map((d) => d.branches))).toBe(branches);
  return r;
}

const scenario = (fx: EmulatorFixture, name: string, body: Record<string, unknown>) => control(fx.em, `production/${name}`, body);
const added = (path: string) => ({ path, change: 'added' });

describe('in sync', () => {
  it('after a merge built into production (Git mode) and after a deploy (CLI mode): in-sync, with the record too', async () => {
    const fx = await tenant();
    const merged = withCube('merged');
    await fx.admin.branches.create({ deploymentId: GIT, body: { name: 'preview-pr-5' } });
    await uploadTree(fx.admin, GIT, 'preview-pr-5', merged);
    const record = recordOf(fx, GIT, merged);
    await fx.admin.branches.mergeToDefault({ deploymentId: GIT, body: { branchName: 'preview-pr-5', message: 'Merge PR #5' } });
    fx.em.clock.advance(BUILD_MS);
    expect(await check(fx, GIT, merged, { record })).toMatchObject({ status: 'in-sync', files: [], members: [], record: { files: [], layer: 'not-recorded' } });
    await uploadTree(fx.admin, CLI, 'main', merged);
    fx.em.clock.advance(BUILD_MS);
    expect(await check(fx, CLI, merged)).toMatchObject({ status: 'in-sync', files: [], members: [], deployBranch: { deployMode: 'cli', files: [] } });
  });
});

describe('each way production differs, with its likely cause', () => {
  it('a merge in the UI of a CLI deployment: on the deploy branch only, production unchanged; the cause a merge in the platform', async () => {
    const fx = await tenant();
    await scenario(fx, 'ui-merge', { deploymentId: CLI });
    fx.em.clock.advance(BUILD_MS);
    const r = await check(fx, CLI, DEMO_MODEL);
    expect(r).toMatchObject({ status: 'drift', files: [], members: [], deployBranch: { files: [added('model/cubes/drift_ui_merge.yml')] } });
    expect(r.cause).toMatchObject({ kind: 'platform-merge', text: expect.stringContaining('#10907') });
  });

  it('a merge in the UI of a Git deployment: built into production; the file and member it added, a change made in the platform', async () => {
    const fx = await tenant();
    await scenario(fx, 'ui-merge', { deploymentId: GIT });
    fx.em.clock.advance(BUILD_MS);
    const r = await check(fx, GIT, DEMO_MODEL);
    expect(r).toMatchObject({
      status: 'drift',
      files: [added('model/cubes/drift_ui_merge.yml')],
      members: [{ member: 'drift_ui_merge.count', change: 'added' }],
    });
    expect(r.cause).toMatchObject({ kind: 'platform-merge', text: expect.stringContaining('which production built') });
  });

  it('a UI change deployed without reaching git (CLI): production runs files neither git nor the branch holds; after the record, a change in the platform', async () => {
    const fx = await tenant();
    const record = recordOf(fx, CLI, DEMO_MODEL);
    fx.em.clock.advance(1_000);
    await scenario(fx, 'ui-merge', { deploymentId: CLI, neverInGit: true });
    fx.em.clock.advance(BUILD_MS);
    const r = await check(fx, CLI, DEMO_MODEL, { record });
    expect(r).toMatchObject({
      status: 'drift',
      files: [added('model/cubes/drift_never_in_git.yml')],
      members: [{ member: 'drift_never_in_git.count', change: 'added' }],
    });
    expect(r.deployBranch.files).toEqual([]);
    expect(r.cause).toMatchObject({ kind: 'platform-merge', text: expect.stringContaining('without reaching git') });
  });

  it("another credential's upload: CLI mode names an out-of-band upload, Git mode a change in the platform", async () => {
    const fx = await tenant();
    for (const id of [CLI, GIT]) await scenario(fx, 'out-of-band-upload', { deploymentId: id, files: { 'model/cubes/theirs.yml': CUBE('theirs') } });
    fx.em.clock.advance(BUILD_MS);
    const cli = await check(fx, CLI, DEMO_MODEL);
    expect(cli).toMatchObject({ status: 'drift', files: [added('model/cubes/theirs.yml')], members: [{ member: 'theirs.count', change: 'added' }] });
    expect(cli.cause?.kind).toBe('out-of-band-upload');
    const git = await check(fx, GIT, DEMO_MODEL);
    expect(git).toMatchObject({ status: 'drift', files: [added('model/cubes/theirs.yml')] });
    expect(git.cause?.kind).toBe('platform-merge');
  });

  it('a failed production build: git holds the change, production serves the model before it; the cause the failed build and its error', async () => {
    const fx = await tenant();
    await scenario(fx, 'failed-build', { deploymentId: GIT, errorText: 'Compile error: cube drift_failed_build' });
    fx.em.clock.advance(BUILD_MS);
    const r = await check(fx, GIT, withCube('drift_failed_build'));
    expect(r).toMatchObject({ status: 'drift', files: [], members: [{ member: 'drift_failed_build.count', change: 'removed' }], build: { status: 'failed' } });
    expect(r.cause).toMatchObject({ kind: 'failed-build', text: expect.stringContaining('Compile error: cube drift_failed_build') });
  });

  it("a dbt sync's branch merged in the UI: its generated files named with the sync's branch, built in Git mode, not deployed in CLI mode", async () => {
    const fx = await tenant();
    const git = await scenario(fx, 'dbt-merge', { deploymentId: GIT });
    const cli = await scenario(fx, 'dbt-merge', { deploymentId: CLI });
    fx.em.clock.advance(BUILD_MS);
    const generated = ['model/dbt/fct_revenue.yml', 'model/dbt/stg_orders.yml', 'model/dbt/stg_payments.yml'].map(added);
    const g = await check(fx, GIT, DEMO_MODEL);
    expect(g).toMatchObject({ status: 'drift', files: generated });
    // Their primary keys are not shown (Cube's default), in /meta as in the files' declared members.
    expect(g.members).toEqual(['fct_revenue.count', 'stg_orders.count', 'stg_payments.count'].map((member) => ({ member, change: 'added' })));
    expect(g.cause).toMatchObject({ kind: 'dbt-branch', text: expect.stringContaining(git.mergedBranch) });
    const c = await check(fx, CLI, DEMO_MODEL);
    expect(c).toMatchObject({ status: 'drift', files: [], members: [], deployBranch: { files: generated } });
    expect(c.cause).toMatchObject({ kind: 'dbt-branch', text: expect.stringContaining(cli.mergedBranch) });
    expect(c.cause!.text).toContain('production does not run it');
  });

  it("a connected repository's later push: production serves a commit this checkout does not hold; the cause names the push", async () => {
    const fx = await tenant({ profiles: ['github-connected'] });
    const sha = 'a'.repeat(40);
    await control(fx.em, 'repository/push', { deploymentId: GIT, branch: 'main', files: withCube('pushed'), sha });
    fx.em.clock.advance(BUILD_MS);
    const r = await check(fx, GIT, DEMO_MODEL, { checkoutCommit: 'b'.repeat(40) });
    expect(r).toMatchObject({ status: 'drift', files: [added('model/cubes/pushed.yml')], members: [{ member: 'pushed.count', change: 'added' }] });
    expect(r.cause).toMatchObject({ kind: 'repository-push', text: expect.stringContaining('aaaaaaa') });
    // The checkout at the pushed commit matches production, but not the last validated record: a push outside the flow.
    const after = await check(fx, GIT, withCube('pushed'), { record: recordOf(fx, GIT, DEMO_MODEL) });
    expect(after).toMatchObject({ status: 'drift', files: [], members: [], record: { files: [added('model/cubes/pushed.yml')] } });
    expect(after.cause?.kind).toBe('repository-push');
  });

  it('a production never redeployed after a merge: git moved, /meta still serves the old views; in both deploy modes', async () => {
    const fx = await tenant();
    for (const id of [GIT, CLI]) await scenario(fx, 'merge-without-build', { deploymentId: id });
    fx.em.clock.advance(10 * BUILD_MS);
    const merged = withCube('drift_never_redeployed');
    const git = await check(fx, GIT, merged);
    expect(git).toMatchObject({ status: 'drift', files: [], members: [{ member: 'drift_never_redeployed.count', change: 'removed' }] });
    expect(git.cause?.kind).toBe('not-redeployed');
    const cli = await check(fx, CLI, merged, { record: recordOf(fx, CLI, merged) });
    expect(cli).toMatchObject({ status: 'drift', files: [{ path: 'model/cubes/drift_never_redeployed.yml', change: 'removed' }], deployBranch: { files: [] } });
    expect(cli.cause).toMatchObject({ kind: 'not-redeployed', text: expect.stringContaining('older than the last validated model') });
  });
});

describe('controls: no drift', () => {
  it('CRLF line endings on the platform: in sync in both modes, against the checkout and against the record', async () => {
    const fx = await tenant();
    for (const id of [GIT, CLI]) await scenario(fx, 'crlf', { deploymentId: id });
    for (const id of [GIT, CLI])
      expect(await check(fx, id, DEMO_MODEL, { record: recordOf(fx, id, DEMO_MODEL) })).toMatchObject({ status: 'in-sync', record: { files: [] } });
    // A record that is not the checkout's model is read by hashes: a CRLF copy of a file the checkout holds is still the same.
    const older = recordOf(fx, GIT, withCube('retired'));
    const r = await check(fx, GIT, DEMO_MODEL, { record: older });
    expect(r).toMatchObject({ status: 'drift', files: [], members: [], record: { files: [{ path: 'model/cubes/retired.yml', change: 'removed' }] } });
  });

  it('dotfiles and files the walk never reads (node_modules) on the platform: in sync', async () => {
    const fx = await tenant();
    for (const id of [GIT, CLI]) await scenario(fx, 'unwalked-files', { deploymentId: id });
    for (const id of [GIT, CLI])
      expect(await check(fx, id, DEMO_MODEL, { record: recordOf(fx, id, DEMO_MODEL) })).toMatchObject({ status: 'in-sync', files: [] });
  });

  it('a production build that is merely slow: waited for while it runs, then in sync', async () => {
    const fx = await tenant();
    const merged = withCube('slow');
    await control(fx.em, 'builds/slow-next', { deploymentId: GIT, ms: 600_000 });
    await uploadTree(fx.admin, GIT, 'main', merged);
    const reads = fx.em.counts.buildStatus ?? 0;
    const watching = check(fx, GIT, merged);
    // The build ends once the watch has seen it running.
    while ((fx.em.counts.buildStatus ?? 0) < reads + 1) await new Promise((r) => setTimeout(r, 10));
    fx.em.clock.advance(600_000);
    expect(await watching).toMatchObject({ status: 'in-sync', files: [], members: [], build: { status: 'built' } });
  });

  it('a build still running past the bound: not proven, with the reason; nothing claimed of files or members', async () => {
    const fx = await tenant();
    await control(fx.em, 'builds/slow-next', { deploymentId: GIT, ms: 3_600_000 });
    await uploadTree(fx.admin, GIT, 'main', withCube('slow'));
    const r = await check(fx, GIT, withCube('slow'), { buildWaitMs: 200 });
    expect(r).toMatchObject({ status: 'not-proven', files: [], members: [], build: { status: 'building' } });
    expect(r.reason).toMatch(/still building .*past the watch's bound/);
  });
});

describe('the readings of file-hashes?live=true', () => {
  for (const profile of ['live-hashes-served', 'live-hashes-dev-session']) {
    it(`${profile}: in sync stays in sync, a failed build stays drift`, async () => {
      const fx = await tenant({ profiles: [profile as NonNullable<EmulatorOptions['profiles']>[number]] });
      expect((await check(fx, GIT, DEMO_MODEL)).status).toBe('in-sync');
      await scenario(fx, 'failed-build', { deploymentId: GIT });
      fx.em.clock.advance(BUILD_MS);
      const r = await check(fx, GIT, withCube('drift_failed_build'));
      expect(r).toMatchObject({ status: 'drift', files: [], cause: { kind: 'failed-build' } });
    });
  }
});
