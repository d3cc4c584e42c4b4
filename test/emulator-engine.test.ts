/**
 * The emulator's engine on its own: Cube's compiler on model trees (its messages, the file each error
 * belongs to, templates refused, compiles kept by content), the query checks and normalisation of the
 * gateway, date ranges, and the time format of answers. The data API through the vendor's client is
 * test/emulator-data-api.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { filesOf } from '../packages/emulator/src/build/trees.js';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';
import { TEMPLATES_REFUSED } from '../packages/emulator/src/engine/compile.js';
import { canonicalTimeZone, resolveDateRange } from '../packages/emulator/src/engine/dates.js';
import { ApiError } from '../packages/emulator/src/engine/errors.js';
import { allCubes, metaBody } from '../packages/emulator/src/engine/meta.js';
import { compileTree, modelTree } from '../packages/emulator/src/engine/model.js';
import { normalizeQuery } from '../packages/emulator/src/engine/query.js';
import { formatTime } from '../packages/emulator/src/engine/results.js';
import { compileFiles } from '../packages/emulator/src/engine/compile.js';
import { transpileCounts, useTranspilerThread } from '../packages/emulator/src/engine/transpiler.js';
import { INTERNAL_METHODS, loadCompiler } from '../packages/emulator/src/engine/vendor.js';
import { loadBrokenModels } from './support/broken-models.js';

const ORDERS = 'model/cubes/orders.yml';
const compile = (files: Record<string, string>) => compileTree(filesOf(files));
const withFile = (path: string, text: string) => ({ ...DEMO_MODEL, [path]: text });
const demo = (path: string, from: string, to: string) => {
  const text = DEMO_MODEL[path]!;
  if (!text.includes(from)) throw new Error(`${path} has no ${JSON.stringify(from)}`);
  return withFile(path, text.replace(from, to));
};

describe("Cube's compiler", () => {
  it('accepts the demo model; meta lists its cubes and view with members named cube.member', async () => {
    const r = await compile(DEMO_MODEL);
    expect(r).toMatchObject({ valid: true, errors: [], root: 'model' });
    const cubes = allCubes(r.compilers!);
    expect(cubes.map((c) => [c.name, c.type])).toEqual([
      ['customers', 'cube'],
      ['orders', 'cube'],
      ['orders_view', 'view'],
    ]);
    const body = metaBody(r.compilers!);
    // Primary keys are hidden from /meta unless public.
    expect(body.cubes.find((c) => c.name === 'orders')!.dimensions.map((d) => d.name)).toEqual(['orders.status', 'orders.created_at']);
    expect(metaBody(r.compilers!, true).cubes.map((c) => c.name)).toEqual(['orders_view']);
  });

  it("fails the demo's broken push in Cube's words, one entry, naming the file", async () => {
    const r = await compile(demo(ORDERS, 'type: sum', 'type: summ'));
    expect(r.valid).toBe(false);
    expect(r.errors).toEqual([
      {
        fileName: ORDERS,
        message: expect.stringMatching(
          /^orders cube: "measures\.total_amount\.type" must be one of \[count, number, string, boolean, time, sum, avg, min, max, countDistinct, countDistinctApprox\]\. "measures\.total_amount\.sql" is not allowed\nPossible reasons \(one of\):\n\t\* \(measures\.total_amount\.type = summ\)/,
        ),
      },
    ]);
    expect(r.failure).toMatch(/^Error: Compile errors:\n/);
  });

  it('names the file of errors the compiler itself leaves unnamed: a reference, a duplicate cube, a view', async () => {
    const unknownCube = await compile(demo(ORDERS, '        sql: status\n', '        sql: "{users.status}"\n'));
    expect(unknownCube.errors).toEqual([{ fileName: ORDERS, message: 'users is not defined' }]);
    // Files compile in path order: the later definition is the duplicate.
    const duplicate = await compile(
      withFile('model/cubes/z_more.yml', 'cubes:\n  - name: orders\n    sql_table: x\n    measures:\n      - name: n\n        type: count\n'),
    );
    expect(duplicate.errors).toContainEqual({ fileName: 'model/cubes/z_more.yml', message: "Found duplicate cube name 'orders'." });
    const view = await compile(demo('model/views/orders_view.yml', '          - status\n', '          - statuss\n'));
    expect(view.errors).toEqual([
      { fileName: 'model/views/orders_view.yml', message: "orders_view cube: Member 'statuss' is included in 'orders_view' but not defined in any cube" },
    ]);
  });

  it("ends the compile at a YAML syntax error, as Cube's does: that one error, its file carrying the parser's line", async () => {
    const r = await compile({
      ...demo('model/views/orders_view.yml', '          - status\n', '          - statuss\n'),
      'model/cubes/broken.yml': 'cubes:\n  - name: broken\n    sql_table: x\n   measures: []\n',
    });
    expect(r.errors.map((e) => e.fileName)).toEqual(['model/cubes/broken.yml:4']);
    expect(r.errors[0]!.message).toMatch(/^bad indentation of a sequence entry \(4:4\)\n/);
  });

  it('compiles JavaScript models, and runs them: a top-level error is reported', async () => {
    const js = "cube('payments', {\n  sql_table: 'public.payments',\n  measures: { count: { type: 'count' } },\n});\n";
    expect((await compile(withFile('model/cubes/payments.js', js))).valid).toBe(true);
    const r = await compile(withFile('model/cubes/payments.js', `const t = tableName;\n${js}`));
    expect(r.errors).toEqual([{ fileName: 'model/cubes/payments.js', message: 'tableName is not defined' }]);
  });

  it('refuses Jinja and Python plainly, file by file, without compiling', async () => {
    const r = await compile({ ...withFile('model/cubes/generated.yml', "{% for n in ['a'] %}\ncubes: []\n{% endfor %}\n"), 'model/globals.py': 'x = 1\n' });
    expect(r.valid).toBe(false);
    expect(r.errors).toEqual([
      { fileName: 'model/cubes/generated.yml', message: TEMPLATES_REFUSED },
      { fileName: 'model/globals.py', message: TEMPLATES_REFUSED },
    ]);
  });

  it('reads the model folder only (model/, else schema/); other files never reach the compiler', async () => {
    const tree = filesOf({ ...DEMO_MODEL, 'README.md': '# {{ not jinja }}', 'scripts/x.js': 'throw 1' });
    expect(modelTree(tree).files.map((f) => f.fileName)).toEqual(['cubes/customers.yml', 'cubes/orders.yml', 'views/orders_view.yml']);
    const legacy = await compile({ 'schema/orders.yml': DEMO_MODEL[ORDERS]!.replace(/ {4}joins:[\s\S]*? {4}measures:/, '    measures:') });
    expect(legacy).toMatchObject({ valid: true, root: 'schema' });
    expect((await compile({})).valid).toBe(true);
  });

  it('keeps compiles by content: an unchanged tree is answered from the cache, a changed one compiled', async () => {
    const files = withFile(
      'model/cubes/cache_probe.yml',
      `cubes:\n  - name: cache_probe\n    sql_table: t_${Date.now()}\n    measures:\n      - name: n\n        type: count\n`,
    );
    const first = await compile(files);
    const again = await compile(files);
    expect([first.cached, again.cached]).toEqual([false, true]);
    expect(again.compilers).toBe(first.compilers);
    const changed = await compile({ ...files, 'model/cubes/cache_probe.yml': files['model/cubes/cache_probe.yml']!.replace('n\n', 'm\n') });
    expect(changed.cached).toBe(false);
  });

  it("transpiles in this thread exactly as Cube's transpiler thread does: the same errors, in order, one compile's never in the next", async () => {
    // Syntax errors (their error crosses the thread as JSON), JS and YAML files, and a valid model between broken ones.
    const models = loadBrokenModels().filter((m, i) => /syntax|unclosed/.test(m.name) || i % 20 === 0);
    expect(models.length).toBeGreaterThanOrEqual(12);
    const files = (m: (typeof models)[number]) => [...m.files].map(([p, content]) => ({ fileName: p.replace(/^model\//, ''), content }));
    const answers = async () => {
      const out = [];
      for (const modelFiles of [...models.map(files), modelTree(filesOf(DEMO_MODEL)).files]) {
        const c = await compileFiles(modelFiles);
        out.push({ errors: c.errors, failure: c.failure, valid: c.valid });
      }
      return out;
    };
    const inProcess = await answers();
    useTranspilerThread(true);
    try {
      expect(await answers()).toEqual(inProcess);
    } finally {
      useTranspilerThread(false);
    }
    // Again in this thread, every file now answered from the kept transpiles: the same answers.
    const transpiled = transpileCounts.transpiled;
    expect(await answers()).toEqual(inProcess);
    expect(transpileCounts.transpiled).toBe(transpiled);
    expect(inProcess.at(-1)).toMatchObject({ valid: true, errors: [] });
    expect(inProcess.filter((a) => a.errors.some((e) => /^Unexpected token/.test(e.message))).length).toBeGreaterThanOrEqual(3);
  }, 120_000);

  it('answers a file transpiled again with the same input from the kept transpiles, its errors included', async () => {
    // Three errors over five files (YAML and JavaScript), the transpilers' own among them.
    const broken = loadBrokenModels().find((m) => m.name === '157-echo-js-syntax-error-joined')!;
    const files = [...broken.files].map(([p, content]) => ({ fileName: p.replace(/^model\//, ''), content }));
    const before = transpileCounts.transpiled + transpileCounts.kept;
    const first = await compileFiles(files);
    const counts = { ...transpileCounts };
    expect(counts.transpiled + counts.kept).toBeGreaterThan(before);
    const again = await compileFiles(files);
    expect(first.errors.length).toBeGreaterThan(0);
    expect({ errors: again.errors, failure: again.failure, valid: again.valid }).toEqual({ errors: first.errors, failure: first.failure, valid: first.valid });
    expect(transpileCounts.transpiled).toBe(counts.transpiled);
    expect(transpileCounts.kept).toBeGreaterThan(counts.kept);
    // Another input (here the same file under another name) is transpiled.
    await compileFiles(files.map((f) => ({ ...f, fileName: f.fileName.replace(/\.(yml|js)$/, '_renamed.$1') })));
    expect(transpileCounts.transpiled).toBeGreaterThan(counts.transpiled);
  });

  it('finds the compiler internals it wraps (a guard for upgrades of the pinned version)', () => {
    const compilers = loadCompiler().prepareCompiler({ localPath: () => '/none', dataSchemaFiles: () => Promise.resolve([]) }, {});
    const compiler = compilers.compiler as unknown as Record<string, unknown>;
    for (const m of INTERNAL_METHODS) expect(typeof compiler[m], m).toBe('function');
    expect(Array.isArray(compiler.cubeNameCompilers)).toBe(true);
  });
});

describe('query checks and normalisation (the gateway)', () => {
  const NOW = Date.UTC(2026, 10, 23, 15, 30); // a Monday
  const norm = (q: unknown) => normalizeQuery(q, NOW);
  const refusal = (q: unknown) => {
    try {
      norm(q);
    } catch (e) {
      return e instanceof ApiError ? { status: e.status, ...e.body } : e;
    }
    throw new Error('no refusal');
  };

  it('orders as [{ id, desc }], limit and rowLimit, filters on member with strings, granularity dimensions as time dimensions', () => {
    expect(
      norm({
        measures: ['orders.count'],
        dimensions: ['orders.status', 'orders.created_at.month'],
        filters: [{ dimension: 'orders.total_amount', operator: 'gt', values: [100] }],
        order: { 'orders.count': 'desc' },
        timezone: 'utc',
      }),
    ).toEqual({
      measures: ['orders.count'],
      dimensions: ['orders.status'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
      filters: [{ member: 'orders.total_amount', operator: 'gt', values: ['100'] }],
      order: [{ id: 'orders.count', desc: true }],
      limit: 10_000,
      rowLimit: 10_000,
      timezone: 'UTC',
      cacheMode: 'stale-if-slow',
    });
  });

  it('refuses what the gateway refuses, with its message', () => {
    expect(refusal({ measures: ['orders.count'], foo: 1 })).toEqual({ status: 400, error: 'Invalid query format: "foo" is not allowed' });
    expect(refusal({ measures: ['orders.count'], limit: '10' })).toEqual({ status: 400, error: 'Invalid query format: "limit" must be a number' });
    expect(refusal({ measures: ['orders.count'], order: { 'orders.count': 'up' } })).toEqual({
      status: 400,
      error: 'Invalid query format: "order.orders.count" must be one of [asc, desc]',
    });
    expect(refusal({ measures: ['orders.count'], filters: [{ member: 'orders.status', operator: 'like', values: ['a'] }] })).toEqual({
      status: 400,
      error: 'Invalid query format: "filters[0]" does not match any of the allowed types',
    });
    expect(refusal({ measures: ['orders.count'], filters: [{ member: 'orders.status', operator: 'equals' }] })).toEqual({
      status: 400,
      error: 'Values required for filter: {"member":"orders.status","operator":"equals"}',
    });
    expect(refusal({ measures: ['orders.count'], timeDimensions: [{ dimension: 'orders.created_at', dateRange: 'someday maybe' }] })).toEqual({
      status: 400,
      error: "Can't parse date: 'someday maybe'",
    });
  });

  it('names a time zone by its own name each time, an unknown one never (the names are kept after the first)', () => {
    for (let i = 0; i < 2; i++) {
      expect([canonicalTimeZone('utc'), canonicalTimeZone('europe/berlin'), canonicalTimeZone('Mars/Base')]).toEqual(['UTC', 'Europe/Berlin', undefined]);
    }
  });

  it('resolves date ranges: whole days, relative ranges on the given clock and time zone', () => {
    expect(resolveDateRange(['2024-01-01', '2024-12-31'], 'UTC', NOW)).toEqual(['2024-01-01T00:00:00.000', '2024-12-31T23:59:59.999']);
    expect(resolveDateRange('2024-02-29', 'UTC', NOW)).toEqual(['2024-02-29T00:00:00.000', '2024-02-29T23:59:59.999']);
    expect(resolveDateRange('last 7 days', 'UTC', NOW)).toEqual(['2026-11-16T00:00:00.000', '2026-11-22T23:59:59.999']);
    expect(resolveDateRange('this week', 'UTC', NOW)).toEqual(['2026-11-23T00:00:00.000', '2026-11-29T23:59:59.999']);
    expect(resolveDateRange('last month', 'UTC', NOW)).toEqual(['2026-10-01T00:00:00.000', '2026-10-31T23:59:59.999']);
    expect(resolveDateRange('this quarter', 'UTC', NOW)).toEqual(['2026-10-01T00:00:00.000', '2026-12-31T23:59:59.999']);
    expect(resolveDateRange('from 2024-01-01 to 2024-03-31', 'UTC', NOW)).toEqual(['2024-01-01T00:00:00.000', '2024-03-31T23:59:59.999']);
    // 15:30 UTC is already the next day in Tokyo.
    expect(resolveDateRange('today', 'Asia/Tokyo', NOW)).toEqual(['2026-11-24T00:00:00.000', '2026-11-24T23:59:59.999']);
  });
});

describe('answers', () => {
  it('prints times as the result transform does: local, milliseconds, no zone', () => {
    expect(formatTime('2024-01-01 00:00:00')).toBe('2024-01-01T00:00:00.000');
    expect(formatTime('2024-01-01 10:20:30.5')).toBe('2024-01-01T10:20:30.500');
    expect(formatTime('2024-01-01 10:20:30+00')).toBe('2024-01-01T10:20:30.000');
    expect(formatTime('2024-01-01 10:20:30+02')).toBe('2024-01-01T08:20:30.000');
    expect(formatTime('2024-01-01')).toBe('2024-01-01T00:00:00.000');
    expect(formatTime(null)).toBe(null);
  });
});
