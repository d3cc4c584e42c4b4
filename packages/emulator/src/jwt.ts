/** HS256 JSON Web Tokens: the emulator mints real signed tokens with `exp`, and checks them. */
import { createHmac, timingSafeEqual } from 'node:crypto';

const b64url = (buf: Buffer | string) => Buffer.from(buf).toString('base64url');

export function signJwt(payload: Record<string, unknown>, secret: string): string {
  const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = b64url(JSON.stringify(payload));
  const sig = createHmac('sha256', secret).update(`${header}.${body}`).digest('base64url');
  return `${header}.${body}.${sig}`;
}

export type JwtCheck = { ok: true; payload: Record<string, unknown> } | { ok: false; reason: 'malformed' | 'signature' | 'expired' };

/** Verify signature and `exp` (seconds) against `nowMs`. */
export function verifyJwt(token: string, secret: string, nowMs: number): JwtCheck {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'malformed' };
  const [header, body, sig] = parts as [string, string, string];
  const expected = createHmac('sha256', secret).update(`${header}.${body}`).digest();
  let given: Buffer;
  try {
    given = Buffer.from(sig, 'base64url');
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'signature' };
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (typeof payload.exp === 'number' && payload.exp * 1000 <= nowMs) return { ok: false, reason: 'expired' };
  return { ok: true, payload };
}
