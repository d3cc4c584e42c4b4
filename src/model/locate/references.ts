/** Find the line that writes a reference the compiler could not resolve (`{users.citty}`, `- statuss`, `require('fs')`). */
import type { ModelFile, Pos } from './model-tree.js';
import type { Reference } from './message.js';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Variables Cube binds in every member function: "CUBE is not defined" never comes from a `sql` key. */
const CONTEXT_VARIABLES = new Set(['CUBE', 'TABLE', 'FILTER_PARAMS', 'FILTER_GROUP', 'SECURITY_CONTEXT', 'SQL_UTILS', 'COMPILE_CONTEXT']);
const SQL_KEY_LINE = /^\s*(?:-\s+)?(?:sql|sql_table|sqlTable)\s*:/;

export interface Hit {
  at: Pos;
  score: number;
}

function commentLine(file: ModelFile, text: string): boolean {
  return file.language === 'yaml' ? /^\s*#/.test(text) : /^\s*(\/\/|\*|\/\*)/.test(text);
}

/** How much an occurrence looks like the reference: in `{…}`/`${…}` 3, a whole value or key 2, elsewhere 1. */
function score(text: string, index: number, length: number): number {
  const before = text.slice(0, index);
  if (before.lastIndexOf('{') > before.lastIndexOf('}')) return 3;
  const after = text.slice(index + length);
  // YAML `- statuss`, `extends: orderz`; JS `` `citty` ``, `custmers: {`.
  if (/(^\s*(?:-\s+)?(?:[\w$"']+\s*:\s+)?|[`'"])$/.test(before) || /^\s*:/.test(after)) return 2;
  return 1;
}

/** Candidate spellings of a reference: `orders.amout` is also written `CUBE.amout` inside cube `orders`. */
function spellings(ref: Reference, file: ModelFile): string[] {
  const [head, ...tail] = ref.token.split('.');
  const own = tail.length > 0 && file.entities.some((e) => e.name === head);
  return own ? [ref.token, ['CUBE', ...tail].join('.')] : [ref.token];
}

function pattern(ref: Reference, spelling: string, inPath = false): RegExp {
  // `inPath`: also as the tail of a longer path (`orders.users` in `line_items.orders.users`).
  if (!ref.module) return new RegExp(`(?<![\\w$${inPath ? '' : '.'}])${escape(spelling)}(?![\\w$])`, 'g');
  // `require('fs')`, `import x from './helpers'`, `from "./lib/helpers.js"`.
  return new RegExp(`(?:require\\s*\\(\\s*|from\\s*|import\\s*)['"\`](?:[^'"\`]*/)?${escape(spelling)}(?:\\.[cm]?js)?['"\`]`, 'g');
}

/** The best-scored occurrences of the reference between two lines of a file, in source order. */
export function findReference(file: ModelFile, ref: Reference, fromLine = 1, toLine = file.lines.length, inPath = false): Hit[] {
  const hits: Hit[] = [];
  const contextVariable = CONTEXT_VARIABLES.has(ref.token);
  for (let line = fromLine; line <= Math.min(toLine, file.lines.length); line++) {
    const text = file.lines[line - 1] ?? '';
    if (commentLine(file, text) || (contextVariable && SQL_KEY_LINE.test(text))) continue;
    for (const spelling of spellings(ref, file)) {
      for (const m of text.matchAll(pattern(ref, spelling, inPath))) {
        hits.push({ at: { line, column: (m.index ?? 0) + 1 }, score: ref.module ? 3 : score(text, m.index ?? 0, m[0].length) });
      }
    }
  }
  if (hits.length === 0 && !inPath && !ref.module && ref.token.includes('.')) return findReference(file, ref, fromLine, toLine, true);
  const best = Math.max(0, ...hits.map((h) => h.score));
  return hits.filter((h) => h.score === best).sort((a, b) => a.at.line - b.at.line || a.at.column - b.at.column);
}

/** A thrown message written as a string literal in a JS model (`throw new Error('not ready')`). */
export function findThrownLiteral(file: ModelFile, message: string): Pos | undefined {
  if (file.language !== 'js' || message.includes('\n') || message.length < 3) return undefined;
  const re = new RegExp(`(['"\`])${escape(message)}\\1`);
  for (let i = 0; i < file.lines.length; i++) {
    const m = re.exec(file.lines[i] ?? '');
    if (m) return { line: i + 1, column: m.index + 1 };
  }
  return undefined;
}
