/**
 * The definition diff from before/after model pairs: one pair per kind of change the issue lists,
 * each classified (breaking, values, non-breaking), with the members whose numbers move. YAML and
 * JS spellings of the same model read the same.
 */
import { describe, expect, it } from 'vitest';
import { compareDefinitions } from '../src/impact/definition/index.js';
import { flattenSourceTree } from '../src/impact/definition/files.js';
import { modelFilesOf } from '../src/model/model-files.js';

const ORDERS = `cubes:
  - name: orders
    sql_table: public.orders
    joins:
      - name: customers
        relationship: many_to_one
        sql: "{CUBE}.customer_id = {customers}.id"
    measures:
      - name: count
        type: count
      - name: total_amount
        type: sum
        sql: amount
      - name: average
        type: number
        sql: "{total_amount} / NULLIF({count}, 0)"
      - name: weekly
        type: sum
        sql: amount
        rolling_window:
          trailing: 7 day
      - name: completed_amount
        type: sum
        sql: amount
        filters:
          - sql: "{CUBE}.status = 'completed'"
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: status
        sql: status
        type: string
      - name: created_at
        sql: created_at
        type: time
        granularities:
          - name: fiscal_year
            interval: 1 year
            offset: 1 month
    segments:
      - name: completed
        sql: "{CUBE}.status = 'completed'"
`;
const CUSTOMERS = `cubes:
  - name: customers
    sql_table: public.customers
    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: country
        sql: country
        type: string
      - name: region
        sql: region
        type: string
`;
const VIEW = `views:
  - name: orders_view
    cubes:
      - join_path: orders
        includes: [count, total_amount, average, status]
      - join_path: orders.customers
        prefix: true
        includes: [country]
`;
const BASE = { 'model/cubes/orders.yml': ORDERS, 'model/cubes/customers.yml': CUSTOMERS, 'model/views/orders_view.yml': VIEW };

/** The diff of the base model and one with `file` edited by `edit`. */
function diff(file: keyof typeof BASE, edit: (s: string) => string) {
  const head = { ...BASE, [file]: edit(BASE[file]) };
  expect(head[file]).not.toBe(BASE[file]);
  const r = compareDefinitions(new Map(Object.entries(BASE)), new Map(Object.entries(head)));
  return { ...r, rows: r.changes.map((c) => [c.member ?? c.cube, c.aspect, c.class, c.detail]) };
}

describe('definition diff: one model pair per kind of change', () => {
  it("a measure's sql: values change, and what uses it (a formula, the view member) moves too", () => {
    const r = diff('model/cubes/orders.yml', (s) =>
      s.replace('        sql: amount\n      - name: average', '        sql: amount * 0.9\n      - name: average'),
    );
    expect(r.rows).toEqual([['orders.total_amount', 'sql', 'values', 'sql amount → amount * 0.9']]);
    expect([...r.values]).toEqual([
      ['orders.total_amount', 'sql amount → amount * 0.9'],
      ['orders.average', 'uses orders.total_amount'],
      ['orders_view.total_amount', 'stands for orders.total_amount'],
      ['orders_view.average', 'stands for orders.average'],
    ]);
  });

  it('a filter added to a measure, and one removed', () => {
    const added = diff('model/cubes/orders.yml', (s) =>
      s.replace(
        '        sql: amount\n      - name: average',
        '        sql: amount\n        filters:\n          - sql: "{CUBE}.amount > 0"\n      - name: average',
      ),
    );
    expect(added.rows).toEqual([['orders.total_amount', 'filters', 'values', 'filter added: {CUBE}.amount > 0']]);
    const removed = diff('model/cubes/orders.yml', (s) => s.replace('        filters:\n          - sql: "{CUBE}.status = \'completed\'"\n', ''));
    expect(removed.rows).toEqual([['orders.completed_amount', 'filters', 'values', "filter removed: {CUBE}.status = 'completed'"]]);
  });

  it('a rolling window widened, and a measure becoming cumulative', () => {
    expect(diff('model/cubes/orders.yml', (s) => s.replace('trailing: 7 day', 'trailing: 30 day')).rows).toEqual([
      ['orders.weekly', 'rolling window', 'values', 'rolling window trailing 7 day → trailing 30 day'],
    ]);
    const cumulative = diff('model/cubes/orders.yml', (s) =>
      s.replace(
        '        sql: amount\n      - name: average',
        '        sql: amount\n        rolling_window:\n          trailing: unbounded\n      - name: average',
      ),
    );
    expect(cumulative.rows).toEqual([['orders.total_amount', 'rolling window', 'values', 'became cumulative (rolling window trailing unbounded)']]);
  });

  it("a cube pointed at another table, or at a sql of its own: every member's numbers move", () => {
    const table = diff('model/cubes/customers.yml', (s) => s.replace('public.customers', 'public.customers_v2'));
    expect(table.rows).toEqual([['customers', 'sql_table', 'values', 'sql_table public.customers → public.customers_v2']]);
    expect([...table.values.keys()]).toEqual(['customers.count', 'customers.id', 'customers.country', 'customers.region', 'orders_view.customers_country']);
    const sql = diff('model/cubes/customers.yml', (s) => s.replace('sql_table: public.customers', 'sql: SELECT * FROM public.customers WHERE id > 10'));
    expect(sql.rows).toEqual([['customers', 'sql_table', 'values', 'sql_table public.customers → sql SELECT * FROM public.customers WHERE id > 10']]);
  });

  it("a join's relationship and condition: values change for the view members across it; a join removed is breaking", () => {
    const rel = diff('model/cubes/orders.yml', (s) => s.replace('relationship: many_to_one', 'relationship: one_to_many'));
    expect(rel.rows).toEqual([['orders', 'join', 'values', 'join to customers: relationship many_to_one → one_to_many']]);
    expect([...rel.values]).toEqual([['orders_view.customers_country', 'orders: join to customers: relationship many_to_one → one_to_many']]);
    const cond = diff('model/cubes/orders.yml', (s) => s.replace('{CUBE}.customer_id = {customers}.id', '{CUBE}.buyer_id = {customers}.id'));
    expect(cond.rows).toEqual([
      ['orders', 'join', 'values', 'join to customers: condition {CUBE}.customer_id = {customers}.id → {CUBE}.buyer_id = {customers}.id'],
    ]);
    const gone = diff('model/cubes/orders.yml', (s) => s.replace(/ {4}joins:\n(?: {6,}.*\n)+/, ''));
    expect(gone.rows).toEqual([['orders', 'join', 'breaking', 'join to customers removed']]);
    // Older spellings of the same relationship are no change.
    expect(diff('model/cubes/orders.yml', (s) => s.replace('many_to_one', 'belongs_to')).rows).toEqual([]);
  });

  it("a primary key moved: the cube's measures move (and the new key leaves /meta)", () => {
    const r = diff('model/cubes/customers.yml', (s) =>
      s.replace(
        '        primary_key: true\n      - name: country\n        sql: country',
        '      - name: country\n        sql: country\n        primary_key: true',
      ),
    );
    // A primary key is hidden from /meta unless made public: the new key leaves it.
    expect(r.rows).toEqual([
      ['customers', 'primary key', 'values', 'primary key id → country'],
      ['customers.country', 'visibility', 'breaking', 'made private'],
    ]);
    expect([...r.values.keys()]).toEqual(['customers.count']);
  });

  it("a segment's sql", () => {
    const r = diff('model/cubes/orders.yml', (s) =>
      s.replace(/(segments:\n {6}- name: completed\n {8}sql: )".*"/, `$1"{CUBE}.status IN ('completed', 'shipped')"`),
    );
    expect(r.rows).toEqual([['orders.completed', 'sql', 'values', "sql {CUBE}.status = 'completed' → {CUBE}.status IN ('completed', 'shipped')"]]);
  });

  it("a custom granularity's interval and offset", () => {
    const r = diff('model/cubes/orders.yml', (s) =>
      s.replace('interval: 1 year\n            offset: 1 month', 'interval: 6 month\n            offset: 2 month'),
    );
    expect(r.rows).toEqual([
      ['orders.created_at', 'granularity', 'values', 'granularity fiscal_year: interval 1 year → 6 month'],
      ['orders.created_at', 'granularity', 'values', 'granularity fiscal_year: offset 1 month → 2 month'],
    ]);
  });

  it('a view member pointing at another cube member (aliasMember)', () => {
    const r = diff('model/views/orders_view.yml', (s) =>
      s.replace('        includes: [country]', '        includes:\n          - name: region\n            alias: country'),
    );
    expect(r.rows).toEqual([['orders_view.customers_country', 'alias', 'values', 'stands for customers.region (was customers.country)']]);
  });

  it("a calculated measure's formula", () => {
    const r = diff('model/cubes/orders.yml', (s) => s.replace('{total_amount} / NULLIF({count}, 0)', '{completed_amount} / NULLIF({count}, 0)'));
    expect(r.rows).toEqual([['orders.average', 'formula', 'values', 'formula {total_amount} / NULLIF({count}, 0) → {completed_amount} / NULLIF({count}, 0)']]);
    expect([...r.values.keys()]).toEqual(['orders.average', 'orders_view.average']);
  });

  it('an access policy added, changed and removed', () => {
    const policy = (values: string) =>
      `    access_policy:\n      - group: "*"\n        row_level:\n          filters:\n            - member: country\n              operator: equals\n              values: [${values}]\n`;
    const withPolicy = (v: string) => (s: string) => `${s}${policy(v)}`;
    expect(diff('model/cubes/customers.yml', withPolicy('"Germany"')).rows).toEqual([['customers', 'access policy', 'values', 'access policy added']]);
    const changed = compareDefinitions(
      new Map([['model/c.yml', withPolicy('"Germany"')(CUSTOMERS)]]),
      new Map([['model/c.yml', withPolicy('"France"')(CUSTOMERS)]]),
    );
    expect(changed.changes.map((c) => c.detail)).toEqual(['access policy changed']);
    expect(changed.values.get('customers.country')).toBe('customers: access policy changed');
    const removed = compareDefinitions(new Map([['model/c.yml', withPolicy('"Germany"')(CUSTOMERS)]]), new Map([['model/c.yml', CUSTOMERS]]));
    expect(removed.changes.map((c) => [c.aspect, c.class, c.detail])).toEqual([['access policy', 'values', 'access policy removed']]);
  });

  it('a member or a cube made private is a breaking "made private"; pre-aggregations and a join added are non-breaking', () => {
    const member = diff('model/cubes/customers.yml', (s) =>
      s.replace('        sql: region\n        type: string\n', '        sql: region\n        type: string\n        public: false\n'),
    );
    expect(member.rows).toEqual([['customers.region', 'visibility', 'breaking', 'made private']]);
    const cube = diff('model/cubes/customers.yml', (s) =>
      s.replace('    sql_table: public.customers\n', '    sql_table: public.customers\n    public: false\n'),
    );
    expect(cube.rows).toEqual([['customers', 'visibility', 'breaking', 'made private']]);
    const pre = diff('model/cubes/orders.yml', (s) => `${s}    pre_aggregations:\n      - name: main\n        measures: [count]\n`);
    expect(pre.rows).toEqual([['orders', 'pre-aggregations', 'non-breaking', 'pre-aggregations changed (speed, not numbers)']]);
    expect(pre.values.size).toBe(0);
  });

  it('titles and descriptions are not definition changes (the /meta diff has them); layout is no change', () => {
    expect(
      diff('model/cubes/orders.yml', (s) =>
        s.replace('      - name: count\n        type: count\n', '      - name: count\n        type: count\n        title: Orders\n'),
      ).rows,
    ).toEqual([]);
    expect(
      diff('model/cubes/orders.yml', (s) => s.replace('sql: "{total_amount} / NULLIF({count}, 0)"', 'sql: "{total_amount}  /  NULLIF({count}, 0) "')).rows,
    ).toEqual([]);
  });
});

describe('definition reading', () => {
  it('a JS model and its YAML twin read the same (templates, arrow functions, camelCase keys)', () => {
    const js = `cube(\`orders\`, {
  sqlTable: 'public.orders',
  joins: { customers: { relationship: 'belongsTo', sql: \`\${CUBE}.customer_id = \${customers}.id\` } },
  measures: {
    count: { type: 'count' },
    total_amount: { type: 'sum', sql: () => \`amount\` },
    average: { type: 'number', sql: \`\${total_amount} / NULLIF(\${count}, 0)\` },
    weekly: { type: 'sum', sql: 'amount', rollingWindow: { trailing: '7 day' } },
    completed_amount: { type: 'sum', sql: \`amount\`, filters: [{ sql: (CUBE) => \`\${CUBE}.status = 'completed'\` }] },
  },
  dimensions: {
    id: { sql: 'id', type: 'number', primaryKey: true },
    status: { sql: 'status', type: 'string' },
    created_at: { sql: 'created_at', type: 'time', granularities: { fiscal_year: { interval: '1 year', offset: '1 month' } } },
  },
  segments: { completed: { sql: \`\${CUBE}.status = 'completed'\` } },
});
`;
    const r = compareDefinitions(
      new Map(Object.entries(BASE)),
      new Map(
        Object.entries({ ...BASE, 'model/cubes/orders.yml': undefined, 'model/cubes/orders.js': js }).filter((e): e is [string, string] => e[1] !== undefined),
      ),
    );
    expect(r.changes).toEqual([]);
    expect(r.notices).toEqual([]);
  });

  it("extends brings the parent's members, joins, table and visibility", () => {
    const model = new Map([
      [
        'model/a.yml',
        'cubes:\n  - name: base\n    sql_table: t\n    public: false\n    measures:\n      - name: n\n        type: count\n  - name: child\n    extends: base\n',
      ],
    ]);
    const edited = new Map([['model/a.yml', (model.get('model/a.yml') ?? '').replace('sql_table: t', 'sql_table: t2')]]);
    const r = compareDefinitions(model, edited);
    expect(r.changes.map((c) => [c.cube, c.detail])).toEqual([
      ['base', 'sql_table t → t2'],
      ['child', 'sql_table t → t2'],
    ]);
    expect(r.head.cubes.get('child')?.public).toBe(false);
  });

  it('Jinja, Python and unreadable files are named, never silently dropped', () => {
    const r = compareDefinitions(
      new Map([['model/a.yml', 'cubes:\n  - name: a\n    sql_table: "{{ table }}"\n']]),
      new Map([
        ['model/a.yml', 'cubes: [\n'],
        ['model/b.js', 'cube(`x`, {'],
        ['model/globals.py', ''],
      ]),
    );
    expect(r.notices).toEqual([
      'production: model/a.yml was not compared: a Jinja template (its output is known only to the platform)',
      expect.stringMatching(/^this pull request: model\/a\.yml was not compared: not valid YAML/),
      'this pull request: model/b.js was not compared: not valid JavaScript',
      'this pull request: model/globals.py was not compared: a Jinja or Python file (its output is known only to the platform)',
    ]);
  });

  it("the platform's source tree, nested (the vendor's shape) or flat, gives the files under model/", () => {
    const nested = [
      { path: '/cube.js', type: 'file', content: 'x' },
      {
        path: '/model',
        type: 'directory',
        children: [{ path: '/model/cubes', type: 'directory', children: [{ fileName: 'a.yml', path: 'a.yml', type: 'file', content: 'A' }] }],
      },
    ];
    expect([...modelFilesOf(flattenSourceTree(nested))]).toEqual([['model/cubes/a.yml', 'A']]);
    expect([...modelFilesOf(flattenSourceTree([{ path: 'schema/b.js', content: 'B' }]))]).toEqual([['schema/b.js', 'B']]);
  });
});
