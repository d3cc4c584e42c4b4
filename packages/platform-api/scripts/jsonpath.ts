/**
 * The JSONPath subset (RFC 9535) the overlay's targets use, and the Overlay 1.0 actions on it:
 * `$`, `.name`, `['name']`, `['a','b']`, `[0]`, `*`, and filters `[?@.a]`, `[?!@.a]`, `[?@.a == 'x']`, `[?@ == 'x']` joined by `&&`.
 */

type Json = unknown;
type Container = Record<string, unknown> | unknown[];

/** One selected node: where it lives, so it can be replaced or removed. */
export interface Located {
  parent: Container | undefined;
  key: string | number;
  value: Json;
}

type Segment = { kind: 'names'; names: string[] } | { kind: 'index'; index: number } | { kind: 'wild' } | { kind: 'filter'; test: (v: Json) => boolean };

const LITERAL = /^(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|(-?\d+(?:\.\d+)?)|(true|false|null))/;

function parseLiteral(text: string): [Json, number] {
  const m = LITERAL.exec(text);
  if (!m) throw new Error(`JSONPath: expected a literal at "${text}"`);
  if (m[1] !== undefined || m[2] !== undefined) return [(m[1] ?? m[2] ?? '').replace(/\\(.)/g, '$1'), m[0].length];
  if (m[3] !== undefined) return [Number(m[3]), m[0].length];
  return [JSON.parse(m[4] as string), m[0].length];
}

/** `@.a.b` (exists), `!@.a.b` (does not), or `@.a.b == literal`. */
function parseTest(text: string): (v: Json) => boolean {
  const negated = text.trim().startsWith('!');
  if (negated) {
    const inner = parseTest(text.trim().slice(1));
    return (v) => !inner(v);
  }
  const m = /^@((?:\.[A-Za-z0-9_$-]+|\['[^']*'\])*)\s*(==\s*(.+))?$/.exec(text.trim());
  if (!m) throw new Error(`JSONPath: unsupported filter "${text}"`);
  const keys = [...(m[1] ?? '').matchAll(/\.([A-Za-z0-9_$-]+)|\['([^']*)'\]/g)].map((k) => (k[1] ?? k[2]) as string);
  const read = (v: Json): Json => keys.reduce<Json>((at, k) => (at && typeof at === 'object' ? (at as Record<string, Json>)[k] : undefined), v);
  if (m[3] === undefined) return (v) => read(v) !== undefined;
  const [literal, used] = parseLiteral(m[3].trim());
  if (used !== m[3].trim().length) throw new Error(`JSONPath: trailing text in "${text}"`);
  return (v) => read(v) === literal;
}

/** Split a path into segments. */
export function parsePath(path: string): Segment[] {
  if (!path.startsWith('$')) throw new Error(`JSONPath: "${path}" does not start with $`);
  const out: Segment[] = [];
  let i = 1;
  while (i < path.length) {
    const rest = path.slice(i);
    let m: RegExpExecArray | null;
    if ((m = /^\.([A-Za-z0-9_$-]+)/.exec(rest))) out.push({ kind: 'names', names: [m[1] as string] });
    else if ((m = /^(?:\.\*|\[\*\])/.exec(rest))) out.push({ kind: 'wild' });
    else if ((m = /^\[(\d+)\]/.exec(rest))) out.push({ kind: 'index', index: Number(m[1]) });
    else if ((m = /^\[((?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")(?:\s*,\s*(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"))*)\]/.exec(rest))) {
      const names: string[] = [];
      for (let text = (m[1] as string).trim(); text;) {
        const [name, used] = parseLiteral(text);
        names.push(name as string);
        text = text.slice(used).replace(/^\s*,\s*/, '');
      }
      out.push({ kind: 'names', names });
    } else if ((m = /^\[\?((?:[^\]'"]|'[^']*'|"[^"]*")+)\]/.exec(rest))) {
      const tests = (m[1] as string).split('&&').map(parseTest);
      out.push({ kind: 'filter', test: (v) => tests.every((t) => t(v)) });
    } else throw new Error(`JSONPath: cannot read "${rest}" in "${path}"`);
    i += m[0].length;
  }
  return out;
}

function children(node: Json): [string | number, Json][] {
  if (Array.isArray(node)) return node.map((v, i) => [i, v]);
  if (node && typeof node === 'object') return Object.entries(node);
  return [];
}

/** Every node a path selects, in document order. */
export function select(root: Json, path: string): Located[] {
  let nodes: Located[] = [{ parent: undefined, key: '$', value: root }];
  for (const seg of parsePath(path)) {
    const next: Located[] = [];
    for (const n of nodes) {
      const container = n.value as Container;
      if (seg.kind === 'names') {
        if (!container || typeof container !== 'object' || Array.isArray(container)) continue;
        for (const name of seg.names) if (name in container) next.push({ parent: container, key: name, value: container[name] });
      } else if (seg.kind === 'index') {
        if (Array.isArray(container) && seg.index < container.length) next.push({ parent: container, key: seg.index, value: container[seg.index] });
      } else {
        for (const [key, value] of children(container)) {
          if (seg.kind === 'wild' || seg.test(value)) next.push({ parent: container, key, value });
        }
      }
    }
    nodes = next;
  }
  return nodes;
}

function isPlain(v: Json): v is Record<string, Json> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** Overlay 1.0 merge: objects merge key by key, anything else in `update` replaces what was there. */
export function merge(target: Json, update: Json): Json {
  if (!isPlain(target) || !isPlain(update)) return structuredClone(update);
  const out: Record<string, Json> = { ...target };
  for (const [k, v] of Object.entries(update)) out[k] = k in out ? merge(out[k], v) : structuredClone(v);
  return out;
}

/** One Overlay 1.0 action. */
export interface Action {
  target: string;
  description?: string;
  update?: Json;
  remove?: boolean;
}

/** Apply one action in place; returns how many nodes it touched (zero is an error the caller reports). */
export function applyAction(root: Record<string, Json>, action: Action): number {
  const nodes = select(root, action.target);
  // Remove from the end so array indexes of earlier matches stay valid.
  for (const n of [...nodes].reverse()) {
    if (!n.parent) throw new Error(`overlay: cannot ${action.remove ? 'remove' : 'update'} the root`);
    if (action.remove) {
      if (Array.isArray(n.parent)) n.parent.splice(n.key as number, 1);
      else delete n.parent[n.key as string];
    } else if (Array.isArray(n.value)) {
      // An array target grows by the update (Overlay 1.0: updates to arrays append).
      const added: Json[] = Array.isArray(action.update) ? action.update : [action.update];
      n.value.push(...added);
    } else {
      (n.parent as Record<string, Json>)[n.key as string] = merge(n.value, action.update);
    }
  }
  return nodes.length;
}
