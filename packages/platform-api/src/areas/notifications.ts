/** Scheduled notifications and their recipients (spec 2.1–2.3, 4.8; admin only). */
import { z } from 'zod';
import { endpoint } from '../endpoint.js';
import {
  AnyObject,
  CursorQuery,
  DashboardFilter,
  DashboardTimeGrain,
  DeploymentParams,
  Notification,
  PosInt,
  cursorPage,
} from '../schemas.js';

const BASE = '/api/v1/deployments/{deploymentId}/notifications';
const ADMIN = { admin: true } as const;

export const NotificationParams = DeploymentParams.extend({ id: PosInt });

const given = (v: unknown) => v !== undefined && v !== null;

/**
 * 4.8 filters: one dashboard identifier, and one recipient filter among `recipientUserId`,
 * `recipientEmail` and the embed-user pair (`recipientEmbedTenantName` + `recipientExternalId`,
 * which go together). Checked before anything is sent.
 */
export const NotificationsQuery = CursorQuery.extend({
  dashboardId: PosInt.nullish(),
  dashboardPublicId: z.string().min(1).nullish(),
  recipientUserId: PosInt.nullish(),
  recipientEmail: z.string().min(1).nullish(),
  recipientEmbedTenantName: z.string().min(1).nullish(),
  recipientExternalId: z.string().min(1).nullish(),
}).superRefine((q, ctx) => {
  if (given(q.dashboardId) && given(q.dashboardPublicId)) {
    ctx.addIssue({
      code: 'custom',
      path: ['dashboardPublicId'],
      message: 'only one of dashboardId or dashboardPublicId (they are mutually exclusive)',
    });
  }
  const tenant = given(q.recipientEmbedTenantName);
  const external = given(q.recipientExternalId);
  // Each recipient filter given, as [name for the message, parameter to point at].
  const recipientFilters: [string, string][] = [];
  if (given(q.recipientUserId)) recipientFilters.push(['recipientUserId', 'recipientUserId']);
  if (given(q.recipientEmail)) recipientFilters.push(['recipientEmail', 'recipientEmail']);
  if (tenant || external) {
    recipientFilters.push([
      'recipientEmbedTenantName+recipientExternalId',
      tenant ? 'recipientEmbedTenantName' : 'recipientExternalId',
    ]);
  }
  const second = recipientFilters[1];
  if (second) {
    ctx.addIssue({
      code: 'custom',
      path: [second[1]],
      message: `one recipient filter, not ${recipientFilters.map((f) => f[0]).join(' with ')} (recipientUserId, recipientEmail and the embed-user filter are mutually exclusive)`,
    });
  }
  if (tenant !== external) {
    ctx.addIssue({
      code: 'custom',
      path: [tenant ? 'recipientExternalId' : 'recipientEmbedTenantName'],
      message: 'recipientEmbedTenantName and recipientExternalId together (the embed-user filter needs both)',
    });
  }
});

export const NotificationFormat = z.enum(['png', 'pdf']);
export const ScheduleType = z.enum(['HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY', 'CUSTOM']);
export const DashboardMemberSwitcher = z.looseObject({ member: z.string(), selected: z.string() });

/** Schedule and rendering fields shared by create and update. */
const NotificationFields = {
  scheduleType: ScheduleType.nullish(),
  customCron: z.string().nullish(),
  minute: z.number().int().nullish(),
  hour: z.number().int().nullish(),
  dayOfWeek: z.number().int().nullish(),
  dayOfMonth: z.number().int().nullish(),
  timezone: z.string().nullish(),
  notificationEnabled: z.boolean().nullish(),
  notificationFormat: NotificationFormat.nullish(),
  notificationAiSummary: z.boolean().nullish(),
  filters: z.array(DashboardFilter).nullish(),
  timeGrains: z.array(DashboardTimeGrain).nullish(),
  memberSwitchers: z.array(DashboardMemberSwitcher).nullish(),
  dashboardId: z.number().int().min(1).nullish(),
  dashboardPublicId: z.string().min(1).nullish(),
};

const oneDashboard = (exactly: boolean) => (b: { dashboardId?: unknown; dashboardPublicId?: unknown }, ctx: z.RefinementCtx) => {
  const id = given(b.dashboardId);
  const publicId = given(b.dashboardPublicId);
  if (id && publicId) {
    ctx.addIssue({
      code: 'custom',
      path: ['dashboardPublicId'],
      message: 'only one of dashboardId or dashboardPublicId (they are mutually exclusive)',
    });
  } else if (exactly && !id && !publicId) {
    ctx.addIssue({ code: 'custom', path: ['dashboardId'], message: 'one of dashboardId or dashboardPublicId' });
  }
};

/** Create: the dashboard by exactly one of `dashboardId` or `dashboardPublicId`; `scheduleType` required. */
export const CreateNotificationInput = z
  .looseObject({ ...NotificationFields, scheduleType: ScheduleType })
  .superRefine(oneDashboard(true));

/** Update: any subset; a dashboard, when named, by at most one identifier. */
export const UpdateNotificationInput = z
  .looseObject({ ...NotificationFields, isEnabled: z.boolean().nullish() })
  .superRefine(oneDashboard(false));

export const RecipientType = z.enum(['USER', 'EMBED_USER', 'SLACK']);

/** A subscribed recipient: a user, an embed user or a Slack channel (`type` tells which). */
export const NotificationRecipient = z.looseObject({
  type: z.string(),
  userId: z.number().int().nullish(),
  email: z.string().nullish(),
  username: z.string().nullish(),
  embedUserId: z.number().int().nullish(),
  embedTenantName: z.string().nullish(),
  externalId: z.string().nullish(),
  channelId: z.string().nullish(),
  channelName: z.string().nullish(),
});
export type NotificationRecipient = z.infer<typeof NotificationRecipient>;

export const UserAttributeInput = z.looseObject({
  name: z.string(),
  value: z.union([z.string(), z.number(), z.boolean(), z.array(z.string()), z.array(z.number())]).nullish(),
});

export const NotificationRecipientInput = z.looseObject({
  type: RecipientType,
  userId: z.number().int().nullish(),
  email: z.string().nullish(),
  username: z.string().nullish(),
  embedTenantName: z.string().nullish(),
  externalId: z.string().nullish(),
  securityContext: AnyObject.nullish(),
  userAttributes: z.array(UserAttributeInput).nullish(),
  groups: z.array(z.string()).nullish(),
  channelId: z.string().nullish(),
  channelName: z.string().nullish(),
});

export const AddRecipientsInput = z.looseObject({ recipients: z.array(NotificationRecipientInput).min(1).max(1000) });

export const RecipientsMutation = z.looseObject({
  createdRecipients: z.array(NotificationRecipient),
  updatedRecipients: z.array(NotificationRecipient),
  unchangedRecipients: z.array(NotificationRecipient),
});
export type RecipientsMutation = z.infer<typeof RecipientsMutation>;

/** Remove by `type` plus the id the API returned; `EMBED_USER` entries also carry `embedTenantName`. */
export const RemoveRecipientsInput = z.looseObject({
  recipients: z
    .array(
      z.looseObject({
        type: RecipientType,
        id: z.union([z.number().int(), z.string().min(1)]),
        embedTenantName: z.string().nullish(),
      }),
    )
    .min(1)
    .max(1000),
});

export const notificationEndpoints = {
  list: endpoint({
    id: 'getNotifications',
    method: 'GET',
    path: BASE,
    section: '4.8',
    summary: 'Scheduled notifications, newest first, filtered by dashboard and recipient',
    params: DeploymentParams,
    query: NotificationsQuery,
    response: cursorPage(Notification),
    pagination: 'cursor',
    access: ADMIN,
  }),
  create: endpoint({
    id: 'createNotification',
    method: 'POST',
    path: BASE,
    section: '4.8',
    summary: 'Create a scheduled notification (no recipients yet)',
    params: DeploymentParams,
    body: CreateNotificationInput,
    response: Notification,
    access: ADMIN,
  }),
  get: endpoint({
    id: 'getNotification',
    method: 'GET',
    path: `${BASE}/{id}`,
    section: '4.8',
    summary: 'One scheduled notification',
    params: NotificationParams,
    response: Notification,
    access: ADMIN,
  }),
  update: endpoint({
    id: 'updateNotification',
    method: 'PUT',
    path: `${BASE}/{id}`,
    section: '4.8',
    summary: 'Update a notification’s schedule (never its recipients)',
    params: NotificationParams,
    body: UpdateNotificationInput,
    response: Notification,
    access: ADMIN,
  }),
  remove: endpoint({
    id: 'deleteNotification',
    method: 'DELETE',
    path: `${BASE}/{id}`,
    section: '4.8',
    summary: 'Delete a notification and all its recipients',
    params: NotificationParams,
    response: z.unknown(),
    responseType: 'empty',
    status: 204,
    access: ADMIN,
  }),
  recipients: endpoint({
    id: 'getRecipients',
    method: 'GET',
    path: `${BASE}/{id}/recipients`,
    section: '4.8',
    summary: 'Recipients of a notification, newest first',
    params: NotificationParams,
    query: CursorQuery,
    response: cursorPage(NotificationRecipient),
    pagination: 'cursor',
    access: ADMIN,
  }),
  addRecipients: endpoint({
    id: 'addRecipients',
    method: 'POST',
    path: `${BASE}/{id}/recipients`,
    section: '4.8',
    summary: 'Subscribe 1 to 1000 recipients (idempotent on the server)',
    params: NotificationParams,
    body: AddRecipientsInput,
    response: RecipientsMutation,
    access: ADMIN,
  }),
  removeRecipients: endpoint({
    id: 'removeRecipients',
    method: 'DELETE',
    path: `${BASE}/{id}/recipients`,
    section: '4.8',
    summary: 'Unsubscribe 1 to 1000 recipients',
    params: NotificationParams,
    body: RemoveRecipientsInput,
    response: z.unknown(),
    responseType: 'empty',
    status: 204,
    access: ADMIN,
  }),
} as const;
