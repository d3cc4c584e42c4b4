/**
 * OpenAPI 3.1 / JSON Schema to zod v4 source. Two modes: a request is checked strictly (enums,
 * lengths, patterns, bounds, item counts), a response only for types and required fields, with
 * enumerations read as text and optional fields allowed to be null, so that a new value or a
 * reshaped secondary field never breaks parsing. Unsupported constructs throw, naming the path.
 */
import { array, call, flat, literal, object, regex, seq, str, type Code } from './printer.js';

export type Schema = Record<string, unknown>;
export type Mode = 'request' | 'response';

/** How the translation names a component and reports a problem. */
export interface Ctx {
  mode: Mode;
  /** The identifier of a component in this mode (wrapped in `z.lazy` when it closes a cycle). */
  ref(name: string): Code;
  /** The component schema a `$ref` points at. */
  resolve(ref: string): Schema;
  /** Where we are, for error messages. */
  at: string;
}

const ANNOTATIONS = new Set(['description', 'deprecated', 'title', 'example', 'examples', 'default', 'x-mint', 'readOnly', 'writeOnly', 'externalDocs']);
const NOT_NULL = JSON.stringify({ type: 'null' });

export const refName = (ref: string): string => ref.replace('#/components/schemas/', '');

function fail(ctx: Ctx, what: string): never {
  throw new Error(`${ctx.at}: ${what}`);
}

/** A JSON value as one-line TypeScript source (single quotes). */
const lit = (v: unknown): string => flat(literal(v));

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function isNull(s: unknown): boolean {
  return deepEqual(Object.fromEntries(Object.entries(s as Schema).filter(([k]) => !ANNOTATIONS.has(k))), { type: 'null' });
}

/** Split off nullability: `type: [x, 'null']`, a `{ type: 'null' }` branch of oneOf/anyOf, or 3.0 `nullable`. */
export function unwrapNull(schema: Schema, ctx: Ctx): { schema: Schema; nullable: boolean } {
  if (Array.isArray(schema.type) && schema.type.includes('null')) {
    const rest = schema.type.filter((t) => t !== 'null');
    return { schema: { ...schema, type: rest.length === 1 ? rest[0] : rest }, nullable: true };
  }
  if (schema.nullable === true) {
    const { nullable: _drop, ...rest } = schema;
    return { schema: rest, nullable: true };
  }
  const key = Array.isArray(schema.oneOf) ? 'oneOf' : Array.isArray(schema.anyOf) ? 'anyOf' : undefined;
  if (!key) return { schema, nullable: false };
  const branches = schema[key] as Schema[];
  const kept = branches.filter((b) => !isNull(b));
  const nullable = kept.length < branches.length;
  const siblings = Object.entries(schema).filter(([k]) => k !== key && !ANNOTATIONS.has(k) && !k.startsWith('x-'));
  if (kept.length === 1) {
    const only = kept[0] as Schema;
    const resolved = typeof only.$ref === 'string' ? ctx.resolve(only.$ref) : only;
    // Keywords repeated next to a single branch add nothing; anything else would be lost.
    for (const [k, v] of siblings) {
      if (k === 'not' && JSON.stringify(v) === NOT_NULL) continue;
      if (!deepEqual(resolved[k], v)) fail(ctx, `"${k}" next to ${key} differs from its branch`);
    }
    const extensions = Object.fromEntries(Object.entries(schema).filter(([k]) => k.startsWith('x-')));
    return { schema: { ...only, ...extensions }, nullable };
  }
  for (const [k, v] of siblings) if (!(k === 'not' && JSON.stringify(v) === NOT_NULL)) fail(ctx, `"${k}" next to a ${key} of several branches`);
  return { schema: { ...schema, [key]: kept }, nullable };
}

/** A chain of checks on a base: `base.min(1).max(2)`. */
function chain(base: Code, checks: Code[]): Code {
  return checks.length ? seq(base, ...checks) : base;
}

/** The custom message argument of a check, when the schema has `x-message`. */
function msg(s: Schema): string {
  return typeof s['x-message'] === 'string' ? `, ${str(s['x-message'])}` : '';
}

function stringChecks(s: Schema): string[] {
  const out: string[] = [];
  if (typeof s.minLength === 'number') out.push(`.min(${s.minLength}${msg(s)})`);
  if (typeof s.maxLength === 'number') out.push(`.max(${s.maxLength}${msg(s)})`);
  if (typeof s.pattern === 'string') out.push(`.regex(${regex(s.pattern)}${msg(s)})`);
  return out;
}

function numberChecks(s: Schema): string[] {
  const out: string[] = [];
  if (typeof s.minimum === 'number') out.push(`.min(${s.minimum}${msg(s)})`);
  if (typeof s.exclusiveMinimum === 'number') out.push(`.gt(${s.exclusiveMinimum}${msg(s)})`);
  if (typeof s.maximum === 'number') out.push(`.max(${s.maximum}${msg(s)})`);
  if (typeof s.exclusiveMaximum === 'number') out.push(`.lt(${s.exclusiveMaximum}${msg(s)})`);
  return out;
}

/** `not: { const }` and `not: { pattern }` refuse one value or one form, with the message of the `not`. */
function notCheck(s: Schema, ctx: Ctx): Code[] {
  const not = s.not as Schema | undefined;
  if (!not || JSON.stringify(not) === NOT_NULL) return [];
  const message = object([['message', str(typeof not['x-message'] === 'string' ? not['x-message'] : 'a different value')]]);
  if ('const' in not) return [call('.refine', `(v) => v !== ${lit(not.const)}`, message)];
  if (typeof not.pattern === 'string') return [call('.refine', `(v) => !${regex(not.pattern)}.test(v)`, message)];
  return fail(ctx, 'only `not: { const }`, `not: { pattern }` and `not: { type: null }` are translated');
}

/** `allOf` of objects (refs resolved) as one object: properties merged, required sets joined. */
function mergeAll(members: Schema[], ctx: Ctx): Schema {
  const out: Schema = { type: 'object', properties: {}, required: [] };
  for (const m of members) {
    const s = typeof m.$ref === 'string' ? ctx.resolve(m.$ref) : m;
    if (s.type !== 'object' && !s.properties) fail(ctx, 'allOf of something other than objects');
    Object.assign(out.properties as Schema, s.properties ?? {});
    (out.required as string[]).push(...((s.required as string[]) ?? []));
    for (const [k, v] of Object.entries(s)) if (k.startsWith('x-')) out[k] = v;
  }
  return out;
}

function enumCode(values: unknown[], ctx: Ctx): Code {
  const strings = values.every((v) => typeof v === 'string');
  // A response reads enumerated values as plain text or numbers: a new value must not break parsing.
  if (ctx.mode === 'response') return strings ? 'z.string()' : 'z.number()';
  if (strings) return call('z.enum', array(values.map((v) => str(v))));
  if (values.length === 1) return `z.literal(${lit(values[0])})`;
  return call('z.union', array(values.map((v) => `z.literal(${lit(v)})`)));
}

function objectCode(s: Schema, ctx: Ctx): Code {
  const props = (s.properties ?? {}) as Record<string, Schema>;
  const required = new Set((s.required as string[]) ?? []);
  const extra = s.additionalProperties;
  if (Object.keys(props).length === 0) {
    const value = extra && typeof extra === 'object' ? zodOf(extra as Schema, { ...ctx, at: `${ctx.at}.additionalProperties` }) : 'z.unknown()';
    return call('z.record', 'z.string()', value);
  }
  if (extra && typeof extra === 'object') fail(ctx, 'properties together with an additionalProperties schema');
  for (const r of required) if (!(r in props)) fail(ctx, `required "${r}" is not a property`);
  const entries: [string, Code][] = Object.entries(props).map(([name, p]) => [name, property(p, required.has(name), { ...ctx, at: `${ctx.at}.${name}` })]);
  return call('z.looseObject', object(entries));
}

/** A property's schema with its presence: required, optional, nullable. */
export function property(p: Schema, required: boolean, ctx: Ctx): Code {
  const { schema, nullable } = unwrapNull(p, ctx);
  const base = zodOf(schema, ctx);
  if (required) return nullable ? seq(base, '.nullable()') : base;
  // A response field with a default reads as that default when absent (the server's value, not one we send).
  if (ctx.mode === 'response' && 'default' in p) return seq(base, `.default(${lit(p.default)})`);
  // In a response an optional field may also be null: servers send null for "not set".
  return seq(base, nullable || ctx.mode === 'response' ? '.nullish()' : '.optional()');
}

/** Wrap an object in its overlay vocabulary: `x-refine` rules, `x-alias` sources, an `x-unwrap` envelope. */
function vocabulary(base: Code, s: Schema, ctx: Ctx): Code {
  let out = base;
  if (s['x-unwrap'] !== undefined) {
    if (typeof s['x-unwrap'] !== 'string') fail(ctx, 'x-unwrap is not a field name');
    out = call('z.preprocess', call('unwrap', str(s['x-unwrap'])), out);
  }
  if (s['x-refine'] !== undefined) checkRules(s['x-refine'], ctx.at);
  if (s['x-refine'] !== undefined && ctx.mode === 'request') out = seq(out, call('.superRefine', call('refine', literal(s['x-refine']))));
  const aliases = (s['x-alias'] ?? {}) as Record<string, string[]>;
  for (const [field, sources] of Object.entries(aliases).reverse()) {
    const target = ((s.properties ?? {}) as Record<string, Schema>)[field];
    const kind = target?.type === 'array' ? 'array' : target?.type === 'string' ? 'string' : target?.type === 'object' ? 'object' : 'any';
    out = call('z.preprocess', call('alias', str(field), str(kind), array(sources.map(str))), out);
  }
  return out;
}

/** In a union with a text branch, a number branch reads JSON numbers only (else "1" would become 1). */
function exactNumbers(code: Code, hasText: boolean): Code {
  if (!hasText) return code;
  if (code === 'ReadInt') return 'z.number().int()';
  if (code === 'ReadNumber') return 'z.number()';
  return code;
}

/** The zod source of one schema (nullability included). */
export function zodOf(input: Schema, ctx: Ctx): Code {
  const { schema: s, nullable } = unwrapNull(input, ctx);
  const base = baseOf(s, ctx);
  return nullable ? seq(base, '.nullable()') : base;
}

function baseOf(s: Schema, ctx: Ctx): Code {
  const strict = ctx.mode === 'request';
  if (typeof s.$ref === 'string') {
    const target = ctx.resolve(s.$ref);
    for (const [k, v] of Object.entries(s)) {
      if (k === '$ref' || ANNOTATIONS.has(k) || (k === 'type' && v === target.type)) continue;
      fail(ctx, `"${k}" next to $ref`);
    }
    return ctx.ref(refName(s.$ref));
  }
  if (Array.isArray(s.allOf)) {
    const merged = mergeAll(s.allOf as Schema[], ctx);
    return vocabulary(objectCode(merged, ctx), merged, ctx);
  }
  const branches = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
  if (branches) {
    // A union that has a text branch keeps text as text: its number branches read JSON numbers only.
    const hasText = branches.some((b) => (typeof b.$ref === 'string' ? ctx.resolve(b.$ref) : b).type === 'string');
    const alternatives = branches.map((b, i) => exactNumbers(zodOf(b, { ...ctx, at: `${ctx.at}|${i}` }), hasText));
    let out: Code = call('z.union', array(alternatives));
    if (s['x-to-string'] === true) out = seq(out, '.transform((v) => String(v))');
    return out;
  }
  if (Array.isArray(s.enum)) return enumCode(s.enum, ctx);
  if ('const' in s) return strict ? `z.literal(${lit(s.const)})` : typeof s.const === 'string' ? 'z.string()' : 'z.unknown()';
  if (Array.isArray(s.type)) {
    const hasText = (s.type as string[]).includes('string');
    return call('z.union', array((s.type as string[]).map((t) => exactNumbers(baseOf({ ...s, type: t }, ctx), hasText))));
  }
  switch (s.type) {
    case 'string': {
      if (s.format === 'binary') return 'FileBytes';
      // An answer's date may come as text of any standard form, or as a count since the epoch.
      if (!strict) return s.format === 'date-time' ? 'ReadDate' : 'z.string()';
      const base = s.format === 'url' || s.format === 'uri' ? 'z.url()' : s.format === 'email' ? 'z.email()' : 'z.string()';
      return chain(base, [...stringChecks(s), ...notCheck(s, ctx)]);
    }
    // An answer's number may come as its decimal text (ids especially); what is sent is a JSON number.
    case 'integer':
      return strict ? chain('z.number().int()', numberChecks(s)) : 'ReadInt';
    case 'number':
      return strict ? chain('z.number()', numberChecks(s)) : 'ReadNumber';
    case 'boolean':
      return 'z.boolean()';
    case 'null':
      return 'z.null()';
    case 'array': {
      const items = zodOf((s.items ?? {}) as Schema, { ...ctx, at: `${ctx.at}[]` });
      const checks: Code[] = [];
      if (strict && typeof s.minItems === 'number') checks.push(`.min(${s.minItems}${msg(s)})`);
      if (strict && typeof s.maxItems === 'number') checks.push(`.max(${s.maxItems}${msg(s)})`);
      const contains = s.contains as Schema | undefined;
      if (strict && contains && 'const' in contains) {
        const message = object([['message', str(typeof contains['x-message'] === 'string' ? contains['x-message'] : 'a required entry')]]);
        checks.push(call('.refine', `(a) => a.includes(${lit(contains.const)})`, message));
      }
      return chain(call('z.array', items), checks);
    }
    case 'object':
      return vocabulary(objectCode(s, ctx), s, ctx);
    case undefined:
      if (s.properties) return vocabulary(objectCode(s, ctx), s, ctx);
      return 'z.unknown()';
    default:
      return fail(ctx, `unknown type ${JSON.stringify(s.type)}`);
  }
}

const RULE_KINDS = ['atMostOne', 'atLeastOne', 'exactlyOne', 'together', 'ifAny'];

/** Check `x-refine` rules as written in the overlay: one kind each, a message, nothing else. */
export function checkRules(rules: unknown, at: string): void {
  if (!Array.isArray(rules)) throw new Error(`${at}: x-refine is not a list`);
  for (const r of rules as Schema[]) {
    const kinds = Object.keys(r).filter((k) => RULE_KINDS.includes(k));
    const extra = Object.keys(r).filter((k) => !RULE_KINDS.includes(k) && !['message', 'path', 'require'].includes(k));
    if (kinds.length !== 1 || typeof r.message !== 'string' || extra.length) throw new Error(`${at}: bad x-refine rule ${JSON.stringify(r)}`);
    if ((kinds[0] === 'ifAny') !== (typeof r.require === 'string')) throw new Error(`${at}: ifAny goes with require`);
  }
}
