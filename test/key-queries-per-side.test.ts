/**
 * Key queries per side, the pure part: the base's file matched with the head's by name (same query, a
 * renamed member, another question, new, gone), production's rows read under the head's names, the
 * members each side must have, the cap, and the base's file read at the event's base commit with git.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pairKeyQueries, querySide, rowsAsHead } from '../src/impact/data/query-sides.js';
import { checkKeyQueryMembers } from '../src/impact/data/query-members.js';
import { keyQueries } from '../src/impact/data/key-queries.js';
import { planDataDiff } from '../src/impact/data/plan.js';
import type { DataDiffSettings, KeyQuery } from '../src/impact/data/types.js';
import type { MetaDocument } from '../src/impact/base/meta.js';

const file = (name: string, query: KeyQuery['query']): KeyQuery => ({ name, source: 'file', query });
const byStatus = (d: string) => ({ measures: ['orders.count'], dimensions: [d] });

function meta(members: string[]): MetaDocument {
  const cubes = [...new Set(members.map((m) => m.split('.')[0] as string))];
  return {
    cubes: cubes.map((c) => ({
      name: c,
      type: 'cube',
      members: members.filter((m) => m.startsWith(`${c}.`)).map((name) => ({ name, kind: name.endsWith('count') ? 'measure' : 'dimension', visible: true })),
    })),
  } as unknown as MetaDocument;
}

describe('key queries per side', () => {
  it('matched by name: the same query as before, a rename production runs in its base form, another question new, head-only new, base-only gone', () => {
    const head = [
      file('Same', byStatus('orders.status')),
      file('Renamed', byStatus('orders.state')),
      file('Reshaped', { measures: ['orders.count'], dimensions: ['orders.status', 'orders.id'] }),
      file('Added', byStatus('orders.status')),
    ];
    const base = [
      file('Same', byStatus('orders.status')),
      file('Renamed', byStatus('orders.status')),
      file('Reshaped', byStatus('orders.status')),
      file('Dropped', byStatus('orders.id')),
    ];
    const { queries, notes } = pairKeyQueries(head, base);
    expect(queries.map((k) => [k.name, !!k.headOnly, !!k.baseOnly, k.baseQuery ?? null])).toEqual([
      ['Same', false, false, null],
      ['Renamed', false, false, byStatus('orders.status')],
      ['Reshaped', true, false, null],
      ['Added', true, false, null],
      ['Dropped', false, true, null],
    ]);
    const renamed = queries[1] as KeyQuery;
    expect([querySide(renamed, 'production'), querySide(renamed, 'preview')]).toEqual([byStatus('orders.status'), byStatus('orders.state')]);
    expect(notes).toEqual([
      'key query "Reshaped" asks another question in the pull request\'s key-queries file (other members or grains): it runs on the preview only',
      'key query "Added" is new in the pull request\'s key-queries file: it runs on the preview only',
      'key query "Dropped" is gone from the pull request\'s key-queries file: not run',
    ]);
  });

  it("production's rows under the head's names, time dimensions with their grain too", () => {
    const base = { measures: ['orders.count'], dimensions: ['orders.status'], timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }] };
    const head = { measures: ['orders.count'], dimensions: ['orders.state'], timeDimensions: [{ dimension: 'orders.placed_at', granularity: 'month' }] };
    const rows = [
      { 'orders.count': '3', 'orders.status': 'done', 'orders.created_at.month': '2025-01-01T00:00:00.000', 'orders.created_at': '2025-01-01T00:00:00.000' },
    ];
    expect(rowsAsHead(rows, base, head)).toEqual([
      { 'orders.count': '3', 'orders.state': 'done', 'orders.placed_at.month': '2025-01-01T00:00:00.000', 'orders.placed_at': '2025-01-01T00:00:00.000' },
    ]);
  });

  it("members checked per side: the base form against production, the head's against both; a base form production cannot run is new", () => {
    const production = meta(['orders.count', 'orders.status']);
    const preview = meta(['orders.count', 'orders.state']);
    const renamed = { ...file('Renamed', byStatus('orders.state')), baseQuery: byStatus('orders.status') };
    const broken = { ...file('Base was wrong', byStatus('orders.state')), baseQuery: byStatus('orders.stauts') };
    const typo = { ...file('Typo', byStatus('orders.stat')), baseQuery: byStatus('orders.status') };
    const gone = { ...file('Gone', byStatus('orders.nothing')), baseOnly: true };
    const checked = checkKeyQueryMembers([renamed, broken, typo, gone], production, preview);
    expect(checked.queries.map((k) => [k.name, !!k.headOnly, k.baseQuery ?? null])).toEqual([
      ['Renamed', false, byStatus('orders.status')],
      ['Base was wrong', true, null],
      ['Typo', false, byStatus('orders.status')],
      ['Gone', false, null],
    ]);
    expect(checked.previewOnly).toEqual([{ query: 'Base was wrong', members: ['orders.stauts'] }]);
    expect(checked.unknown.map((u) => [u.query, u.member])).toEqual([['Typo', 'orders.stat']]);
  });

  it('a gone query never takes a place under the cap; the base form gets the row cap too', () => {
    const renamed = { ...file('Renamed', byStatus('orders.state')), baseQuery: byStatus('orders.status') };
    const gone = { ...file('Gone', byStatus('orders.id')), baseOnly: true };
    const picked = keyQueries({
      file: [gone, renamed],
      content: [],
      values: new Map(),
      changedMeasures: [],
      addedMeasures: [],
      head: meta([]),
      maxQueries: 1,
      maxRows: 50,
    });
    expect(picked.run.map((k) => [k.name, k.query.limit, k.baseQuery?.limit ?? null])).toEqual([
      ['Renamed', 50, 50],
      ['Gone', undefined, null],
    ]);
    expect(picked.notRun).toBe(0);
  });
});

describe("the base's key-queries file at the event's base commit", () => {
  const settings = (queriesFile: string, more: Partial<DataDiffSettings> = {}): DataDiffSettings => ({
    mode: 'values',
    allowPublic: true,
    queriesFile,
    securityContext: {},
    limits: { maxQueries: 20, maxRows: 100, concurrency: 2, queryTimeoutMs: 1000, absTolerance: 0, relTolerance: 0 },
    failOnChange: false,
    ...more,
  });
  const git = (dir: string, ...args: string[]) =>
    execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' }).trim();

  it("read with git from the commit, in a folder of the repository; a commit without the file, or one not fetched, is a note and both sides run the head's", async () => {
    const repo = mkdtempSync(join(tmpdir(), 'dmci-keys-'));
    git(repo, 'init', '-q');
    mkdirSync(join(repo, 'ci'));
    writeFileSync(join(repo, 'README'), 'x');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'no file yet');
    const before = git(repo, 'rev-parse', 'HEAD');
    const path = join(repo, 'ci', 'key-queries.json');
    writeFileSync(path, JSON.stringify({ queries: [file('Orders by status', byStatus('orders.status'))] }));
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'base');
    const base = git(repo, 'rev-parse', 'HEAD');
    writeFileSync(path, JSON.stringify({ queries: [file('Orders by status', byStatus('orders.state'))] }));
    const pr = (baseSha: string) => ({ pr: { fork: false, baseSha }, repositoryPublic: false });

    const plan = await planDataDiff(settings(path), pr(base));
    expect(plan.fileQueries).toEqual([{ ...file('Orders by status', byStatus('orders.state')), baseQuery: byStatus('orders.status') }]);
    expect(plan.queryNotes).toBeUndefined();

    const added = await planDataDiff(settings(path), pr(before));
    expect(added.fileQueries).toEqual([file('Orders by status', byStatus('orders.state'))]);
    expect(added.queryNotes).toEqual([`the base commit has no ${path}: both sides run the pull request's key queries`]);

    const unknown = await planDataDiff(settings(path), pr('0123456789abcdef0123456789abcdef01234567'));
    expect(unknown.fileQueries).toEqual([file('Orders by status', byStatus('orders.state'))]);
    expect(unknown.queryNotes?.[0]).toContain(
      'the commit 0123456789ab is not in the checkout and could not be fetched (actions/checkout with fetch-depth: 0 holds it)',
    );

    // A shallow clone (actions/checkout's default) lacks the base commit: fetched from its origin.
    const shallow = join(mkdtempSync(join(tmpdir(), 'dmci-keys-shallow-')), 'repo');
    git(repo, 'commit', '-qam', 'head');
    execFileSync('git', ['clone', '-q', '--depth=1', `file://${repo}`, shallow]);
    expect(() => git(shallow, 'cat-file', '-e', `${base}^{commit}`)).toThrow();
    const fetched = await planDataDiff(settings(join(shallow, 'ci', 'key-queries.json')), pr(base));
    expect(fetched.queryNotes).toBeUndefined();
    expect(fetched.fileQueries).toEqual([{ ...file('Orders by status', byStatus('orders.state')), baseQuery: byStatus('orders.status') }]);

    // The base's file given and not readable: bad input naming data-diff-base-queries, before any call.
    const missing = join(repo, 'no-base.json');
    await expect(planDataDiff(settings(path, { baseQueriesFile: missing }), pr(base))).rejects.toThrow(
      `data-diff-base-queries: got ${JSON.stringify(missing)}, expected a readable JSON file of key queries (ENOENT)`,
    );

    // The input wins over git: the file given is the base's.
    const given = join(repo, 'given.json');
    writeFileSync(given, JSON.stringify([file('Orders by status', byStatus('orders.status')), file('Old', byStatus('orders.id'))]));
    const flag = await planDataDiff(settings(path, { baseQueriesFile: given }), { repositoryPublic: false });
    expect(flag.fileQueries.map((k) => [k.name, k.baseQuery ?? null, !!k.baseOnly])).toEqual([
      ['Orders by status', byStatus('orders.status'), false],
      ['Old', null, true],
    ]);
  });
});
