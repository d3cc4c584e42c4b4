/**
 * The account areas: notifications, audit log, usage analytics, SCIM, users, user attributes and
 * roles. Every handler checks everything first and changes state last (ids are drawn only after the
 * checks), so a rejected request changes nothing.
 */
import type { HandlerTable } from '../context.js';
import { attributeHandlers } from './attributes.js';
import { auditLogHandlers } from './audit-log.js';
import { notificationHandlers } from './notifications.js';
import { roleHandlers } from './roles.js';
import { scimHandlers } from './scim.js';
import { usageAnalyticsHandlers } from './usage-analytics.js';
import { userHandlers } from './users.js';

export const accountHandlers: HandlerTable = {
  ...notificationHandlers,
  ...auditLogHandlers,
  ...usageAnalyticsHandlers,
  ...scimHandlers,
  ...userHandlers,
  ...attributeHandlers,
  ...roleHandlers,
};
