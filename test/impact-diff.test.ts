/**
 * The member diff and its classification on real `/v1/meta` documents: each model below is compiled by
 * Cube's own compiler (the emulator's engine) and described by its meta transformer, as the data API
 * serves it; the diff then reads the two documents as it reads a deployment's.
 */
import { describe, expect, it } from 'vitest';
import { filesOf } from '../packages/emulator/src/build/trees.js';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';
import { metaBody } from '../packages/emulator/src/engine/meta.js';
import { compileTree } from '../packages/emulator/src/engine/model.js';
import { countChanges, diffMeta } from '../src/impact/base/diff.js';
import { parseMeta, type MetaDocument } from '../src/impact/base/meta.js';
import { privateIn } from '../src/impact/definition/merge.js';
import { modelDefinition } from '../src/impact/definition/source.js';

const ORDERS = 'model/cubes/orders.yml';
const VIEW = 'model/views/orders_view.yml';

async function meta(files: Record<string, string>): Promise<MetaDocument> {
  const r = await compileTree(filesOf(files));
  if (!r.compilers) throw new Error(`the test model does not compile: ${JSON.stringify(r.errors)}`);
  // Through JSON, as the data API sends it.
  return parseMeta(JSON.parse(JSON.stringify(metaBody(r.compilers))), 'test');
}

/** The demo model with replacements in some files (each must apply). */
function edit(changes: Record<string, [string, string][]>, extra: Record<string, string> = {}): Record<string, string> {
  const out = { ...DEMO_MODEL, ...extra };
  for (const [path, pairs] of Object.entries(changes)) {
    let text = out[path]!;
    for (const [from, to] of pairs) {
      if (!text.includes(from)) throw new Error(`${path} has no ${JSON.stringify(from)}`);
      text = text.replace(from, to);
    }
    out[path] = text;
  }
  return out;
}

const brief = (cs: ReturnType<typeof diffMeta>) => cs.members.map((m) => [m.member, m.change, m.breaking, m.details.join('; ')]);

describe('the member diff on /meta from Cube’s compiler', () => {
  it('finds nothing between a model and itself', async () => {
    const a = await meta(DEMO_MODEL);
    expect(a.cubes.map((c) => [c.name, c.type, c.members.length])).toEqual([
      ['customers', 'cube', 3],
      ['orders', 'cube', 4],
      ['orders_view', 'view', 6],
    ]);
    const cs = diffMeta(a, await meta(DEMO_MODEL));
    expect(cs).toEqual({ cubes: [], members: [] });
    expect(countChanges(cs)).toEqual({ breaking: 0, added: 0, changed: 0 });
  });

  it('a dimension removed from a cube and its view: breaking, and the view member is listed under the view because of the cube', async () => {
    const head = edit({
      [ORDERS]: [['      - name: status\n        sql: status\n        type: string\n', '']],
      [VIEW]: [['          - status\n', '']],
    });
    const cs = diffMeta(await meta(DEMO_MODEL), await meta(head));
    expect(brief(cs)).toEqual([
      ['orders.status', 'removed', true, 'removed'],
      ['orders_view.status', 'view-lost', true, 'orders.status removed'],
    ]);
    expect(cs.members[1]).toMatchObject({ cube: 'orders_view', cubeType: 'view', because: 'orders.status' });
    expect(countChanges(cs)).toEqual({ breaking: 2, added: 0, changed: 0 });
  });

  it('a member made private: gone from /meta, told apart from a removal by the model files', async () => {
    const head = edit({ [ORDERS]: [['        sql: status\n        type: string\n', '        sql: status\n        type: string\n        public: false\n']] });
    const headMeta = await meta(head);
    expect(headMeta.cubes.find((c) => c.name === 'orders')!.members.map((m) => m.name)).not.toContain('orders.status');
    const hidden = privateIn(modelDefinition(new Map(Object.entries(head))));
    // Primary keys are hidden unless made public, as /meta shows them.
    expect([...hidden].sort()).toEqual(['customers.id', 'orders.id', 'orders.status']);
    const cs = diffMeta(await meta(DEMO_MODEL), headMeta, { privateInHead: hidden });
    expect(cs.members.find((m) => m.member === 'orders.status')).toMatchObject({ change: 'private', breaking: true, details: ['made private'] });
    // Without the model files it can only be called removed.
    expect(diffMeta(await meta(DEMO_MODEL), headMeta).members.find((m) => m.member === 'orders.status')?.change).toBe('removed');
  });

  it('an aggregation changed is a values change (its queries still run), as the model writes it; a title, a format and an added member are not', async () => {
    const head = edit({
      [ORDERS]: [
        ['      - name: total_amount\n        type: sum\n', '      - name: total_amount\n        type: avg\n'],
        [
          '      - name: count\n        type: count\n',
          '      - name: count\n        type: count\n        title: Number of orders\n      - name: max_amount\n        type: max\n        sql: amount\n',
        ],
        [
          '      - name: status\n        sql: status\n        type: string\n',
          '      - name: status\n        sql: status\n        type: string\n        description: Order status\n',
        ],
      ],
    });
    const cs = diffMeta(await meta(DEMO_MODEL), await meta(head));
    expect(brief(cs)).toEqual([
      ['orders.count', 'changed', false, 'title Orders Count → Orders Number of orders'],
      ['orders.status', 'changed', false, 'description changed'],
      ['orders.total_amount', 'changed', false, 'aggregation sum → avg'],
      ['orders.max_amount', 'added', false, 'added'],
      // The view's members follow the cube's (it does not include max_amount).
      ['orders_view.count', 'changed', false, 'title Orders View Count → Orders View Number of orders'],
      ['orders_view.status', 'changed', false, 'description changed'],
      ['orders_view.total_amount', 'changed', false, 'aggregation sum → avg'],
    ]);
    expect(cs.members.filter((m) => m.values).map((m) => m.member)).toEqual(['orders.total_amount', 'orders_view.total_amount']);
    expect(countChanges(cs)).toEqual({ breaking: 0, values: 2, added: 1, changed: 4 });
  });

  it('a type changed and a custom granularity removed are breaking; one added is not', async () => {
    const grains = (names: string[]) =>
      `        type: time\n        granularities:\n${names.map((n) => `          - name: ${n}\n            interval: ${n === 'fortnight' ? '2 weeks' : '3 months'}\n            origin: "2024-01-01"\n`).join('')}`;
    const base = edit({ [ORDERS]: [['        sql: created_at\n        type: time\n', `        sql: created_at\n${grains(['fortnight', 'season'])}`]] });
    const head = edit({
      [ORDERS]: [
        ['        sql: created_at\n        type: time\n', `        sql: created_at\n${grains(['season', 'quarter_shifted'])}`],
        [
          '      - name: id\n        sql: id\n        type: number\n        primary_key: true\n      - name: status\n        sql: status\n        type: string\n',
          '      - name: id\n        sql: id\n        type: number\n        primary_key: true\n      - name: status\n        sql: status\n        type: number\n',
        ],
      ],
    });
    const [b, h] = [await meta(base), await meta(head)];
    expect(b.cubes.find((c) => c.name === 'orders')!.members.find((m) => m.name === 'orders.created_at')!.granularities).toEqual(['fortnight', 'season']);
    const cs = diffMeta(b, h);
    const created = cs.members.find((m) => m.member === 'orders.created_at')!;
    expect(created).toMatchObject({
      breaking: true,
      onlyGranularities: ['fortnight'],
      details: ['granularity fortnight removed', 'granularity quarter_shifted added'],
    });
    expect(cs.members.find((m) => m.member === 'orders.status')).toMatchObject({ breaking: true, details: ['type string → number'] });
    expect(cs.members.find((m) => m.member === 'orders_view.status')).toMatchObject({ breaking: true, change: 'changed' });
  });

  it("three values changes /meta shows: a granularity's interval or offset, a measure becoming cumulative, a view member standing for another", async () => {
    const base = edit({
      [ORDERS]: [
        [
          '        sql: created_at\n        type: time\n',
          '        sql: created_at\n        type: time\n        granularities:\n          - name: fiscal_year\n            interval: 1 year\n            offset: 1 month\n',
        ],
      ],
    });
    const head = edit({
      [ORDERS]: [
        [
          '        sql: created_at\n        type: time\n',
          '        sql: created_at\n        type: time\n        granularities:\n          - name: fiscal_year\n            interval: 1 year\n            offset: 3 month\n',
        ],
        ['        type: sum\n        sql: amount\n', '        type: sum\n        sql: amount\n        rolling_window:\n          trailing: 7 day\n'],
      ],
      [VIEW]: [
        ['          - name\n          - country\n', '          - name: country\n            alias: name\n          - name: name\n            alias: country\n'],
      ],
    });
    const cs = diffMeta(await meta(base), await meta(head));
    expect(brief(cs).filter((r) => !String(r[3]).startsWith('title') && !String(r[3]).includes('description'))).toEqual([
      ['orders.created_at', 'changed', false, 'granularity fiscal_year: offset 1 month → 3 month'],
      ['orders.total_amount', 'changed', false, 'became cumulative'],
      ['orders_view.created_at', 'changed', false, 'granularity fiscal_year: offset 1 month → 3 month'],
      ['orders_view.customers_country', 'changed', false, 'stands for customers.name (was customers.country)'],
      ['orders_view.customers_name', 'changed', false, 'stands for customers.country (was customers.name)'],
    ]);
    // A view member does not say `cumulative` in /meta: the definition diff follows it (definition-diff.test.ts).
    expect(cs.members.filter((m) => m.values).length).toBe(5);
    expect(countChanges(cs)).toMatchObject({ breaking: 0, values: 5 });
  });

  it('a cube renamed is one rename per member, not removals and additions; a new cube is added', async () => {
    const payments = (name: string) =>
      `cubes:\n  - name: ${name}\n    sql_table: public.payments\n    measures:\n      - name: count\n        type: count\n      - name: amount\n        type: sum\n        sql: amount\n`;
    const base = { ...DEMO_MODEL, 'model/cubes/payments.yml': payments('payments') };
    const head = { ...DEMO_MODEL, 'model/cubes/payments.yml': payments('payment_events'), 'model/cubes/refunds.yml': payments('refunds') };
    const cs = diffMeta(await meta(base), await meta(head));
    expect(cs.cubes).toEqual([
      { name: 'payments', type: 'cube', change: 'renamed', to: 'payment_events' },
      { name: 'refunds', type: 'cube', change: 'added' },
    ]);
    expect(brief(cs)).toEqual([
      ['payments.amount', 'renamed', true, 'cube renamed to payment_events'],
      ['payments.count', 'renamed', true, 'cube renamed to payment_events'],
      ['refunds.amount', 'added', false, 'cube refunds added'],
      ['refunds.count', 'added', false, 'cube refunds added'],
    ]);
    expect(cs.members[0]!.to).toBe('payment_events.amount');
  });

  it('a cube removed: every member removed, breaking', async () => {
    const head: Record<string, string> = { ...DEMO_MODEL, [ORDERS]: DEMO_MODEL[ORDERS]!.replace(/ {4}joins:[\s\S]*?measures:/, '    measures:') };
    delete head[VIEW];
    delete head['model/cubes/customers.yml'];
    const cs = diffMeta(await meta(DEMO_MODEL), await meta(head));
    expect(cs.cubes).toEqual([
      { name: 'customers', type: 'cube', change: 'removed' },
      { name: 'orders_view', type: 'view', change: 'removed' },
    ]);
    expect(cs.members.filter((m) => m.cube === 'customers').map((m) => m.details[0])).toEqual([
      'cube customers removed',
      'cube customers removed',
      'cube customers removed',
    ]);
    expect(countChanges(cs).breaking).toBe(9);
  });

  it('refuses a body that is not /meta, naming what it held', () => {
    expect(() => parseMeta({ error: 'Continue wait' }, 'production')).toThrow('production: /meta answered without a cubes list (keys error)');
    expect(() => parseMeta('<html>', 'staging')).toThrow('staging: /meta answered without a cubes list ("<html>")');
  });
});
