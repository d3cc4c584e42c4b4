/**
 * Scheduled notifications and their recipients (spec 2.1–2.3, 4.8). Recipients are kept in the record,
 * oldest first, and the schedule inputs in `schedule`; neither is returned with the notification.
 */
import { HttpError, requireDeployment, type Ctx, type HandlerTable } from '../context.js';
import type { JsonObject } from '../json.js';
import { cursorPaginate, type CursorQuery } from '../paging.js';
import { deleteRecord, findRecord, nextId, putRecord, records } from '../state.js';
import type { NotificationRec, RecipientRec, Schedule, ScheduleType, UserRec } from './models.js';
import { given, newestFirst, numericId, requireUser } from './records.js';
import { checkTimezone, cronOf, describeCron, SCHEDULE_KEYS } from './schedules.js';

interface NotificationBody extends Partial<Schedule> {
  timezone?: string | null;
  notificationEnabled?: boolean | null;
  notificationFormat?: string | null;
  notificationAiSummary?: boolean | null;
  filters?: unknown[] | null;
  timeGrains?: unknown[] | null;
  memberSwitchers?: unknown[] | null;
  dashboardId?: number | null;
  dashboardPublicId?: string | null;
  isEnabled?: boolean | null;
}

/** The dashboard (a workbook of the deployment) named by id or public id, or a 404. */
function resolveDashboard(ctx: Ctx, deploymentId: number, body: { dashboardId?: number | null; dashboardPublicId?: string | null }) {
  const workbooks = records(ctx.state, 'workbooks').filter((w) => w.deploymentId === deploymentId);
  if (given(body.dashboardId)) {
    const w = workbooks.find((x) => x.id === body.dashboardId);
    if (!w) throw new HttpError(404, `body.dashboardId: dashboard ${body.dashboardId} not found in deployment ${deploymentId}`);
    return { dashboardId: body.dashboardId, dashboardPublicId: w.publicId ?? null };
  }
  const publicId = body.dashboardPublicId as string;
  const w = workbooks.find((x) => x.publicId === publicId);
  if (!w) throw new HttpError(404, `body.dashboardPublicId: dashboard ${JSON.stringify(publicId)} not found in deployment ${deploymentId}`);
  return { dashboardId: w.id, dashboardPublicId: publicId };
}

function notificationOut(n: NotificationRec) {
  const { recipients: _r, schedule: _s, ...rest } = n;
  return rest;
}

function findNotification(ctx: Ctx): NotificationRec {
  const d = requireDeployment(ctx);
  const id = ctx.params.id as number;
  const n = findRecord(ctx.state, 'notifications', id);
  if (!n || n.deploymentId !== d.id) throw new HttpError(404, `notification ${id} not found in deployment ${d.id}`);
  return n;
}

export function recipientType(r: RecipientRec): string {
  if (r.type) return r.type;
  if (r.channelId) return 'SLACK';
  if (r.embedTenantName) return 'EMBED_USER';
  return 'USER';
}

/** Identity of a recipient within its notification. */
function recipientKey(r: RecipientRec): string {
  const type = recipientType(r);
  if (type === 'USER') return `USER:${r.userId}`;
  if (type === 'EMBED_USER') return `EMBED_USER:${r.embedTenantName}:${r.externalId}`;
  return `SLACK:${r.channelId}`;
}

function recipientOut(r: RecipientRec) {
  const out: Partial<Record<keyof RecipientRec, unknown>> = { type: recipientType(r) };
  for (const k of ['userId', 'email', 'username', 'embedTenantName', 'externalId', 'channelId', 'channelName'] as const) {
    if (given(r[k])) out[k] = r[k];
  }
  return out;
}

type RecipientInput = {
  type: 'USER' | 'EMBED_USER' | 'SLACK';
  userId?: number | null;
  email?: string | null;
  username?: string | null;
  embedTenantName?: string | null;
  externalId?: string | null;
  securityContext?: JsonObject | null;
  userAttributes?: unknown[] | null;
  groups?: string[] | null;
  channelId?: string | null;
  channelName?: string | null;
};

/** A checked recipient record for an input (USER recipients are resolved against the users). */
function recipientFromInput(ctx: Ctx, r: RecipientInput, i: number): RecipientRec {
  const at = `body.recipients[${i}]`;
  if (r.type === 'USER') {
    let u: UserRec | undefined;
    if (given(r.userId)) {
      u = requireUser(ctx.state, r.userId, `${at}.userId`);
      if (given(r.email) && r.email.toLowerCase() !== u.email.toLowerCase()) {
        throw new HttpError(400, `${at}.email: got ${JSON.stringify(r.email)}, expected the e-mail of user ${u.id} (${u.email}) or nothing`);
      }
    } else if (given(r.email)) {
      const email = r.email.toLowerCase();
      u = ctx.state.users.find((x) => x.email.toLowerCase() === email);
      if (!u) throw new HttpError(404, `${at}.email: no user with e-mail ${JSON.stringify(r.email)}`);
    } else {
      throw new HttpError(400, `${at}: a USER recipient needs userId or email`);
    }
    return { type: 'USER', userId: u.id, email: u.email, username: u.username };
  }
  if (r.type === 'EMBED_USER') {
    if (!given(r.embedTenantName) || !given(r.externalId)) {
      throw new HttpError(400, `${at}: an EMBED_USER recipient needs embedTenantName and externalId`);
    }
    const rec: RecipientRec = { type: 'EMBED_USER', embedTenantName: r.embedTenantName, externalId: r.externalId };
    if (given(r.email)) rec.email = r.email;
    if (given(r.username)) rec.username = r.username;
    if (given(r.securityContext)) rec.securityContext = r.securityContext;
    if (given(r.userAttributes)) rec.userAttributes = r.userAttributes;
    if (given(r.groups)) rec.groups = r.groups;
    return rec;
  }
  if (!given(r.channelId)) throw new HttpError(400, `${at}: a SLACK recipient needs channelId`);
  const rec: RecipientRec = { type: 'SLACK', channelId: r.channelId };
  if (given(r.channelName)) rec.channelName = r.channelName;
  return rec;
}

/** Does `next` change anything `prev` holds (only the fields `next` carries count)? */
function recipientChanged(prev: RecipientRec, next: RecipientRec): boolean {
  for (const [k, v] of Object.entries(next)) {
    if (k === 'type') continue;
    if (JSON.stringify(prev[k as keyof RecipientRec]) !== JSON.stringify(v)) return true;
  }
  return false;
}

/** The schedule with the fields `body` gives set, and those it sends as null cleared. */
function applySchedule(schedule: Schedule, body: Partial<Schedule>): Schedule {
  for (const k of SCHEDULE_KEYS) {
    if (body[k] === null && k !== 'scheduleType') delete schedule[k];
    else if (given(body[k])) Object.assign(schedule, { [k]: body[k] });
  }
  return schedule;
}

export const notificationHandlers: HandlerTable = {
  getNotifications(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as CursorQuery & {
      dashboardId?: number | null;
      dashboardPublicId?: string | null;
      recipientUserId?: number | null;
      recipientEmail?: string | null;
      recipientEmbedTenantName?: string | null;
      recipientExternalId?: string | null;
    };
    let rows = records(ctx.state, 'notifications').filter((n) => n.deploymentId === d.id);
    if (given(q.dashboardId)) rows = rows.filter((n) => n.dashboardId === q.dashboardId);
    if (given(q.dashboardPublicId)) {
      const wb = records(ctx.state, 'workbooks').find((w) => w.deploymentId === d.id && w.publicId === q.dashboardPublicId);
      rows = rows.filter((n) => n.dashboardPublicId === q.dashboardPublicId || (wb !== undefined && n.dashboardId === wb.id));
    }
    if (given(q.recipientUserId)) {
      rows = rows.filter((n) => n.recipients.some((r) => recipientType(r) === 'USER' && r.userId === q.recipientUserId));
    }
    if (given(q.recipientEmail)) {
      const email = q.recipientEmail.toLowerCase();
      rows = rows.filter((n) => n.recipients.some((r) => recipientType(r) === 'USER' && r.email?.toLowerCase() === email));
    }
    if (given(q.recipientEmbedTenantName) && given(q.recipientExternalId)) {
      rows = rows.filter((n) =>
        n.recipients.some(
          (r) => recipientType(r) === 'EMBED_USER' && r.embedTenantName === q.recipientEmbedTenantName && r.externalId === q.recipientExternalId,
        ),
      );
    }
    rows.sort(newestFirst);
    return cursorPaginate(rows.map(notificationOut), q);
  },

  createNotification(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as NotificationBody & { scheduleType: ScheduleType };
    const dashboard = resolveDashboard(ctx, d.id, body);
    const schedule = applySchedule({ scheduleType: body.scheduleType }, body);
    const cronExpression = cronOf(schedule);
    const timezone = body.timezone ?? 'UTC';
    checkTimezone(timezone);
    const id = nextId(ctx.state, 'notification');
    const n: NotificationRec = {
      id,
      ...dashboard,
      deploymentId: d.id,
      cronExpression,
      timezone,
      isEnabled: true,
      humanReadableSchedule: describeCron(cronExpression),
      notificationEnabled: body.notificationEnabled ?? true,
      notificationFormat: body.notificationFormat ?? 'png',
      notificationAiSummary: body.notificationAiSummary ?? false,
      filters: body.filters ?? null,
      timeGrains: body.timeGrains ?? null,
      memberSwitchers: body.memberSwitchers ?? null,
      createdAt: ctx.clock.iso(),
      schedule,
      recipients: [],
    };
    putRecord(ctx.state, 'notifications', id, n);
    return notificationOut(n);
  },

  getNotification(ctx) {
    return notificationOut(findNotification(ctx));
  },

  updateNotification(ctx) {
    const n = findNotification(ctx);
    const body = ctx.body as NotificationBody;
    const patch: Partial<NotificationRec> = {};
    if (given(body.dashboardId) || given(body.dashboardPublicId)) Object.assign(patch, resolveDashboard(ctx, n.deploymentId, body));
    if (SCHEDULE_KEYS.some((k) => body[k] !== undefined)) {
      // Seed records have no schedule inputs: their cron expression stands as a CUSTOM schedule.
      const schedule = applySchedule({ ...(n.schedule ?? { scheduleType: 'CUSTOM', customCron: n.cronExpression }) }, body);
      const parts = (['minute', 'hour', 'dayOfWeek', 'dayOfMonth'] as const).filter((k) => given(body[k]));
      if (schedule.scheduleType === 'CUSTOM' && !given(body.scheduleType) && !given(body.customCron) && parts.length) {
        throw new HttpError(
          400,
          `body.scheduleType: got nothing, expected a schedule type to go with ${parts.join(', ')} (the notification runs on a custom cron expression)`,
        );
      }
      const cron = cronOf(schedule);
      Object.assign(patch, { schedule, cronExpression: cron, humanReadableSchedule: describeCron(cron) });
    }
    if (given(body.timezone)) {
      checkTimezone(body.timezone);
      patch.timezone = body.timezone;
    }
    for (const k of ['isEnabled', 'notificationEnabled', 'notificationFormat', 'notificationAiSummary'] as const) {
      if (given(body[k])) Object.assign(patch, { [k]: body[k] });
    }
    // Lists: null clears, a value replaces, omitted leaves alone.
    for (const k of ['filters', 'timeGrains', 'memberSwitchers'] as const) {
      if (body[k] !== undefined) Object.assign(patch, { [k]: body[k] });
    }
    Object.assign(n, patch, { updatedAt: ctx.clock.iso() });
    return notificationOut(n);
  },

  deleteNotification(ctx) {
    const n = findNotification(ctx);
    deleteRecord(ctx.state, 'notifications', n.id);
    return undefined;
  },

  getRecipients(ctx) {
    const n = findNotification(ctx);
    const q = ctx.query as CursorQuery;
    return cursorPaginate([...n.recipients].reverse().map(recipientOut), q);
  },

  addRecipients(ctx) {
    const n = findNotification(ctx);
    const body = ctx.body as { recipients: RecipientInput[] };
    const next = n.recipients.map((r) => ({ ...r }));
    const index = new Map(next.map((r, i) => [recipientKey(r), i]));
    // What happened to each recipient named, first naming first; one listed twice is reported once.
    const outcome = new Map<string, 'created' | 'updated' | 'unchanged'>();
    const now = ctx.clock.iso();
    body.recipients.forEach((input, i) => {
      const rec = recipientFromInput(ctx, input, i);
      const key = recipientKey(rec);
      const at = index.get(key);
      if (at === undefined) {
        index.set(key, next.length);
        next.push({ ...rec, createdAt: now });
        outcome.set(key, 'created');
      } else if (recipientChanged(next[at] as RecipientRec, rec)) {
        next[at] = { ...(next[at] as RecipientRec), ...rec };
        if (outcome.get(key) !== 'created') outcome.set(key, 'updated');
      } else if (!outcome.has(key)) {
        outcome.set(key, 'unchanged');
      }
    });
    n.recipients = next;
    const list = (which: string) => [...outcome].filter(([, o]) => o === which).map(([key]) => recipientOut(next[index.get(key) as number] as RecipientRec));
    return { createdRecipients: list('created'), updatedRecipients: list('updated'), unchangedRecipients: list('unchanged') };
  },

  removeRecipients(ctx) {
    const n = findNotification(ctx);
    const body = ctx.body as { recipients: { type: string; id: number | string; embedTenantName?: string | null }[] };
    const keys = new Set<string>();
    body.recipients.forEach((r, i) => {
      if (r.type === 'USER') {
        const id = typeof r.id === 'number' ? r.id : numericId(r.id, `body.recipients[${i}].id`);
        keys.add(`USER:${id}`);
      } else if (r.type === 'EMBED_USER') {
        if (!given(r.embedTenantName))
          throw new HttpError(400, `body.recipients[${i}].embedTenantName: got nothing, expected the embed tenant of an EMBED_USER recipient`);
        keys.add(`EMBED_USER:${r.embedTenantName}:${r.id}`);
      } else {
        keys.add(`SLACK:${r.id}`);
      }
    });
    // Unknown recipients are ignored: removing is idempotent.
    n.recipients = n.recipients.filter((r) => !keys.has(recipientKey(r)));
    return undefined;
  },
};
