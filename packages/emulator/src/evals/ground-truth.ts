/**
 * A ground truth's SQL (Cube's SQL API dialect: `SELECT status, MEASURE(count) FROM orders GROUP BY 1`)
 * turned into a REST query the engine runs. The emulator has no SQL API: only the simple shapes are
 * read (dimensions and measures of one cube or view, `MEASURE(x)`, WHERE of simple comparisons joined by
 * AND, GROUP BY, ORDER BY, LIMIT); anything else is refused with the shape named, and the run grades
 * the question an error ("Ground truth query failed"). docs/emulator.md lists the shapes.
 */
// The PostgreSQL grammar alone (a bundle of its own; the package's main file holds every dialect's).
import postgresGrammar from 'node-sql-parser/build/postgresql.js';
import type { MetaCube } from '../engine/meta.js';

/** A shape the emulator cannot translate, or a name the model lacks. */
export class UnsupportedSql extends Error {}

/** The parts of node-sql-parser's PostgreSQL AST read here. */
interface Node {
  type?: string;
  value?: string | number | boolean | Node[];
  table?: string | null;
  column?: string | { expr?: { value?: string } };
  operator?: string;
  left?: Node;
  right?: Node;
  name?: { name?: { value?: string }[] } | string;
  args?: { value?: Node[]; expr?: Node };
}
interface Select {
  type?: string;
  with?: unknown;
  having?: unknown;
  distinct?: { type?: string | null } | null;
  from?: { table?: string; as?: string | null; join?: unknown }[];
  columns?: { expr: Node; as?: string | null }[] | '*';
  where?: Node | null;
  groupby?: { columns?: Node[] | null } | null;
  orderby?: { expr: Node; type?: string }[] | null;
  limit?: { seperator?: string; value?: Node[] } | null;
}

const scalar = (n: Node | undefined) => (Array.isArray(n?.value) ? '' : String(n?.value ?? ''));

const OPERATORS: Record<string, string> = {
  '=': 'equals',
  '!=': 'notEquals',
  '<>': 'notEquals',
  '>': 'gt',
  '<': 'lt',
  '>=': 'gte',
  '<=': 'lte',
  IN: 'equals',
  'NOT IN': 'notEquals',
};

function columnName(n: Node | undefined): { table?: string; column: string } | undefined {
  if (n?.type !== 'column_ref') return undefined;
  const column = typeof n.column === 'string' ? n.column : n.column?.expr?.value;
  return typeof column === 'string' ? { ...(n.table ? { table: String(n.table) } : {}), column } : undefined;
}

function literal(n: Node | undefined): string | null {
  if (n?.type === 'null') return null;
  if (['single_quote_string', 'string', 'number', 'bool', 'boolean'].includes(n?.type ?? '')) return scalar(n);
  throw new UnsupportedSql(`a comparison with ${n?.type ?? 'nothing'} (only literal values are read)`);
}

/** The one `SELECT` of `sql`, read as a REST query against `cubes` (the branch's compiled model). */
export function cubeQueryOf(sql: string, cubes: readonly MetaCube[]): Record<string, unknown> {
  let ast: Select | Select[];
  try {
    ast = new postgresGrammar.Parser().astify(sql, { database: 'postgresql' }) as unknown as Select | Select[];
  } catch (e) {
    throw new UnsupportedSql(`SQL the parser cannot read (${(e as Error).message.split('\n')[0]})`);
  }
  const statements = Array.isArray(ast) ? ast : [ast];
  const s = statements[0];
  if (statements.length !== 1 || s?.type !== 'select') throw new UnsupportedSql('anything but one SELECT statement');
  if (s.with) throw new UnsupportedSql('WITH');
  if (s.having) throw new UnsupportedSql('HAVING');
  if (s.distinct?.type) throw new UnsupportedSql('SELECT DISTINCT');
  const source = s.from?.length === 1 ? s.from[0] : undefined;
  if (!source?.table || source.join) throw new UnsupportedSql('a FROM of anything but one cube or view');
  const from = source.table;
  const alias = source.as ?? undefined;
  const cube = cubes.find((c) => c.name === from);
  if (!cube) throw new UnsupportedSql(`FROM ${from}: no cube or view of that name in the branch's model`);
  const measures = new Set(cube.measures.map((m) => m.name));
  const dimensions = new Set(cube.dimensions.map((m) => m.name));
  const member = (n: Node | undefined, where: string): string => {
    const c = columnName(n);
    if (!c) throw new UnsupportedSql(`${where}: an expression (only names of the cube's members are read)`);
    if (c.table && c.table !== from && c.table !== alias) throw new UnsupportedSql(`${where}: ${c.table}.${c.column} names another table than ${from}`);
    const full = `${from}.${c.column}`;
    if (!measures.has(full) && !dimensions.has(full)) throw new UnsupportedSql(`${where}: ${c.column} is no member of ${from}`);
    return full;
  };

  const selected: string[] = [];
  if (s.columns === '*' || !Array.isArray(s.columns)) throw new UnsupportedSql('SELECT *');
  const columns = s.columns;
  for (const col of columns) {
    const e = col.expr;
    if (e.type === 'function' || e.type === 'aggr_func') {
      const fn = (typeof e.name === 'string' ? e.name : (e.name?.name?.[0]?.value ?? '')).toUpperCase();
      const args = e.args?.value ?? (e.args?.expr ? [e.args.expr] : []);
      if (fn !== 'MEASURE' || args.length !== 1) throw new UnsupportedSql(`SELECT ${fn}(...) (only MEASURE(name) is read)`);
      const m = member(args[0], 'MEASURE');
      if (!measures.has(m)) throw new UnsupportedSql(`MEASURE(${m}): not a measure`);
      selected.push(m);
    } else selected.push(member(e, 'SELECT'));
  }
  const query: Record<string, unknown> = {
    measures: selected.filter((m) => measures.has(m)),
    dimensions: selected.filter((m) => dimensions.has(m)),
  };

  const filters: { member: string; operator: string; values: (string | null)[] }[] = [];
  const conditions = (n: Node | null | undefined): void => {
    if (!n) return;
    if (n.type === 'binary_expr' && n.operator === 'AND') return (conditions(n.left), conditions(n.right));
    const op = n.type === 'binary_expr' ? OPERATORS[String(n.operator).toUpperCase()] : undefined;
    if (!op) throw new UnsupportedSql(`WHERE with ${n.type === 'binary_expr' ? n.operator : n.type} (only =, <>, <, <=, >, >=, IN and AND are read)`);
    const list = n.right?.type === 'expr_list' && Array.isArray(n.right.value) ? n.right.value : undefined;
    const values = list ? list.map(literal) : [literal(n.right)];
    filters.push({ member: member(n.left, 'WHERE'), operator: op, values });
  };
  conditions(s.where);
  if (filters.length) query.filters = filters;

  const byPosition = (n: Node, where: string): string => {
    if (n.type === 'number') {
      const m = selected[Number(scalar(n)) - 1];
      if (!m) throw new UnsupportedSql(`${where} ${scalar(n)}: no such column`);
      return m;
    }
    const c = columnName(n);
    const aliased = c && !c.table ? columns.findIndex((col) => col.as === c.column) : -1;
    return aliased >= 0 ? (selected[aliased] as string) : member(n, where);
  };
  // GROUP BY must name the selected dimensions only; Cube groups by them itself.
  for (const g of s.groupby?.columns ?? []) {
    const m = byPosition(g, 'GROUP BY');
    if (!dimensions.has(m) || !selected.includes(m)) throw new UnsupportedSql(`GROUP BY ${m}: only the selected dimensions are read`);
  }
  if (s.orderby?.length) {
    query.order = s.orderby.map((o) => [byPosition(o.expr, 'ORDER BY'), (o.type ?? 'ASC').toUpperCase() === 'DESC' ? 'desc' : 'asc']);
  }
  const limit = s.limit?.value ?? [];
  if (limit.length > 1 || (s.limit?.seperator && s.limit.seperator !== '')) throw new UnsupportedSql('LIMIT with OFFSET');
  if (limit[0]) {
    if (limit[0].type !== 'number') throw new UnsupportedSql('LIMIT of anything but a number');
    query.limit = Number(scalar(limit[0]));
  }
  return query;
}
