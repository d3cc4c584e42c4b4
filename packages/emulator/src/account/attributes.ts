/** User attributes and each user's values of them (spec 4.15). */
import { HttpError, type HandlerTable } from '../context.js';
import { cursorPaginate, type CursorQuery } from '../paging.js';
import { deleteRecord, findRecord, nextId, putRecord, records, type State } from '../state.js';
import { attributeValueKey, type AttributeRec, type AttributeType } from './models.js';
import { given, newestFirst, numericId, requireUser } from './records.js';

const ATTRIBUTE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const TYPE_WORDS: Record<AttributeType, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  string_array: 'an array of strings',
  number_array: 'an array of numbers',
};

function valueFits(type: AttributeType, v: unknown): boolean {
  const num = (x: unknown) => typeof x === 'number' && Number.isFinite(x);
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'number':
      return num(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'string_array':
      return Array.isArray(v) && v.every((x) => typeof x === 'string');
    case 'number_array':
      return Array.isArray(v) && v.every(num);
  }
}

/** The typed value of a default given as text (`"42"`, `"true"`, `'["a","b"]'`), or undefined when it does not fit. */
function parseDefault(type: AttributeType, text: string): { value: unknown } | undefined {
  let v: unknown = text;
  if (type === 'number') v = text.trim() === '' ? Number.NaN : Number(text);
  else if (type === 'boolean') v = text === 'true' ? true : text === 'false' ? false : undefined;
  else if (type !== 'string') {
    try {
      v = JSON.parse(text);
    } catch {
      return undefined;
    }
  }
  return valueFits(type, v) ? { value: v } : undefined;
}

function checkDefault(type: AttributeType, text: string | null | undefined): void {
  if (!given(text)) return;
  if (!parseDefault(type, text)) {
    const hint = type === 'string_array' || type === 'number_array' ? ' as JSON text' : '';
    throw new HttpError(400, `body.defaultValue: got ${JSON.stringify(text)}, expected ${TYPE_WORDS[type]}${hint} (the attribute is of type ${type})`);
  }
}

function attributeOut(a: AttributeRec) {
  const { createdAt: _c, ...rest } = a;
  return rest;
}

function requireAttribute(state: State, id: number, input = 'user attribute'): AttributeRec {
  const a = findRecord(state, 'userAttributes', id);
  if (!a) throw new HttpError(404, `${input}: user attribute ${id} not found`);
  return a;
}

export const attributeHandlers: HandlerTable = {
  getUserAttributes(ctx) {
    const q = ctx.query as CursorQuery & { name?: string; type?: AttributeType; offset?: number; limit?: number };
    const name = q.name?.toLowerCase();
    const rows = records(ctx.state, 'userAttributes')
      .filter((a) => (!name || a.name.toLowerCase().includes(name)) && (!q.type || a.type === q.type))
      .sort(newestFirst)
      .map(attributeOut);
    if (q.first === undefined && q.after === undefined && (q.offset !== undefined || q.limit !== undefined)) {
      // Deprecated offset/limit paging, answered with the cursor envelope of the same window.
      const offset = q.offset ?? 0;
      return cursorPaginate(rows, { first: q.limit ?? rows.length, after: String(offset) });
    }
    return cursorPaginate(rows, q);
  },

  createUserAttribute(ctx) {
    const body = ctx.body as { name: string; type: AttributeType; displayName?: string | null; description?: string | null; defaultValue?: string | null };
    if (!ATTRIBUTE_NAME.test(body.name)) {
      throw new HttpError(400, `body.name: got ${JSON.stringify(body.name)}, expected an identifier of letters, digits and "_" not starting with a digit`);
    }
    const clash = records(ctx.state, 'userAttributes').find((a) => a.name === body.name);
    if (clash) throw new HttpError(409, `a user attribute named ${JSON.stringify(body.name)} already exists (id ${clash.id})`);
    checkDefault(body.type, body.defaultValue);
    const a: AttributeRec = {
      id: nextId(ctx.state, 'userAttribute'),
      name: body.name,
      type: body.type,
      displayName: body.displayName ?? null,
      description: body.description ?? null,
      defaultValue: body.defaultValue ?? null,
      createdAt: ctx.clock.iso(),
    };
    putRecord(ctx.state, 'userAttributes', a.id, a);
    return attributeOut(a);
  },

  updateUserAttribute(ctx) {
    const a = requireAttribute(ctx.state, ctx.params.id as number);
    const body = ctx.body as { displayName?: string | null; description?: string | null; defaultValue?: string | null };
    checkDefault(a.type, body.defaultValue);
    for (const k of ['displayName', 'description', 'defaultValue'] as const) {
      if (body[k] !== undefined) a[k] = body[k] ?? null;
    }
    return attributeOut(a);
  },

  getUserAttributeValues(ctx) {
    const u = requireUser(ctx.state, ctx.params.userId as number);
    const out: { userAttributeId: number; userId: number; name: string; type: AttributeType; value: unknown; isDefault: boolean }[] = [];
    for (const a of records(ctx.state, 'userAttributes').sort((x, y) => x.id - y.id)) {
      const set = findRecord(ctx.state, 'userAttributeValues', attributeValueKey(u.id, a.id));
      const base = { userAttributeId: a.id, userId: u.id, name: a.name, type: a.type };
      if (set) out.push({ ...base, value: set.value, isDefault: false });
      else if (given(a.defaultValue)) out.push({ ...base, value: parseDefault(a.type, a.defaultValue)?.value ?? null, isDefault: true });
    }
    return out;
  },

  upsertUserAttributeValue(ctx) {
    const body = ctx.body as { userAttributeId: string; userId: string; value?: unknown };
    const a = requireAttribute(ctx.state, numericId(body.userAttributeId, 'body.userAttributeId'), 'body.userAttributeId');
    const u = requireUser(ctx.state, numericId(body.userId, 'body.userId'), 'body.userId');
    const key = attributeValueKey(u.id, a.id);
    const base = { userAttributeId: a.id, userId: u.id, name: a.name, type: a.type };
    if (!given(body.value)) {
      // null (or nothing) clears the user's value: the default, if any, applies again.
      deleteRecord(ctx.state, 'userAttributeValues', key);
      return { ...base, value: null };
    }
    if (!valueFits(a.type, body.value)) {
      throw new HttpError(
        400,
        `body.value: got ${JSON.stringify(body.value)}, expected ${TYPE_WORDS[a.type]} (attribute ${JSON.stringify(a.name)} is of type ${a.type})`,
      );
    }
    putRecord(ctx.state, 'userAttributeValues', key, { userAttributeId: a.id, userId: u.id, value: body.value, updatedAt: ctx.clock.iso() });
    return { ...base, value: body.value };
  },
};
