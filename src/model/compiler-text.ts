/**
 * The compiler's text, rewritten once for every place that shows it (the terminal, the check run's
 * annotations and the step's `::error` commands, the PR comment and the job summary): the cause the
 * locator places the error by (./locate/message.ts reads Cube's wording for both, so the line and the
 * cause cannot disagree), without the validator's "Possible reasons" tail and the false causes it brings
 * (`type: summ` makes Joi try another kind of measure, which says `sql` "is not allowed"), a long list of
 * allowed values as its size, and a near miss as "Did you mean `sum`?". Pure.
 */
import { editDistance } from './did-you-mean.js';
import { contextPrefix, isUnknownKey, mistakeClaim, stripAnsi, validatorClaims, type Claim } from './locate/message.js';

export interface CompilerText {
  /** The message: one cause (and what it requires), a long list of allowed values replaced by its size. */
  message: string;
  /** The value given, when the message no longer shows it (Cube names it only in its "Possible reasons"). */
  given?: string;
  /** The allowed value closest to the one given, when it is close. */
  suggestion?: string;
}

/** The allowed value nearest to `given` (case-insensitive), if within a third of its length (at least 1, at most 3 edits). */
function nearest(given: string, allowed: readonly string[]): string | undefined {
  const budget = Math.min(3, Math.max(1, Math.floor(given.length / 3)));
  let best: { value: string; d: number } | undefined;
  for (const value of allowed) {
    const d = editDistance(given, value);
    if (d <= budget && (!best || d < best.d)) best = { value, d };
  }
  return best?.value;
}

const ONE_OF = /must be one of \[([^\]]*)\]/;
/** The value the validator quotes: `(path = value)` or `got "value"`. */
const GIVEN = /\(\s*[\w.[\]]+\s*=\s*([^)\s]+)\s*\)|got "([^"]+)"/;
/** A Joi object shown as a value says nothing: `(dimensions.code.granularities = [object Object])` → `(dimensions.code.granularities)`. */
const OBJECT_VALUE = /\(([^()=\n]+?) = \[object Object\]\)/g;
/** Where the validator's alternatives begin: each line after it is one way the definition could have been meant. */
const REASONS = /\nPossible reasons \(one of\):[\s\S]*$/;

/** The path a claim's sentence names, as written (`measures.total.type`). */
const pathText = (sentence: string) => /^"([^"]+)"|^\(([^=)]+?)(?: = |\))/.exec(sentence)?.slice(1).find(Boolean);

/**
 * The validator's message reduced to its mistake: the claim the locator places it by, then the first
 * line's other claims that say what is required (`"value" must contain at least one of [sql, sqlTable]`),
 * never those that only follow from an alternative not meant (`"measures.total.sql" is not allowed`).
 * Only with a "Possible reasons" tail: without one, each claim of the first line is an error of its own.
 * When the first line only says "does not match any of the allowed types", a reason stands alone only
 * when it is sure: a value no alternative accepts, or a key Cube does not know; else (a key required or
 * not allowed depends on the alternative meant) the message is left whole, its reasons said as "one of".
 */
function mistakeOnly(rest: string): { sentence: string; claim: Claim } | undefined {
  if (!REASONS.test(rest)) return undefined;
  const claims = validatorClaims(rest);
  const claim = mistakeClaim(claims);
  if (!claim) return undefined;
  const fromReasons = !claims.headline.includes(claim);
  if (fromReasons && claim.verdict !== 'value' && !isUnknownKey(claim)) return undefined;
  const required = claims.headline.filter((c) => c !== claim && c.verdict === 'required');
  return { sentence: [claim, ...required].map((c) => c.sentence).join('. '), claim };
}

/** The compiler's message, rewritten: see the file's comment. */
export function rewriteCompilerText(raw: string): CompilerText {
  const clean = stripAnsi(raw);
  const { rest } = contextPrefix(clean);
  const prefix = clean.slice(0, clean.length - rest.length);
  const reduced = mistakeOnly(rest);
  const body = (reduced ? reduced.sentence : rest).replace(OBJECT_VALUE, '($1)');
  const list = ONE_OF.exec(body);
  if (!list) return { message: prefix + body };
  const allowed = (list[1] ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  // The value given: in the sentence, else where the reasons quote the same path (`(measures.total.type = summ)`).
  const path = reduced ? pathText(reduced.claim.sentence) : undefined;
  const quoted = path ? new RegExp(`\\(${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} = ([^)\\s]+)\\)`).exec(rest) : undefined;
  const found = GIVEN.exec(body);
  const value = found?.[1] ?? found?.[2] ?? quoted?.[1];
  const suggestion = value ? nearest(value, allowed) : undefined;
  // Keep a short list as is; a long one, repeated on every row, says less than its size.
  const shortened = allowed.length > 5 ? body.replace(ONE_OF, `must be one of ${allowed.length} allowed values`) : body;
  // Cube may follow the first sentence with the same list again ("… must be one of [...]. "a" is not allowed"): drop the repeat.
  const first = shortened.replace(/(allowed values)\..*$/s, '$1');
  const out: CompilerText = { message: prefix + first };
  if (value && !first.includes(`= ${value})`)) out.given = value;
  if (suggestion && suggestion !== value) out.suggestion = suggestion;
  return out;
}

/** `, not `summ`. Did you mean `sum`?`, as the message's tail (names in backticks; the comment renders them as code). */
function tail(t: CompilerText, code: (s: string) => string): string {
  const given = t.given ? `, not ${code(t.given)}` : '';
  const stop = !t.given && /[.!?]$/.test(t.message) ? '' : '.';
  return given + (t.suggestion ? `${stop} Did you mean ${code(t.suggestion)}?` : '');
}

/** The rewritten message as one plain text: what the terminal prints and the annotations say. */
export function compilerLine(raw: string): string {
  const t = rewriteCompilerText(raw);
  return t.message + tail(t, (s) => `\`${s}\``);
}

/** The rewritten message with the given value and the suggestion rendered by `code` and the message by `prose` (the comment's markdown). */
export function compilerMarkdown(raw: string, prose: (s: string) => string, code: (s: string) => string): string {
  const t = rewriteCompilerText(raw);
  return prose(t.message) + tail(t, code);
}
