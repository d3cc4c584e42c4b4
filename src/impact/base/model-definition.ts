/**
 * A data model's definitions, resolved as the compiler resolves them: a cube's `extends` brings its
 * parent's members and joins; a view's `cubes` (join paths, includes, excludes, prefixes, aliases)
 * become view members that each stand for a cube member (`aliasMember`). Every value the diff compares
 * is text in one canonical form: YAML `{CUBE}.amount` and JS `${CUBE}.amount` read the same.
 */
import { keyVariants, snakeCase } from '../../model/locate/model-tree.js';
import { readPolicies, type PolicyDef } from './policies.js';
import { readRollups, type RollupDef } from './rollup-definitions.js';

/** Source text of an expression the reader does not evaluate: compared as text. */
export interface Code {
  code: string;
}

export type Raw = string | number | boolean | null | Code | Raw[] | { [key: string]: Raw };
export type RawMap = { [key: string]: Raw };

/** A cube or view definition as written, before `extends` and view includes are resolved. */
export interface RawEntity {
  kind: 'cube' | 'view';
  name: string;
  body: RawMap;
  file: string;
}

/** What the reader (./source.ts) makes of the files. */
export interface ReadModel {
  entities: RawEntity[];
  /** Files that could not be read (syntax errors, templates), and why. */
  skipped: { file: string; why: string }[];
}

export const isCode = (v: Raw | undefined): v is Code => !!v && typeof v === 'object' && !Array.isArray(v) && typeof (v as Code).code === 'string';
export const isMap = (v: Raw | undefined): v is RawMap => !!v && typeof v === 'object' && !Array.isArray(v) && !isCode(v);

/** Both spellings of a key: YAML writes `sql_table`, JS `sqlTable` (the compiler accepts either). */
export function field(map: RawMap | undefined, key: string): Raw | undefined {
  if (!map) return undefined;
  const k = keyVariants(key).find((v) => v in map);
  return k === undefined ? undefined : map[k];
}

export type MemberKind = 'measure' | 'dimension' | 'segment';

export interface MemberDef {
  name: string;
  kind: MemberKind;
  type?: string;
  sql?: string;
  /** Measures: each filter's sql. */
  filters?: string[];
  /** Measures: the rolling window, as canonical text (`trailing 7 day`). */
  rollingWindow?: string;
  primaryKey?: boolean;
  public: boolean;
  /** Time dimensions: custom granularities by name. */
  granularities?: Record<string, { interval?: string; offset?: string; origin?: string; sql?: string }>;
  /** View members: the cube member it stands for. */
  alias?: string;
  /** View members: the join path it is reached through (`scores.administrations.dates`), as the compiler's sql names it. */
  path?: string;
  /** Other definition keys that change numbers (case, sub_query, multi_stage, time_shift, …), canonical text. */
  other?: string;
}

export interface JoinDef {
  /** The cube joined. */
  name: string;
  /** `many_to_one`, `one_to_many` or `one_to_one` (older spellings mapped). */
  relationship?: string;
  sql?: string;
}

export interface CubeDef {
  name: string;
  type: 'cube' | 'view';
  file: string;
  public: boolean;
  sqlTable?: string;
  sql?: string;
  dataSource?: string;
  extends?: string;
  joins: Map<string, JoinDef>;
  members: Map<string, MemberDef>;
  /** Canonical text of the access policy (absent: none). */
  accessPolicy?: string;
  /** The access policies read one by one (src/impact/access/policy.ts); absent with none. */
  accessPolicies?: PolicyDef[];
  /** Canonical text of the pre-aggregations (they change speed, not numbers). */
  preAggregations?: string;
  /** The rollups whose own query can be planned (src/impact/rollups/definitions.ts); absent with none. */
  rollups?: RollupDef[];
  /** Views: the join paths of their cubes (`orders.customers`). */
  paths?: string[];
}

export interface ModelDefinition {
  cubes: Map<string, CubeDef>;
  /** Files or definitions not read, and why. */
  skipped: { file: string; why: string }[];
}

/** Whitespace runs as one space, trimmed: layout is not a change. */
export const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** A value as canonical text: strings as written (squashed), code as source, maps with sorted keys. */
export function canon(v: Raw | undefined): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return squash(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (isCode(v)) return squash(v.code);
  if (Array.isArray(v)) return `[${v.map((x) => canon(x) ?? 'null').join(', ')}]`;
  const keys = Object.keys(v).sort();
  return `{${keys.map((k) => `${snakeCase(k)}: ${canon(v[k]) ?? 'null'}`).join(', ')}}`;
}

const text = (v: Raw | undefined): string | undefined =>
  typeof v === 'string' || typeof v === 'number' ? squash(String(v)) : isCode(v) ? squash(v.code) : undefined;
const isFalse = (v: Raw | undefined) => v === false || v === 'false';
const isTrue = (v: Raw | undefined) => v === true || v === 'true';

const RELATIONSHIP: Record<string, string> = {
  belongsto: 'many_to_one',
  belongs_to: 'many_to_one',
  many_to_one: 'many_to_one',
  manytoone: 'many_to_one',
  hasmany: 'one_to_many',
  has_many: 'one_to_many',
  one_to_many: 'one_to_many',
  onetomany: 'one_to_many',
  hasone: 'one_to_one',
  has_one: 'one_to_one',
  one_to_one: 'one_to_one',
  onetoone: 'one_to_one',
};

/** Keys of a member that change its numbers beyond sql, filters and rolling window. */
const NUMBER_KEYS = ['case', 'subQuery', 'propagateFiltersToSubQuery', 'multiStage', 'timeShift', 'reduceBy', 'addGroupBy', 'groupBy', 'type'];

/** Members of a list: YAML writes a list of items with `name`, JS a map keyed by name. */
function entries(v: Raw | undefined): [string, RawMap][] {
  if (Array.isArray(v)) return v.filter(isMap).flatMap((m) => (typeof m.name === 'string' ? [[m.name, m] as [string, RawMap]] : []));
  if (isMap(v)) return Object.entries(v).flatMap(([k, m]) => (isMap(m) ? [[k, m] as [string, RawMap]] : []));
  return [];
}

function member(name: string, kind: MemberKind, m: RawMap): MemberDef {
  // A primary key is hidden unless made public, as `/meta` shows it.
  const said = field(m, 'public') ?? field(m, 'shown');
  const out: MemberDef = { name, kind, public: said === undefined ? !isTrue(field(m, 'primaryKey')) : !isFalse(said) };
  const type = text(field(m, 'type'));
  if (type) out.type = type;
  const sql = text(field(m, 'sql'));
  if (sql !== undefined) out.sql = sql;
  const filters = field(m, 'filters');
  if (kind === 'measure' && Array.isArray(filters)) out.filters = filters.map((f) => (isMap(f) ? (text(field(f, 'sql')) ?? canon(f) ?? '') : (canon(f) ?? '')));
  const rolling = field(m, 'rollingWindow');
  if (isMap(rolling)) out.rollingWindow = rollingText(rolling);
  if (isTrue(field(m, 'primaryKey'))) out.primaryKey = true;
  const grains = entries(field(m, 'granularities'));
  if (grains.length) {
    out.granularities = {};
    for (const [g, def] of grains) {
      const entry: { interval?: string; offset?: string; origin?: string; sql?: string } = {};
      for (const k of ['interval', 'offset', 'origin', 'sql'] as const) {
        const t = text(field(def, k));
        if (t !== undefined) entry[k] = t;
      }
      out.granularities[g] = entry;
    }
  }
  const other = NUMBER_KEYS.filter((k) => k !== 'type' && field(m, k) !== undefined).map((k) => `${snakeCase(k)}: ${canon(field(m, k))}`);
  if (other.length) out.other = other.join('; ');
  return out;
}

/** `trailing 7 day`, `leading 1 month, offset end`, `to_date year`. */
function rollingText(r: RawMap): string {
  const parts: string[] = [];
  for (const k of ['type', 'granularity', 'trailing', 'leading', 'offset']) {
    const t = text(field(r, k));
    if (t !== undefined) parts.push(`${k} ${t}`);
  }
  return parts.join(', ') || 'unbounded';
}

function baseCube(e: RawEntity): CubeDef {
  const b = e.body;
  const cube: CubeDef = {
    name: e.name,
    type: e.kind,
    file: e.file,
    public: !isFalse(field(b, 'public')) && !isFalse(field(b, 'shown')),
    joins: new Map(),
    members: new Map(),
  };
  for (const [key, k] of [
    ['sqlTable', 'sqlTable'],
    ['sql', 'sql'],
    ['dataSource', 'dataSource'],
    ['extends', 'extends'],
  ] as const) {
    const t = text(field(b, key));
    if (t !== undefined) cube[k] = t;
  }
  for (const [name, j] of entries(field(b, 'joins'))) {
    const rel = text(field(j, 'relationship'));
    const join: JoinDef = { name };
    if (rel) join.relationship = RELATIONSHIP[rel.toLowerCase()] ?? rel;
    const sql = text(field(j, 'sql'));
    if (sql !== undefined) join.sql = sql;
    cube.joins.set(name, join);
  }
  for (const [list, kind] of [
    ['measures', 'measure'],
    ['dimensions', 'dimension'],
    ['segments', 'segment'],
  ] as const) {
    for (const [name, m] of entries(field(b, list))) cube.members.set(name, member(name, kind, m));
  }
  const policy = field(b, 'accessPolicy');
  if (policy !== undefined) cube.accessPolicy = canon(policy);
  const policies = readPolicies(policy);
  if (policies.length) cube.accessPolicies = policies;
  const pre = field(b, 'preAggregations');
  if (pre !== undefined) cube.preAggregations = canon(pre);
  const rollups = readRollups(e.name, pre);
  if (rollups.length) cube.rollups = rollups;
  return cube;
}

/** A cube that says `public` (or `shown`) itself; the others take their parent's. */
const saysPublic = (body: RawMap | undefined) => field(body, 'public') !== undefined || field(body, 'shown') !== undefined;

/** A cube with its parent's definitions under its own (the compiler's `extends`); `bodies` are the cubes as written. */
function resolveExtends(cubes: Map<string, CubeDef>, bodies: Map<string, RawMap>): void {
  const done = new Set<string>();
  const resolve = (c: CubeDef, seen: Set<string>): void => {
    if (done.has(c.name) || !c.extends) return void done.add(c.name);
    const parent = cubes.get(c.extends);
    if (!parent || seen.has(parent.name)) return void done.add(c.name);
    resolve(parent, new Set([...seen, c.name]));
    c.sqlTable ??= c.sql === undefined ? parent.sqlTable : undefined;
    c.sql ??= c.sqlTable === undefined ? parent.sql : undefined;
    c.dataSource ??= parent.dataSource;
    c.accessPolicy ??= parent.accessPolicy;
    c.accessPolicies ??= parent.accessPolicies;
    if (!saysPublic(bodies.get(c.name))) c.public = parent.public;
    c.joins = new Map([...parent.joins, ...c.joins]);
    c.members = new Map([...parent.members, ...c.members]);
    done.add(c.name);
  };
  for (const c of cubes.values()) resolve(c, new Set());
}

/** A view's members from its `cubes`: each stands for the cube member it includes. */
function resolveView(view: CubeDef, body: RawMap, cubes: Map<string, CubeDef>): void {
  for (const ref of Array.isArray(field(body, 'cubes')) ? (field(body, 'cubes') as Raw[]).filter(isMap) : []) {
    const path = text(field(ref, 'joinPath'));
    const target = path?.split('.').at(-1);
    const cube = target ? cubes.get(target) : undefined;
    if (!cube || !target || !path) continue;
    (view.paths ??= []).push(path);
    const includes = field(ref, 'includes');
    const excludes = new Set((Array.isArray(field(ref, 'excludes')) ? (field(ref, 'excludes') as Raw[]) : []).map((x) => text(x)));
    const picked: [string, RawMap | undefined][] =
      includes === '*' || text(includes) === '*'
        ? [...cube.members.keys()].map((n) => [n, undefined])
        : (Array.isArray(includes) ? includes : []).flatMap((i): [string, RawMap | undefined][] => {
            if (isMap(i)) return typeof i.name === 'string' ? [[i.name, i]] : [];
            const t = text(i);
            return t ? [[t, undefined]] : [];
          });
    const prefix = isTrue(field(ref, 'prefix')) ? `${text(field(ref, 'alias')) ?? target}_` : '';
    for (const [name, spec] of picked) {
      const m = cube.members.get(name);
      if (!m || excludes.has(name)) continue;
      const own = (spec && text(field(spec, 'alias'))) ?? name;
      const viewName = `${prefix}${own}`;
      const out: MemberDef = { name: viewName, kind: m.kind, public: true, alias: `${target}.${name}`, path };
      if (m.type) out.type = m.type;
      if (m.granularities) out.granularities = m.granularities;
      view.members.set(viewName, out);
    }
  }
}

/** Resolve what the reader made of the model files: `extends`, then views. */
export function resolveModel(read: ReadModel): ModelDefinition {
  const cubes = new Map<string, CubeDef>();
  const bodies = new Map<string, RawMap>();
  for (const e of read.entities) {
    if (cubes.has(e.name)) {
      read.skipped.push({ file: e.file, why: `a second definition of ${e.kind} ${e.name} (the first, in ${cubes.get(e.name)?.file}, is used)` });
      continue;
    }
    cubes.set(e.name, baseCube(e));
    bodies.set(e.name, e.body);
  }
  resolveExtends(new Map([...cubes].filter(([, c]) => c.type === 'cube')), bodies);
  for (const c of cubes.values()) if (c.type === 'view') resolveView(c, bodies.get(c.name) ?? {}, cubes);
  return { cubes, skipped: read.skipped };
}
