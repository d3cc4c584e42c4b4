/**
 * A small layout printer for the generated TypeScript, close to prettier's output with the repo's
 * settings (single quotes, 2-space indent, width 160, trailing commas): a group stays on one line
 * when it fits, otherwise one item a line; a call with one object or array argument hugs it.
 */

export const WIDTH = 160;

/** Code to print: text, a sequence printed one after the other, or a bracketed group of items. */
export type Code = string | Seq | Group;
export interface Seq {
  kind: 'seq';
  parts: Code[];
}
export interface Group {
  kind: 'group';
  open: string;
  close: string;
  items: Code[];
  /** `{ a }` has spaces inside its braces on one line; `(a)` and `[a]` do not. */
  spaced?: boolean;
}

export const seq = (...parts: Code[]): Seq => ({ kind: 'seq', parts });
export const group = (open: string, items: Code[], close: string, spaced = false): Group => ({ kind: 'group', open, items, close, spaced });
/** `callee(args)`. */
export const call = (callee: Code, ...args: Code[]): Seq => seq(callee, group('(', args, ')'));
/** `{ key: value, ... }` with keys quoted only where needed. */
export const object = (entries: [string, Code][]): Group =>
  group(
    '{',
    entries.map(([k, v]) => seq(`${key(k)}: `, v)),
    '}',
    true,
  );
export const array = (items: Code[]): Group => group('[', items, ']');

/** A JSON value as a TypeScript literal. */
export function literal(v: unknown): Code {
  if (typeof v === 'string') return str(v);
  if (Array.isArray(v)) return array(v.map(literal));
  if (v && typeof v === 'object') return object(Object.entries(v).map(([k, x]) => [k, literal(x)]));
  return JSON.stringify(v);
}

/** A string literal in single quotes. */
export function str(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t')}'`;
}

/** A property key: bare when it is an identifier. */
export function key(k: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : str(k);
}

/** A regular-expression literal for a JSON Schema pattern. */
export function regex(pattern: string): string {
  return `/${pattern.replace(/\//g, '\\/')}/`;
}

/** The one-line rendering. */
export function flat(c: Code): string {
  if (typeof c === 'string') return c;
  if (c.kind === 'seq') return c.parts.map(flat).join('');
  if (c.items.length === 0) return `${c.open}${c.close}`;
  const inner = c.items.map(flat).join(', ');
  return c.spaced ? `${c.open} ${inner} ${c.close}` : `${c.open}${inner}${c.close}`;
}

function endColumn(text: string, start: number): number {
  const nl = text.lastIndexOf('\n');
  return nl < 0 ? start + text.length : text.length - nl - 1;
}

function huggable(c: Code): boolean {
  if (typeof c === 'string') return false;
  if (c.kind === 'group') return c.open === '{' || c.open === '[';
  return false;
}

/** Print at an indentation, starting at a column; `tail` is text that must follow on the same line. */
export function print(c: Code, indent = '', column = 0, tail = 0): string {
  const one = flat(c);
  if (column + one.length + tail <= WIDTH) return one;
  if (typeof c === 'string') return c;
  if (c.kind === 'seq') {
    let out = '';
    let col = column;
    c.parts.forEach((p, i) => {
      const rest = c.parts.slice(i + 1).reduce<number>((n, q) => n + flat(q).length, tail);
      const text = print(p, indent, col, rest);
      out += text;
      col = endColumn(text, col);
    });
    return out;
  }
  const last = c.items[c.items.length - 1] as Code;
  if (c.open === '(' && huggable(last)) {
    // Like prettier: the last object argument opens on the call's line when the others fit before it.
    const head = `${c.open}${c.items
      .slice(0, -1)
      .map((it) => `${flat(it)}, `)
      .join('')}`;
    if (column + head.length + 2 <= WIDTH && !head.includes('\n')) return head + print(last, indent, column + head.length, c.close.length + tail) + c.close;
  }
  const inner = `${indent}  `;
  const lines = c.items.map((it) => `${inner}${print(it, inner, inner.length, 1)},`);
  return `${c.open}\n${lines.join('\n')}\n${indent}${c.close}`;
}

/** `export const name = code;` as a statement. */
export function statement(head: string, c: Code): string {
  return `${head}${print(c, '', head.length, 1)};`;
}
