/** Tokens the emulator mints: HS256 JWTs signed with the state's secret, each recorded so tests can scan logs for it. */
import type { Ctx } from './context.js';
import { signJwt } from './jwt.js';

export function mintToken(ctx: Ctx, payload: Record<string, unknown>): string {
  const token = signJwt(payload, ctx.state.secret);
  ctx.controls.minted.push(token);
  return token;
}
