/** Usage-analytics token (spec 2.10, 4.10; admin only). */
import { endpoint } from '../endpoint.js';
import { UsageAnalyticsToken } from '../schemas.js';

export const usageAnalyticsEndpoints = {
  createToken: endpoint({
    id: 'createToken',
    method: 'POST',
    path: '/api/v1/usage-analytics/token',
    section: '4.10',
    summary: 'Issue a one-hour token for the usage-analytics deployment (404 when usage analytics is off)',
    response: UsageAnalyticsToken,
    // The spec declares issuing idempotent, so a failed POST may be repeated.
    idempotent: true,
    access: { admin: true },
  }),
} as const;
