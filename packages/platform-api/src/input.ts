/** Checking values against the contract's schemas: one error type that names the input, the value and what was expected. */
import type { z } from 'zod';

/** Bad input found before anything was sent: names the input, the value and what was expected. */
export class InputError extends Error {
  override name = 'InputError';
  readonly input: string;
  readonly value: unknown;
  readonly expected: string;
  constructor(input: string, value: unknown, expected: string) {
    super(`${input}: got ${showValue(value)}, expected ${expected}`);
    this.input = input;
    this.value = value;
    this.expected = expected;
  }
}

/** Render a value for an error message: short, quoted, never multi-line. */
export function showValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') {
    const s = value.length > 120 ? `${value.slice(0, 117)}...` : value;
    return JSON.stringify(s);
  }
  try {
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a function or a symbol (JSON has no spelling for them)
    const s = JSON.stringify(value) ?? String(value);
    return s.length > 120 ? `${s.slice(0, 117)}...` : s;
  } catch {
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a bigint or a cycle: JavaScript's own printing is the last resort
    return String(value);
  }
}

/** Render a zod issue path as `a.b[0].c`. */
export function formatPath(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || '(root)';
}

/** The expectation of an input issue, phrased to follow "expected" (the value itself is shown separately). */
function issueExpected(issue: z.core.$ZodIssue): string {
  return issue.message
    .replace(/^Invalid input: /, '')
    .replace(/^expected /, '')
    .replace(/, received \w+$/, '');
}

/** A response issue as zod words it, minus its "Invalid input" prefix. */
export function issueText(issue: z.core.$ZodIssue): string {
  return issue.message.replace(/^Invalid input: /, '');
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = root;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/** Parse caller input with a schema; the first problem becomes an InputError naming input, value and expectation. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, prefix: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0] as z.core.$ZodIssue;
  throw new InputError(formatPath(prefix, issue.path), valueAt(value, issue.path), issueExpected(issue));
}
