/**
 * The cubes, views and members a query of Cube's SQL API names (Postgres-like, `MEASURE(...)`), read
 * with a real SQL parser (node-sql-parser's PostgreSQL grammar, loaded only when a folder has SQL to
 * read). Tables are every FROM/JOIN name that is not a CTE's; columns are resolved only where that is
 * certain: one SELECT without subqueries or CTEs, each column qualified by a table (or its alias) or the
 * query's one table. Anything else names no member: no error is ever guessed.
 */
import { messageOf } from '../../client/errors.js';

/** A column of a cube or view, as the query writes it. */
export interface SqlColumn {
  table: string;
  column: string;
}

export interface SqlNames {
  tables: string[];
  columns: SqlColumn[];
  /** False when the columns could not all be resolved (subqueries, CTEs, several tables unqualified). */
  columnsResolved: boolean;
  /** The parser could not read the query: nothing was checked. */
  problem?: string;
}

interface ParserLike {
  astify(sql: string, opt?: { database?: string }): unknown;
}

let parser: Promise<ParserLike> | undefined;

/** The parser, loaded once (its grammar is a part of the bundle of its own). */
function sqlParser(): Promise<ParserLike> {
  parser ??= import('node-sql-parser/build/postgresql.js').then((m) => {
    const mod = m as unknown as { Parser?: new () => ParserLike; default?: { Parser: new () => ParserLike } };
    const P = mod.Parser ?? mod.default?.Parser;
    if (!P) throw new Error('the SQL parser did not load');
    return new P();
  });
  return parser;
}

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null;

/** Every node under `root` (itself too), depth first. */
function nodes(root: unknown, out: Node[] = []): Node[] {
  if (Array.isArray(root)) for (const x of root) nodes(x, out);
  else if (isNode(root)) {
    out.push(root);
    for (const v of Object.values(root)) if (typeof v === 'object' && v !== null) nodes(v, out);
  }
  return out;
}

/** A SELECT node (the parser's `type: 'select'`, or a subquery's wrapped `ast`). */
const isSelect = (n: Node) => n.type === 'select' && 'from' in n;

const columnName = (ref: Node): string | undefined => {
  const c = ref.column;
  if (typeof c === 'string') return c;
  if (isNode(c) && isNode(c.expr) && typeof c.expr.value === 'string') return c.expr.value;
  return undefined;
};

const nameText = (v: unknown): string | undefined => (typeof v === 'string' ? v : isNode(v) && typeof v.value === 'string' ? v.value : undefined);

export async function sqlNames(sql: string): Promise<SqlNames> {
  let ast: unknown;
  try {
    ast = (await sqlParser()).astify(sql, { database: 'postgresql' });
  } catch (e) {
    return { tables: [], columns: [], columnsResolved: false, problem: messageOf(e).split('\n', 1)[0] as string };
  }
  const all = nodes(ast);
  const selects = all.filter(isSelect);
  const ctes = new Set(
    all
      .flatMap((n) => (Array.isArray(n.with) ? (n.with as unknown[]) : []))
      .map((w) => (isNode(w) ? nameText(w.name) : undefined))
      .filter((n): n is string => !!n)
      .map((n) => n.toLowerCase()),
  );
  const fromItems = selects.flatMap((s) => (Array.isArray(s.from) ? (s.from as unknown[]) : [])).filter(isNode);
  // A schema-qualified table (`information_schema.tables`) is the SQL API's catalogue, never a cube.
  const plain = fromItems.filter((f) => typeof f.table === 'string' && !f.db && !f.expr);
  const tables = [...new Set(plain.map((f) => f.table as string).filter((t) => !ctes.has(t.toLowerCase())))];
  const root: unknown = Array.isArray(ast) ? (ast.length === 1 ? (ast[0] as unknown) : undefined) : ast;
  const simple = isNode(root) && selects.length === 1 && selects[0] === root && !ctes.size && fromItems.length === plain.length;
  if (!simple) return { tables, columns: [], columnsResolved: false };
  const byAlias = new Map<string, string>();
  for (const f of plain) {
    byAlias.set((f.table as string).toLowerCase(), f.table as string);
    if (typeof f.as === 'string') byAlias.set(f.as.toLowerCase(), f.table as string);
  }
  const selectAliases = new Set(
    (Array.isArray(root.columns) ? (root.columns as unknown[]) : [])
      .map((c) => (isNode(c) ? nameText(c.as) : undefined))
      .filter((a): a is string => !!a)
      .map((a) => a.toLowerCase()),
  );
  const columns: SqlColumn[] = [];
  let resolved = true;
  for (const ref of all.filter((n) => n.type === 'column_ref')) {
    const column = columnName(ref);
    if (!column || column === '*' || column.startsWith('__')) continue;
    const qualifier = typeof ref.table === 'string' ? ref.table : undefined;
    if (!qualifier && selectAliases.has(column.toLowerCase())) continue;
    const table = qualifier ? byAlias.get(qualifier.toLowerCase()) : plain.length === 1 ? (plain[0]!.table as string) : undefined;
    if (!table) {
      resolved = false;
      continue;
    }
    if (!columns.some((c) => c.table === table && c.column === column)) columns.push({ table, column });
  }
  return { tables, columns, columnsResolved: resolved };
}
