/** Parsing a cube: its table or SQL, `extends`, members, joins and pre-aggregations. */
import { isMap, type Node } from 'yaml';
import { RELATIONSHIP_ALIASES, RELATIONSHIPS, type EntityDef } from './definitions.js';
import { memberLists, parseMembers, startEntity } from './members.js';
import { describe, listItems, pick, readName, readText, scalarText, type Field, type FileContext } from './yaml-reader.js';

export function parseCube(ctx: FileContext, node: Node): EntityDef {
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
