/**
 * A line of one version of a file carried to another version: the line itself when it is unchanged,
 * else the place the diff shows its change (the first line written in its stead, or the unchanged line
 * right after the removal, which GitHub shows beside the removed lines). Pure; lines are 1-based.
 */

/** Above this many cells the alignment is not computed: the caller falls back to a coarser place. */
const MAX_CELLS = 4_000_000;

/** Pairs of equal lines, in order, of a longest common subsequence of `a` and `b` (0-based). */
function commonLines(a: readonly string[], b: readonly string[]): [number, number][] | undefined {
  const n = a.length;
  const m = b.length;
  if ((n + 1) * (m + 1) > MAX_CELLS) return undefined;
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..], row by row in one array.
  const lcs = new Uint32Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => i * (m + 1) + j;
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[at(i, j)] = a[i] === b[j] ? (lcs[at(i + 1, j + 1)] as number) + 1 : Math.max(lcs[at(i + 1, j)] as number, lcs[at(i, j + 1)] as number);
    }
  }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if ((lcs[at(i + 1, j)] as number) >= (lcs[at(i, j + 1)] as number)) i++;
    else j++;
  }
  return pairs;
}

/** Where line `line` of `from` is, or was, in `to`; undefined when the files are too large to align. */
export function carryLine(from: string, to: string, line: number): number | undefined {
  const a = from.split(/\r?\n/);
  const b = to.split(/\r?\n/);
  const pairs = commonLines(a, b);
  if (!pairs) return undefined;
  const i = line - 1;
  const same = pairs.find(([x]) => x === i);
  if (same) return same[1] + 1;
  const before = pairs.filter(([x]) => x < i).at(-1);
  const after = pairs.find(([x]) => x > i);
  const lastBefore = before ? before[1] : -1;
  const firstAfter = after ? after[1] : b.length;
  // Lines written where it was: the first of them is the change.
  if (firstAfter - lastBefore > 1) return lastBefore + 2;
  // Only removed: the unchanged line after the removal (or before it, at the end of the file).
  if (after) return after[1] + 1;
  return Math.max(1, lastBefore + 1);
}
