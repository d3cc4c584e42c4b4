/**
 * A model file as a tree of source positions. YAML and JS models both become this shape, so one
 * walker follows the compiler's member paths (`measures.total.type`, `joins[0]`) through either.
 */

/** A place in a file: 1-based line and column. */
export interface Pos {
  line: number;
  column: number;
}

export interface TreeNode {
  kind: 'map' | 'list' | 'scalar';
  start: Pos;
  /** Last line the node spans. */
  endLine: number;
  /** A map's entries, in source order. */
  entries: Entry[];
  /** A list's items. */
  items: TreeNode[];
  /** A scalar's text (string, number, template text) or, in JS, a name or path of names (`orders.users`); undefined for other code. */
  text?: string;
}

export interface Entry {
  key: string;
  /** Where the key is written. */
  at: Pos;
  value: TreeNode;
}

/** A cube or view definition: a YAML list item under `cubes`/`views`, or a JS `cube(name, {…})` call. */
export interface Entity {
  kind: 'cube' | 'view';
  name?: string;
  /** The definition's first line (YAML list item, JS call). */
  start: Pos;
  /** Where the name is written (the `name:` key or the call's first argument); `start` without one. */
  nameAt: Pos;
  endLine: number;
  body: TreeNode;
}

export interface ModelFile {
  /** Key in the files given to the locator (repository path under model-dir). */
  path: string;
  language: 'yaml' | 'js' | 'other';
  lines: string[];
  entities: Entity[];
  /** The YAML document's top level, when it is a mapping. */
  root?: TreeNode;
  /** The parser rejected the file. */
  unparsable?: boolean;
  /** Names the file means to define that Cube never gets: the cubes of a JS file it cannot parse, the items under a misspelt top-level key. */
  claims?: string[];
}

export type Step = string | number;

export type Precision = 'exact' | 'member' | 'cube' | 'file' | 'none';

/** Where an error belongs. */
export interface ErrorLocation {
  /** Repository path under model-dir (a key of the files given), or the platform's name when not among them. */
  file?: string;
  line?: number;
  column?: number;
  /** `exact`: the named key, reference or position; `member`: the member that lacks something; `cube`: the cube or view; `file`: the file only. */
  precision: Precision;
  /** What the model files add to the message (the cycle of a circular `extends`). */
  note?: string;
}

export const emptyNode = (start: Pos): TreeNode => ({ kind: 'scalar', start, endLine: start.line, entries: [], items: [] });

/** `cubes[0].includes[0].alias` → `['cubes', 0, 'includes', 0, 'alias']`; `value` (Joi's root) → `[]`. */
export function parsePath(path: string): Step[] {
  if (path === 'value') return [];
  const steps: Step[] = [];
  for (const part of path.split('.')) {
    const m = /^([^[\]]*)((?:\[\d+\])*)$/.exec(part);
    if (!m) return steps;
    if (m[1]) steps.push(m[1]);
    for (const idx of (m[2] ?? '').matchAll(/\[(\d+)\]/g)) steps.push(Number(idx[1]));
  }
  return steps;
}

/** `sqlTable` → `sql_table`: a key as YAML writes it. */
export const snakeCase = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Spellings made so far: the diff asks for the same few keys of every member (a tenth of its time before). */
const variants = new Map<string, readonly string[]>();

/** The compiler says `sqlTable`, `preAggregations`; YAML writes `sql_table`, `pre_aggregations`; JS either. */
export function keyVariants(key: string): readonly string[] {
  let known = variants.get(key);
  if (!known) {
    const camel = key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    known = [...new Set([key, snakeCase(key), camel])];
    // Keys come from the model's own text as well: the cache stays small whatever a model holds.
    if (variants.size < 1_000) variants.set(key, known);
  }
  return known;
}

export function entryOf(node: TreeNode | undefined, key: string): Entry | undefined {
  if (node?.kind !== 'map') return undefined;
  const names = keyVariants(key);
  return node.entries.find((e) => names.includes(e.key));
}

/** Every entry under `node` (at any depth) whose key is `key` in any spelling. */
export function keyEntries(node: TreeNode, key: string): Entry[] {
  const names = keyVariants(key);
  const out: Entry[] = [];
  const walk = (n: TreeNode) => {
    for (const e of n.entries) {
      if (names.includes(e.key)) out.push(e);
      walk(e.value);
    }
    for (const i of n.items) walk(i);
  };
  walk(node);
  return out;
}

/** A YAML list item's `name:` (members, joins, pre-aggregations, folders are lists of named maps). */
export const itemName = (item: TreeNode): string | undefined => entryOf(item, 'name')?.value.text;

export interface Resolved {
  /** Where the deepest step that exists is written. */
  at: Pos;
  node: TreeNode;
  /** Steps that exist, from the root. */
  depth: number;
  complete: boolean;
}

/** Follow `steps` from `root`: a key in a map, a named item or an index in a list, the nth entry of a map (JS `joins[0]`). */
export function resolvePath(root: TreeNode, rootAt: Pos, steps: readonly Step[]): Resolved {
  let node = root;
  let at = rootAt;
  let depth = 0;
  for (const step of steps) {
    let next: { at: Pos; node: TreeNode } | undefined;
    if (typeof step === 'number') {
      if (node.kind === 'list' && node.items[step]) next = { at: node.items[step].start, node: node.items[step] };
      const entry = node.kind === 'map' ? node.entries[step] : undefined;
      if (entry) next = { at: entry.at, node: entry.value };
    } else {
      const entry = entryOf(node, step);
      if (entry) next = { at: entry.at, node: entry.value };
      const item = node.kind === 'list' ? node.items.find((i) => itemName(i) === step) : undefined;
      if (item) next = { at: item.start, node: item };
    }
    if (!next) return { at, node, depth, complete: false };
    ({ at, node } = next);
    depth++;
  }
  return { at, node, depth, complete: true };
}

export interface Member {
  /** `measures`, `dimensions`, `segments` (as written). */
  list: string;
  name: string;
  at: Pos;
}

/** An entity's members of the given lists, in source order: YAML named items or JS object keys. */
export function membersOf(entity: Entity, lists: readonly string[]): Member[] {
  const out: Member[] = [];
  for (const entry of entity.body.entries) {
    if (!lists.some((l) => keyVariants(l).includes(entry.key))) continue;
    const v = entry.value;
    if (v.kind === 'map') for (const e of v.entries) out.push({ list: entry.key, name: e.key, at: e.at });
    for (const item of v.kind === 'list' ? v.items : []) {
      const name = entryOf(item, 'name');
      if (name?.value.text !== undefined) out.push({ list: entry.key, name: name.value.text, at: name.at });
    }
  }
  return out.sort((a, b) => a.at.line - b.at.line || a.at.column - b.at.column);
}
