/** `1 error`, `3 errors`: counts in messages read as English, never `error(s)`. */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
