/** Usage-analytics token (spec 2.10, 4.10): one per user, reissued only once the stored one expired. */
import { HttpError, type HandlerTable } from '../context.js';
import { findRecord, putRecord } from '../state.js';
import { mintToken } from '../tokens.js';

const USAGE_ANALYTICS_DEPLOYMENT_ID = 9000;
const USAGE_TOKEN_LIFETIME_SEC = 3600;

export const usageAnalyticsHandlers: HandlerTable = {
  createToken(ctx) {
    if (!ctx.state.tenant.usageAnalyticsEnabled) throw new HttpError(404, 'usage analytics is not enabled for this account');
    const user = ctx.principal.user;
    const nowSec = Math.floor(ctx.clock.now() / 1000);
    let stored = findRecord(ctx.state, 'usageAnalyticsTokens', user.id);
    if (!stored || stored.exp <= nowSec) {
      const exp = nowSec + USAGE_TOKEN_LIFETIME_SEC;
      const token = mintToken(ctx, {
        sub: String(user.id),
        aud: 'usage-analytics',
        securityContext: { userId: user.id, email: user.email, scope: 'own-account' },
        iat: nowSec,
        exp,
      });
      stored = { token, exp };
      putRecord(ctx.state, 'usageAnalyticsTokens', user.id, stored);
    }
    return {
      apiUrl: `${ctx.origin}/usage-analytics/cubejs-api/v1`,
      deploymentId: USAGE_ANALYTICS_DEPLOYMENT_ID,
      token: stored.token,
      expiresAt: new Date(stored.exp * 1000).toISOString(),
    };
  },
};
