/**
 * A real compile of a data model, the way the platform's validation endpoint does it: the YAML
 * model files under `model/` (or a top-level `schema/`) are parsed and checked against the Cube
 * data-model conventions, `*.js` files are syntax-checked (never run), and every error names the
 * file and, when known, the 1-based line: `"<path>:<line>: <text>"`. A valid model also yields
 * the compiled cubes and views, with members named `cube.member`, as served by `/meta`.
 */
import vm from 'node:vm';
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';

export interface CompileError {
  message: string;
  fileName: string | null;
}

export interface CompiledMember {
  /** Full name, `cube.member`. */
  name: string;
  type: string;
  title?: string;
  sql?: string;
}

export interface CompiledCube {
  name: string;
  type: 'cube' | 'view';
  title?: string;
  sqlTable?: string;
  sql?: string;
  measures: CompiledMember[];
  dimensions: CompiledMember[];
  segments: CompiledMember[];
  fileName: string;
}

export interface CompileResult {
  valid: boolean;
  errors: CompileError[];
  cubes: CompiledCube[];
}

const IDENTIFIER = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

const MEASURE_TYPES = [
  'count',
  'count_distinct',
  'count_distinct_approx',
  'sum',
  'avg',
  'min',
  'max',
  'number',
  'string',
  'time',
  'boolean',
  'number_agg',
  'rank',
] as const;
/** camelCase spellings the platform also accepts, normalised to the snake_case name. */
const MEASURE_TYPE_ALIASES: Record<string, string> = {
  countDistinct: 'count_distinct',
  countDistinctApprox: 'count_distinct_approx',
  numberAgg: 'number_agg',
};
const DIMENSION_TYPES = ['string', 'number', 'time', 'boolean', 'geo'] as const;
const RELATIONSHIPS = ['one_to_one', 'one_to_many', 'many_to_one', 'belongs_to', 'has_many', 'has_one'] as const;
const RELATIONSHIP_ALIASES: Record<string, string> = {
  oneToOne: 'one_to_one',
  oneToMany: 'one_to_many',
  manyToOne: 'many_to_one',
  belongsTo: 'belongs_to',
  hasMany: 'has_many',
  hasOne: 'has_one',
};

type MemberKind = 'measure' | 'dimension' | 'segment';
const MEMBER_LISTS: ReadonlyArray<{ key: string; kind: MemberKind }> = [
  { key: 'measures', kind: 'measure' },
  { key: 'dimensions', kind: 'dimension' },
  { key: 'segments', kind: 'segment' },
];

interface MemberDef {
  kind: MemberKind;
  name: string;
  type: string;
  title?: string;
  sql?: string;
  primaryKey: boolean;
  line: number;
}

interface JoinDef {
  name: string;
  line: number;
}

interface IncludeDef {
  name: string;
  alias?: string;
  title?: string;
  line: number;
}

interface ViewSource {
  path: string[];
  pathText: string;
  pathLine: number;
  includes: '*' | IncludeDef[];
  includesLine: number;
  excludes: Array<{ name: string; line: number }>;
  prefix: boolean;
  alias?: string;
}

/** An old-form view member reference: `measures: [orders.count]`. */
interface ViewRef {
  kind: MemberKind;
  path: string[];
  member: string;
  raw: string;
  line: number;
}

interface EntityDef {
  kind: 'cube' | 'view';
  /** Undefined when the name is missing or not an identifier (already reported). */
  name?: string;
  /** Set for entities read from a file with YAML syntax errors: they resolve references but report nothing. */
  muted?: boolean;
  /** The name as written, for messages about an entity with a bad name. */
  label: string;
  file: string;
  line: number;
  title?: string;
  sql?: string;
  sqlTable?: string;
  extendsRef?: { name: string; line: number };
  members: MemberDef[];
  joins: JoinDef[];
  joinsLine?: number;
  sources: ViewSource[];
  refs: ViewRef[];
}

interface Effective {
  entity: EntityDef;
  members: MemberDef[];
  joins: JoinDef[];
  sql?: string;
  sqlTable?: string;
}

interface RawError {
  file: string | null;
  line: number | null;
  text: string;
}

interface Field {
  key: string;
  keyLine: number;
  value: Node | null;
}

/** Per-file parsing context: the document, its line counter and the error sink. */
class FileContext {
  constructor(
    readonly file: string,
    readonly document: Document,
    private readonly lineCounter: LineCounter,
    private readonly sink: RawError[],
  ) {}

  error(line: number | null, text: string): void {
    this.sink.push({ file: this.file, line, text });
  }

  line(node: Node | null | undefined, fallback: number): number {
    const start = node?.range?.[0];
    return start === undefined ? fallback : this.lineCounter.linePos(start).line;
  }

  deref(node: unknown): Node | null {
    if (isAlias(node)) return (node.resolve(this.document) as Node | undefined) ?? null;
    return (node as Node | null | undefined) ?? null;
  }

  /** The mapping's fields, with YAML merge keys (`<<: *anchor`) folded in at lower precedence. */
  fields(map: Node): Map<string, Field> {
    const out = new Map<string, Field>();
    const merged: Field[] = [];
    if (!isMap(map)) return out;
    for (const pair of map.items) {
      const keyNode = this.deref(pair.key);
      const keyLine = this.line(keyNode, this.line(map, 1));
      const value = this.deref(pair.value);
      const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
      if (key === '<<' && (isMap(value) || isSeq(value))) {
        const sources = isSeq(value) ? value.items.map((i) => this.deref(i)) : [value];
        for (const src of sources) if (src) for (const f of this.fields(src).values()) merged.push(f);
        continue;
      }
      out.set(key, { key, keyLine, value });
    }
    for (const f of merged) if (!out.has(f.key)) out.set(f.key, f);
    return out;
  }
}

function pick(fields: Map<string, Field>, ...names: string[]): Field | undefined {
  for (const n of names) {
    const f = fields.get(n);
    if (f) return f;
  }
  return undefined;
}

/** A scalar's value as text; undefined for a missing/null value, null for a non-scalar. */
function scalarText(node: Node | null): string | undefined | null {
  if (node === null) return undefined;
  if (!isScalar(node)) return null;
  if (node.value === null || node.value === undefined) return undefined;
  return String(node.value);
}

function describe(node: Node | null): string {
  if (node === null) return 'nothing';
  if (isMap(node)) return 'a mapping';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) return typeof node.value === 'string' ? 'a string' : `${String(node.value)}`;
  return 'an unsupported value';
}

const isModelPath = (p: string): boolean => /\.ya?ml$/i.test(p) && (p.startsWith('model/') || p.startsWith('schema/'));
const isScriptPath = (p: string): boolean => /\.js$/i.test(p) && !p.split('/').includes('node_modules');

function normalisePath(p: string): string {
  let out = p.replace(/\\/g, '/');
  while (out.startsWith('./')) out = out.slice(2);
  return out.replace(/^\/+/, '');
}

function decode(raw: Buffer | string | Uint8Array): string | null {
  if (typeof raw === 'string') return raw.replace(/^\uFEFF/, '');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    return null;
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function checkScript(file: string, source: string, sink: RawError[]): void {
  try {
    new vm.Script(source, { filename: file });
  } catch (e) {
    const err = e as Error;
    const m = new RegExp(`^${escapeRegExp(file)}:(\\d+)`, 'm').exec(err.stack ?? '');
    const line = m?.[1] ? Number(m[1]) : null;
    sink.push({ file, line, text: `${err.name ?? 'Error'}: ${err.message}` });
  }
}

// ---------------------------------------------------------------------------------------------
// Per-file parsing: YAML → entity definitions, with every local rule checked here.

function parseModelFile(file: string, source: string, sink: RawError[]): EntityDef[] {
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, prettyErrors: false, merge: true });
  if (doc.errors.length > 0) {
    const seen = new Set<string>();
    for (const err of doc.errors) {
      const line = lineCounter.linePos(err.pos[0]).line;
      const text = `YAML syntax error: ${err.message.split('\n')[0]}`;
      if (seen.has(`${line}\0${text}`)) continue;
      seen.add(`${line}\0${text}`);
      sink.push({ file, line, text });
    }
    // Still read what parsed, so other files' references to its cubes resolve, but report nothing
    // more for this file: only the syntax error(s) above.
    const entities = readEntities(new FileContext(file, doc, lineCounter, []));
    for (const e of entities) e.muted = true;
    return entities;
  }
  return readEntities(new FileContext(file, doc, lineCounter, sink));
}

function readEntities(ctx: FileContext): EntityDef[] {
  const doc = ctx.document;
  const root = ctx.deref(doc.contents);
  if (root === null || (isScalar(root) && (root.value === null || root.value === undefined))) return [];
  if (!isMap(root)) {
    ctx.error(ctx.line(root, 1), `expected a mapping with "cubes" and/or "views" at the top level, got ${describe(root)}`);
    return [];
  }
  const out: EntityDef[] = [];
  for (const field of ctx.fields(root).values()) {
    if (field.key !== 'cubes' && field.key !== 'views') {
      ctx.error(field.keyLine, `unexpected top-level key "${field.key}"; only "cubes" and "views" are allowed`);
      continue;
    }
    const kind = field.key === 'cubes' ? 'cube' : 'view';
    for (const item of listItems(ctx, field, `"${field.key}"`)) {
      if (!isMap(item.node)) {
        ctx.error(item.line, `each item of "${field.key}" must be a mapping, got ${describe(item.node)}`);
        continue;
      }
      out.push(kind === 'cube' ? parseCube(ctx, item.node) : parseView(ctx, item.node));
    }
  }
  return out;
}

/** The items of a list-valued field; null/empty counts as an empty list, anything else is an error. */
function listItems(ctx: FileContext, field: Field, what: string): Array<{ node: Node | null; line: number }> {
  const value = field.value;
  if (value === null || (isScalar(value) && (value.value === null || value.value === undefined))) return [];
  if (!isSeq(value)) {
    ctx.error(ctx.line(value, field.keyLine), `${what} must be a list, got ${describe(value)}`);
    return [];
  }
  const base = ctx.line(value, field.keyLine);
  return value.items.map((raw) => {
    const node = ctx.deref(raw);
    return { node, line: ctx.line(node, ctx.line(raw as Node, base)) };
  });
}

/** Reads the `name` of a mapping; reports it missing or malformed. Returns the name and its line. */
function readName(
  ctx: FileContext,
  fields: Map<string, Field>,
  itemLine: number,
  what: string,
): { name?: string; label: string; line: number } {
  const f = fields.get('name');
  if (!f) {
    ctx.error(itemLine, `${what} is missing "name"`);
    return { label: '?', line: itemLine };
  }
  const line = ctx.line(f.value, f.keyLine);
  const text = scalarText(f.value);
  if (text === undefined || text === '') {
    ctx.error(line, `${what} is missing "name"`);
    return { label: '?', line };
  }
  if (text === null) {
    ctx.error(line, `${what} name must be a string, got ${describe(f.value)}`);
    return { label: '?', line };
  }
  if (!IDENTIFIER.test(text)) {
    ctx.error(line, `${what} name "${text}" is not a valid identifier (expected ${IDENTIFIER.source})`);
    return { label: text, line };
  }
  return { name: text, label: text, line };
}

/** An optional string-valued field; reports a non-scalar value. */
function readText(ctx: FileContext, field: Field | undefined, what: string): string | undefined {
  if (!field) return undefined;
  const text = scalarText(field.value);
  if (text === null) {
    ctx.error(ctx.line(field.value, field.keyLine), `${what} must be a string, got ${describe(field.value)}`);
    return undefined;
  }
  return text;
}

function readBool(ctx: FileContext, field: Field | undefined, what: string): boolean {
  if (!field) return false;
  if (isScalar(field.value) && typeof field.value.value === 'boolean') return field.value.value;
  if (isScalar(field.value) && (field.value.value === null || field.value.value === undefined)) return false;
  ctx.error(ctx.line(field.value, field.keyLine), `${what} must be true or false, got ${describe(field.value)}`);
  return false;
}

/** The part every cube and view starts with: its fields, name, title and an empty entity. */
function startEntity(ctx: FileContext, node: Node, kind: 'cube' | 'view') {
  const itemLine = ctx.line(node, 1);
  const fields = ctx.fields(node);
  const { name, label, line } = readName(ctx, fields, itemLine, kind);
  const what = `${kind} "${label}"`;
  const entity: EntityDef = { kind, name, label, file: ctx.file, line, members: [], joins: [], sources: [], refs: [] };
  entity.title = readText(ctx, fields.get('title'), `${what} title`);
  return { fields, label, line, what, entity };
}

function parseCube(ctx: FileContext, node: Node): EntityDef {
  const { fields, label, line, what, entity } = startEntity(ctx, node, 'cube');

  // A key with an empty value counts as absent.
  const given = (f: Field | undefined): f is Field => f !== undefined && scalarText(f.value) !== undefined;
  const sqlField = given(fields.get('sql')) ? fields.get('sql') : undefined;
  const tableFields = ['sql_table', 'sqlTable'].map((k) => fields.get(k)).filter(given);
  const extendsField = fields.get('extends');
  if (extendsField) {
    const target = readText(ctx, extendsField, `${what} extends`);
    const extLine = ctx.line(extendsField.value, extendsField.keyLine);
    if (target === undefined) {
      if (scalarText(extendsField.value) !== null) ctx.error(extLine, `${what} has an empty "extends"`);
    }
    else entity.extendsRef = { name: target.replace(/^\$?\{\s*(.*?)\s*\}$/, '$1'), line: extLine };
  }
  if (tableFields.length > 1) {
    ctx.error(Math.max(...tableFields.map((f) => f.keyLine)), `${what} has both "sql_table" and "sqlTable"; use one`);
  }
  if (sqlField && tableFields.length > 0) {
    ctx.error(Math.max(sqlField.keyLine, ...tableFields.map((f) => f.keyLine)), `${what} has both "sql" and "sql_table"; use one`);
  } else if (!sqlField && tableFields.length === 0 && !extendsField) {
    ctx.error(line, `${what} needs "sql" or "sql_table"`);
  }
  entity.sql = readText(ctx, sqlField, `${what} sql`);
  entity.sqlTable = readText(ctx, tableFields[0], `${what} sql_table`);

  parseMembers(ctx, memberLists(ctx, fields, what), entity, label);
  parseJoins(ctx, fields, entity, label);
  parseNamedList(ctx, pick(fields, 'pre_aggregations', 'preAggregations'), `cube "${label}" pre_aggregations`, 'pre_aggregation', label);
  return entity;
}

interface MemberList {
  key: string;
  kind: MemberKind;
  items: Array<{ node: Node | null; line: number }>;
}

function memberLists(ctx: FileContext, fields: Map<string, Field>, what: string): MemberList[] {
  return MEMBER_LISTS.flatMap(({ key, kind }) => {
    const field = fields.get(key);
    return field ? [{ key, kind, items: listItems(ctx, field, `${what} ${key}`) }] : [];
  });
}

/** measures/dimensions/segments of a cube (or the defined members of a view); one namespace. */
function parseMembers(ctx: FileContext, lists: MemberList[], entity: EntityDef, owner: string): void {
  const seen = new Map<string, MemberDef>();
  for (const { key, kind, items } of lists) {
    for (const item of items) {
      if (!isMap(item.node)) {
        ctx.error(item.line, `each item of ${entity.kind} "${owner}" ${key} must be a mapping, got ${describe(item.node)}`);
        continue;
      }
      const member = parseMember(ctx, item.node, kind, owner, item.line);
      if (!member) continue;
      const first = seen.get(member.name);
      if (first) {
        ctx.error(
          member.line,
          `duplicate member "${owner}.${member.name}": already defined as a ${first.kind} at line ${first.line}`,
        );
        continue;
      }
      seen.set(member.name, member);
      entity.members.push(member);
    }
  }
}

/** Parses one member; returns it whenever it has a valid name (even with other errors, to avoid cascades). */
function parseMember(ctx: FileContext, node: Node, kind: MemberKind, owner: string, itemLine: number): MemberDef | undefined {
  const fields = ctx.fields(node);
  const { name, label, line } = readName(ctx, fields, itemLine, `${kind} in "${owner}"`);
  const what = `${kind} "${owner}.${label}"`;
  const typeField = fields.get('type');
  const typeIsBad = typeField !== undefined && scalarText(typeField.value) === null;
  const rawType = readText(ctx, typeField, `${what} type`);
  const typeLine = typeField ? ctx.line(typeField.value, typeField.keyLine) : itemLine;
  const sql = readText(ctx, fields.get('sql'), `${what} sql`);
  const title = readText(ctx, fields.get('title'), `${what} title`);
  let type = rawType ?? '';

  if (kind === 'measure') {
    if (rawType === undefined) {
      if (!typeIsBad) ctx.error(typeLine, `${what} is missing "type"`);
    } else {
      type = MEASURE_TYPE_ALIASES[rawType] ?? rawType;
      if (!(MEASURE_TYPES as readonly string[]).includes(type)) {
        ctx.error(typeLine, `${what} has unknown type "${rawType}"; expected one of ${MEASURE_TYPES.join(', ')}`);
      }
    }
  } else if (kind === 'dimension') {
    if (rawType === undefined) {
      if (!typeIsBad) ctx.error(typeLine, `${what} is missing "type"`);
    } else if (!(DIMENSION_TYPES as readonly string[]).includes(rawType)) {
      ctx.error(typeLine, `${what} has unknown type "${rawType}"; expected one of ${DIMENSION_TYPES.join(', ')}`);
    } else if (rawType === 'geo') {
      for (const part of ['latitude', 'longitude']) {
        if (!fields.has(part)) ctx.error(itemLine, `geo ${what} is missing "${part}"`);
      }
    } else if (sql === undefined && !fields.has('case')) {
      ctx.error(itemLine, `${what} is missing "sql"`);
    }
  } else {
    type = 'segment';
    if (sql === undefined) ctx.error(itemLine, `${what} is missing "sql"`);
  }
  const primaryKey = readBool(ctx, pick(fields, 'primary_key', 'primaryKey'), `${what} primary_key`);
  if (name === undefined) return undefined;
  return { kind, name, type, title, sql, primaryKey, line };
}

function parseJoins(ctx: FileContext, fields: Map<string, Field>, entity: EntityDef, owner: string): void {
  const field = fields.get('joins');
  if (!field) return;
  entity.joinsLine = field.keyLine;
  const seen = new Map<string, number>();
  for (const item of listItems(ctx, field, `cube "${owner}" joins`)) {
    if (!isMap(item.node)) {
      ctx.error(item.line, `each item of cube "${owner}" joins must be a mapping, got ${describe(item.node)}`);
      continue;
    }
    const jf = ctx.fields(item.node);
    const { name, label, line } = readName(ctx, jf, item.line, `join in cube "${owner}"`);
    const what = `join "${owner}.${label}"`;
    const relField = jf.get('relationship');
    const rel = readText(ctx, relField, `${what} relationship`);
    if (rel === undefined) {
      ctx.error(relField ? ctx.line(relField.value, relField.keyLine) : item.line, `${what} is missing "relationship"`);
    } else if (!(RELATIONSHIPS as readonly string[]).includes(RELATIONSHIP_ALIASES[rel] ?? rel)) {
      ctx.error(
        ctx.line(relField!.value, relField!.keyLine),
        `${what} has unknown relationship "${rel}"; expected one of ${RELATIONSHIPS.join(', ')} (or ${Object.keys(RELATIONSHIP_ALIASES).join(', ')})`,
      );
    }
    const sqlField = jf.get('sql');
    const sql = readText(ctx, sqlField, `${what} sql`);
    if (sql === undefined || sql.trim() === '') {
      ctx.error(sqlField ? ctx.line(sqlField.value, sqlField.keyLine) : item.line, `${what} is missing "sql"`);
    }
    if (name === undefined) continue;
    const first = seen.get(name);
    if (first !== undefined) {
      ctx.error(line, `cube "${owner}" joins "${name}" twice (first at line ${first})`);
      continue;
    }
    seen.set(name, line);
    entity.joins.push({ name, line });
  }
}

/** A list of mappings that only need a unique identifier `name` (pre_aggregations). */
function parseNamedList(ctx: FileContext, field: Field | undefined, what: string, itemWhat: string, owner: string): void {
  if (!field) return;
  const seen = new Map<string, number>();
  for (const item of listItems(ctx, field, what)) {
    if (!isMap(item.node)) {
      ctx.error(item.line, `each item of ${what} must be a mapping, got ${describe(item.node)}`);
      continue;
    }
    const { name, line } = readName(ctx, ctx.fields(item.node), item.line, `${itemWhat} in cube "${owner}"`);
    if (name === undefined) continue;
    const first = seen.get(name);
    if (first !== undefined) ctx.error(line, `duplicate ${itemWhat} "${owner}.${name}" (first at line ${first})`);
    else seen.set(name, line);
  }
}

function parseView(ctx: FileContext, node: Node): EntityDef {
  const { fields, label, what, entity } = startEntity(ctx, node, 'view');

  const cubesField = fields.get('cubes');
  if (cubesField) {
    for (const item of listItems(ctx, cubesField, `${what} cubes`)) {
      if (!isMap(item.node)) {
        ctx.error(item.line, `each item of ${what} cubes must be a mapping, got ${describe(item.node)}`);
        continue;
      }
      const source = parseViewSource(ctx, item.node, item.line, what);
      if (source) entity.sources.push(source);
    }
  }

  // The older form: measures/dimensions/segments lists of "cube.member" references
  // (mapping items are members defined on the view itself).
  const defined: MemberList[] = [];
  for (const list of memberLists(ctx, fields, what)) {
    const mappings = list.items.filter((item) => isMap(item.node));
    if (mappings.length > 0) defined.push({ ...list, items: mappings });
    for (const item of list.items) {
      if (isMap(item.node)) continue;
      const raw = scalarText(item.node);
      if (typeof raw !== 'string' || !/^[a-zA-Z_][a-zA-Z0-9_]*(\.[a-zA-Z_][a-zA-Z0-9_]*)+$/.test(raw)) {
        ctx.error(item.line, `${what} ${list.key} entry must be a "cube.member" reference, got ${raw ? `"${raw}"` : describe(item.node)}`);
        continue;
      }
      const parts = raw.split('.');
      entity.refs.push({ kind: list.kind, path: parts.slice(0, -1), member: parts.at(-1)!, raw, line: item.line });
    }
  }
  parseMembers(ctx, defined, entity, label);
  return entity;
}

function parseViewSource(ctx: FileContext, node: Node, itemLine: number, what: string): ViewSource | undefined {
  const fields = ctx.fields(node);
  const pathField = pick(fields, 'join_path', 'joinPath');
  const pathText = readText(ctx, pathField, `${what} join_path`);
  const pathLine = pathField ? ctx.line(pathField.value, pathField.keyLine) : itemLine;
  let ok = true;
  if (pathText === undefined) {
    if (pathField === undefined || scalarText(pathField.value) !== null) ctx.error(pathLine, `${what} cubes item is missing "join_path"`);
    ok = false;
  } else if (!pathText.split('.').every((p) => IDENTIFIER.test(p))) {
    ctx.error(pathLine, `${what} join_path "${pathText}" is not a dot-separated list of cube names`);
    ok = false;
  }

  const includesField = fields.get('includes');
  const includesLine = includesField ? ctx.line(includesField.value, includesField.keyLine) : itemLine;
  let includes: '*' | IncludeDef[] = [];
  if (!includesField || scalarText(includesField.value) === undefined) {
    ctx.error(includesLine, `${what} cubes item is missing "includes"`);
    ok = false;
  } else if (isScalar(includesField.value)) {
    if (includesField.value.value === '*') includes = '*';
    else {
      ctx.error(includesLine, `${what} includes must be "*" or a list of member names, got ${describe(includesField.value)}`);
      ok = false;
    }
  } else {
    const list: IncludeDef[] = [];
    for (const item of listItems(ctx, includesField, `${what} includes`)) {
      const inc = parseInclude(ctx, item.node, item.line, what);
      if (inc) list.push(inc);
    }
    includes = list;
  }

  const excludes: Array<{ name: string; line: number }> = [];
  const excludesField = fields.get('excludes');
  if (excludesField) {
    for (const item of listItems(ctx, excludesField, `${what} excludes`)) {
      const text = scalarText(item.node);
      if (typeof text !== 'string' || !IDENTIFIER.test(text)) {
        ctx.error(item.line, `${what} excludes entry must be a member name, got ${text ? `"${text}"` : describe(item.node)}`);
        continue;
      }
      excludes.push({ name: text, line: item.line });
    }
  }
  const prefix = readBool(ctx, fields.get('prefix'), `${what} prefix`);
  const aliasField = fields.get('alias');
  const alias = readText(ctx, aliasField, `${what} alias`);
  if (alias !== undefined && !IDENTIFIER.test(alias)) {
    ctx.error(ctx.line(aliasField!.value, aliasField!.keyLine), `${what} alias "${alias}" is not a valid identifier`);
    ok = false;
  }
  if (!ok || pathText === undefined) return undefined;
  return { path: pathText.split('.'), pathText, pathLine, includes, includesLine, excludes, prefix, alias };
}

function parseInclude(ctx: FileContext, node: Node | null, line: number, what: string): IncludeDef | undefined {
  if (isMap(node)) {
    const f = ctx.fields(node);
    const { name } = readName(ctx, f, line, `${what} includes entry`);
    const aliasField = f.get('alias');
    const alias = readText(ctx, aliasField, `${what} includes alias`);
    if (alias !== undefined && !IDENTIFIER.test(alias)) {
      ctx.error(ctx.line(aliasField!.value, line), `${what} includes alias "${alias}" is not a valid identifier`);
      return undefined;
    }
    const title = readText(ctx, f.get('title'), `${what} includes title`);
    return name === undefined ? undefined : { name, alias, title, line };
  }
  const text = scalarText(node);
  if (typeof text !== 'string' || !IDENTIFIER.test(text)) {
    ctx.error(line, `${what} includes entry must be a member name or { name, alias }, got ${text ? `"${text}"` : describe(node)}`);
    return undefined;
  }
  return { name: text, line };
}

// ---------------------------------------------------------------------------------------------
// Global checks: names, extends, joins, views — regardless of file order.

class Model {
  readonly registry = new Map<string, EntityDef>();
  private readonly effective = new Map<EntityDef, Effective>();
  private readonly visiting = new Set<EntityDef>();

  constructor(
    readonly entities: EntityDef[],
    private readonly sink: RawError[],
  ) {}

  error(entity: EntityDef, line: number | null, text: string): void {
    if (entity.muted) return;
    this.sink.push({ file: entity.file, line, text });
  }

  register(): void {
    for (const e of this.entities) {
      if (e.name === undefined) continue;
      const first = this.registry.get(e.name);
      if (first) {
        const as = first.kind === e.kind ? '' : ` (as a ${first.kind})`;
        this.error(e, e.line, `${e.kind} "${e.name}" is already defined at ${first.file}:${first.line}${as}`);
        continue;
      }
      this.registry.set(e.name, e);
    }
  }

  /** The cube with its `extends` chain folded in: parent members first, overridden in place. */
  resolveCube(e: EntityDef): Effective {
    const done = this.effective.get(e);
    if (done) return done;
    this.visiting.add(e);
    let base: Effective | undefined;
    const ext = e.extendsRef;
    if (ext) {
      const target = this.registry.get(ext.name);
      if (!target) this.error(e, ext.line, `cube "${e.label}" extends unknown cube "${ext.name}"`);
      else if (target.kind !== 'cube') this.error(e, ext.line, `cube "${e.label}" extends "${ext.name}", which is a view, not a cube`);
      else if (this.visiting.has(target)) this.error(e, ext.line, `cube "${e.label}" extends "${ext.name}", which leads back to "${e.label}" (circular extends)`);
      else base = this.resolveCube(target);
    }
    const result: Effective = {
      entity: e,
      members: mergeByName(base?.members ?? [], e.members),
      joins: mergeByName(base?.joins ?? [], e.joins),
      sql: e.sql ?? (e.sqlTable === undefined ? base?.sql : undefined),
      sqlTable: e.sqlTable ?? (e.sql === undefined ? base?.sqlTable : undefined),
    };
    this.visiting.delete(e);
    this.effective.set(e, result);
    return result;
  }

  checkCube(e: EntityDef): void {
    const eff = this.resolveCube(e);
    for (const join of e.joins) {
      const target = this.registry.get(join.name);
      if (!target) this.error(e, join.line, `join in cube "${e.label}" refers to unknown cube "${join.name}"`);
      else if (target.kind !== 'cube') this.error(e, join.line, `join in cube "${e.label}" refers to "${join.name}", which is a view, not a cube`);
    }
    if (eff.joins.length > 0 && !eff.members.some((m) => m.kind === 'dimension' && m.primaryKey)) {
      this.error(e, e.joinsLine ?? e.line, `cube "${e.label}" has joins but no primary_key dimension`);
    }
  }

  /** Walks a join path; returns the last cube or reports why the path is broken. */
  resolvePath(view: EntityDef, path: string[], text: string, line: number): Effective | undefined {
    let prev: Effective | undefined;
    for (const hop of path) {
      if (prev && !prev.joins.some((j) => j.name === hop)) {
        this.error(view, line, `view "${view.label}" join_path "${text}": cube "${prev.entity.label}" has no join to "${hop}"`);
        return undefined;
      }
      const target = this.registry.get(hop);
      if (!target) {
        this.error(view, line, `view "${view.label}" join_path "${text}" refers to unknown cube "${hop}"`);
        return undefined;
      }
      if (target.kind !== 'cube') {
        this.error(view, line, `view "${view.label}" join_path "${text}": "${hop}" is a view, not a cube`);
        return undefined;
      }
      prev = this.resolveCube(target);
    }
    return prev;
  }

  /** The view's members, renamed into the view; duplicates reported. */
  resolveView(v: EntityDef): MemberDef[] {
    const out: MemberDef[] = [];
    const origin = new Map<string, string>();
    /** Adds `m` to the view under `viewName`; members taken from a cube carry no sql of their own. */
    const add = (m: MemberDef, viewName: string, from: string, line: number, own = false, title?: string): void => {
      const first = origin.get(viewName);
      if (first !== undefined) {
        this.error(v, line, `view "${v.label}" has duplicate member "${v.label}.${viewName}" (from ${from}; first from ${first})`);
        return;
      }
      origin.set(viewName, from);
      out.push({ ...m, name: viewName, title: title ?? m.title, sql: own ? m.sql : undefined, primaryKey: false, line });
    };

    for (const src of v.sources) {
      const cube = this.resolvePath(v, src.path, src.pathText, src.pathLine);
      if (!cube) continue;
      const cubeName = src.path.at(-1)!;
      const byName = new Map(cube.members.map((m) => [m.name, m]));
      const excluded = new Set<string>();
      for (const ex of src.excludes) {
        if (!byName.has(ex.name)) this.error(v, ex.line, `view "${v.label}" excludes unknown member "${cubeName}.${ex.name}"`);
        excluded.add(ex.name);
      }
      const prefixName = src.alias ?? cubeName;
      const rename = (name: string): string => (src.prefix ? `${prefixName}_${name}` : name);
      if (src.includes === '*') {
        for (const m of cube.members) {
          if (!excluded.has(m.name)) add(m, rename(m.name), `${cubeName}.${m.name}`, src.includesLine);
        }
        continue;
      }
      for (const inc of src.includes) {
        const m = byName.get(inc.name);
        if (!m) {
          this.error(v, inc.line, `view "${v.label}" includes unknown member "${cubeName}.${inc.name}"`);
          continue;
        }
        if (excluded.has(inc.name)) continue;
        add(m, inc.alias ?? rename(inc.name), `${cubeName}.${inc.name}`, inc.line, false, inc.title);
      }
    }

    for (const ref of v.refs) {
      const cube = this.resolvePath(v, ref.path, ref.path.join('.'), ref.line);
      if (!cube) continue;
      const m = cube.members.find((x) => x.name === ref.member);
      if (!m) {
        this.error(v, ref.line, `view "${v.label}" includes unknown member "${ref.path.at(-1)}.${ref.member}"`);
        continue;
      }
      if (m.kind !== ref.kind) {
        this.error(v, ref.line, `view "${v.label}" lists "${ref.raw}" under ${ref.kind}s, but it is a ${m.kind}`);
        continue;
      }
      add(m, ref.member, ref.raw, ref.line);
    }

    for (const m of v.members) add(m, m.name, `${v.label}.${m.name}`, m.line, true);
    return out;
  }
}

function mergeByName<T extends { name: string }>(base: T[], own: T[]): T[] {
  const out = [...base];
  for (const item of own) {
    const i = out.findIndex((b) => b.name === item.name);
    if (i >= 0) out[i] = item;
    else out.push(item);
  }
  return out;
}

function compiledMembers(owner: string, members: MemberDef[], kind: MemberKind): CompiledMember[] {
  return members
    .filter((m) => m.kind === kind)
    .map((m) => {
      const c: CompiledMember = { name: `${owner}.${m.name}`, type: m.type };
      if (m.title !== undefined) c.title = m.title;
      if (m.sql !== undefined) c.sql = m.sql;
      return c;
    });
}

function compileEntity(e: EntityDef, members: MemberDef[], sql?: string, sqlTable?: string): CompiledCube {
  const name = e.name!;
  const c: CompiledCube = {
    name,
    type: e.kind,
    measures: compiledMembers(name, members, 'measure'),
    dimensions: compiledMembers(name, members, 'dimension'),
    segments: compiledMembers(name, members, 'segment'),
    fileName: e.file,
  };
  if (e.title !== undefined) c.title = e.title;
  if (sqlTable !== undefined) c.sqlTable = sqlTable;
  if (sql !== undefined) c.sql = sql;
  return c;
}

/** Compile a data model given as `path → bytes`. See the module comment for the rules. */
export function compileModel(files: Record<string, Buffer | string>): CompileResult {
  const sink: RawError[] = [];
  const entities: EntityDef[] = [];
  const paths = Object.keys(files)
    .map((raw) => ({ raw, path: normalisePath(raw) }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  for (const { raw, path } of paths) {
    const model = isModelPath(path);
    const script = isScriptPath(path);
    if (!model && !script) continue;
    const source = decode(files[raw]!);
    if (source === null) {
      sink.push({ file: path, line: null, text: 'file is not valid UTF-8' });
      continue;
    }
    if (model) entities.push(...parseModelFile(path, source, sink));
    else checkScript(path, source, sink);
  }

  const model = new Model(entities, sink);
  model.register();
  const viewMembers = new Map<EntityDef, MemberDef[]>();
  for (const e of entities) {
    if (e.kind === 'cube') model.checkCube(e);
    else viewMembers.set(e, model.resolveView(e));
  }

  const errors = sink
    .map((e, i) => ({ ...e, i }))
    .sort((a, b) => {
      const fa = a.file ?? '\uffff';
      const fb = b.file ?? '\uffff';
      if (fa !== fb) return fa < fb ? -1 : 1;
      const la = a.line ?? 0;
      const lb = b.line ?? 0;
      return la !== lb ? la - lb : a.i - b.i;
    })
    .map<CompileError>((e) => ({
      message: e.file === null ? e.text : e.line === null ? `${e.file}: ${e.text}` : `${e.file}:${e.line}: ${e.text}`,
      fileName: e.file,
    }));

  const valid = errors.length === 0;
  const cubes: CompiledCube[] = [];
  if (valid) {
    for (const e of entities) {
      if (e.kind === 'cube') {
        const eff = model.resolveCube(e);
        cubes.push(compileEntity(e, eff.members, eff.sql, eff.sqlTable));
      } else {
        cubes.push(compileEntity(e, viewMembers.get(e) ?? []));
      }
    }
  }
  return { valid, errors, cubes };
}
