/**
 * The kinds of error the locator used to put on the wrong line or on none, one test each, with Cube's
 * own wording (as @cubejs-backend/schema-compiler 1.7.43 words them for the corpus's models), and the
 * folding of echoes under their root cause. The corpus (test/locate-corpus.test.ts) checks the same
 * kinds on whole models compiled by Cube.
 */
import { describe, expect, it } from 'vitest';
import { locateError, placeErrors, type CompilerError } from '../src/model/locate/index.js';

const USERS = `cubes:
  - name: users
    sql_table: shop.users
    dimensions:
      - name: id
        sql: id
        type: number
        primery_key: true
      - name: city
        sql: city
        type: string
`;

const ORDERS = `cubes:
  - name: orders
    sql_table: shop.orders
    joins:
      - name: users
        sql: "{CUBE}.user_id = {users.id}"
        relationship: many_to_one
    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: status
        sql: status
        type: string
`;

const SALES = `views:
  - name: sales
    cubes:
      - join_path: orders
        prefix: true
        includes:
          - count
          - status
      - join_path: orders.users
        alias: buyers
        prefix: true
        includes:
          - city
          - name: id
            alias: count
      - join_path: users
        includes: "*"
    folders:
      - name: Orders
        includes:
          - orders_count
          - orders.status
      - name: Orders
        includes:
          - name: Nested
            includes:
              - buyers_cty
          - join_path: products
`;

const files = { 'model/users.yml': USERS, 'model/orders.yml': ORDERS, 'model/sales.yml': SALES };
const at = (message: string, fileName?: string, texts: Record<string, string> = files) => locateError(fileName ? { fileName, message } : { message }, texts);

describe('views: the include that yields a name twice', () => {
  it('puts a collision on the later include: an alias, an item under a prefix, or `includes: "*"`', () => {
    // Without the prefix `buyers`, the alias `orders_count` collides with orders' `count`; users' "*" yields `city` again.
    const texts = {
      ...files,
      'model/sales.yml': SALES.replace('alias: count', 'alias: orders_count').replace('        alias: buyers\n        prefix: true\n', ''),
    };
    expect(
      at(
        "sales cube: Included member 'orders_count' conflicts with existing member of 'sales'. Please consider excluding this member or assigning it an alias.",
        'model/sales.yml',
        texts,
      ),
    ).toMatchObject({ line: 13, precision: 'exact' });
    expect(
      at(
        "sales cube: Included member 'city' conflicts with existing member of 'sales'. Please consider excluding this member or assigning it an alias.",
        'model/sales.yml',
        texts,
      ),
    ).toMatchObject({ line: 15 });
  });

  it("puts a collision with the view's own member on that member", () => {
    const own = SALES.replace('    cubes:\n', '    measures:\n      - name: orders_status\n        type: count\n    cubes:\n');
    expect(
      at("sales cube: Included member 'orders_status' conflicts with existing member of 'sales'.", 'model/sales.yml', { ...files, 'model/sales.yml': own }),
    ).toMatchObject({ line: 4 });
  });

  it("puts a collision with a parent view's include (extends) on the view's own include, not on a folder after it", () => {
    // `sales` gives `city` through users' "*"; the alias here gives it again.
    const child =
      'views:\n  - name: sales_by_city\n    extends: sales\n    cubes:\n      - join_path: users\n        includes:\n          - name: id\n            alias: city\n    folders:\n      - name: Users\n        includes:\n          - city\n';
    const texts = { ...files, 'model/sales_by_city.yml': child };
    const message =
      "sales_by_city cube: Included member 'city' conflicts with existing member of 'sales_by_city'. Please consider excluding this member or assigning it an alias.";
    expect(at(message, 'model/sales_by_city.yml', texts)).toMatchObject({ file: 'model/sales_by_city.yml', line: 8, precision: 'exact' });
  });

  it('puts a member no cube defines on the include that names it, prefix and all', () => {
    expect(at("sales cube: Member 'buyers_city' is included in 'sales' but not defined in any cube", 'model/sales.yml')).toMatchObject({ line: 13 });
  });
});

describe('folders', () => {
  it('puts a duplicate folder on the second, a path on its item, a nested member and a join path on theirs', () => {
    expect(at("Folder names must be unique within a view. Found duplicate folder 'Orders' in view 'sales'.", 'model/sales.yml')).toMatchObject({ line: 23 });
    expect(at("Paths aren't allowed in the 'folders' but 'orders.status' has been provided for sales", 'model/sales.yml')).toMatchObject({ line: 22 });
    expect(at("Member 'buyers_cty' included in folder 'Nested' not found")).toMatchObject({ file: 'model/sales.yml', line: 27 });
    expect(at("Join path 'products' included in folder 'Orders' not found in view 'sales' cubes definition")).toMatchObject({ line: 28 });
  });
});

describe('joins', () => {
  it('puts a join to a cube without a primary key on the join, naming the cube that lacks it', () => {
    const noKey = { ...files, 'model/users.yml': USERS.replace('        primery_key: true\n', '') };
    expect(
      at("orders cube: primary key for 'users' is required when join is defined in order to make aggregates work properly", 'model/orders.yml', noKey),
    ).toEqual({
      file: 'model/orders.yml',
      line: 5,
      column: 9,
      precision: 'exact',
      note: 'users (model/users.yml:2) has no dimension with primary_key: true',
    });
  });

  it('puts a second join to the same cube on the later declaration', () => {
    const twice = ORDERS.replace(
      '    measures:\n',
      '      - name: users\n        sql: "{CUBE}.buyer_id = {users.id}"\n        relationship: many_to_one\n    measures:\n',
    );
    const message = "orders cube: Cube 'orders' declares 2 joins to 'users' (joins[0], joins[1]). Only one join per pair of cubes is supported.";
    expect(at(message, 'model/orders.yml', { 'model/orders.yml': twice })).toMatchObject({ line: 8 });
  });
});

describe('keys and syntax', () => {
  it('puts a misspelled key on itself, not on the alternative the validator tried first', () => {
    const message = `users cube: "dimensions.id" does not match any of the allowed types
Possible reasons (one of):
\t* (dimensions.id.case) is required
\t* (dimensions.id.sql = () => \`id\`) is not allowed
\t* (dimensions.id.primeryKey = true) is not allowed
\t* (dimensions.id.type = number) must be [time]`;
    expect(at(message, 'model/users.yml')).toMatchObject({ line: 8, precision: 'exact' });
  });

  it('finds a key the validator names without its path', () => {
    const masking = ORDERS + '    access_policy:\n      - group: support\n        member_masking:\n          includes: "*"\n';
    expect(at('orders cube: "memberMasking" missing required peer "memberLevel"', 'model/orders.yml', { 'model/orders.yml': masking })).toMatchObject({
      line: 21,
    });
  });

  it("reads the line Cube puts in a YAML file's name, and goes back to the quote that was never closed", () => {
    const unclosed = ORDERS.replace('        sql: status\n', '        sql: "status\n');
    const texts = { 'model/orders.yml': unclosed + '      - name: note\n        sql: "note"\n' };
    const message = 'bad indentation of a mapping entry (20:15)\n\n 19 |       - name: note\n 20 |         sql: "note"\n-------------------^';
    expect(at(message, 'model/orders.yml:20', texts)).toMatchObject({ file: 'model/orders.yml', line: 17, precision: 'exact' });
    // A file not in the checkout keeps no line.
    expect(at(message, 'model/other.yml:20', texts)).toEqual({ file: 'model/other.yml', precision: 'file' });
  });
});

describe('circular extends (Cube says only "Maximum call stack size exceeded", with no file)', () => {
  it('finds the cycle and names it, on the extends of its first cube', () => {
    const js = {
      'model/refunds.js': 'cube(`refunds`, {\n  extends: returns,\n});\n',
      'model/returns.js': 'cube(`returns`, {\n  extends: refunds,\n  sql_table: `shop.returns`,\n});\n',
    };
    expect(at('Maximum call stack size exceeded', undefined, js)).toMatchObject({
      file: 'model/refunds.js',
      line: 2,
      note: 'circular extends: refunds → returns → refunds',
    });
    const self = { 'model/users.yml': USERS.replace('    sql_table', '    extends: users\n    sql_table') };
    expect(at('Maximum call stack size exceeded', undefined, self)).toMatchObject({ line: 3, note: 'circular extends: users → users' });
    expect(at('Maximum call stack size exceeded', undefined, files)).toEqual({ precision: 'none' });
  });
});

describe('root causes and their echoes', () => {
  const place = (errors: CompilerError[], texts: Record<string, string> = files) => placeErrors(errors, texts).map((p) => p.echoOf);
  const invalidUsers = { fileName: 'model/users.yml', message: 'users cube: "dimensions.id" does not match any of the allowed types' };

  it('folds a join and a reference to a failed cube under its error', () => {
    expect(
      place([
        invalidUsers,
        { fileName: 'model/orders.yml', message: "orders cube: Cube users doesn't exist" },
        { fileName: 'model/sales.yml', message: "orders.users cannot be resolved. There's no such member or cube." },
      ]),
    ).toEqual([undefined, 0, 0]);
  });

  it('leaves a real typo a root cause, even beside an echo of the same cube', () => {
    expect(
      place([
        invalidUsers,
        { fileName: 'model/sales.yml', message: "users.cty cannot be resolved. There's no such member or cube." },
        { fileName: 'model/orders.yml', message: "orders cube: Cube userz doesn't exist" },
      ]),
    ).toEqual([undefined, undefined, undefined]);
  });

  it('folds a file that fails as a whole, a parent repeated by the cube that extends it, a folder member an include would give', () => {
    const throwing = { 'model/orders.yml': ORDERS, 'model/users.js': 'const x = require(`./columns`);\ncube(`users`, { sql_table: `shop.users` });\n' };
    expect(
      place(
        [
          { fileName: 'model/users.js', message: 'Required import for columns.js is not found' },
          { fileName: 'model/orders.yml', message: "orders cube: Cube users doesn't exist" },
        ],
        throwing,
      ),
    ).toEqual([undefined, 0]);
    const child = { ...files, 'model/vip.yml': 'cubes:\n  - name: vip_users\n    extends: users\n' };
    expect(
      place([invalidUsers, { fileName: 'model/vip.yml', message: 'vip_users cube: "dimensions.id" does not match any of the allowed types' }], child),
    ).toEqual([undefined, 0]);
    const typo = { ...files, 'model/sales.yml': SALES.replace('          - status\n', '          - stat\n') };
    expect(
      place(
        [
          { fileName: 'model/sales.yml', message: "sales cube: Member 'orders_stat' is included in 'sales' but not defined in any cube" },
          { fileName: 'model/sales.yml', message: "Member 'orders_status' included in folder 'Orders' not found" },
        ],
        typo,
      ),
    ).toEqual([undefined, 0]);
  });

  it('folds the joins and paths to a cube whose file Cube cannot read: a JS syntax error, a misspelt top-level key', () => {
    const joins = [
      { fileName: 'model/orders.yml', message: "orders cube: Cube users doesn't exist" },
      { fileName: 'model/sales.yml', message: "orders.users cannot be resolved. There's no such member or cube." },
    ];
    const broken = { 'model/orders.yml': ORDERS, 'model/sales.yml': SALES, 'model/users.js': 'cube(`users`, {\n  sql_table: `shop.users`;\n});\n' };
    expect(place([{ fileName: 'model/users.js', message: 'Unexpected token, expected "," (2:25)' }, ...joins], broken)).toEqual([undefined, 0, 0]);
    const misspelt = { 'model/users.yml': USERS.replace('cubes:', 'cube:') };
    const key = { fileName: 'model/users.yml', message: "Unexpected YAML key: cube. Only 'cubes', 'views', and 'view_groups' are allowed here." };
    expect(place([key, ...joins], { ...files, ...misspelt })).toEqual([undefined, 0, 0]);
    // A cube no file writes stays a root cause of its own.
    expect(place([key, { fileName: 'model/orders.yml', message: "orders cube: Cube userz doesn't exist" }], { ...files, ...misspelt })).toEqual([
      undefined,
      undefined,
    ]);
  });

  it('never folds two errors into each other', () => {
    const mutual = {
      'model/a.yml': 'cubes:\n  - name: a\n    joins:\n      - name: b\n',
      'model/b.yml': 'cubes:\n  - name: b\n    joins:\n      - name: a\n',
    };
    const echoes = place(
      [
        { fileName: 'model/a.yml', message: "a cube: Cube b doesn't exist" },
        { fileName: 'model/b.yml', message: "b cube: Cube a doesn't exist" },
      ],
      mutual,
    );
    expect(echoes.filter((e) => e === undefined).length).toBeGreaterThanOrEqual(1);
  });
});
