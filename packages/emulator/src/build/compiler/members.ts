/** What cubes and views share: the start of an entity and its measures, dimensions and segments. */
import { isMap, type Node } from 'yaml';
import {
  DIMENSION_TYPES,
  MEASURE_TYPE_ALIASES,
  MEASURE_TYPES,
  MEMBER_LISTS,
  type EntityDef,
  type MemberDef,
  type MemberKind,
} from './definitions.js';
import { describe, listItems, pick, readBool, readName, readText, scalarText, type Field, type FileContext } from './yaml-reader.js';

/** The part every cube and view starts with: its fields, name, title and an empty entity. */
export function startEntity(ctx: FileContext, node: Node, kind: 'cube' | 'view') {
  const itemLine = ctx.line(node, 1);
  const fields = ctx.fields(node);
  const { name, label, line } = readName(ctx, fields, itemLine, kind);
  const what = `${kind} "${label}"`;
  const entity: EntityDef = { kind, name, label, file: ctx.file, line, members: [], joins: [], sources: [], refs: [] };
  entity.title = readText(ctx, fields.get('title'), `${what} title`);
  return { fields, label, line, what, entity };
}

export interface MemberList {
  key: string;
  kind: MemberKind;
  items: Array<{ node: Node | null; line: number }>;
}

export function memberLists(ctx: FileContext, fields: Map<string, Field>, what: string): MemberList[] {
  return MEMBER_LISTS.flatMap(({ key, kind }) => {
    const field = fields.get(key);
    return field ? [{ key, kind, items: listItems(ctx, field, `${what} ${key}`) }] : [];
  });
}

/** measures/dimensions/segments of a cube (or the defined members of a view); one namespace. */
export function parseMembers(ctx: FileContext, lists: MemberList[], entity: EntityDef, owner: string): void {
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
