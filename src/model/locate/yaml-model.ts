/** A YAML model file as a position tree (the `yaml` package keeps every node's source range). */
import { CST, isMap, isScalar, isSeq, LineCounter, Parser, parseDocument, type Node } from 'yaml';
import { emptyNode, entryOf, type Entity, type ModelFile, type Pos, type TreeNode } from './model-tree.js';

/** A scalar's value as text (strings, numbers, booleans); nothing for other values. */
const scalarText = (v: unknown): string | undefined => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);

function convert(node: unknown, pos: (offset: number) => Pos, fallback: Pos): TreeNode {
  const n = node as Node | null | undefined;
  if (!n?.range) return emptyNode(fallback);
  const start = pos(n.range[0]);
  const endLine = pos(Math.max(n.range[0], n.range[1] - 1)).line;
  const out: TreeNode = { kind: 'scalar', start, endLine, entries: [], items: [] };
  if (isMap(n)) {
    out.kind = 'map';
    for (const pair of n.items) {
      const key = pair.key as Node | null;
      const name = isScalar(key) ? scalarText(key.value) : undefined;
      if (!key?.range || name === undefined) continue;
      const at = pos(key.range[0]);
      out.entries.push({ key: name, at, value: convert(pair.value, pos, at) });
    }
  } else if (isSeq(n)) {
    out.kind = 'list';
    for (const item of n.items) out.items.push(convert(item, pos, start));
  } else if (isScalar(n)) {
    const text = scalarText(n.value);
    if (text !== undefined) out.text = text;
  }
  return out;
}

/** A YAML text as a position tree, with its syntax errors' lines (the agents folder reads its files so). */
export function yamlTree(text: string): { root?: TreeNode; errors: { line: number; message: string }[] } {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, uniqueKeys: false, prettyErrors: false });
  const pos = (offset: number): Pos => {
    const p = counter.linePos(offset);
    return { line: p.line, column: p.col };
  };
  const errors = doc.errors.map((e) => ({ line: pos(e.pos[0]).line, message: e.message.split('\n', 1)[0] as string }));
  return doc.contents ? { root: convert(doc.contents, pos, { line: 1, column: 1 }), errors } : { errors };
}

export function readYamlModel(path: string, text: string): ModelFile {
  const counter = new LineCounter();
  const lines = text.split(/\r?\n/);
  const file: ModelFile = { path, language: 'yaml', lines, entities: [] };
  let doc;
  try {
    // Duplicate keys must not stop the reading: they are one of the errors to locate.
    doc = parseDocument(text, { lineCounter: counter, uniqueKeys: false, prettyErrors: false });
  } catch {
    return { ...file, unparsable: true };
  }
  if (doc.errors.length > 0) file.unparsable = true;
  const pos = (offset: number): Pos => {
    const p = counter.linePos(offset);
    return { line: p.line, column: p.col };
  };
  const root = convert(doc.contents, pos, { line: 1, column: 1 });
  if (root.kind !== 'map') return file;
  file.root = root;
  for (const entry of root.entries) {
    const kind = entry.key === 'cubes' ? 'cube' : entry.key === 'views' ? 'view' : undefined;
    // `cube:` for `cubes:`: Cube rejects the file, so its items define nothing, but other files still name them.
    if (!kind && entry.key !== 'view_groups' && entry.value.kind === 'list') {
      const names = entry.value.items.map((i) => entryOf(i, 'name')?.value.text).filter((n): n is string => !!n);
      if (names.length) file.claims = [...(file.claims ?? []), ...names];
    }
    if (!kind || entry.value.kind !== 'list') continue;
    for (const item of entry.value.items) {
      const name = entryOf(item, 'name');
      const entity: Entity = { kind, start: item.start, nameAt: name?.at ?? item.start, endLine: item.endLine, body: item };
      if (name?.value.text !== undefined) entity.name = name.value.text;
      file.entities.push(entity);
    }
  }
  return file;
}

/** A key or value token of the YAML CST (a scalar, a flow collection). */
type CstNode = NonNullable<CST.CollectionItem['value']>;

/** Where the first key or value token that `matches` starts, in source order. */
function firstToken(text: string, matches: (n: CstNode, line: number) => boolean): Pos | undefined {
  const counter = new LineCounter();
  let found: Pos | undefined;
  try {
    for (const token of new Parser(counter.addNewLine).parse(text)) {
      if (token.type !== 'document') continue;
      CST.visit(token, (item) => {
        for (const n of [item.key, item.value]) {
          if (found || !n) continue;
          const p = counter.linePos(n.offset);
          if (matches(n, p.line)) found = { line: p.line, column: p.col };
        }
      });
    }
  } catch {
    return undefined;
  }
  return found;
}

const quoted = (n: CstNode): n is CST.FlowScalar => n.type === 'double-quoted-scalar' || n.type === 'single-quoted-scalar';
const unclosedQuote = (n: CST.FlowScalar) => n.source.length < 2 || !n.source.trimEnd().endsWith(n.source[0] ?? '');

/**
 * Where an unclosed quoted scalar or flow collection opens. js-yaml reports such a mistake at the end
 * of the stream, a line that is never the mistake's; the CST still shows where the construct began.
 */
export function unclosedYamlStart(text: string, what: 'quoted' | 'flow'): Pos | undefined {
  return firstToken(text, (n) => (what === 'quoted' ? quoted(n) && unclosedQuote(n) : n.type === 'flow-collection' && n.end.length === 0));
}

/** A line of YAML that writes a key (`  type: number`, `- name: x`): quoted text that holds one swallowed it. */
const KEY_LINE = /^\s*(?:-\s+)?[\w$]+\s*:(?:\s|$)/;

/**
 * Where a quote that was never closed opens, when the parser stops later than it: the quoted scalar
 * either ends unclosed where the indentation drops, or runs over several lines up to the next quote and
 * holds lines that write keys. The first such scalar that starts before the line the parser gives is the mistake.
 */
export function swallowingQuoteStart(text: string, stoppedAt: number): Pos | undefined {
  return firstToken(
    text,
    (n, line) =>
      line <= stoppedAt &&
      quoted(n) &&
      (unclosedQuote(n) ||
        n.source
          .split(/\r?\n/)
          .slice(1)
          .some((l) => KEY_LINE.test(l))),
  );
}
