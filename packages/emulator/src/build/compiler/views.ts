/** Parsing a view: its `cubes` (join paths with includes and excludes) and the older member-reference form. */
import { isMap, isScalar, type Node } from 'yaml';
import { IDENTIFIER, type EntityDef, type IncludeDef, type ViewSource } from './definitions.js';
import { memberLists, parseMembers, startEntity, type MemberList } from './members.js';
import { describe, listItems, pick, readBool, readName, readText, scalarText, type FileContext } from './yaml-reader.js';

export function parseView(ctx: FileContext, node: Node): EntityDef {
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
