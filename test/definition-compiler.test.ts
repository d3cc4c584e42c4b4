/**
 * The definition reader against Cube's own compiler: the same files compiled by
 * `@cubejs-backend/schema-compiler` (the emulator's engine) and read by src/impact/definition must
 * agree on every cube and view, its visibility, table, joins and members: kind, type, sql, filters,
 * rolling window, primary key, granularities and (views) the cube member each stands for.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';
import { compileFiles } from '../packages/emulator/src/engine/compile.js';
import type { ModelDefinition } from '../src/impact/base/model-definition.js';
import { modelDefinition } from '../src/impact/definition/source.js';
import { REPOINTED, RENAMED, SCHOOL_MODEL } from './support/school-model.js';

type Fn = ((...args: unknown[]) => unknown) | undefined;
type Def = Record<string, unknown>;

/** The compiler's sql function as the text a model writes: `() => \`amount\`` is `amount`, `${CUBE}` is `{CUBE}`. */
function fnText(fn: Fn | string): string | undefined {
  if (fn === undefined) return undefined;
  if (typeof fn === 'string') return fn;
  const src = fn.toString().trim();
  const template = /^(?:\([^)]*\)|[\w$]+)\s*=>\s*`([\s\S]*)`$/.exec(src);
  if (template)
    return (template[1] as string)
      .replace(/\$\{([^}]*)\}/g, '{$1}')
      .replace(/\s+/g, ' ')
      .trim();
  const literal = /^(?:\([^)]*\)|[\w$]+)\s*=>\s*'([^']*)'$/.exec(src);
  if (literal) return literal[1];
  // A view member's sql, made by the compiler: the join path to the cube member it stands for.
  const made = /^function anonymous\([^)]*\)\s*\{\s*return `\$\{([\w.]+)\}`;?\s*\}$/.exec(src);
  if (made) return `{${made[1]}}`;
  return `unreadable: ${src}`;
}

/** A type as YAML writes it: the compiler camel-cases `count_distinct`, a JS model may write either. */
const snake = (t: string | undefined) => t?.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const RELATIONSHIP: Record<string, string> = { belongsTo: 'many_to_one', hasMany: 'one_to_many', hasOne: 'one_to_one' };
const rolling = (r: Def | undefined) =>
  r
    ? ['type', 'granularity', 'trailing', 'leading', 'offset']
        .filter((k) => r[k] !== undefined)
        .map((k) => `${k} ${String(r[k])}`)
        .join(', ') || 'unbounded'
    : undefined;

/** The compiler's evaluated cubes in one plain shape. */
function compilerView(compilers: unknown): Record<string, unknown> {
  const cubes = (compilers as { cubeEvaluator: { evaluatedCubes: Record<string, Def> } }).cubeEvaluator.evaluatedCubes;
  const out: Record<string, unknown> = {};
  for (const [name, c] of Object.entries(cubes)) {
    const members: Record<string, unknown> = {};
    for (const [list, kind] of [
      ['measures', 'measure'],
      ['dimensions', 'dimension'],
      ['segments', 'segment'],
    ] as const) {
      for (const [m, d] of Object.entries((c[list] ?? {}) as Record<string, Def>)) {
        members[m] = {
          kind,
          type: kind === 'segment' ? undefined : snake((d.aggType && c.isView ? d.aggType : d.type) as string | undefined),
          sql: fnText(d.sql as Fn),
          filters: (d.filters as Def[] | undefined)?.map((f) => fnText(f.sql as Fn)),
          rollingWindow: rolling(d.rollingWindow as Def | undefined),
          primaryKey: c.isView ? undefined : d.primaryKey === true || undefined,
          granularities: d.granularities,
          alias: d.aliasMember,
          public: c.isView ? true : ((d.public ?? d.shown ?? !d.primaryKey) as boolean) !== false,
        };
      }
    }
    const joins = Object.fromEntries(
      ((c.joins ?? []) as Def[]).map((j) => [j.name, { relationship: RELATIONSHIP[j.relationship as string] ?? j.relationship, sql: fnText(j.sql as Fn) }]),
    );
    out[name] = {
      type: c.isView ? 'view' : 'cube',
      public: c.public !== false && c.shown !== false,
      sqlTable: fnText(c.sqlTable as Fn),
      sql: fnText(c.sql as Fn),
      joins,
      members,
      accessPolicy: c.accessPolicy !== undefined && (c.accessPolicy as unknown[]).length > 0,
    };
  }
  return out;
}

/** The reader's definitions in the same shape. */
function readerView(def: ModelDefinition): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, c] of def.cubes) {
    const members: Record<string, unknown> = {};
    for (const [m, d] of c.members) {
      const view = c.type === 'view';
      // A view member's type is its cube member's aggregation (what the compiler calls aggType).
      const type = d.kind === 'segment' ? undefined : snake(d.type);
      members[m] = {
        kind: d.kind,
        type,
        // A view member's sql names the join path it is reached through and the cube member it stands for.
        sql: view ? `{${d.path}.${d.alias?.split('.')[1]}}` : d.sql,
        filters: d.filters,
        rollingWindow: d.rollingWindow,
        primaryKey: view ? undefined : d.primaryKey,
        granularities: d.granularities,
        alias: d.alias,
        public: d.public,
      };
    }
    out[name] = {
      type: c.type,
      public: c.public,
      sqlTable: c.sqlTable,
      sql: c.sql,
      joins: Object.fromEntries([...c.joins].map(([j, d]) => [j, { relationship: d.relationship, sql: d.sql }])),
      members,
      accessPolicy: c.accessPolicy !== undefined,
    };
  }
  return out;
}

/** Compile `files` (repository paths) with Cube's compiler and read them with the reader: both views. */
async function both(files: Record<string, string>) {
  const model = Object.entries(files).filter(([p]) => p.startsWith('model/'));
  const compiled = await compileFiles(model.map(([p, content]) => ({ fileName: p.slice('model/'.length), content })));
  expect(compiled.errors).toEqual([]);
  return { compiler: compilerView(compiled.compilers), reader: readerView(modelDefinition(new Map(model))) };
}

const KITCHEN = {
  'model/cubes/orders.js': `cube(\`orders\`, {
  sqlTable: 'public.orders',
  joins: { customers: { relationship: 'belongsTo', sql: \`\${CUBE}.customer_id = \${customers}.id\` } },
  measures: {
    count: { type: 'count' },
    total_amount: { type: 'sum', sql: () => \`amount\`, filters: [{ sql: (CUBE) => \`\${CUBE}.status = 'completed'\` }] },
    average: { type: 'number', sql: \`\${total_amount} / NULLIF(\${count}, 0)\` },
    weekly: { type: 'sum', sql: 'amount', rollingWindow: { trailing: '7 day' } },
    hidden_sum: { type: 'sum', sql: 'amount', public: false },
  },
  dimensions: {
    id: { sql: 'id', type: 'number', primaryKey: true },
    status: { sql: 'status', type: 'string' },
    created_at: { sql: 'created_at', type: 'time', granularities: { fiscal_year: { interval: '1 year', offset: '1 month' } } },
  },
  segments: { completed: { sql: \`\${CUBE}.status = 'completed'\` } },
});
`,
  'model/cubes/customers.yml': `cubes:
  - name: base_customers
    sql: SELECT * FROM public.customers
    public: false
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: country
        sql: "{CUBE}.country"
        type: string
    access_policy:
      - group: "*"
        row_level:
          allow_all: true
  - name: customers
    extends: base_customers
    measures:
      - name: count
        type: count
`,
  'model/views/everything.yml': `views:
  - name: everything
    cubes:
      - join_path: orders
        includes: "*"
        excludes: [hidden_sum]
      - join_path: orders.customers
        prefix: true
        alias: buyer
        includes:
          - name: country
            alias: land
          - count
`,
};

describe("the definition reader and Cube's compiler agree", () => {
  it('on the demo model', async () => {
    const { compiler, reader } = await both(DEMO_MODEL);
    expect(reader).toEqual(compiler);
  });

  it('on JS and YAML cubes with formulas, filters, rolling windows, granularities, segments, extends, a private cube, an access policy and a view with "*", excludes, prefixes and aliases', async () => {
    const { compiler, reader } = await both(KITCHEN);
    expect(Object.keys(reader).sort()).toEqual(['base_customers', 'customers', 'everything', 'orders']);
    expect(reader).toEqual(compiler);
  });

  it('on private cubes with public members, a calendar reached through a join path, then re-pointed, and a cube renamed with every join following it', async () => {
    const member = (v: Record<string, unknown>, view: string, m: string) => ((v[view] as { members: Record<string, { sql?: string }> }).members[m] ?? {}).sql;
    for (const files of [SCHOOL_MODEL, REPOINTED, RENAMED]) {
      const { compiler, reader } = await both(files);
      expect(reader).toEqual(compiler);
    }
    // The compiler names the path in the view member's sql: /meta shows the same member, the sql shows where it now comes from.
    expect(member((await both(SCHOOL_MODEL)).compiler, 'scores_view', 'date_key')).toBe('{scores.administrations.dates.date_key}');
    expect(member((await both(REPOINTED)).compiler, 'scores_view', 'date_key')).toBe('{scores.dates.date_key}');
    expect(member((await both(RENAMED)).compiler, 'attendance_view', 'stint_grade_level')).toBe('{attendance.school_enrollments.grade_level}');
  });
});
