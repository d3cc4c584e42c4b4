/**
 * The operations against the emulator behaving as the vendor documents the service (issue 10): what a
 * real tenant does that our first reading of the spec got wrong, each a regression test.
 */
import { branchRestUrl } from '@datamodel-ci/platform-api';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformClient } from '../src/client/index.js';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';
import { json, startTestServer } from './support/https-server.js';
import { ensureBuilt, waitForBuild, BuildError } from '../src/operations/branch-build.js';
import type { OpContext } from '../src/operations/context.js';
import { dbtSyncAndWait, RefIgnoredError } from '../src/operations/dbt-sync-and-wait.js';
import { enableStaging } from '../src/operations/enable-staging.js';
import { readLocalModel, scanModel } from '../src/model/local-model.js';
import { mergeToDefault } from '../src/operations/merge-to-default.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { ensureSharedBranch, openDevMode } from '../src/operations/start-dev-branch.js';
import { uploadModel } from '../src/operations/upload-model.js';
import { localOf, emulatorFixture, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;

beforeAll(async () => {
  fx = await emulatorFixture();
});
afterAll(() => fx.close());

function ctx(extra: Partial<OpContext> = {}): OpContext & { reporter: MemoryReporter } {
  return { client: fx.admin, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false, ...extra } as OpContext & { reporter: MemoryReporter };
}

function modelDir(changes: Record<string, string | null> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'dmci-vendor-'));
  for (const [path, content] of Object.entries({ ...DEMO_MODEL, ...changes })) {
    if (content === null) continue;
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

async function hashesOf(branch: string, deploymentId = 1): Promise<Record<string, string>> {
  const h = await fx.admin.dataModel.fileHashes({ deploymentId, query: { branchName: branch } });
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k, v.hash]));
}

describe('files sent', () => {
  it('never sends dot-files (but .gitignore), node_modules, dashboard-app, or what exclude names', async () => {
    const dir = modelDir({
      '.env': 'SECRET=1\n',
      '.gitignore': 'node_modules\n',
      '.github/workflows/x.yml': 'on: push\n',
      'node_modules/pkg/index.js': 'x',
      'dashboard-app/src/App.js': 'x',
      'model/cubes/.hidden.yml': 'x',
      'model/drafts/wip.yml': 'cubes: []\n',
    });
    const paths = (await scanModel(dir, { exclude: ['model/drafts/**'] })).map((f) => f.path);
    expect(paths).toContain('.gitignore');
    expect(paths.filter((p) => /(^|\/)\.(env|github|hidden)|node_modules|dashboard-app|drafts/.test(p))).toEqual([]);
    await ensureSharedBranch(ctx(), 'preview-pr-50', 'main');
    await uploadModel(ctx(), { branch: 'preview-pr-50', modelDir: dir, local: await localOf(dir, ['model/drafts/**']), concurrency: 4, commitMessage: 'x' });
    expect(Object.keys(await hashesOf('preview-pr-50'))).not.toContain('.env');
  });
});

describe('adaptive upload concurrency', () => {
  it('slows down when the platform answers 429 and still lands every file', async () => {
    const busy = await emulatorFixture({ seed: 'empty' });
    try {
      const c: OpContext & { reporter: MemoryReporter } = { client: busy.admin, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false };
      const files: Record<string, string> = {};
      for (let i = 0; i < 60; i++) files[`model/cubes/c${i}.yml`] = `cubes:\n  - name: c${i}\n    sql_table: t${i}\n`;
      const dir = modelDir(files);
      await ensureSharedBranch(c, 'preview-pr-56', 'main');
      busy.em.faults.set({ '429': 0.2 });
      const r = await uploadModel(c, { branch: 'preview-pr-56', modelDir: dir, local: await localOf(dir), concurrency: 16, commitMessage: 'x' });
      busy.em.faults.set({});
      const changes = c.reporter.lines.filter((l) => l.level === 'debug' && l.message.startsWith('upload concurrency'));
      expect(changes.some((l) => /\(answer 429\)/.test(l.message))).toBe(true);
      expect(changes.some((l) => /answers stay healthy/.test(l.message))).toBe(true);
      const local = Object.fromEntries((await scanModel(dir)).map((f) => [f.path, f.sha1]));
      expect(await hashesOfOn(busy, 'preview-pr-56')).toEqual(local);
      expect(r.uploaded).toBe(Object.keys(local).length);
    } finally {
      await busy.close();
    }
  });
});

async function hashesOfOn(f: EmulatorFixture, branch: string): Promise<Record<string, string>> {
  const h = await f.admin.dataModel.fileHashes({ deploymentId: 1, query: { branchName: branch } });
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k, v.hash]));
}

describe('validation waits for a running, built branch', () => {
  it('fails fast and clearly on "Branch is not active" and on "Bad branch"', async () => {
    await ensureSharedBranch(ctx(), 'preview-pr-51', 'main');
    await expect(waitForBuild(ctx(), 'preview-pr-51')).rejects.toThrow(
      /preview-pr-51 is not running: nothing compiles it until its staging environment is enabled/,
    );
    await expect(waitForBuild(ctx(), 'no-such-branch')).rejects.toThrow(
      new BuildError('branch no-such-branch does not exist on the platform (build status: Bad branch)'),
    );
  });

  it('turns staging on and waits through warmup and building to built', async () => {
    const slow = await emulatorFixture({ buildMs: 3_000, warmupMs: 5_000 });
    try {
      const c: OpContext = { client: slow.admin, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false };
      await ensureSharedBranch(c, 'preview-pr-52', 'main');
      const seen: string[] = [];
      const waiting = ensureBuilt(c, 'preview-pr-52', { deployBranch: 'main', pollMs: 1, maxPollMs: 1 });
      const tick = setInterval(() => {
        slow.em.clock.advance(500);
        void slow.admin.deployments.buildStatus({ deploymentId: 1, query: { branchName: 'preview-pr-52' } }).then((s) => seen.push(s.status));
      }, 3);
      await waiting.finally(() => clearInterval(tick));
      expect(seen).toContain('warmup');
      expect((await slow.admin.deployments.buildStatus({ deploymentId: 1, query: { branchName: 'preview-pr-52' } })).status).toBe('built');
    } finally {
      await slow.close();
    }
  });
});

describe('dbt sync', () => {
  const clock = () => ({ now: () => fx.em.clock.now(), sleep: (ms: number) => Promise.resolve(fx.em.clock.advance(ms)) });

  it('takes the 404 of a run that is not visible yet as "starting"', async () => {
    const late = await emulatorFixture({ dbtInvisibleMs: 30_000 });
    try {
      const c: OpContext = { client: late.admin, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false };
      const r = await dbtSyncAndWait(c, {
        ref: 'main',
        timeoutMs: 10 * 60_000,
        firstPollMs: 1_000,
        now: () => late.em.clock.now(),
        sleep: (ms) => Promise.resolve(late.em.clock.advance(ms)),
      });
      expect(r.status).toBe('COMPLETED');
    } finally {
      await late.close();
    }
  });

  it('fails clearly, and cancels the run, when an older deployment ignores ref', async () => {
    const older = await emulatorFixture({ olderDeployments: [1] });
    try {
      const c: OpContext = { client: older.admin, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false };
      const err = await dbtSyncAndWait(c, {
        ref: 'release/2026-q4',
        timeoutMs: 60_000,
        now: () => older.em.clock.now(),
        sleep: (ms) => Promise.resolve(older.em.clock.advance(ms)),
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RefIgnoredError);
      expect((err as Error).message).toMatch(
        /did not use ref "release\/2026-q4": the run's branch "dbt-sync\/main-.*" does not name ref .*the run was cancelled/,
      );
      const run = older.em.state.deployments[0]!.dbtRuns.at(-1)!;
      expect(run.cancelledAt).toBeDefined();
    } finally {
      await older.close();
    }
  });

  it('accepts a run whose branch names the ref', async () => {
    const c = ctx();
    const r = await dbtSyncAndWait(c, { ref: 'feature/New_Model~2', timeoutMs: 10 * 60_000, ...clock() });
    expect(r.branch).toMatch(/^dbt-sync\/feature-New_Model-2-\d{14}-[0-9a-f]{8}$/);
    expect(c.reporter.text()).not.toContain('could not check that ref');
  });
});

describe('merge in CLI deploy mode', () => {
  it('says production was not rebuilt, and deploy-on-merge uploads the merged model to the deploy branch', async () => {
    const c2 = (): OpContext & { reporter: MemoryReporter } => ctx({ deploymentId: 2 });
    const dir = modelDir({
      'model/cubes/cli_deployed.yml': 'cubes:\n  - name: cli_deployed\n    sql_table: t\n    measures:\n      - name: count\n        type: count\n',
    });
    await ensureSharedBranch(c2(), 'preview-pr-53', 'main');
    await uploadModel(c2(), { branch: 'preview-pr-53', modelDir: dir, local: await localOf(dir), concurrency: 4, commitMessage: 'x' });
    const plain = c2();
    // The checkout is what the branch must hold to be merged.
    const checkout = { local: await localOf(dir), concurrency: 4, modelDir: dir, allowModelDeletion: false, excluded: () => false };
    const m = await mergeToDefault(plain, { branch: 'preview-pr-53', message: 'Merge', keepBranch: true, model: checkout });
    expect(m).toMatchObject({ merged: true, deployMode: 'cli', productionUpdated: false });
    expect(plain.reporter.text()).toContain('production was not rebuilt: deployment 2 deploys with the CLI (deployMode: cli)');
    const before = await fx.admin.deployments.buildStatus({ deploymentId: 2, query: { branchName: 'main' } });
    expect(before.lastHash).not.toBe(before.filesHash);
    const deploying = c2();
    const local = await readLocalModel(deploying.reporter, dir);
    const d = await mergeToDefault(deploying, {
      branch: 'preview-pr-53',
      message: 'Merge',
      keepBranch: true,
      model: checkout,
      deployModel: { local, concurrency: 4 },
    });
    expect(d).toMatchObject({ merged: true, deployMode: 'cli', productionUpdated: true });
    const after = await fx.admin.deployments.buildStatus({ deploymentId: 2, query: { branchName: 'main' } });
    expect(after.lastHash).toBe(after.filesHash);
  });
});

describe('file-hashes wrapped in { files }', () => {
  it('is read like the plain map: an unchanged model sends nothing', async () => {
    const wrapped = await emulatorFixture({ wrapFileHashes: true });
    try {
      const c: OpContext = { client: wrapped.admin, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false };
      await ensureSharedBranch(c, 'preview-pr-57', 'main');
      const dir = modelDir({ 'model/cubes/w.yml': 'cubes: []\n' });
      expect(await uploadModel(c, { branch: 'preview-pr-57', modelDir: dir, local: await localOf(dir), concurrency: 4, commitMessage: 'x' })).toMatchObject({
        uploaded: 1,
        via: 'direct',
      });
      expect(await uploadModel(c, { branch: 'preview-pr-57', modelDir: dir, local: await localOf(dir), concurrency: 4, commitMessage: 'x' })).toMatchObject({
        uploaded: 0,
        deleted: 0,
      });
    } finally {
      await wrapped.close();
    }
  });
});

describe('staging URL', () => {
  it('has one form, ending in /v1, with the "/" of a branch name kept (each segment encoded), as the vendor\'s examples write it', async () => {
    await ensureSharedBranch(ctx(), 'team/preview-pr-54', 'main');
    const r = await enableStaging(ctx(), { branch: 'team/preview-pr-54', smokeTest: false });
    expect(r.stagingUrl).toBe(`${fx.em.deployments[0]!.deploymentUrl}/dev-mode/team/preview-pr-54/cubejs-api/v1`);
    expect(branchRestUrl('https://x.example/d/1', 'team/a b')).toBe('https://x.example/d/1/dev-mode/team/a%20b/cubejs-api/v1');
  });
});

describe('answers the vendor warns about', () => {
  it('a dev-mode answer without a dev- fork is an error, never a write target', async () => {
    const server = await startTestServer((_q, r) => json(r, 200, { active: true, branchName: 'preview-pr-55', parentBranch: 'main' }));
    const client = new PlatformClient({ baseUrl: server.baseUrl, apiKey: 'k-0123456789', ca: server.ca });
    try {
      const c: OpContext = { client, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false };
      await expect(openDevMode(c, 'preview-pr-55')).rejects.toThrow(/answered without a dev- fork \("preview-pr-55"\)/);
      expect(server.requests.map((q) => q.method)).toEqual(['POST']);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('a git-bound write gets at least 120 s for its answer, whatever the request timeout', async () => {
    // A platform whose finish answers after 1.5 s, with a 1 s request timeout: the floor keeps finish alive.
    let branch: Record<string, { hash: string }> = {};
    const server = await startTestServer((q, r) => {
      if (q.path.endsWith('file-hashes')) return json(r, 200, branch);
      if (q.path.endsWith('upload/start')) return json(r, 200, { transaction: { id: 'tx-1' }, deploymentName: 'd' });
      if (q.path.endsWith('upload/file')) return json(r, 200, { success: true });
      if (q.path.endsWith('upload/finish')) {
        branch = (q.json as { files: Record<string, { hash: string }> }).files;
        return void setTimeout(() => json(r, 200, { lastHash: 'abc' }), 1_500);
      }
      json(r, 404, { error: 'not here' });
    });
    const client = new PlatformClient({ baseUrl: server.baseUrl, apiKey: 'k-0123456789', ca: server.ca, timeoutMs: 1_000, retry: { maxAttempts: 1 } });
    try {
      const c: OpContext = { client, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false, requestTimeoutMs: 1_000 };
      const dir = modelDir();
      const r = await uploadModel(c, { branch: 'b', modelDir: dir, local: await localOf(dir), concurrency: 2, commitMessage: 'x', via: 'direct' });
      expect(r).toMatchObject({ via: 'direct', lastHash: 'abc' });
      expect(server.requests.filter((q) => q.path.endsWith('upload/finish'))).toHaveLength(1);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
