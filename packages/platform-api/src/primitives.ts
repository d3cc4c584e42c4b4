/**
 * Building blocks the generated schemas call: path and query primitives (a caller passes numbers and
 * booleans, a server receives text; both parse to the same output), and the overlay's small
 * vocabulary (`x-refine`, `x-alias`, `x-unwrap`) as zod refinements and preprocessors.
 */
import { z } from 'zod';

/** An integer, or its decimal text (path and query values). */
export const Int = z
  .union([z.number().int(), z.string().regex(/^-?\d+$/, 'expected an integer')])
  .transform((v) => Number(v))
  .meta({ type: 'integer' });

/** A positive integer (ids, page sizes). */
export const PosInt = Int.refine((n) => n >= 1, 'expected an integer of at least 1');

/** A non-negative integer (offsets). */
export const NonNegInt = Int.refine((n) => n >= 0, 'expected an integer of at least 0');

/** A boolean, or `true`/`false` text (query values). */
export const Bool = z
  .union([z.boolean(), z.enum(['true', 'false'])])
  .transform((v) => v === true || v === 'true')
  .meta({ type: 'boolean' });

/** A non-empty string (path values: an empty segment would change the route). */
export const Name = z.string().min(1, 'expected a non-empty string');

// ---------------------------------------------------------------------------------------------
// Reading answers: the forms a real service may send where the vendor's file leaves the form open.

/** A number in an answer: a JSON number, or its decimal text (some services send ids as strings). */
export const ReadNumber = z
  .union([z.number(), z.string().regex(/^\s*-?\d+(\.\d+)?([eE][+-]?\d+)?\s*$/, 'expected a number or its decimal text')])
  .transform((v) => Number(v));

/** An integer in an answer: a JSON integer, or its decimal text. */
export const ReadInt = z.union([z.number().int(), z.string().regex(/^\s*-?\d+\s*$/, 'expected an integer or its decimal text')]).transform((v) => Number(v));

/** A date in an answer: any text (ISO 8601, an HTTP date, ...), or seconds or milliseconds since the epoch, read as ISO 8601. */
export const ReadDate = z.union([z.string(), z.number()]).transform((v) => {
  if (typeof v === 'string') return v;
  return new Date(Math.abs(v) < 1e11 ? v * 1000 : v).toISOString();
});

/** A file part of a multipart body: the bytes, or text. */
export const FileBytes = z.union([z.instanceof(Buffer), z.string()]);

/** An integer within bounds, or its text: `Int` checked against the vendor's minimum and maximum. */
export function intBetween(min: number | undefined, max: number | undefined) {
  const words = max === undefined ? `of at least ${min}` : min === undefined ? `of at most ${max}` : `from ${min} to ${max}`;
  return Int.refine((n) => (min === undefined || n >= min) && (max === undefined || n <= max), `expected an integer ${words}`);
}

// ---------------------------------------------------------------------------------------------
// `x-refine`: rules between the fields of one object, each with its message.

/** One rule of `x-refine`. A field `a+b` is a group (given when any member is); `a=v` is given when `a` equals `v`. */
export type Rule = (
  { atMostOne: string[] } | { atLeastOne: string[] } | { exactlyOne: string[] } | { together: string[] } | { ifAny: string[]; require: string }
) & {
  /** What was expected; `{given}` is replaced by the given fields, joined with " with ". */
  message: string;
  /** The field the issue points at (default: the field that tipped the rule). */
  path?: string;
};

type Fields = Record<string, unknown>;

/** Whether one field (or group, or `field=value` test) counts as given: present, not null, not `false`. */
function given(value: Fields, field: string): boolean {
  if (field.includes('+')) return field.split('+').some((f) => given(value, f));
  const eq = field.indexOf('=');
  if (eq > 0) return String(value[field.slice(0, eq)]) === field.slice(eq + 1);
  const v = value[field];
  return v !== undefined && v !== null && v !== false;
}

/** The field an issue about `field` points at: the first given member of a group, or the field itself. */
function pointAt(value: Fields, field: string): string {
  const first = field.split('+').find((f) => given(value, f)) ?? field.split('+')[0] ?? field;
  return first.split('=')[0] ?? first;
}

function check(rule: Rule, value: Fields): { at: string; given: string[] } | undefined {
  if ('ifAny' in rule) {
    const any = rule.ifAny.filter((f) => given(value, f));
    return any.length > 0 && !given(value, rule.require) ? { at: rule.require, given: any } : undefined;
  }
  const fields = 'atMostOne' in rule ? rule.atMostOne : 'atLeastOne' in rule ? rule.atLeastOne : 'exactlyOne' in rule ? rule.exactlyOne : rule.together;
  const on = fields.filter((f) => given(value, f));
  if ('together' in rule) {
    const off = fields.find((f) => !given(value, f));
    return on.length > 0 && off ? { at: pointAt(value, off), given: on } : undefined;
  }
  const tooMany = !('atLeastOne' in rule) && on.length > 1;
  const tooFew = !('atMostOne' in rule) && on.length === 0;
  if (tooMany) return { at: pointAt(value, on[1] as string), given: on };
  if (tooFew) return { at: pointAt(value, fields[0] as string), given: on };
  return undefined;
}

/** The `superRefine` of an object with `x-refine` rules: one issue per broken rule, in order. */
export function refine(rules: Rule[]) {
  return (value: Fields, ctx: z.RefinementCtx) => {
    for (const rule of rules) {
      const broken = check(rule, value);
      if (!broken) continue;
      const message = rule.message.replace('{given}', broken.given.join(' with '));
      ctx.addIssue({ code: 'custom', path: [rule.path ?? broken.at], message });
    }
  };
}

// ---------------------------------------------------------------------------------------------
// `x-unwrap`: a value that may also arrive wrapped in an object under one field.

/** Preprocess: `{ <field>: value }` (and nothing that could be a key of the value itself) reads as `value`. */
export function unwrap(field: string) {
  return (v: unknown): unknown => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
    const inner = (v as Fields)[field];
    return Object.keys(v).length === 1 && inner && typeof inner === 'object' && !Array.isArray(inner) ? inner : v;
  };
}

// ---------------------------------------------------------------------------------------------
// `x-alias`: a field read from another place when it is absent.

/** Which value an alias source must be to be taken. */
export type AliasKind = 'array' | 'string' | 'object' | 'any';

function fits(v: unknown, kind: AliasKind): boolean {
  if (kind === 'array') return Array.isArray(v);
  if (kind === 'object') return !!v && typeof v === 'object' && !Array.isArray(v);
  if (kind === 'any') return v !== undefined && v !== null;
  return typeof v === kind;
}

/** Preprocess an object: when `field` is absent, take the first source path (`a.b`) holding a value of `kind`. */
export function alias(field: string, kind: AliasKind, sources: string[]) {
  return (v: unknown): unknown => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
    const o = v as Fields;
    if (o[field] !== undefined) return v;
    for (const source of sources) {
      let at: unknown = o;
      for (const key of source.split('.')) at = at && typeof at === 'object' ? (at as Fields)[key] : undefined;
      if (fits(at, kind)) return { ...o, [field]: at };
    }
    return v;
  };
}
