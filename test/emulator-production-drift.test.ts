/**
 * Issue 37: every way production can differ from the validated model, and the controls that must read
 * as no drift, each triggered by its control route (`/_emulator/production/…`, `builds/slow-next`,
 * `repository/push`) and read back through the toolkit's own client over HTTPS: what `file-hashes` of the
 * deploy branch answers, the deploy branch's build status, and what production's `/meta` serves. Then
 * the readings of `file-hashes?live=true`, one per tenant profile. The clock is manual: builds end when a
 * test advances it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_MODEL, productionView, UNWALKED_FILES } from '../packages/emulator/src/index.js';
import type { EmulatorOptions } from '../packages/emulator/src/server.js';
import { control, emulatorFixture, failure, sha1, snapshot, uploadTree, type EmulatorFixture } from './support/emulator.js';

/** Deployment 1 (`analytics`) deploys with Git; deployment 2 (`marketing`) with the CLI. */
const GIT = 1;
const CLI = 2;
const BUILD_MS = 3_000;
const CUBE = (name: string) => `cubes:\n  - name: ${name}\n    sql_table: public.orders\n    measures:\n      - name: count\n        type: count\n`;
/** The validated model's hashes, as the toolkit's walk of the repository computes them (git's LF bytes). */
const GIT_HASHES = Object.fromEntries(Object.entries(DEMO_MODEL).map(([p, t]) => [p, { hash: sha1(t) }]));

let open: EmulatorFixture | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function tenant(extra: EmulatorOptions = {}): Promise<EmulatorFixture> {
  open = await emulatorFixture({ buildMs: BUILD_MS, ...extra });
  return open;
}

const hashes = (fx: EmulatorFixture, deploymentId: number, live?: boolean) =>
  fx.admin.dataModel.fileHashes({ deploymentId, query: { branchName: 'main', ...(live === undefined ? {} : { live }) } });
const status = (fx: EmulatorFixture, deploymentId: number) => fx.admin.deployments.buildStatus({ deploymentId, query: { branchName: 'main' } });
const drift = (fx: EmulatorFixture, scenario: string, body: Record<string, unknown>) => control(fx.em, `production/${scenario}`, body);

/** Production's whole `/meta` through the data API, with a token minted for the deployment. */
async function meta(fx: EmulatorFixture, deploymentId: number): Promise<{ cubes: { name: string; type: string }[] }> {
  const { cubeApiToken } = await fx.admin.deployments.token({ deploymentId, body: { expiresIn: 600 } });
  const url = fx.em.deployments.find((d) => d.id === deploymentId)!.deploymentUrl;
  const res = await fx.admin.http.send({ method: 'GET', path: new URL(`${url}/cubejs-api/v1/meta`).pathname, headers: { authorization: cubeApiToken } });
  return JSON.parse(res.text!) as { cubes: { name: string; type: string }[] };
}
/** A file's text on the deploy branch, as the platform's source tree gives it. */
async function fileText(fx: EmulatorFixture, deploymentId: number, path: string): Promise<string> {
  type Node = { path: string; content?: string; children?: Node[] };
  const listed = await fx.admin.dataModel.listFiles({ deploymentId, query: { branchName: 'main', withContent: true } });
  const flat = (nodes: Node[]): Node[] => nodes.flatMap((n) => [n, ...flat(n.children ?? [])]);
  return flat(listed.items as unknown as Node[]).find((n) => n.path === `/${path}`)!.content!;
}
const served = async (fx: EmulatorFixture, deploymentId: number) => (await meta(fx, deploymentId)).cubes.map((c) => c.name).sort();
const SEEDED = ['customers', 'orders', 'orders_view'];

describe('ways production differs from the validated model', () => {
  it('a merge in the UI of a CLI deployment moves the deploy branch; production keeps the last upload (and in Git mode the merge deploys)', async () => {
    const fx = await tenant();
    const before = await status(fx, CLI);
    expect(await hashes(fx, CLI)).toEqual(GIT_HASHES);
    const r = await drift(fx, 'ui-merge', { deploymentId: CLI });
    expect(r).toMatchObject({
      scenario: 'ui-merge',
      branch: 'main',
      changed: ['model/cubes/drift_ui_merge.yml'],
      build: null,
      mergedBranch: expect.stringMatching(/^ui-edit-/),
    });
    expect(await hashes(fx, CLI)).toEqual({ ...GIT_HASHES, 'model/cubes/drift_ui_merge.yml': { hash: sha1(CUBE('drift_ui_merge')) } });
    fx.em.clock.advance(10 * BUILD_MS);
    // Nothing built: the last upload's build still serves, and build status says which commit that was.
    expect(await status(fx, CLI)).toMatchObject({ status: 'built', buildJobId: before.buildJobId, lastHash: before.lastHash, filesHash: r.head });
    expect(r.head).not.toBe(before.lastHash);
    expect(await served(fx, CLI)).toEqual(SEEDED);
    // The UI's branch was deleted by its merge, as the vendor's default does.
    expect((await fx.admin.branches.list({ deploymentId: CLI })).data?.map((b) => b.name)).not.toContain(r.mergedBranch);

    // The same merge on the Git-mode deployment builds production.
    const git = await drift(fx, 'ui-merge', { deploymentId: GIT, files: { 'model/cubes/from_ui.yml': CUBE('from_ui') } });
    expect(git.build).toMatchObject({ outcome: 'success', hash: git.head });
    expect(await status(fx, GIT)).toMatchObject({ status: 'building', buildJobId: git.build.jobId });
    fx.em.clock.advance(BUILD_MS);
    expect(await status(fx, GIT)).toMatchObject({ status: 'built', lastHash: git.head, filesHash: git.head });
    expect(await served(fx, GIT)).toEqual([...SEEDED, 'from_ui'].sort());
  });

  it('a UI change never in git: production rebuilt from a tree the deploy branch does not hold; file-hashes still read the validated model', async () => {
    const fx = await tenant();
    const before = await status(fx, CLI);
    const r = await drift(fx, 'ui-merge', { deploymentId: CLI, neverInGit: true });
    expect(r).toMatchObject({ scenario: 'ui-merge-never-in-git', head: before.filesHash, changed: ['model/cubes/drift_never_in_git.yml'] });
    expect(r.build.hash).not.toBe(r.head);
    expect(await hashes(fx, CLI)).toEqual(GIT_HASHES);
    expect(await status(fx, CLI)).toMatchObject({ status: 'building', buildJobId: r.build.jobId });
    fx.em.clock.advance(BUILD_MS);
    // Production serves a commit git never held: lastHash is neither the branch's commit nor the validated one.
    expect(await status(fx, CLI)).toMatchObject({ status: 'built', filesHash: before.filesHash, lastHash: r.build.hash });
    expect(await hashes(fx, CLI)).toEqual(GIT_HASHES);
    expect(await served(fx, CLI)).toEqual([...SEEDED, 'drift_never_in_git'].sort());
    expect(productionView(fx.em, CLI).differ).toEqual(['model/cubes/drift_never_in_git.yml']);
  });

  it("another credential's upload to the deploy branch: production rebuilt from files that are not the merged model", async () => {
    const fx = await tenant();
    const r = await drift(fx, 'out-of-band-upload', {
      deploymentId: CLI,
      files: { 'model/views/orders_view.yml': null, 'model/cubes/theirs.yml': CUBE('theirs') },
    });
    expect(r.changed).toEqual(['model/cubes/theirs.yml', 'model/views/orders_view.yml']);
    const { 'model/views/orders_view.yml': _gone, ...kept } = GIT_HASHES;
    expect(await hashes(fx, CLI)).toEqual({ ...kept, 'model/cubes/theirs.yml': { hash: sha1(CUBE('theirs')) } });
    expect(await status(fx, CLI)).toMatchObject({ status: 'building', filesHash: r.head });
    expect(await served(fx, CLI)).toEqual(SEEDED);
    fx.em.clock.advance(BUILD_MS);
    expect(await status(fx, CLI)).toMatchObject({ status: 'built', lastHash: r.head });
    expect(await served(fx, CLI)).toEqual(['customers', 'orders', 'theirs']);
  });

  it('a failed production build: file-hashes show the new files while /meta still serves the old model', async () => {
    const fx = await tenant();
    const before = await status(fx, GIT);
    const r = await drift(fx, 'failed-build', { deploymentId: GIT, errorText: 'Build failed: Error: out of memory' });
    expect(r.build).toMatchObject({ outcome: 'failed' });
    expect(await hashes(fx, GIT)).toEqual({ ...GIT_HASHES, 'model/cubes/drift_failed_build.yml': { hash: sha1(CUBE('drift_failed_build')) } });
    expect(await status(fx, GIT)).toMatchObject({ status: 'building', filesHash: r.head, lastHash: before.lastHash });
    fx.em.clock.advance(BUILD_MS);
    expect(await status(fx, GIT)).toMatchObject({
      status: 'failed',
      errorText: 'Build failed: Error: out of memory',
      filesHash: r.head,
      lastHash: before.lastHash,
      buildJobId: r.build.jobId,
    });
    expect(await served(fx, GIT)).toEqual(SEEDED);
    // In CLI mode too (the change lands as an upload's finish would), one call.
    await drift(fx, 'failed-build', { deploymentId: CLI });
    fx.em.clock.advance(BUILD_MS);
    expect(await status(fx, CLI)).toMatchObject({ status: 'failed', errorText: 'Build failed: production build of main failed' });
    expect(await served(fx, CLI)).toEqual(SEEDED);
  });

  it("a dbt sync's branch merged in the UI: its generated files land on the deploy branch (deployed in Git mode, not in CLI mode)", async () => {
    const fx = await tenant();
    const r = await drift(fx, 'dbt-merge', { deploymentId: GIT });
    const generated = ['model/dbt/fct_revenue.yml', 'model/dbt/stg_orders.yml', 'model/dbt/stg_payments.yml'];
    expect(r).toMatchObject({ changed: generated, mergedBranch: expect.stringMatching(/^dbt-sync\/main-\d{14}-[0-9a-f]{8}$/), syncJobId: expect.any(String) });
    expect(Object.keys(await hashes(fx, GIT))).toEqual(expect.arrayContaining(generated));
    // The sync is in the history, completed, with the branch it made.
    const history = await fx.admin.dbtSync.list({ deploymentId: GIT, query: { first: 5 } });
    expect(history.items?.[0]).toMatchObject({ syncJobId: r.syncJobId, status: 'COMPLETED', branchName: r.mergedBranch });
    expect(await status(fx, GIT)).toMatchObject({ status: 'building' });
    fx.em.clock.advance(BUILD_MS);
    expect(await served(fx, GIT)).toEqual([...SEEDED, 'fct_revenue', 'stg_orders', 'stg_payments'].sort());

    const cli = await drift(fx, 'dbt-merge', { deploymentId: CLI, keepBranch: true });
    expect(cli.build).toBeNull();
    expect(Object.keys(await hashes(fx, CLI))).toEqual(expect.arrayContaining(generated));
    expect(await served(fx, CLI)).toEqual(SEEDED);
    expect((await fx.admin.branches.list({ deploymentId: CLI })).data?.map((b) => b.name)).toContain(cli.mergedBranch);
  });

  it("a connected repository's later push to the production branch deploys a model nobody validated", async () => {
    const fx = await tenant({ profiles: ['github-connected'] });
    const files = { ...DEMO_MODEL, 'model/cubes/pushed.yml': CUBE('pushed') };
    const sha = 'a'.repeat(40);
    expect(await control(fx.em, 'repository/push', { deploymentId: GIT, branch: 'main', files, sha })).toEqual({ branch: 'main', sha, synced: true });
    expect(await hashes(fx, GIT)).toEqual({ ...GIT_HASHES, 'model/cubes/pushed.yml': { hash: sha1(CUBE('pushed')) } });
    expect(await status(fx, GIT)).toMatchObject({ status: 'building', filesHash: sha });
    expect(await served(fx, GIT)).toEqual(SEEDED);
    fx.em.clock.advance(BUILD_MS);
    expect(await status(fx, GIT)).toMatchObject({ status: 'built', lastHash: sha });
    expect(await served(fx, GIT)).toEqual([...SEEDED, 'pushed'].sort());
    // On a repository-fed deployment a failed build follows a push to the production branch.
    const failed = await drift(fx, 'failed-build', { deploymentId: GIT });
    fx.em.clock.advance(BUILD_MS);
    expect(await status(fx, GIT)).toMatchObject({ status: 'failed', filesHash: failed.head, lastHash: sha });
    expect((await control(fx.em, 'repository?deploymentId=1')).refs.main).toBe(failed.head);
    expect(await served(fx, GIT)).toEqual([...SEEDED, 'pushed'].sort());
    // The scenarios that need a merge into production say why a repository-fed deployment refuses them.
    expect(String(await failure(drift(fx, 'ui-merge', { deploymentId: GIT })))).toContain(
      'deployment 1 is fed from acme/analytics: a merge into the deploy branch is refused there',
    );
  });

  it('a merge production never redeployed: git moved, no build started, /meta still serves the old views', async () => {
    const fx = await tenant();
    const before = await status(fx, GIT);
    const r = await drift(fx, 'merge-without-build', {
      deploymentId: GIT,
      files: { 'model/views/orders_view.yml': null, 'model/views/revenue.yml': DEMO_MODEL['model/views/orders_view.yml']!.replace('orders_view', 'revenue') },
    });
    expect(r).toMatchObject({ build: null, changed: ['model/views/orders_view.yml', 'model/views/revenue.yml'] });
    expect(Object.keys(await hashes(fx, GIT))).toContain('model/views/revenue.yml');
    fx.em.clock.advance(3 * 24 * 3600_000);
    expect(await status(fx, GIT)).toMatchObject({ status: 'built', buildJobId: before.buildJobId, lastHash: before.lastHash, filesHash: r.head });
    const views = (await meta(fx, GIT)).cubes.filter((c) => c.type === 'view').map((c) => c.name);
    expect(views).toEqual(['orders_view']);
  });
});

describe('controls: what a correct watcher reads as no drift', () => {
  it('line endings: the platform stores the model with CRLF; file-hashes answer the SHA-1 of those bytes, /meta is the same', async () => {
    const fx = await tenant();
    const meta0 = await meta(fx, GIT);
    const before = await status(fx, GIT);
    const r = await drift(fx, 'crlf', { deploymentId: GIT, paths: ['model/cubes/orders.yml'] });
    const lf = DEMO_MODEL['model/cubes/orders.yml']!;
    expect(r.hashes).toEqual({ 'model/cubes/orders.yml': { git: sha1(lf), platform: sha1(lf.replace(/\n/g, '\r\n')) } });
    expect(await hashes(fx, GIT)).toEqual({ ...GIT_HASHES, 'model/cubes/orders.yml': { hash: sha1(lf.replace(/\n/g, '\r\n')) } });
    // The platform's text is git's but for its line endings: normalised, the hash is git's, and the model is the same.
    const stored = await fileText(fx, GIT, 'model/cubes/orders.yml');
    expect(stored).toBe(lf.replace(/\n/g, '\r\n'));
    expect(sha1(stored.replace(/\r\n/g, '\n'))).toBe(GIT_HASHES['model/cubes/orders.yml']!.hash);
    expect(await meta(fx, GIT)).toEqual(meta0);
    expect(await status(fx, GIT)).toEqual(before);
    // Every model file when no path is named.
    const all = await drift(fx, 'crlf', { deploymentId: CLI });
    const modelFiles = Object.keys(DEMO_MODEL).filter((p) => p.startsWith('model/'));
    expect(all.changed).toEqual(modelFiles.sort());
    const platform = await hashes(fx, CLI);
    for (const p of modelFiles) expect(platform[p]).toEqual({ hash: all.hashes[p].platform });
    expect(platform['cube.js']).toEqual(GIT_HASHES['cube.js']);
    expect(await meta(fx, CLI)).toEqual(meta0);
  });

  it('dotfiles and files the walk never reads exist only on the platform; /meta and the build are unchanged', async () => {
    const fx = await tenant();
    const meta0 = await meta(fx, GIT);
    const before = await status(fx, GIT);
    const r = await drift(fx, 'unwalked-files', { deploymentId: GIT });
    expect(r.changed).toEqual(Object.keys(UNWALKED_FILES).sort());
    expect(await hashes(fx, GIT)).toEqual({ ...GIT_HASHES, ...Object.fromEntries(Object.entries(UNWALKED_FILES).map(([p, t]) => [p, { hash: sha1(t) }])) });
    expect(Object.keys(UNWALKED_FILES)).toEqual(expect.arrayContaining(['.gitignore', '.github/workflows/deploy.yml', 'node_modules/left-pad/index.js']));
    expect(await meta(fx, GIT)).toEqual(meta0);
    expect(await status(fx, GIT)).toEqual(before);
    expect(productionView(fx.em, GIT).differ).toEqual([]);
  });

  it('a build that is merely slow: building for ten minutes, then the right model; the next build is as fast as before', async () => {
    const fx = await tenant();
    expect(await control(fx.em, 'builds/slow-next', { deploymentId: GIT, ms: 600_000 })).toEqual({ deploymentId: GIT, branchName: 'main', ms: 600_000 });
    const validated = { ...DEMO_MODEL, 'model/cubes/validated.yml': CUBE('validated') };
    const { lastHash } = await uploadTree(fx.admin, GIT, 'main', validated);
    for (const ms of [BUILD_MS, 300_000, 296_000]) {
      fx.em.clock.advance(ms);
      expect(await status(fx, GIT)).toMatchObject({ status: 'building', filesHash: lastHash });
      expect(await served(fx, GIT)).toEqual(SEEDED);
    }
    expect(await hashes(fx, GIT)).toEqual(Object.fromEntries(Object.entries(validated).map(([p, t]) => [p, { hash: sha1(t) }])));
    fx.em.clock.advance(1_000);
    expect(await status(fx, GIT)).toMatchObject({ status: 'built', lastHash, filesHash: lastHash });
    expect(await served(fx, GIT)).toEqual([...SEEDED, 'validated'].sort());
    await uploadTree(fx.admin, GIT, 'main', DEMO_MODEL);
    fx.em.clock.advance(BUILD_MS);
    expect(await status(fx, GIT)).toMatchObject({ status: 'built' });
  });

  it('bad bodies are refused before anything changes, naming the field', async () => {
    const fx = await tenant();
    const before = snapshot(fx.em);
    const refused = async (path: string, body: Record<string, unknown>) => String(await failure(control(fx.em, path, body)));
    expect(await refused('production/ui-merge', { deploymentId: 9 })).toContain('deploymentId: got 9, expected the id of a deployment (1, 2, 3)');
    expect(await refused('production/ui-merge', { deploymentId: 1, files: ['a'] })).toContain('files: got ["a"], expected an object of path -> text');
    expect(await refused('production/ui-merge', { deploymentId: 1, files: { '../x.yml': 'x' } })).toContain(
      'files["../x.yml"]: got "../x.yml", expected a relative POSIX path',
    );
    expect(await refused('production/ui-merge', { deploymentId: 1, branchName: 'main' })).toContain(
      'branchName: got "main", expected a branch that does not exist yet',
    );
    expect(await refused('production/crlf', { deploymentId: 1, paths: ['model/nope.yml'] })).toContain(
      'paths: got ["model/nope.yml"], expected files of the deploy branch main',
    );
    expect(await refused('builds/slow-next', { deploymentId: 1, ms: -1 })).toContain('ms: got -1, expected a non-negative number of ms');
    expect(await refused('production/nope', { deploymentId: 1 })).toContain('404: no such production scenario: POST /_emulator/production/nope');
    expect(snapshot(fx.em)).toBe(before);
  });
});

describe('file-hashes?live=true, one reading per tenant profile', () => {
  /** The deploy branch after a failed build: git holds a file production does not serve. */
  const failedBuild = async (fx: EmulatorFixture) => drift(fx, 'failed-build', { deploymentId: GIT });
  const NEW = 'model/cubes/drift_failed_build.yml';

  it('default: live is ignored, the branch files are answered', async () => {
    const fx = await tenant();
    await failedBuild(fx);
    fx.em.clock.advance(BUILD_MS);
    expect(await hashes(fx, GIT, true)).toEqual(await hashes(fx, GIT));
    expect(await hashes(fx, GIT, true)).toHaveProperty([NEW]);
  });

  it('live-hashes-served: the tree production serves, which differs from git after a failed build and while one runs', async () => {
    const fx = await tenant({ profiles: ['live-hashes-served'] });
    await failedBuild(fx);
    // While the build runs and after it failed, the running instance still serves the validated model.
    expect(await hashes(fx, GIT, true)).toEqual(GIT_HASHES);
    fx.em.clock.advance(BUILD_MS);
    expect(await hashes(fx, GIT, true)).toEqual(GIT_HASHES);
    expect(await hashes(fx, GIT)).toHaveProperty([NEW]);
    // A build that succeeds: once it ends the two readings agree again.
    await uploadTree(fx.admin, GIT, 'main', { ...DEMO_MODEL, 'model/cubes/ok.yml': CUBE('ok') });
    expect(await hashes(fx, GIT, true)).toEqual(GIT_HASHES);
    fx.em.clock.advance(BUILD_MS);
    expect(await hashes(fx, GIT, true)).toEqual(await hashes(fx, GIT));
    expect(await hashes(fx, GIT, true)).toHaveProperty(['model/cubes/ok.yml']);
  });

  it("live-hashes-dev-session: the caller's live-preview tree (its dev-mode fork's working files), else the branch", async () => {
    const fx = await tenant({ profiles: ['live-hashes-dev-session'] });
    await fx.admin.branches.startDevMode({ deploymentId: GIT, body: { branchName: 'main' } });
    await fx.admin.dataModel.updateFiles({ deploymentId: GIT, body: { files: [{ path: 'model/cubes/preview.yml', content: CUBE('preview') }] } });
    expect(await hashes(fx, GIT, true)).toEqual({ ...GIT_HASHES, 'model/cubes/preview.yml': { hash: sha1(CUBE('preview')) } });
    expect(await hashes(fx, GIT)).toEqual(GIT_HASHES);
    // Another credential with no fork of main: the branch's files.
    expect(await fx.member.dataModel.fileHashes({ deploymentId: GIT, query: { branchName: 'main', live: true } })).toEqual(GIT_HASHES);
    // A fork made before the deploy branch moved keeps its tree: its owner reads the fork, another the branch (no build is read).
    await fx.admin.branches.stopDevMode({ deploymentId: GIT });
    await fx.member.branches.startDevMode({ deploymentId: CLI, body: { branchName: 'main' } });
    await drift(fx, 'failed-build', { deploymentId: CLI });
    fx.em.clock.advance(BUILD_MS);
    expect(await fx.member.dataModel.fileHashes({ deploymentId: CLI, query: { branchName: 'main', live: true } })).toEqual(GIT_HASHES);
    expect(await hashes(fx, CLI, true)).toHaveProperty([NEW]);
  });
});
