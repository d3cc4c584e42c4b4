/** A JS model file as a position tree: acorn parses it, `cube(name, {…})` and `view(name, {…})` calls become entities. */
import { parse, tokenizer, type Node, type Options, type Program } from 'acorn';
import { emptyNode, type Entity, type ModelFile, type Pos, type TreeNode } from './model-tree.js';

/** An ESTree node with its fields read by name (acorn's own types are a union too wide to narrow cheaply). */
export interface EsNode extends Node {
  [field: string]: unknown;
}

const PARSE: Options = {
  ecmaVersion: 'latest',
  locations: true,
  allowHashBang: true,
  allowReturnOutsideFunction: true,
  allowImportExportEverywhere: true,
  allowAwaitOutsideFunction: true,
};

const posOf = (n: Node): Pos => ({ line: n.loc?.start.line ?? 1, column: (n.loc?.start.column ?? 0) + 1 });
const child = (n: EsNode, field: string) => n[field] as EsNode | null | undefined;
const children = (n: EsNode, field: string) => (n[field] as (EsNode | null)[] | undefined) ?? [];

/** `base_events`, `orders.users`: a name or a path of names, as the model writes a reference (`extends`, `join_path`). */
function pathText(n: EsNode): string | undefined {
  if (n.type === 'Identifier') return n.name as string;
  if (n.type !== 'MemberExpression' || n.computed) return undefined;
  const object = child(n, 'object');
  const property = child(n, 'property');
  const head = object ? pathText(object) : undefined;
  return head && property?.type === 'Identifier' ? `${head}.${property.name as string}` : undefined;
}

/** The text of a string literal or a template literal without `${…}`. */
function staticText(n: EsNode | null | undefined): string | undefined {
  if (!n) return undefined;
  if (n.type === 'Literal' && (typeof n.value === 'string' || typeof n.value === 'number' || typeof n.value === 'boolean')) return String(n.value);
  if (n.type === 'TemplateLiteral' && children(n, 'expressions').length === 0) {
    return children(n, 'quasis')
      .map((q) => (q?.value as { cooked?: string } | undefined)?.cooked ?? '')
      .join('');
  }
  return undefined;
}

function convert(n: EsNode): TreeNode {
  const start = posOf(n);
  const out: TreeNode = { kind: 'scalar', start, endLine: n.loc?.end.line ?? start.line, entries: [], items: [] };
  if (n.type === 'ObjectExpression') {
    out.kind = 'map';
    for (const p of children(n, 'properties')) {
      if (!p || p.type !== 'Property' || p.computed) continue;
      const key = child(p, 'key');
      const name = key?.type === 'Identifier' ? (key.name as string) : staticText(key);
      const value = child(p, 'value');
      if (name === undefined || !key) continue;
      out.entries.push({ key: name, at: posOf(key), value: value ? convert(value) : emptyNode(posOf(key)) });
    }
  } else if (n.type === 'ArrayExpression') {
    out.kind = 'list';
    for (const e of children(n, 'elements')) if (e) out.items.push(convert(e));
  } else {
    const text = staticText(n) ?? pathText(n);
    if (text !== undefined) out.text = text;
  }
  return out;
}

/** Visit every ESTree node under `n`. */
function walk(n: EsNode, visit: (n: EsNode) => void): void {
  visit(n);
  for (const [field, v] of Object.entries(n)) {
    if (field === 'loc') continue;
    for (const c of Array.isArray(v) ? v : [v]) {
      if (c && typeof c === 'object' && typeof (c as EsNode).type === 'string') walk(c as EsNode, visit);
    }
  }
}

/** A `cube(name, {…})` or `view(name, {…})` call: the call, its name argument and its body argument. */
export interface ModelCall {
  kind: 'cube' | 'view';
  call: EsNode;
  nameArg: EsNode;
  bodyArg?: EsNode;
}

/** Every `cube(…)` and `view(…)` call of a parsed file, in source order (the locator and the impact's reader share it). */
export function modelCalls(program: Program): ModelCall[] {
  const out: ModelCall[] = [];
  walk(program as unknown as EsNode, (n) => {
    if (n.type !== 'CallExpression') return;
    const callee = child(n, 'callee');
    const kind = callee?.type === 'Identifier' && (callee.name === 'cube' || callee.name === 'view') ? callee.name : undefined;
    const [nameArg, bodyArg] = children(n, 'arguments');
    if (kind && nameArg) out.push({ kind, call: n, nameArg, ...(bodyArg ? { bodyArg } : {}) });
  });
  return out;
}

export function parseJs(text: string): Program | undefined {
  for (const sourceType of ['module', 'script'] as const) {
    try {
      return parse(text, { ...PARSE, sourceType });
    } catch {
      // A script may use what a module forbids (`with`, octal literals): try both.
    }
  }
  return undefined;
}

export function readJsModel(path: string, text: string): ModelFile {
  const file: ModelFile = { path, language: 'js', lines: text.split(/\r?\n/), entities: [] };
  const program = parseJs(text);
  if (!program) return { ...file, unparsable: true, claims: claimedNames(text) };
  for (const { kind, call: n, nameArg, bodyArg } of modelCalls(program)) {
    const start = posOf(n);
    const body = bodyArg?.type === 'ObjectExpression' ? convert(bodyArg) : emptyNode(start);
    const entity: Entity = { kind, start, nameAt: posOf(nameArg), endLine: n.loc?.end.line ?? start.line, body };
    const name = staticText(nameArg);
    if (name !== undefined) entity.name = name;
    file.entities.push(entity);
  }
  return file;
}

/** `cube(\`orders\`, {` in a file the parser rejects: the names its calls would have defined. */
function claimedNames(text: string): string[] {
  return [...text.matchAll(/\b(?:cube|view)\s*\(\s*([`'"])([\w$]+)\1/g)].map((m) => m[2] as string);
}

/** A line that looks like an object property (`measures: {`): template text that swallowed code. */
const CODE_LINE = /^\s*[A-Za-z_$][\w$]*\s*:\s*[{[`'"]/m;

/**
 * Where an unterminated template literal opens, when a syntax error sits right after a multi-line
 * template whose text looks like code: the backtick meant to close it opened the template instead.
 */
export function swallowingTemplateStart(text: string, errorOffset: number): Pos | undefined {
  let lastTemplate: { start: number; end: number; body: string } | undefined;
  let opening = -1;
  try {
    for (const token of tokenizer(text, { ...PARSE, sourceType: 'module' })) {
      if (token.start >= errorOffset) break;
      if (token.type.label === '`') {
        if (opening < 0) opening = token.start;
        else {
          lastTemplate = { start: opening, end: token.end, body: text.slice(opening + 1, token.start) };
          opening = -1;
        }
      }
    }
  } catch {
    // The tokenizer stops at the error as well: what it read so far is what counts.
  }
  if (!lastTemplate || text.slice(lastTemplate.end, errorOffset).trim() !== '') return undefined;
  if (!lastTemplate.body.includes('\n') || !CODE_LINE.test(lastTemplate.body)) return undefined;
  const before = text.slice(0, lastTemplate.start).split(/\r?\n/);
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}
