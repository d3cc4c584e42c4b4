/**
 * Validation messages made shorter and more helpful for the PR comment: a long list of allowed values
 * becomes its count, and a near miss gets a "did you mean" (Cube's validator words it
 * `orders cube: (measures.total.type = summ) must be one of [count, number, sum, …]`).
 */

export interface Hinted {
  /** The message, with a long list of allowed values replaced by its size. */
  message: string;
  /** The value given, when the shortened message no longer shows it (Cube names it only in its "Possible reasons"). */
  given?: string;
  /** The allowed value closest to the one given, when it is close. */
  suggestion?: string;
}

/** Edit distance (insertions, deletions, substitutions), for near misses. */
export function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0] as number;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j] as number;
      prev[j] = Math.min(up + 1, (prev[j - 1] as number) + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length] as number;
}

/** The allowed value nearest to `given` (case-insensitive), if within a third of its length (at least 1, at most 3 edits). */
export function nearest(given: string, allowed: readonly string[]): string | undefined {
  const budget = Math.min(3, Math.max(1, Math.floor(given.length / 3)));
  let best: { value: string; d: number } | undefined;
  for (const value of allowed) {
    const d = distance(given.toLowerCase(), value.toLowerCase());
    if (d <= budget && (!best || d < best.d)) best = { value, d };
  }
  return best?.value;
}

const ONE_OF = /must be one of \[([^\]]*)\]/;
/** The value the validator quotes: `(path = value)` or `got "value"`. */
const GIVEN = /\(\s*[\w.[\]]+\s*=\s*([^)\s]+)\s*\)|got "([^"]+)"/;

export function hint(message: string): Hinted {
  const list = ONE_OF.exec(message);
  if (!list) return { message };
  const allowed = (list[1] ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  const given = GIVEN.exec(message);
  const value = given?.[1] ?? given?.[2];
  const suggestion = value ? nearest(value, allowed) : undefined;
  // Keep a short list as is; a long one, repeated on every row, says less than its size.
  const shortened = allowed.length > 5 ? message.replace(ONE_OF, `must be one of ${allowed.length} allowed values`) : message;
  // Cube follows the first sentence with the same list again ("… must be one of [...]. "a" is not allowed"): drop the repeat.
  const first = shortened.replace(/(allowed values)\..*$/s, '$1');
  const out: Hinted = { message: first };
  if (value && !first.includes(`= ${value})`)) out.given = value;
  if (suggestion) out.suggestion = suggestion;
  return out;
}
