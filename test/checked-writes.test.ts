/**
 * Writes whose effect can be checked are never repeated blindly (issue 15, invariant 4): the emulator
 * lets the write take effect and loses its answer (`lost`), and the client checks the effect (branch
 * there, manifest landed, head moved) and goes on without sending the write again. A close whose
 * cleanup meets a failing pass runs it again; one that cannot finish says what is pending, and the
 * sweep removes it.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformClient } from '../src/client/index.js';
import { MemoryReporter } from '../src/report/reporter.js';
import type { OpContext } from '../src/operations/context.js';
import { scanModel } from '../src/model/local-model.js';
import { mergeToDefault } from '../src/operations/merge-to-default.js';
import { CloseFailed, runClose } from '../src/operations/pr-close.js';
import { ensureSharedBranch } from '../src/operations/start-dev-branch.js';
import { sweepBranches, type PullLookup } from '../src/operations/sweep-branches.js';
import { uploadModel } from '../src/operations/upload-model.js';
import { holds, manifestOf } from '../src/operations/upload-transaction.js';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';
import { localOf, emulatorFixture, type EmulatorFixture } from './support/emulator.js';
import { cube } from './support/lifecycle.js';

let fx: EmulatorFixture;
beforeAll(async () => {
  fx = await emulatorFixture();
});
afterAll(() => fx.close());

const D = '/build/api/v1/deployments/1';
function ctx(retry: { maxAttempts?: number } = {}): OpContext & { reporter: MemoryReporter; debug: string[] } {
  const debug: string[] = [];
  const client: PlatformClient = fx.client(fx.em.credentials.admin, {
    retry: { baseDelayMs: 1, maxDelayMs: 5, ...retry },
    logger: { debug: (m) => debug.push(m) },
  });
  return { client, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false, debug };
}

function modelDir(extra: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'dmci-checked-'));
  for (const [p, c] of Object.entries({ ...DEMO_MODEL, ...extra })) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
  return dir;
}

/** The write was checked after its lost answer, and never sent again. */
function checkedNotRepeated(debug: string[], label: string): void {
  expect(debug.join('\n')).toContain(`checking whether ${label} took effect`);
  expect(debug.filter((l) => l.startsWith(`retrying ${label} `))).toEqual([]);
}

describe('checked writes whose answer is lost', () => {
  it('branch create: the branch exists, the run goes on', async () => {
    const c = ctx();
    fx.em.faults.plan({ kind: 'lost', method: 'POST', path: `${D}/branches` });
    expect(await ensureSharedBranch(c, 'preview-pr-801', 'main')).toBe(true);
    checkedNotRepeated(c.debug, `POST ${D}/branches`);
    expect(Object.keys(fx.em.state.deployments[0]!.branches).filter((b) => b === 'preview-pr-801')).toHaveLength(1);
    expect(fx.em.faults.injected.lost).toBeGreaterThan(0);
  });

  it('upload finish: the manifest landed; it is not finished twice', async () => {
    const c = ctx();
    const dir = modelDir({ 'model/cubes/lost.yml': cube('lost', 1) });
    fx.em.faults.plan({ kind: 'lost', method: 'POST', path: `${D}/data-model/upload/finish` });
    const r = await uploadModel(c, { branch: 'preview-pr-801', modelDir: dir, local: await localOf(dir), concurrency: 4, commitMessage: 'm', via: 'direct' });
    expect(r.uploaded).toBeGreaterThan(0);
    checkedNotRepeated(c.debug, `POST ${D}/data-model/upload/finish`);
    expect(await holds(c, 'preview-pr-801', manifestOf(await scanModel(dir)))).toBe(true);
  });

  it('commit (dev mode): the shared branch moved; it is not committed twice', async () => {
    const c = ctx();
    const dir = modelDir({ 'model/cubes/lost.yml': cube('lost', 2) });
    fx.em.faults.plan({ kind: 'lost', method: 'POST', path: `${D}/commit` });
    await uploadModel(c, { branch: 'preview-pr-801', modelDir: dir, local: await localOf(dir), concurrency: 4, commitMessage: 'm', via: 'dev-mode' });
    checkedNotRepeated(c.debug, `POST ${D}/commit`);
    expect(await holds(c, 'preview-pr-801', manifestOf(await scanModel(dir)))).toBe(true);
  });

  it('merge: the deploy branch holds the merge; it is not merged twice', async () => {
    const c = ctx();
    const dir = modelDir({ 'model/cubes/lost.yml': cube('lost', 2) });
    const local = await scanModel(dir);
    fx.em.faults.plan({ kind: 'lost', method: 'POST', path: `${D}/merge-to-default` });
    const m = await mergeToDefault(c, {
      branch: 'preview-pr-801',
      message: 'Merge',
      keepBranch: true,
      model: { local, concurrency: 4, modelDir: dir, allowModelDeletion: false, excluded: () => false },
      uploadFirst: true,
    });
    expect(m).toMatchObject({ merged: true });
    const main = await c.client.dataModel.fileHashes({ deploymentId: 1, query: { branchName: 'main' } });
    expect(main['model/cubes/lost.yml']?.hash).toBe(local.find((f) => f.path === 'model/cubes/lost.yml')!.sha1);
    checkedNotRepeated(c.debug, `POST ${D}/merge-to-default`);
  });
});

describe('the sweep takes nothing on a guess', () => {
  it('deletes only what a ledger of this repository says a run created; an orphan is listed and kept, and goes only under delete-orphans once idle for min-age, never upstream', async () => {
    const c = ctx({ maxAttempts: 1 });
    for (const n of [810, 811, 812]) await ensureSharedBranch(c, `preview-pr-${n}`, 'main');
    const built = Date.parse(fx.em.clock.iso());
    const sweep = (now: number, ledgerOf: PullLookup['ledgerOf'] = () => Promise.resolve(undefined), deleteOrphans = false) =>
      sweepBranches(c, {
        prefix: 'preview-',
        minAgeMs: 3_600_000,
        removeOnUpstream: true,
        deleteOrphans,
        now: () => now,
        pulls: {
          getPull: (n) => Promise.resolve(n === 811 ? { state: 'closed' as const, merged: false, closedAt: new Date(0).toISOString() } : undefined),
          ledgerOf,
        },
      });
    const row = (rows: Awaited<ReturnType<typeof sweep>>, n: number) => rows.find((r) => r.branch === `preview-pr-${n}`);
    // A PR-less branch is an orphan (another repository's preview looks like that); 811's closed PR has no ledger.
    const early = await sweep(built + 7_200_000);
    expect(row(early, 810)).toMatchObject({ action: 'kept', state: 'missing', orphan: true, reason: expect.stringContaining('delete-orphans') });
    expect(row(early, 811)).toMatchObject({ action: 'kept', orphan: true, reason: expect.stringContaining('no comment of the toolkit on pull request #811') });
    const branches = fx.em.state.deployments[0]!.branches;
    expect([branches['preview-pr-810'], branches['preview-pr-811'], branches['preview-pr-812']].every((b) => b !== undefined)).toBe(true);
    // A ledger that names the branch but does not say a run created it is no evidence.
    const named = await sweep(built + 7_200_000, () => Promise.resolve({ stagingOn: 'preview-pr-811' }));
    expect(row(named, 811)).toMatchObject({ action: 'kept', orphan: true });
    // delete-orphans: half an hour after the branches last built they stay; two hours after, the orphans go.
    const halfHour = await sweep(built + 1_800_000, undefined, true);
    expect(row(halfHour, 810)).toMatchObject({ action: 'kept', reason: expect.stringContaining('less than min-age') });
    const late = await sweep(built + 7_200_000, undefined, true);
    expect([row(late, 810)?.action, row(late, 811)?.action, row(late, 812)?.action]).toEqual(['deleted', 'deleted', 'deleted']);
    expect(row(late, 810)?.reason).toMatch(/no pull request #810 in this repository; deleted under delete-orphans/);
    expect([branches['preview-pr-810'], branches['preview-pr-811'], branches['preview-pr-812']].map((b) => b !== undefined)).toEqual([false, false, false]);
  });

  it("a closed PR's branch goes when its ledger says a run created it", async () => {
    const c = ctx({ maxAttempts: 1 });
    await ensureSharedBranch(c, 'preview-pr-815', 'main');
    const rows = await sweepBranches(c, {
      prefix: 'preview-',
      minAgeMs: 0,
      removeOnUpstream: true,
      deleteOrphans: false,
      pulls: {
        getPull: (n) => Promise.resolve(n === 815 ? { state: 'closed' as const, merged: true, closedAt: new Date(0).toISOString() } : undefined),
        ledgerOf: (n) => Promise.resolve(n === 815 ? { created: 'preview-pr-815' } : undefined),
      },
    });
    expect(rows.find((r) => r.branch === 'preview-pr-815')).toMatchObject({
      action: 'deleted',
      reason: expect.stringContaining('its ledger says a run of it created'),
    });
    expect(fx.em.state.deployments[0]!.branches['preview-pr-815']).toBeUndefined();
  });
});

describe('cleanup on close', () => {
  it('a failing cleanup pass is run again, and the close ends with nothing left', async () => {
    const c = ctx({ maxAttempts: 1 });
    await ensureSharedBranch(c, 'preview-pr-802', 'main');
    fx.em.faults.plan({ kind: '5xx', method: 'PUT', path: `${D}/branches/staging-environment` });
    const r = await runClose(c, {
      branch: 'preview-pr-802',
      merge: false,
      message: 'm',
      generatedName: true,
      removeOnUpstream: false,
      cleanupPausesMs: [10, 10],
    });
    expect(r.cleanup.deleted).toEqual(['preview-pr-802']);
    expect(c.reporter.lines.map((l) => l.message).join('\n')).toMatch(/cleanup failed \(PUT .*staging-environment -> 503.*\); trying again/);
    expect(fx.em.state.deployments[0]!.branches['preview-pr-802']).toBeUndefined();
  });

  it('a cleanup that keeps failing says what is pending; the sweep removes it', async () => {
    const c = ctx({ maxAttempts: 1 });
    await ensureSharedBranch(c, 'preview-pr-803', 'main');
    fx.em.faults.plan({ kind: '5xx', method: 'PUT', path: `${D}/branches/staging-environment`, times: 3 });
    const err = await runClose(c, {
      branch: 'preview-pr-803',
      merge: false,
      message: 'm',
      generatedName: true,
      removeOnUpstream: false,
      cleanupPausesMs: [10, 10],
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CloseFailed);
    expect(err).toMatchObject({ step: 'Cleanup', pending: ['preview-pr-803'] });
    expect(fx.em.state.deployments[0]!.branches['preview-pr-803']).toBeDefined();
    const rows = await sweepBranches(c, {
      prefix: 'preview-',
      minAgeMs: 0,
      removeOnUpstream: false,
      deleteOrphans: false,
      pulls: {
        getPull: (n) => Promise.resolve(n === 803 ? { state: 'closed' as const, merged: false, closedAt: new Date(0).toISOString() } : undefined),
        ledgerOf: (n) => Promise.resolve(n === 803 ? { created: 'preview-pr-803' } : undefined),
      },
    });
    expect(rows.find((r) => r.branch === 'preview-pr-803')).toMatchObject({ action: 'deleted' });
    expect(fx.em.state.deployments[0]!.branches['preview-pr-803']).toBeUndefined();
  });
});
