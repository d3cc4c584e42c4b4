/**
 * What a compiler message says about where it happened, read from Cube's own wording
 * (`@cubejs-backend/schema-compiler`): the `<name> cube: ` context, a `(line:col)` or code frame, the
 * validator's member paths and the names it quotes.
 */
import { KNOWN_KEYS } from './known-keys.js';
import { keyVariants, parsePath, type Step } from './model-tree.js';

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;
export const stripAnsi = (s: string): string => s.replace(ANSI, '');

/** `orders cube: …`, `orders cube -> measures.total: …` (views say "cube" too): the entity and the rest. */
export function contextPrefix(message: string): { entity?: string; rest: string } {
  const m = /^([^\s:'"]+) (?:cube|view)(?: -> [^:\n]*)?: /.exec(message);
  return m ? { entity: m[1], rest: message.slice(m[0].length) } : { rest: message };
}

export interface PositionHint {
  line: number;
  /** As written in the message (see `columnBase`). */
  column?: number;
  /** js-yaml counts columns from 1, Babel from 0. */
  columnBase: 0 | 1;
  /** The parser's words before the position, e.g. `unexpected end of the stream within a flow collection`. */
  reason: string;
}

/**
 * A position the message states: `text (23:13)` at the end of its first line (js-yaml, Babel), a
 * Babel code frame (`> 5 | …` then a `^` marker).
 */
export function positionHint(message: string, language: 'yaml' | 'js' | 'other'): PositionHint | undefined {
  const first = message.split('\n', 1)[0] ?? '';
  const lc = /^(.*?)\s*\((\d+):(\d+)\)\s*$/.exec(first);
  if (lc) return { line: Number(lc[2]), column: Number(lc[3]), columnBase: language === 'js' ? 0 : 1, reason: lc[1] as string };
  const frame = /^>\s*(\d+)\s*\|.*\n\s*\|(.*?)\^/m.exec(message);
  // Cube hands Babel's 0-based column to the code frame: the caret sits one column left of the token.
  if (frame) return { line: Number(frame[1]), column: (frame[2] as string).length, columnBase: 0, reason: first };
  const frameLine = /^>\s*(\d+)\s*\|/m.exec(message);
  if (frameLine) return { line: Number(frameLine[1]), columnBase: 1, reason: first };
  return undefined;
}

/** How a validator claim fails: its verdict decides which claim is the mistake. */
export type Verdict = 'value' | 'required' | 'not-allowed' | 'alternative';

export interface Claim {
  path: Step[];
  verdict: Verdict;
  /** The sentence that states it, as the validator wrote it (the rewriter shows only the mistake's: src/model/compiler-text.ts). */
  sentence: string;
}

function verdictOf(text: string): Verdict {
  if (/^(is required|must contain at least one of)/.test(text)) return 'required';
  if (/^is not allowed/.test(text)) return 'not-allowed';
  // `must be [time]` and "does not match any of the allowed types" only say another alternative was meant.
  if (/^must be \[[^,\]]*\]\s*$/.test(text) || /^does not match any of the allowed types/.test(text)) return 'alternative';
  return 'value';
}

const PAREN = /^\(([A-Za-z_$][^()=\n]*?)(?: = .*?)?\) ((?:is |must |does |with |fails |contains |CronParser).*)$/;
const QUOTED = /^"([^"\n]+)" (.*)$/;
const BARE = /^([\w$]+(?:\[\d+\])*(?:\.[\w$]+(?:\[\d+\])*)+): (.*)$/;

function claimOf(sentence: string): Claim | undefined {
  const m = PAREN.exec(sentence) ?? QUOTED.exec(sentence) ?? BARE.exec(sentence);
  return m ? { path: parsePath(m[1] as string), verdict: verdictOf(m[2] as string), sentence } : undefined;
}

/**
 * The validator's (Joi's) claims: those of the first line (`"measures.total.type" must be one of […].
 * "measures.total.sql" is not allowed`, `(joins[0].sql) is required`) and those of a
 * `Possible reasons (one of):` tail, one per tab-indented `* ` line.
 */
export function validatorClaims(rest: string): { headline: Claim[]; reasons: Claim[] } {
  const [first = '', ...more] = rest.split('\n');
  const headline = first
    .split(/\. (?=["(])/)
    .map((s) => claimOf(s.trim()))
    .filter((c): c is Claim => !!c);
  const reasons = more
    .map((l) => /^\s*\* (.*)$/.exec(l)?.[1])
    .map((l) => (l ? claimOf(l.trim()) : undefined))
    .filter((c): c is Claim => !!c);
  return { headline, reasons };
}

/** Cube's dimension schema is a union; a missing `case`, `latitude` or `longitude` only names an alternative not chosen. */
const isDimensionAlternative = (c: Claim) =>
  c.verdict === 'required' && c.path.length === 3 && c.path[0] === 'dimensions' && ['case', 'latitude', 'longitude'].includes(String(c.path[2]));

/** A key the model may write that Cube does not know (`primery_key`): always a mistake, whichever alternative was meant. */
export const isUnknownKey = (c: Claim) => {
  const key = c.path.at(-1);
  return c.verdict === 'not-allowed' && typeof key === 'string' && !keyVariants(key).some((k) => KNOWN_KEYS.has(k));
};

/**
 * The claim that names the mistake: the first line's own claim, unless it only says "does not match any
 * of the allowed types"; then, of the reasons, a key Cube does not know, else a wrong value (the
 * deepest), else a missing key, else a key not allowed.
 */
export function mistakeClaim(claims: { headline: Claim[]; reasons: Claim[] }): Claim | undefined {
  const [first] = claims.headline;
  if (first && first.verdict !== 'alternative') return first;
  const unknown = claims.reasons.find(isUnknownKey);
  if (unknown) return unknown;
  const pool = claims.reasons.filter((c) => c.verdict !== 'alternative' && !isDimensionAlternative(c));
  const values = pool.filter((c) => c.verdict === 'value').sort((a, b) => b.path.length - a.path.length);
  return values[0] ?? pool.find((c) => c.verdict === 'required') ?? pool.find((c) => c.verdict === 'not-allowed') ?? first;
}

/** A name the message says is unknown or misplaced, and where to look for it. */
export interface Reference {
  /** As written in the model, e.g. `customers.citty`, `users`, `'fs'`. */
  token: string;
  /** Look only inside this entity. */
  entity?: string;
  /** Look only inside this view folder. */
  folder?: string;
  /** The last occurrence is the mistake (a member included twice). */
  last?: boolean;
  /** Match an import or require of this module instead of a name. */
  module?: boolean;
  /** The member path that names it, tried first (a join's target cube: `joins.<name>`). */
  path?: Step[];
}

/** The name a reference error is about, from each of Cube's wordings. */
export function referenceOf(rest: string, entity: string | undefined): Reference | undefined {
  const first = rest.split('\n', 1)[0] ?? '';
  const patterns: [RegExp, (m: RegExpExecArray) => Reference][] = [
    [/^(\S+) cannot be resolved/, (m) => ({ token: m[1] as string })],
    [/^([\w$.]+) is not defined$/, (m) => ({ token: m[1] as string })],
    [/^Cube (\S+) doesn't exist/, (m) => ({ token: m[1] as string, path: ['joins', m[1] as string], ...(entity ? { entity } : {}) })],
    [/^Member '([^']+)' is included in '([^']+)' but not defined/, (m) => ({ token: m[1] as string, entity: m[2] })],
    [/^Paths aren't allowed in cube (?:in|ex)cludes but '([^']+)' provided/, (m) => ({ token: m[1] as string, ...(entity ? { entity } : {}) })],
    [/^Paths aren't allowed in the accessPolicy policy but '([^']+)' provided as .* for (\S+)$/, (m) => ({ token: m[1] as string, entity: m[2] })],
    [/^Paths aren't allowed in the 'folders' but '([^']+)' has been provided for (\S+)$/, (m) => ({ token: m[1] as string, entity: m[2] })],
    [/^Member '([^']+)' included in folder '([^']+)' not found/, (m) => ({ token: m[1] as string, folder: m[2] })],
    [/^Included member '([^']+)' conflicts with existing member of '([^']+)'/, (m) => ({ token: m[1] as string, entity: m[2], last: true })],
    [/^Package '([^']+)' not found/, (m) => ({ token: m[1] as string, module: true })],
    [/^Required import for (\S+) is not found/, (m) => ({ token: (m[1] as string).replace(/\.js$/, ''), module: true })],
  ];
  for (const [re, make] of patterns) {
    const m = re.exec(first);
    if (m) return make(m);
  }
  return undefined;
}
