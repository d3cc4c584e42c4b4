/** Reading YAML nodes with their line numbers: fields (with merge keys), scalars, lists and names, reporting what is malformed. */
import { isAlias, isMap, isScalar, isSeq, LineCounter, type Document, type Node } from 'yaml';
import { textOf } from '../../json.js';
import { IDENTIFIER, type RawError } from './definitions.js';

export interface Field {
  key: string;
  keyLine: number;
  value: Node | null;
}

/** Per-file parsing context: the document, its line counter and the error sink. */
export class FileContext {
  constructor(
    readonly file: string,
    readonly document: Document,
    private readonly lineCounter: LineCounter,
    private readonly sink: RawError[],
  ) {}

  error(line: number | null, text: string): void {
    this.sink.push({ file: this.file, line, text });
  }

  line(node: Node | null | undefined, fallback: number): number {
    const start = node?.range?.[0];
    return start === undefined ? fallback : this.lineCounter.linePos(start).line;
  }

  deref(node: unknown): Node | null {
    if (isAlias(node)) return (node.resolve(this.document) as Node | undefined) ?? null;
    return (node as Node | null | undefined) ?? null;
  }

  /** The mapping's fields, with YAML merge keys (`<<: *anchor`) folded in at lower precedence. */
  fields(map: Node): Map<string, Field> {
    const out = new Map<string, Field>();
    const merged: Field[] = [];
    if (!isMap(map)) return out;
    for (const pair of map.items) {
      const keyNode = this.deref(pair.key);
      const keyLine = this.line(keyNode, this.line(map, 1));
      const value = this.deref(pair.value);
      const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
      if (key === '<<' && (isMap(value) || isSeq(value))) {
        const sources = isSeq(value) ? value.items.map((i) => this.deref(i)) : [value];
        for (const src of sources) if (src) for (const f of this.fields(src).values()) merged.push(f);
        continue;
      }
      out.set(key, { key, keyLine, value });
    }
    for (const f of merged) if (!out.has(f.key)) out.set(f.key, f);
    return out;
  }
}

export function pick(fields: Map<string, Field>, ...names: string[]): Field | undefined {
  for (const n of names) {
    const f = fields.get(n);
    if (f) return f;
  }
  return undefined;
}

/** A scalar's value as text; undefined for a missing/null value, null for a non-scalar. */
export function scalarText(node: Node | null): string | undefined | null {
  if (node === null) return undefined;
  if (!isScalar(node)) return null;
  if (node.value === null || node.value === undefined) return undefined;
  return textOf(node.value);
}

export function describe(node: Node | null): string {
  if (node === null) return 'nothing';
  if (isMap(node)) return 'a mapping';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) return typeof node.value === 'string' ? 'a string' : `${String(node.value)}`;
  return 'an unsupported value';
}

/** The items of a list-valued field; null/empty counts as an empty list, anything else is an error. */
export function listItems(ctx: FileContext, field: Field, what: string): Array<{ node: Node | null; line: number }> {
  const value = field.value;
  if (value === null || (isScalar(value) && (value.value === null || value.value === undefined))) return [];
  if (!isSeq(value)) {
    ctx.error(ctx.line(value, field.keyLine), `${what} must be a list, got ${describe(value)}`);
    return [];
  }
  const base = ctx.line(value, field.keyLine);
  return value.items.map((raw) => {
    const node = ctx.deref(raw);
    return { node, line: ctx.line(node, ctx.line(raw as Node, base)) };
  });
}

/** Reads the `name` of a mapping; reports it missing or malformed. Returns the name and its line. */
export function readName(
  ctx: FileContext,
  fields: Map<string, Field>,
  itemLine: number,
  what: string,
): { name?: string; label: string; line: number } {
  const f = fields.get('name');
  if (!f) {
    ctx.error(itemLine, `${what} is missing "name"`);
    return { label: '?', line: itemLine };
  }
  const line = ctx.line(f.value, f.keyLine);
  const text = scalarText(f.value);
  if (text === undefined || text === '') {
    ctx.error(line, `${what} is missing "name"`);
    return { label: '?', line };
  }
  if (text === null) {
    ctx.error(line, `${what} name must be a string, got ${describe(f.value)}`);
    return { label: '?', line };
  }
  if (!IDENTIFIER.test(text)) {
    ctx.error(line, `${what} name "${text}" is not a valid identifier (expected ${IDENTIFIER.source})`);
    return { label: text, line };
  }
  return { name: text, label: text, line };
}

/** An optional string-valued field; reports a non-scalar value. */
export function readText(ctx: FileContext, field: Field | undefined, what: string): string | undefined {
  if (!field) return undefined;
  const text = scalarText(field.value);
  if (text === null) {
    ctx.error(ctx.line(field.value, field.keyLine), `${what} must be a string, got ${describe(field.value)}`);
    return undefined;
  }
  return text;
}

export function readBool(ctx: FileContext, field: Field | undefined, what: string): boolean {
  if (!field) return false;
  if (isScalar(field.value) && typeof field.value.value === 'boolean') return field.value.value;
  if (isScalar(field.value) && (field.value.value === null || field.value.value === undefined)) return false;
  ctx.error(ctx.line(field.value, field.keyLine), `${what} must be true or false, got ${describe(field.value)}`);
  return false;
}
