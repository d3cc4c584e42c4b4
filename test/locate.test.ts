/** The error locator (src/model/locate/): each wording of Cube's compiler, on small models of ours. */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLocator, locateError } from '../src/model/locate/index.js';
import { resolveFileName } from '../src/model/locate/model-set.js';
import { readModelTexts, walkModel } from '../src/model/local-model.js';
import { keyVariants, parsePath } from '../src/model/locate/model-tree.js';
import { mistakeClaim, validatorClaims } from '../src/model/locate/message.js';

const ORDERS_YML = `cubes:
  - name: orders
    sql_table: public.orders
    joins:
      - name: customers
        sql: "{CUBE}.customer_id = {customers.id}"
        relationship: many_to_one
    measures:
      - name: count
        type: count
      - name: total
        sql: amount
        type: summ
        rolling_window:
          trailing: two weeks
    dimensions:
      - name: city
        # {users.city} was the old column
        sql: "{users.city}"
        type: string
    pre_aggregations:
      - name: by_city
        type: rollupp
`;

const ORDERS_JS = `cube(\`orders\`, {
  sqlTable: \`public.orders\`,
  joins: {
    customers: { sql: \`\${CUBE}.customer_id = \${customers.id}\`, relationship: \`belongs_to_many\` },
  },
  measures: {
    count: { type: \`count\` },
    total: { sql: \`amount\`, type: \`summ\` },
  },
  dimensions: {
    city: { sql: \`\${customers.citty}\`, type: \`string\` },
  },
});
`;

const SALES_YML = `views:
  - name: sales
    cubes:
      - join_path: orders
        includes:
          - count
          - statuss
    folders:
      - name: Main
        includes:
          - count
          - cityy
`;

const files = {
  'model/cubes/orders.yml': ORDERS_YML,
  'model/cubes/orders_js.js': ORDERS_JS.replace('`orders`', '`orders_js`'),
  'model/views/sales.yml': SALES_YML,
};
const lineOf = (text: string, needle: string, from = 0) => text.split('\n').findIndex((l, i) => i >= from && l.includes(needle)) + 1;
const at = (fileName: string | null, message: string, texts: Record<string, string> = files) => locateError({ fileName, message }, texts);

describe('file names', () => {
  it('resolves against the project root, model/, or the one path that ends with it; never outside', () => {
    const paths = Object.keys(files);
    expect(resolveFileName('model/cubes/orders.yml', paths)).toBe('model/cubes/orders.yml');
    expect(resolveFileName('cubes/orders.yml', paths)).toBe('model/cubes/orders.yml');
    expect(resolveFileName('./views/sales.yml', paths)).toBe('model/views/sales.yml');
    expect(resolveFileName('sales.yml', paths)).toBe('model/views/sales.yml');
    expect(resolveFileName('../model/cubes/orders.yml', paths)).toBeUndefined();
    expect(resolveFileName('orders.yml', [...paths, 'model/old/orders.yml'])).toBeUndefined();
  });

  it('gives a file that is not in the checkout no line', () => {
    expect(at('cubes/gone.yml', 'orders cube: (measures.total.type) is required')).toEqual({ file: 'cubes/gone.yml', precision: 'file' });
    expect(at('globals.py', 'bad indentation (1:1)')).toEqual({ file: 'globals.py', precision: 'file' });
  });

  it('finds the named cube across the files when the platform names no file', () => {
    expect(at(null, 'orders cube: "measures.total.type" must be one of [count, sum]')).toMatchObject({
      file: 'model/cubes/orders.yml',
      line: lineOf(ORDERS_YML, 'type: summ'),
      precision: 'exact',
    });
    expect(at(undefined as unknown as null, "Member 'cityy' included in folder 'Main' not found")).toMatchObject({
      file: 'model/views/sales.yml',
      line: lineOf(SALES_YML, 'cityy'),
    });
    expect(at(null, 'Something failed')).toEqual({ precision: 'none' });
  });
});

describe('positions in the message', () => {
  it('reads (line:col): 1-based columns for YAML, 0-based for JS; strips colour codes', () => {
    expect(at('cubes/orders.yml', '\u001b[31mbad indentation of a mapping entry (4:5)\u001b[39m\n\n 4 |     joins:')).toEqual({
      file: 'model/cubes/orders.yml',
      line: 4,
      column: 5,
      precision: 'exact',
    });
    expect(at('cubes/orders_js.js', 'Unexpected token, expected "," (6:2)')).toEqual({
      file: 'model/cubes/orders_js.js',
      line: 6,
      column: 3,
      precision: 'exact',
    });
  });

  it('never takes the column for the line (the old (23:13) bug), nor a line past the end', () => {
    const r = at('cubes/orders.yml', 'Syntax error during parsing: unexpected token (23:13)');
    expect(r).toMatchObject({ line: 23, column: 13 });
    expect(at('cubes/orders.yml', 'duplicated mapping key (230:1)')).toEqual({ file: 'model/cubes/orders.yml', precision: 'file' });
  });

  it('reads a Babel code frame', () => {
    const msg = 'Syntax Error: Duplicate property parsing count\n  6 |   measures: {\n> 7 |     count: { type: `count` },\n    |    ^^^^^ Duplicate property';
    expect(at('cubes/orders_js.js', msg)).toMatchObject({ line: 7, column: 5, precision: 'exact' });
  });

  it('points an unclosed YAML quote or flow collection at where it opens, not at the end of the stream', () => {
    const quote = 'cubes:\n  - name: orders\n    sql_table: "public.orders\n    measures: []\n';
    expect(at('a.yml', 'unexpected end of the stream within a double quoted scalar (5:1)', { 'model/a.yml': quote })).toMatchObject({ line: 3, column: 16 });
    const flow = 'cubes:\n  - { name: orders, sql_table: x\n';
    expect(at('a.yml', 'unexpected end of the stream within a flow collection (3:1)', { 'model/a.yml': flow })).toMatchObject({ line: 2, column: 5 });
  });

  it('points a JS template that swallowed code at its opening backtick', () => {
    const js = 'cube(`orders`, {\n  sql_table: `public.orders,\n  measures: {\n    count: { type: `count` },\n  },\n});\n';
    expect(at('orders.js', 'Unexpected token, expected "," (4:20)', { 'model/orders.js': js })).toMatchObject({ line: 2, column: 14 });
    // A multi-line SQL template followed by a real mistake keeps the parser's position.
    const sql = 'cube(`orders`, {\n  sql: `SELECT *\n    FROM orders`\n  measures: {},\n});\n';
    expect(at('orders.js', 'Unexpected token, expected "," (4:2)', { 'model/orders.js': sql })).toMatchObject({ line: 4 });
  });
});

describe('validator paths', () => {
  it('parses paths and maps camelCase keys to snake_case', () => {
    expect(parsePath('cubes[0].includes[0].alias')).toEqual(['cubes', 0, 'includes', 0, 'alias']);
    expect(parsePath('measures.total amount')).toEqual(['measures', 'total amount']);
    expect(parsePath('value')).toEqual([]);
    expect(keyVariants('preAggregations')).toContain('pre_aggregations');
    expect(keyVariants('sql_table')).toContain('sqlTable');
  });

  it('finds the key a path names, through member names, in YAML and JS', () => {
    const yml = (m: string) => at('cubes/orders.yml', `orders cube: ${m}`);
    expect(yml('"measures.total.type" must be one of [count, sum]. "measures.total.sql" is not allowed')).toMatchObject({
      line: lineOf(ORDERS_YML, 'type: summ'),
      column: 9,
      precision: 'exact',
    });
    expect(yml('(measures.total.rollingWindow.trailing = two weeks) does not match regexp')).toMatchObject({ line: lineOf(ORDERS_YML, 'trailing:') });
    expect(yml('"preAggregations.by_city.type" must be one of [rollup]')).toMatchObject({ line: lineOf(ORDERS_YML, 'type: rollupp') });
    expect(yml('(joins[0].relationship = manyToFew) must be one of [belongsTo]')).toMatchObject({ line: lineOf(ORDERS_YML, 'relationship:') });
    expect(yml('"sqlTable" is not allowed')).toMatchObject({ line: 3, precision: 'exact' });
    const js = at('cubes/orders_js.js', 'orders_js cube: (measures.total.type = summ) must be one of [count, sum]');
    expect(js).toMatchObject({ line: lineOf(ORDERS_JS, 'total:'), column: 29, precision: 'exact' });
    expect(at('cubes/orders_js.js', 'orders_js cube: (joins[0].relationship = belongsToMany) must be one of [belongsTo]')).toMatchObject({ line: 4 });
    expect(at('cubes/orders_js.js', 'orders_js cube -> measures: "sqlTable" is not allowed')).toMatchObject({ line: 2 });
  });

  it('puts a missing key on its member, and the root on the cube', () => {
    expect(at('cubes/orders.yml', 'orders cube: (measures.count.sql) is required')).toMatchObject({
      line: lineOf(ORDERS_YML, 'name: count'),
      precision: 'member',
    });
    expect(at('cubes/orders.yml', 'orders cube: (value = [object Object]) must contain at least one of [sql, sqlTable]')).toMatchObject({
      line: 2,
      precision: 'cube',
    });
    expect(at('views/sales.yml', 'sales cube: (cubes[0].joinPath) is required')).toMatchObject({ line: 4, precision: 'exact' });
    expect(at('views/sales.yml', 'sales cube: (cubes[0].prefix) is required')).toMatchObject({ line: 4, precision: 'member' });
  });

  it('falls back to the cube when a path is not in the file, never to another line', () => {
    expect(at('cubes/orders.yml', 'orders cube: (segments.done.sql) is required')).toEqual({
      file: 'model/cubes/orders.yml',
      line: 2,
      column: 5,
      precision: 'cube',
    });
    expect(at('cubes/orders.yml', 'nobody cube: (measures.x.type) is required')).toEqual({ file: 'model/cubes/orders.yml', precision: 'file' });
  });

  it('chooses the reason that names the mistake from "Possible reasons"', () => {
    const reasons = (lines: string[]) =>
      mistakeClaim(
        validatorClaims(
          ['"dimensions.city" does not match any of the allowed types', 'Possible reasons (one of):', ...lines.map((l) => `\t* ${l}`)].join('\n'),
        ),
      );
    // A wrong value beats a missing key; a discriminating `must be [time]` is only another alternative.
    expect(
      reasons([
        '(dimensions.city.case) is required',
        '(dimensions.city.type = text) must be one of [string, time]',
        '(dimensions.city.type = text) must be [time]',
      ]),
    ).toMatchObject({ path: ['dimensions', 'city', 'type'], verdict: 'value', sentence: '(dimensions.city.type = text) must be one of [string, time]' });
    // A missing key beats a key another alternative forbids.
    expect(reasons(['(dimensions.city.type) is required', '(dimensions.city.sql = () => `city`) is not allowed'])).toMatchObject({
      path: ['dimensions', 'city', 'type'],
      verdict: 'required',
    });
    // `case`, `latitude`, `longitude` only name the other kinds of dimension.
    expect(
      reasons([
        '(dimensions.city.granularities = [object Object]) is not allowed',
        '(dimensions.city.case) is required',
        '(dimensions.city.latitude) is required',
      ]),
    ).toMatchObject({ path: ['dimensions', 'city', 'granularities'], verdict: 'not-allowed' });
  });
});

describe('references and duplicates', () => {
  it('finds the line that writes a reference, preferring {…} and skipping comments', () => {
    expect(at('cubes/orders.yml', 'users is not defined')).toMatchObject({ line: lineOf(ORDERS_YML, 'sql: "{users.city}"'), precision: 'exact' });
    expect(at('cubes/orders_js.js', "customers.citty cannot be resolved. There's no such member or cube.")).toMatchObject({ line: lineOf(ORDERS_JS, 'citty') });
    expect(at('cubes/orders.yml', "orders cube: Cube customers doesn't exist")).toMatchObject({ line: lineOf(ORDERS_YML, 'name: customers') });
    expect(at('views/sales.yml', "sales cube: Member 'statuss' is included in 'sales' but not defined in any cube")).toMatchObject({ line: 7, column: 13 });
  });

  it('reads `<cube>.x` as `CUBE.x` inside that cube, and CUBE is never wrong in a sql key', () => {
    const yml =
      'cubes:\n  - name: orders\n    sql_table: t\n    measures:\n      - name: total\n        sql: "{CUBE.amout}"\n        filters:\n          - sq: "{CUBE}.done"\n';
    expect(at('a.yml', 'orders.amout cannot be resolved.', { 'model/a.yml': yml })).toMatchObject({ line: 6 });
    expect(at('a.yml', 'CUBE is not defined', { 'model/a.yml': yml.replace('{CUBE.amout}', '{CUBE}.amount') })).toMatchObject({ line: 8 });
  });

  it('finds imports, requires and thrown messages in JS', () => {
    const js = "const fs = require('fs');\nimport { p } from './lib/helpers';\nthrow new Error('not ready');\n";
    const texts = { 'model/a.js': js };
    expect(at('a.js', "Package 'fs' not found", texts)).toMatchObject({ line: 1 });
    expect(at('a.js', 'Required import for helpers.js is not found', texts)).toMatchObject({ line: 2 });
    expect(at('a.js', 'not ready', texts)).toMatchObject({ line: 3 });
  });

  it('puts a duplicate on its second definition', () => {
    const yml =
      'cubes:\n  - name: orders\n    sql_table: t\n    measures:\n      - name: count\n        type: count\n    dimensions:\n      - name: count\n        sql: c\n        type: string\n  - name: orders\n    sql_table: u\n';
    const texts = { 'model/a.yml': yml, 'model/b.yml': 'views:\n  - name: orders\n' };
    expect(at('a.yml', 'orders cube: count defined more than once', texts)).toMatchObject({ line: 8, precision: 'exact' });
    expect(at('a.yml', "Found duplicate cube name 'orders'.", texts)).toMatchObject({ line: 11 });
    expect(at('b.yml', "Found conflicting cube and view name 'orders'.", texts)).toMatchObject({ file: 'model/b.yml', line: 2 });
    const dup = 'cubes:\n  - name: orders\n    measures:\n      - name: count\n        type: count\n      - name: count\n        type: sum\n';
    expect(at('a.yml', "Member names must be unique within a cube. Found duplicate measure 'count' in cube 'orders'.", { 'model/a.yml': dup })).toMatchObject({
      line: 6,
    });
  });

  it("places the YAML transpiler's structure errors", () => {
    const yml = 'cube:\n  - name: orders\n';
    expect(at('a.yml', "Unexpected YAML key: cube. Only 'cubes', 'views', and 'view_groups' are allowed here.", { 'model/a.yml': yml })).toMatchObject({
      line: 1,
    });
    const map = 'cubes:\n  - name: orders\n    measures:\n      count:\n        type: count\n';
    expect(at('a.yml', 'measures must be defined as array', { 'model/a.yml': map })).toMatchObject({ line: 3 });
    const unnamed = 'cubes:\n  - name: orders\n    measures:\n      - name: count\n        type: count\n      - type: sum\n        sql: amount\n';
    expect(at('a.yml', 'name isn\'t defined for measure: {"type":"sum","sql":"amount"}', { 'model/a.yml': unnamed })).toMatchObject({
      line: 6,
      precision: 'member',
    });
    expect(at('a.yml', 'Unexpected input during yaml transpiling: undefined', { 'model/a.yml': 'cubes:\n  - sql_table: t\n' })).toMatchObject({
      line: 2,
      precision: 'cube',
    });
  });

  it('parses each file once for many errors', () => {
    const locate = createLocator(new Map(Object.entries(files)));
    expect(locate({ fileName: 'cubes/orders.yml', message: 'users is not defined' }).line).toBe(19);
    expect(locate({ fileName: 'cubes/orders.yml', message: 'orders cube: (measures.total.type) is required' }).line).toBe(13);
  });
});

describe('reading the checkout', () => {
  it("reads the YAML and JS files of the upload's walk by their platform path (a symlinked folder inside as the upload sends it); skips what is never uploaded or excluded", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dmci-locate-'));
    const put = (p: string, text: string) => {
      mkdirSync(dirname(join(dir, p)), { recursive: true });
      writeFileSync(join(dir, p), text);
    };
    put('model/cubes/a.yml', 'cubes: []\n');
    put('model/cubes/b.js', 'cube(`b`, {});\n');
    put('model/README.md', '# not a model\n');
    put('node_modules/x/index.js', '');
    put('.github/workflows/ci.yml', '');
    symlinkSync(join(dir, 'model'), join(dir, 'model-link'));
    try {
      const texts = await readModelTexts(await walkModel(dir));
      expect([...texts.keys()].sort()).toEqual(['model-link/cubes/a.yml', 'model-link/cubes/b.js', 'model/cubes/a.yml', 'model/cubes/b.js']);
      // The run's own walk is what is read (exclude honoured).
      const walked = await walkModel(dir, { exclude: ['model-link/**', 'model/cubes/b.js'] });
      expect([...(await readModelTexts(walked)).keys()]).toEqual(['model/cubes/a.yml']);
      expect(texts.get('model/cubes/a.yml')).toBe('cubes: []\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
