/** How the runner reads YAML values of a workflow or action.yml. */

export type Mapping = Record<string, unknown>;

export const isMapping = (v: unknown): v is Mapping => typeof v === 'object' && v !== null && !Array.isArray(v);
export const mapping = (v: unknown): Mapping => (isMapping(v) ? v : {});

/** A YAML scalar as the runner reads it in a string field (numbers and booleans printed, null empty). */
export function scalar(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new Error(`A mapping or sequence was not expected: ${JSON.stringify(v)}`);
}

export function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? ''
  );
}
