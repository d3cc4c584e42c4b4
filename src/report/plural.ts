/** `1 error`, `3 errors`: counts in messages read as English, never `error(s)`. */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** `512 B`, `12.4 kB`, `3.9 MB`: sizes a person reads at a glance (powers of 1000, as file managers show them). */
export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)} kB`;
  return `${(n / 1_000_000).toFixed(1)} MB`;
}
