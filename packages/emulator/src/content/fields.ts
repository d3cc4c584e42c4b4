/** Field rules the content areas share: length limits, random public ids, id order. */
import { randomBytes } from 'node:crypto';
import { HttpError } from '../context.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `n` random base-62 characters (public ids). */
export function base62(n: number): string {
  return [...randomBytes(n)].map((b) => BASE62[b % 62]).join('');
}

export const byId = (a: { id: number }, b: { id: number }) => a.id - b.id;

export function tooLong(value: string | null | undefined, max: number, input: string): void {
  if (value && value.length > max) throw new HttpError(400, `${input}: got ${value.length} characters, expected at most ${max}`);
}
