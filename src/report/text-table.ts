/** Tables for a terminal: columns padded to their widest cell, a header row, two spaces between columns. */

/** How wide a cell shows: characters, not UTF-16 units (`→`, `−` and accented names count one each). */
const width = (s: string): number => [...s].length;

/**
 * The lines of a table: `header` then `rows`, each line indented by `indent`; the last column is not
 * padded (no trailing spaces). Cells are one line each: the caller made them plain.
 */
export function textTable(header: readonly string[], rows: readonly (readonly string[])[], indent = '  '): string[] {
  const all = [header, ...rows];
  const columns = Math.max(...all.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, i) => Math.max(...all.map((r) => width(r[i] ?? ''))));
  return all.map(
    (r) =>
      indent +
      Array.from({ length: columns }, (_, i) => {
        const cell = r[i] ?? '';
        return i === columns - 1 ? cell : cell + ' '.repeat(widths[i]! - width(cell));
      })
        .join('  ')
        .trimEnd(),
  );
}
