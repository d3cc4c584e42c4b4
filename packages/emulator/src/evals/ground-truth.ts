/**
 * A ground truth's SQL (Cube's SQL API dialect: `SELECT status, MEASURE(count) FROM orders GROUP BY 1`)
 * turned into a REST query the engine runs. The emulator has no SQL API: only the simple shapes are
 * read (dimensions and measures of one cube or view, `MEASURE(x)`, WHERE of simple comparisons joined by
 * AND, GROUP BY, ORDER BY, LIMIT); anything else is refused with the shape named, and the run grades
 * the question an error ("Ground truth query failed"). docs/emulator.md lists the shapes.
 */
import sqlParser from 'node-sql-parser';
import type { MetaCube } from '../engine/meta.js';

/** A shape the emulator cannot translate, or a name the model lacks. */
export class UnsupportedSql extends Error {}

type Node = Record<string, any>;

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

function columnName(n: Node): { table?: string; column: string } | undefined {
  if (n?.type !== 'column_ref') return undefined;
  const column = typeof n.column === 'string' ? n.column : n.column?.expr?.value;
  return typeof column === 'string' ? { ...(n.table ? { table: String(n.table) } : {}), column } : undefined;
}

function literal(n: Node): string | null {
  if (n?.type === 'null') return null;
  if (['single_quote_string', 'string', 'number', 'bool', 'boolean'].includes(n?.type)) return String(n.value);
  throw new UnsupportedSql(`a comparison with ${n?.type ?? 'nothing'} (only literal values are read)`);
}

/** The one `SELECT` of `sql`, read as a REST query against `cubes` (the branch's compiled model). */
export function cubeQueryOf(sql: string, cubes: readonly MetaCube[]): Record<string, unknown> {
  let ast: Node | Node[];
  try {
    ast = new sqlParser.Parser().astify(sql, { database: 'postgresql' }) as Node | Node[];
  } catch (e) {
    throw new UnsupportedSql(`SQL the parser cannot read (${(e as Error).message.split('\n')[0]})`);
  }
  const statements = Array.isArray(ast) ? ast : [ast];
  const s = statements[0];
  if (statements.length !== 1 || s?.type !== 'select') throw new UnsupportedSql('anything but one SELECT statement');
  if (s.with) throw new UnsupportedSql('WITH');
  if (s.having) throw new UnsupportedSql('HAVING');
  if (s.distinct?.type) throw new UnsupportedSql('SELECT DISTINCT');
  if (!Array.isArray(s.from) || s.from.length !== 1 || s.from[0].join || !s.from[0].table) throw new UnsupportedSql('a FROM of anything but one cube or view');
  const from = String(s.from[0].table);
  const alias = s.from[0].as ? String(s.from[0].as) : undefined;
  const cube = cubes.find((c) => c.name === from);
  if (!cube) throw new UnsupportedSql(`FROM ${from}: no cube or view of that name in the branch's model`);
  const measures = new Set(cube.measures.map((m) => m.name));
  const dimensions = new Set(cube.dimensions.map((m) => m.name));
  const member = (n: Node, where: string): string => {
    const c = columnName(n);
    if (!c) throw new UnsupportedSql(`${where}: an expression (only names of the cube's members are read)`);
    if (c.table && c.table !== from && c.table !== alias) throw new UnsupportedSql(`${where}: ${c.table}.${c.column} names another table than ${from}`);
    const full = `${from}.${c.column}`;
    if (!measures.has(full) && !dimensions.has(full)) throw new UnsupportedSql(`${where}: ${c.column} is no member of ${from}`);
    return full;
  };

  const selected: string[] = [];
  if (s.columns === '*' || !Array.isArray(s.columns)) throw new UnsupportedSql('SELECT *');
  for (const col of s.columns as Node[]) {
    const e = col.expr;
    if (e?.type === 'function' || e?.type === 'aggr_func') {
      const fn = String(e.name?.name?.[0]?.value ?? e.name ?? '').toUpperCase();
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

  const filters: Node[] = [];
  const conditions = (n: Node | null | undefined): void => {
    if (!n) return;
    if (n.type === 'binary_expr' && n.operator === 'AND') return (conditions(n.left), conditions(n.right));
    const op = n.type === 'binary_expr' ? OPERATORS[String(n.operator).toUpperCase()] : undefined;
    if (!op) throw new UnsupportedSql(`WHERE with ${n.type === 'binary_expr' ? n.operator : n.type} (only =, <>, <, <=, >, >=, IN and AND are read)`);
    const values = n.right?.type === 'expr_list' ? (n.right.value as Node[]).map(literal) : [literal(n.right)];
    filters.push({ member: member(n.left, 'WHERE'), operator: op, values });
  };
  conditions(s.where);
  if (filters.length) query.filters = filters;

  const byPosition = (n: Node, where: string): string => {
    if (n?.type === 'number') {
      const m = selected[Number(n.value) - 1];
      if (!m) throw new UnsupportedSql(`${where} ${n.value}: no such column`);
      return m;
    }
    const c = columnName(n);
    const aliased = c && !c.table ? (s.columns as Node[]).findIndex((col) => col.as === c.column) : -1;
    return aliased >= 0 ? (selected[aliased] as string) : member(n, where);
  };
  // GROUP BY must name the selected dimensions only; Cube groups by them itself.
  for (const g of (s.groupby?.columns ?? []) as Node[]) {
    const m = byPosition(g, 'GROUP BY');
    if (!dimensions.has(m) || !selected.includes(m)) throw new UnsupportedSql(`GROUP BY ${m}: only the selected dimensions are read`);
  }
  if (Array.isArray(s.orderby) && s.orderby.length) {
    query.order = (s.orderby as Node[]).map((o) => [byPosition(o.expr, 'ORDER BY'), String(o.type ?? 'ASC').toUpperCase() === 'DESC' ? 'desc' : 'asc']);
  }
  const limit = (s.limit?.value ?? []) as Node[];
  if (limit.length > 1 || (s.limit?.seperator && s.limit.seperator !== '')) throw new UnsupportedSql('LIMIT with OFFSET');
  if (limit[0]) {
    if (limit[0].type !== 'number') throw new UnsupportedSql('LIMIT of anything but a number');
    query.limit = Number(limit[0].value);
  }
  return query;
}
