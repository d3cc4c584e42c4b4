import { describe, expect, it } from 'vitest';
import { compileModel, type CompileResult, type CompiledCube } from '../packages/emulator/src/build/compiler/index.js';

// Line numbers in comments are 1-based and are what the assertions below rely on
// (the "fixture layout" test pins them).
const ORDERS = [
  'cubes:', //                                              1
  '  - name: orders', //                                    2
  '    sql_table: public.orders', //                        3
  '    title: Orders', //                                   4
  '', //                                                    5
  '    joins:', //                                          6
  '      - name: customers', //                             7
  '        relationship: many_to_one', //                   8
  '        sql: "{CUBE}.customer_id = {customers.id}"', //  9
  '', //                                                    10
  '    measures:', //                                       11
  '      - name: count', //                                 12
  '        type: count', //                                 13
  '      - name: total', //                                 14
  '        type: sum', //                                   15
  '        sql: amount', //                                 16
  '', //                                                    17
  '    dimensions:', //                                     18
  '      - name: id', //                                    19
  '        sql: id', //                                     20
  '        type: number', //                                21
  '        primary_key: true', //                           22
  '      - name: status', //                                23
  '        sql: status', //                                 24
  '        type: string', //                                25
  '      - name: created_at', //                            26
  '        sql: created_at', //                             27
  '        type: time', //                                  28
  '', //                                                    29
  '    segments:', //                                       30
  '      - name: completed', //                             31
  `        sql: "{CUBE}.status = 'completed'"`, //          32
  '',
].join('\n');

const CUSTOMERS = [
  'cubes:', //                                   1
  '  - name: customers', //                      2
  '    sql: SELECT * FROM public.customers', //  3
  '', //                                         4
  '    dimensions:', //                          5
  '      - name: id', //                         6
  '        sql: id', //                          7
  '        type: number', //                     8
  '        primary_key: true', //                9
  '      - name: name', //                       10
  '        sql: name', //                        11
  '        type: string', //                     12
  '', //                                         13
  '    measures:', //                            14
  '      - name: count', //                      15
  '        type: count', //                      16
  '',
].join('\n');

const VIEW = [
  'views:', //                                1
  '  - name: orders_view', //                 2
  '    cubes:', //                            3
  '      - join_path: orders', //             4
  '        includes:', //                     5
  '          - count', //                     6
  '          - total', //                     7
  '          - status', //                    8
  '', //                                      9
  '      - join_path: orders.customers', //   10
  '        prefix: true', //                  11
  '        includes: "*"', //                 12
  '        excludes:', //                     13
  '          - count', //                     14
  '',
].join('\n');

const ORDERS_PATH = 'model/cubes/orders.yml';
const CUSTOMERS_PATH = 'model/cubes/customers.yml';
const VIEW_PATH = 'model/views/orders_view.yml';

function baseModel(): Record<string, Buffer | string> {
  return {
    'cube.js': Buffer.from('module.exports = {\n};\n'),
    [ORDERS_PATH]: Buffer.from(ORDERS),
    [CUSTOMERS_PATH]: Buffer.from(CUSTOMERS),
    [VIEW_PATH]: Buffer.from(VIEW),
    'README.md': Buffer.from('# model\n'),
    '.gitignore': Buffer.from('node_modules\n'),
    'package.json': Buffer.from('{ "name": "model" }\n'),
  };
}

/** The base model with one file's text changed by an exact, must-match replacement. */
function edit(path: string, from: string, to: string, files = baseModel()): Record<string, Buffer | string> {
  const text = String(files[path]);
  if (!text.includes(from)) throw new Error(`fixture ${path} has no ${JSON.stringify(from)}`);
  return { ...files, [path]: text.replace(from, to) };
}

function messages(r: CompileResult): string[] {
  return r.errors.map((e) => e.message);
}

function cube(r: CompileResult, name: string): CompiledCube {
  const c = r.cubes.find((x) => x.name === name);
  if (!c) throw new Error(`no compiled cube ${name}; got ${r.cubes.map((x) => x.name).join(', ')}`);
  return c;
}

/** Exactly one error; returns its message after checking the fileName. */
function onlyError(r: CompileResult, fileName: string): string {
  expect(messages(r)).toHaveLength(1);
  expect(r.valid).toBe(false);
  expect(r.errors[0]!.fileName).toBe(fileName);
  return r.errors[0]!.message;
}

describe('fixture layout', () => {
  it('has the lines the assertions rely on', () => {
    const o = ORDERS.split('\n');
    expect(o[1]).toBe('  - name: orders');
    expect(o[5]).toBe('    joins:');
    expect(o[6]).toBe('      - name: customers');
    expect(o[7]).toBe('        relationship: many_to_one');
    expect(o[11]).toBe('      - name: count');
    expect(o[14]).toBe('        type: sum');
    expect(o[18]).toBe('      - name: id');
    expect(o[22]).toBe('      - name: status');
    expect(o[30]).toBe('      - name: completed');
    const v = VIEW.split('\n');
    expect(v[6]).toBe('          - total');
    expect(v[9]).toBe('      - join_path: orders.customers');
    expect(v[11]).toBe('        includes: "*"');
  });
});

describe('a valid model', () => {
  const r = compileModel(baseModel());

  it('is valid with no errors', () => {
    expect(r.errors).toEqual([]);
    expect(r.valid).toBe(true);
  });

  it('compiles cubes and views in file then declaration order', () => {
    expect(r.cubes.map((c) => [c.name, c.type, c.fileName])).toEqual([
      ['customers', 'cube', CUSTOMERS_PATH],
      ['orders', 'cube', ORDERS_PATH],
      ['orders_view', 'view', VIEW_PATH],
    ]);
  });

  it('compiles the orders cube with full member names', () => {
    const o = cube(r, 'orders');
    expect(o.title).toBe('Orders');
    expect(o.sqlTable).toBe('public.orders');
    expect(o.sql).toBeUndefined();
    expect(o.measures).toEqual([
      { name: 'orders.count', type: 'count' },
      { name: 'orders.total', type: 'sum', sql: 'amount' },
    ]);
    expect(o.dimensions.map((d) => [d.name, d.type])).toEqual([
      ['orders.id', 'number'],
      ['orders.status', 'string'],
      ['orders.created_at', 'time'],
    ]);
    expect(o.segments.map((s) => s.name)).toEqual(['orders.completed']);
    expect(o.segments[0]!.sql).toBe("{CUBE}.status = 'completed'");
  });

  it('compiles a cube defined with sql', () => {
    const c = cube(r, 'customers');
    expect(c.sql).toBe('SELECT * FROM public.customers');
    expect(c.sqlTable).toBeUndefined();
    expect(c.measures.map((m) => m.name)).toEqual(['customers.count']);
  });

  it('renames included members into the view, with prefix and excludes', () => {
    const v = cube(r, 'orders_view');
    expect(v.measures).toEqual([
      { name: 'orders_view.count', type: 'count' },
      { name: 'orders_view.total', type: 'sum' },
    ]);
    expect(v.dimensions).toEqual([
      { name: 'orders_view.status', type: 'string' },
      { name: 'orders_view.customers_id', type: 'number' },
      { name: 'orders_view.customers_name', type: 'string' },
    ]);
    expect(v.segments).toEqual([]);
  });

  it('accepts a string input and ignores non-model files, even unparsable ones', () => {
    const files = {
      ...baseModel(),
      [ORDERS_PATH]: ORDERS,
      'README.md': Buffer.from([0xff, 0xfe, 0x00]),
      'package.json': 'not json {',
      'other/cubes.yml': 'cubes: [ : :',
    };
    const res = compileModel(files);
    expect(res.errors).toEqual([]);
    expect(res.cubes).toHaveLength(3);
  });
});

describe('measures and dimensions', () => {
  it('reports an unknown measure type at the type line', () => {
    const r = compileModel(edit(ORDERS_PATH, '        type: sum', '        type: summ'));
    expect(onlyError(r, ORDERS_PATH)).toBe(
      'model/cubes/orders.yml:15: measure "orders.total" has unknown type "summ"; expected one of count, count_distinct, count_distinct_approx, sum, avg, min, max, number, string, time, boolean, number_agg, rank',
    );
    expect(r.cubes).toEqual([]);
  });

  it('reports a measure without a type at its item line', () => {
    const r = compileModel(edit(ORDERS_PATH, '      - name: count\n        type: count\n', '      - name: count\n'));
    expect(onlyError(r, ORDERS_PATH)).toBe('model/cubes/orders.yml:12: measure "orders.count" is missing "type"');
  });

  it('reports an unknown dimension type', () => {
    const r = compileModel(edit(ORDERS_PATH, '        type: time', '        type: timestamp'));
    const m = onlyError(r, ORDERS_PATH);
    expect(m.startsWith('model/cubes/orders.yml:28: ')).toBe(true);
    expect(m).toContain('dimension "orders.created_at" has unknown type "timestamp"; expected one of string, number, time, boolean, geo');
  });

  it('reports a dimension without sql at its item line', () => {
    const r = compileModel(edit(ORDERS_PATH, '        sql: status\n', ''));
    expect(onlyError(r, ORDERS_PATH)).toBe('model/cubes/orders.yml:23: dimension "orders.status" is missing "sql"');
  });

  it('requires latitude and longitude on a geo dimension, but no sql', () => {
    const geo = '      - name: location\n        type: geo\n        latitude:\n          sql: lat\n';
    const ok = compileModel(edit(ORDERS_PATH, '      - name: created_at', `${geo}        longitude:\n          sql: lng\n      - name: created_at`));
    expect(ok.errors).toEqual([]);
    expect(cube(ok, 'orders').dimensions.map((d) => d.name)).toContain('orders.location');

    const bad = compileModel(edit(ORDERS_PATH, '      - name: created_at', `${geo}      - name: created_at`));
    // the geo item starts on line 26, where created_at used to be
    expect(onlyError(bad, ORDERS_PATH)).toBe('model/cubes/orders.yml:26: geo dimension "orders.location" is missing "longitude"');
  });

  it('rejects a member name that is not an identifier', () => {
    const r = compileModel(edit(ORDERS_PATH, '      - name: created_at', '      - name: created-at'));
    const m = onlyError(r, ORDERS_PATH);
    expect(m.startsWith('model/cubes/orders.yml:26: ')).toBe(true);
    expect(m).toContain('"created-at" is not a valid identifier');
  });

  it('reports a duplicate member across measures and dimensions, naming the first', () => {
    const r = compileModel(edit(ORDERS_PATH, '      - name: created_at', '      - name: total'));
    expect(onlyError(r, ORDERS_PATH)).toBe(
      'model/cubes/orders.yml:26: duplicate member "orders.total": already defined as a measure at line 14',
    );
  });

  it('allows several primary key dimensions (a composite key)', () => {
    const r = compileModel(edit(ORDERS_PATH, '        type: string\n', '        type: string\n        primary_key: true\n'));
    expect(r.errors).toEqual([]);
    expect(r.valid).toBe(true);
  });
});

describe('cubes', () => {
  it('rejects a cube name that is not an identifier', () => {
    const files = edit(ORDERS_PATH, '  - name: orders', '  - name: 1orders');
    const r = compileModel(files);
    // the view and its join path still refer to "orders", which no longer exists
    expect(messages(r)).toContain(
      'model/cubes/orders.yml:2: cube name "1orders" is not a valid identifier (expected ^[a-zA-Z_][a-zA-Z0-9_]*$)',
    );
  });

  it('requires a cube name', () => {
    const r = compileModel({ 'model/a.yml': 'cubes:\n  - sql_table: t\n    title: x\n' });
    expect(onlyError(r, 'model/a.yml')).toBe('model/a.yml:2: cube is missing "name"');
  });

  it('requires sql or sql_table', () => {
    const r = compileModel(edit(ORDERS_PATH, '    sql_table: public.orders\n', ''));
    expect(onlyError(r, ORDERS_PATH)).toBe('model/cubes/orders.yml:2: cube "orders" needs "sql" or "sql_table"');
  });

  it('rejects both sql and sql_table, at the later key', () => {
    const r = compileModel(edit(ORDERS_PATH, '    title: Orders', '    sql: SELECT 1'));
    expect(onlyError(r, ORDERS_PATH)).toBe('model/cubes/orders.yml:4: cube "orders" has both "sql" and "sql_table"; use one');
  });

  it('rejects sql_table given twice through its alias', () => {
    const r = compileModel(edit(ORDERS_PATH, '    title: Orders', '    sqlTable: other'));
    expect(onlyError(r, ORDERS_PATH)).toBe('model/cubes/orders.yml:4: cube "orders" has both "sql_table" and "sqlTable"; use one');
  });

  it('accepts the sqlTable alias', () => {
    const r = compileModel(edit(ORDERS_PATH, '    sql_table: public.orders', '    sqlTable: public.orders'));
    expect(r.errors).toEqual([]);
    expect(cube(r, 'orders').sqlTable).toBe('public.orders');
  });

  it('lets an extending cube omit sql and inherit members', () => {
    const files = {
      ...baseModel(),
      'model/cubes/big_orders.yml': [
        'cubes:',
        '  - name: big_orders',
        '    extends: orders',
        '    measures:',
        '      - name: total',
        '        type: max',
        '        sql: amount',
        '      - name: average',
        '        type: avg',
        '        sql: amount',
        '',
      ].join('\n'),
    };
    const r = compileModel(files);
    expect(r.errors).toEqual([]);
    const b = cube(r, 'big_orders');
    expect(b.sqlTable).toBe('public.orders');
    expect(b.measures).toEqual([
      { name: 'big_orders.count', type: 'count' },
      { name: 'big_orders.total', type: 'max', sql: 'amount' },
      { name: 'big_orders.average', type: 'avg', sql: 'amount' },
    ]);
    expect(b.dimensions.map((d) => d.name)).toContain('big_orders.status');
  });

  it('reports extends of an unknown cube', () => {
    const r = compileModel({ 'model/a.yml': 'cubes:\n  - name: a\n    extends: nope\n' });
    expect(onlyError(r, 'model/a.yml')).toBe('model/a.yml:3: cube "a" extends unknown cube "nope"');
  });

  it('requires cubes to be a list', () => {
    const r = compileModel({ 'model/a.yml': '# comment\ncubes: orders\n' });
    expect(onlyError(r, 'model/a.yml')).toBe('model/a.yml:2: "cubes" must be a list, got a string');
  });

  it('reports a non-mapping item in cubes at its line', () => {
    const r = compileModel(edit(CUSTOMERS_PATH, 'cubes:\n', 'cubes:\n  - just a string\n'));
    expect(onlyError(r, CUSTOMERS_PATH)).toBe('model/cubes/customers.yml:2: each item of "cubes" must be a mapping, got a string');
  });

  it('rejects unknown top-level keys', () => {
    const r = compileModel(edit(CUSTOMERS_PATH, 'cubes:\n', 'cube:\n  - name: x\ncubes:\n'));
    expect(onlyError(r, CUSTOMERS_PATH)).toBe(
      'model/cubes/customers.yml:1: unexpected top-level key "cube"; only "cubes" and "views" are allowed',
    );
  });

  it('reads model files under a top-level schema/ folder', () => {
    const r = compileModel({ 'schema/customers.yaml': CUSTOMERS });
    expect(r.errors).toEqual([]);
    expect(r.cubes.map((c) => c.name)).toEqual(['customers']);
    expect(r.cubes[0]!.fileName).toBe('schema/customers.yaml');
  });
});

describe('joins', () => {
  it('reports a join to an unknown cube, naming it', () => {
    const r = compileModel(edit(ORDERS_PATH, '      - name: customers', '      - name: custmers'));
    expect(messages(r)).toContain('model/cubes/orders.yml:7: join in cube "orders" refers to unknown cube "custmers"');
    // the view's join path orders.customers is now broken too
    expect(messages(r)).toContain(
      'model/views/orders_view.yml:10: view "orders_view" join_path "orders.customers": cube "orders" has no join to "customers"',
    );
    expect(r.errors).toHaveLength(2);
  });

  it('reports an unknown relationship at its line', () => {
    const r = compileModel(edit(ORDERS_PATH, 'relationship: many_to_one', 'relationship: many_to_many'));
    const m = onlyError(r, ORDERS_PATH);
    expect(m.startsWith('model/cubes/orders.yml:8: join "orders.customers" has unknown relationship "many_to_many"; expected one of one_to_one, one_to_many, many_to_one, belongs_to, has_many, has_one')).toBe(true);
  });

  it('accepts camelCase relationships', () => {
    for (const rel of ['manyToOne', 'belongsTo', 'hasMany', 'hasOne', 'oneToOne', 'oneToMany']) {
      const r = compileModel(edit(ORDERS_PATH, 'relationship: many_to_one', `relationship: ${rel}`));
      expect({ rel, errors: r.errors }).toEqual({ rel, errors: [] });
    }
  });

  it('requires sql on a join', () => {
    const r = compileModel(edit(ORDERS_PATH, '        sql: "{CUBE}.customer_id = {customers.id}"\n', ''));
    expect(onlyError(r, ORDERS_PATH)).toBe('model/cubes/orders.yml:7: join "orders.customers" is missing "sql"');
  });

  it('requires a primary key dimension on a cube with joins', () => {
    const r = compileModel(edit(ORDERS_PATH, '        primary_key: true\n', ''));
    expect(onlyError(r, ORDERS_PATH)).toBe('model/cubes/orders.yml:6: cube "orders" has joins but no primary_key dimension');
  });

  it('does not need a primary key without joins', () => {
    const r = compileModel(edit(CUSTOMERS_PATH, '        primary_key: true\n', ''));
    expect(r.errors).toEqual([]);
  });
});

describe('views', () => {
  it('reports an included member that does not exist', () => {
    const r = compileModel(edit(VIEW_PATH, '          - total', '          - totl'));
    expect(onlyError(r, VIEW_PATH)).toBe('model/views/orders_view.yml:7: view "orders_view" includes unknown member "orders.totl"');
  });

  it('reports a join path hop that is not a declared join', () => {
    const r = compileModel(edit(VIEW_PATH, 'join_path: orders.customers', 'join_path: customers.orders'));
    expect(onlyError(r, VIEW_PATH)).toBe(
      'model/views/orders_view.yml:10: view "orders_view" join_path "customers.orders": cube "customers" has no join to "orders"',
    );
  });

  it('reports a join path starting at an unknown cube', () => {
    const r = compileModel(edit(VIEW_PATH, 'join_path: orders\n', 'join_path: ordrs\n'));
    expect(onlyError(r, VIEW_PATH)).toBe('model/views/orders_view.yml:4: view "orders_view" join_path "ordrs" refers to unknown cube "ordrs"');
  });

  it('reports duplicate members in a view at the second inclusion', () => {
    // drop the prefix so customers' id and name come in bare, and include orders.id so id collides
    const files = edit(VIEW_PATH, '        prefix: true\n', '', edit(VIEW_PATH, '          - status', '          - status\n          - id'));
    const r = compileModel(files);
    expect(onlyError(r, VIEW_PATH)).toBe(
      'model/views/orders_view.yml:12: view "orders_view" has duplicate member "orders_view.id" (from customers.id; first from orders.id)',
    );
  });

  it('applies an include alias', () => {
    const r = compileModel(edit(VIEW_PATH, '          - total', '          - name: total\n            alias: revenue'));
    expect(r.errors).toEqual([]);
    expect(cube(r, 'orders_view').measures.map((m) => m.name)).toEqual(['orders_view.count', 'orders_view.revenue']);
  });

  it('accepts the older measures/dimensions form and checks each reference', () => {
    const view = ['views:', '  - name: legacy', '    measures:', '      - orders.count', '    dimensions:', '      - orders.status', '      - customers.nme', ''].join('\n');
    const r = compileModel({ ...baseModel(), 'model/views/legacy.yml': view });
    expect(onlyError(r, 'model/views/legacy.yml')).toBe('model/views/legacy.yml:7: view "legacy" includes unknown member "customers.nme"');

    const ok = compileModel({ ...baseModel(), 'model/views/legacy.yml': view.replace('customers.nme', 'customers.name') });
    expect(ok.errors).toEqual([]);
    const legacy = cube(ok, 'legacy');
    expect(legacy.measures.map((m) => m.name)).toEqual(['legacy.count']);
    expect(legacy.dimensions.map((m) => m.name)).toEqual(['legacy.status', 'legacy.name']);
  });
});

describe('global rules', () => {
  it('resolves references across files regardless of file order', () => {
    const files = baseModel();
    // customers now sorts after both orders.yml and the view
    const moved = Object.fromEntries(Object.entries(files).map(([p, v]) => [p === CUSTOMERS_PATH ? 'model/zz/customers.yml' : p, v]));
    const r = compileModel(moved);
    expect(r.errors).toEqual([]);
    expect(r.cubes.map((c) => c.name)).toEqual(['orders', 'orders_view', 'customers']);
  });

  it('reports a duplicate cube in another file, naming the first definition', () => {
    const r = compileModel({ ...baseModel(), 'model/cubes/z_more.yml': '\ncubes:\n  - name: orders\n    sql_table: x\n' });
    expect(onlyError(r, 'model/cubes/z_more.yml')).toBe(
      'model/cubes/z_more.yml:3: cube "orders" is already defined at model/cubes/orders.yml:2',
    );
  });

  it('reports a view named like a cube', () => {
    const r = compileModel(edit(VIEW_PATH, '  - name: orders_view', '  - name: customers'));
    expect(onlyError(r, VIEW_PATH)).toBe(
      'model/views/orders_view.yml:2: view "customers" is already defined at model/cubes/customers.yml:2 (as a cube)',
    );
  });

  it('sorts errors by file then line, and is independent of input order', () => {
    let files = edit(VIEW_PATH, '          - total', '          - totl');
    files = edit(ORDERS_PATH, '        type: sum', '        type: summ', files);
    files = edit(ORDERS_PATH, '        primary_key: true\n', '', files); // a global check, found after line 15's
    files = edit(CUSTOMERS_PATH, '        type: string', '        type: text', files);
    const r = compileModel(files);
    expect(r.errors.map((e) => e.message.split(': ')[0])).toEqual([
      'model/cubes/customers.yml:12',
      'model/cubes/orders.yml:6',
      'model/cubes/orders.yml:15',
      'model/views/orders_view.yml:7',
    ]);
    const reversed = Object.fromEntries(Object.entries(files).reverse());
    expect(compileModel(reversed)).toEqual(r);
  });
});

describe('file level errors', () => {
  it('reports a YAML syntax error with its line, without cascading errors elsewhere', () => {
    const r = compileModel(edit(CUSTOMERS_PATH, '        sql: name\n', '        sql: name: x\n'));
    // the join and the view still find the customers cube that the broken file declares
    expect(onlyError(r, CUSTOMERS_PATH)).toBe(
      'model/cubes/customers.yml:11: YAML syntax error: Nested mappings are not allowed in compact mappings',
    );
  });

  it('reports only the syntax error for a broken file, not its semantic errors', () => {
    const broken = ['cubes:', '  - name: broken', '    sql_table: t', '    joins:', '      - name: nowhere', '        relationship: belongs_to', '        sql: "1 = 1"', '    title: a: b', ''].join('\n');
    const r = compileModel({ ...baseModel(), 'model/cubes/broken.yml': broken });
    expect(onlyError(r, 'model/cubes/broken.yml')).toMatch(/^model\/cubes\/broken\.yml:8: YAML syntax error: /);
  });

  it('reports a duplicate YAML key at the second key', () => {
    const r = compileModel(edit(CUSTOMERS_PATH, '    sql: SELECT * FROM public.customers\n', '    sql: a\n    sql: b\n'));
    const m = onlyError(r, CUSTOMERS_PATH);
    expect(m).toMatch(/^model\/cubes\/customers\.yml:4: YAML syntax error: Map keys must be unique/);
  });

  it('reports a JavaScript syntax error with its line, without running the file', () => {
    const r = compileModel({ ...baseModel(), 'cube.js': 'module.exports = {\n  a: 1,\n  b: (,\n};\n' });
    const m = onlyError(r, 'cube.js');
    expect(m).toMatch(/^cube\.js:3: SyntaxError: /);

    const thrower = compileModel({ ...baseModel(), 'cube.js': 'throw new Error("ran");\nprocess.exit(3);\n' });
    expect(thrower.errors).toEqual([]);
  });

  it('syntax-checks other .js files too', () => {
    const r = compileModel({ ...baseModel(), 'model/cubes/legacy.js': 'cube(`legacy`, {\n  sql: `x`\n  measures: {}\n});\n' });
    expect(onlyError(r, 'model/cubes/legacy.js')).toMatch(/^model\/cubes\/legacy\.js:3: SyntaxError: /);
  });

  it('reports a file that is not valid UTF-8, without a line', () => {
    const bad = Buffer.concat([Buffer.from('cubes:\n  - name: caf'), Buffer.from([0xe9]), Buffer.from('\n    sql_table: t\n')]);
    const r = compileModel({ ...baseModel(), 'model/cubes/cafe.yml': bad });
    expect(r.errors).toEqual([{ message: 'model/cubes/cafe.yml: file is not valid UTF-8', fileName: 'model/cubes/cafe.yml' }]);
    expect(r.valid).toBe(false);
  });
});
