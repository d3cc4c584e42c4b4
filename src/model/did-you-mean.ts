/**
 * Names near a misspelt one, for a "did you mean": an unknown flag, a key query's unknown member. Low
 * enough in the tree (model/) that the commands, the impact and the operations can all use it.
 */

/** Edit distance (insertions, deletions, substitutions), case-insensitive. */
export function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    let diag = prev[0] as number;
    prev[0] = i;
    for (let j = 1; j <= y.length; j++) {
      const up = prev[j] as number;
      prev[j] = Math.min(up + 1, (prev[j - 1] as number) + 1, diag + (x[i - 1] === y[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[y.length] as number;
}

/**
 * The candidates near `given`, nearest first (at most `max`): within a third of its length in edits (at
 * least 1, at most 3), or one that starts with it (`--deployment` for `--deployment-id`).
 */
export function didYouMean(given: string, candidates: Iterable<string>, max = 3): string[] {
  const budget = Math.min(3, Math.max(1, Math.floor(given.length / 3)));
  const lower = given.toLowerCase();
  const near: { name: string; d: number }[] = [];
  for (const name of new Set(candidates)) {
    if (name === given) continue;
    const d = editDistance(given, name);
    if (d <= budget) near.push({ name, d });
    else if (lower.length >= 3 && name.toLowerCase().startsWith(lower)) near.push({ name, d: budget + 1 });
  }
  return near
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name))
    .slice(0, max)
    .map((n) => n.name);
}

/** ` (did you mean a or b?)`, or nothing when no name is near. */
export function didYouMeanText(near: readonly string[], quote: (s: string) => string = (s) => s): string {
  return near.length ? ` (did you mean ${near.map(quote).join(' or ')}?)` : '';
}
