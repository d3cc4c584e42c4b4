/**
 * Account areas: scheduled notifications and recipients (spec 2.1–2.3, 4.8), audit-log export (4.9),
 * usage-analytics token (2.10, 4.10), SCIM groups and users (2.11, 4.11), users, settings, groups,
 * user attributes and custom roles (4.14, 4.15). Every handler checks everything first and changes
 * state last (ids are drawn only after the checks), so a rejected request changes nothing.
 */
import { SCIM_GROUP_SCHEMA, SCIM_LIST_SCHEMA, SCIM_USER_SCHEMA } from '@datamodel-ci/platform-api';
import { HttpError, reply, requireDeployment, type Ctx, type Handler, type HandlerTable } from '../context.js';
import { signJwt } from '../jwt.js';
import { ALL_PERMISSIONS, nextId, type GroupRec, type State, type UserRec } from '../state.js';
import { cursorPaginate } from './build.js';

type Rec = Record<string, unknown>;

const given = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;

function coll(state: State, name: string): Record<string, Rec> {
  return (state.collections[name] ??= {});
}

/** Newest first: creation time descending, then id descending. */
function newestFirst<T extends { createdAt?: unknown; id?: unknown }>(a: T, b: T): number {
  const ta = String(a.createdAt ?? '');
  const tb = String(b.createdAt ?? '');
  if (ta !== tb) return ta < tb ? 1 : -1;
  return Number(b.id ?? 0) - Number(a.id ?? 0);
}

function userById(state: State, id: number): UserRec | undefined {
  return state.users.find((u) => u.id === id);
}

function requireUser(state: State, id: number, input = 'user'): UserRec {
  const u = userById(state, id);
  if (!u) throw new HttpError(404, `${input}: user ${id} not found`);
  return u;
}

/** A numeric id sent as text (`"12"`), or a 400. */
function numericId(v: string, input: string): number {
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new HttpError(400, `${input}: got ${JSON.stringify(v)}, expected a positive integer id`);
  return Number(v);
}

function auditEnabledRecord(ctx: Ctx, eventName: string, data: Rec): void {
  if (!ctx.state.tenant.auditLogEnabled) return;
  ctx.state.auditEvents.push({
    id: nextId(ctx.state, 'audit'),
    eventName,
    userEmail: ctx.principal.user.email,
    createdAt: ctx.clock.iso(),
    data,
  });
}

// =============================================================================================
// Notifications (4.8). Records live in `collections.notifications`, recipients embedded in the
// record (`recipients`, oldest first) and the schedule inputs in `schedule`; neither is returned
// with the notification.

type ScheduleType = 'HOURLY' | 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'CUSTOM';

interface Schedule {
  scheduleType: ScheduleType;
  customCron?: string | null;
  minute?: number | null;
  hour?: number | null;
  dayOfWeek?: number | null;
  dayOfMonth?: number | null;
}

const SCHEDULE_KEYS = ['scheduleType', 'customCron', 'minute', 'hour', 'dayOfWeek', 'dayOfMonth'] as const;

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

interface RecipientRec {
  type?: string;
  userId?: number;
  email?: string;
  username?: string;
  embedTenantName?: string;
  externalId?: string;
  securityContext?: Rec | null;
  userAttributes?: unknown[] | null;
  groups?: string[] | null;
  channelId?: string;
  channelName?: string;
  createdAt?: string;
}

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const CRON_FIELD = /^[0-9A-Za-z*,/?LW#-]+$/;

function inRange(v: number | null | undefined, lo: number, hi: number, input: string, fallback: number): number {
  if (!given(v)) return fallback;
  if (v < lo || v > hi) throw new HttpError(400, `body.${input}: got ${v}, expected an integer from ${lo} to ${hi}`);
  return v;
}

/** The cron expression of a schedule, or a 400 naming the bad field. */
function cronOf(s: Schedule): string {
  const m = inRange(s.minute, 0, 59, 'minute', 0);
  const h = inRange(s.hour, 0, 23, 'hour', 0);
  switch (s.scheduleType) {
    case 'HOURLY':
      return `${m} * * * *`;
    case 'DAILY':
      return `${m} ${h} * * *`;
    case 'WEEKLY':
      return `${m} ${h} * * ${inRange(s.dayOfWeek, 0, 6, 'dayOfWeek', 1)}`;
    case 'MONTHLY':
      return `${m} ${h} ${inRange(s.dayOfMonth, 1, 31, 'dayOfMonth', 1)} * *`;
    case 'CUSTOM': {
      const cron = (s.customCron ?? '').trim();
      const fields = cron.split(/\s+/);
      if (!cron) throw new HttpError(400, 'body.customCron: got nothing, expected a cron expression (scheduleType CUSTOM needs one)');
      if (fields.length !== 5 || !fields.every((f) => CRON_FIELD.test(f))) {
        throw new HttpError(400, `body.customCron: got ${JSON.stringify(s.customCron)}, expected a cron expression of 5 fields (minute hour day-of-month month day-of-week)`);
      }
      return fields.join(' ');
    }
  }
}

/** An English rendering of the simple cron shapes; anything else is quoted. */
export function describeCron(cron: string): string {
  const [min, hour, dom, mon, dow] = cron.split(' ') as [string, string, string, string, string];
  const num = (s: string) => /^\d+$/.test(s);
  if (num(min) && hour === '*' && dom === '*' && mon === '*' && dow === '*') {
    return `Every hour, at ${min.padStart(2, '0')} minutes past the hour`;
  }
  if (!num(min) || !num(hour) || mon !== '*') return `On the cron schedule "${cron}"`;
  const at = `At ${hour.padStart(2, '0')}:${min.padStart(2, '0')}`;
  if (dom === '*' && dow === '*') return `${at}, every day`;
  if (dom === '*' && dow === '1-5') return `${at}, Monday through Friday`;
  if (dom === '*' && num(dow) && Number(dow) <= 7) return `${at}, only on ${DAYS[Number(dow) % 7]}`;
  if (num(dom) && dow === '*') return `${at}, on day ${dom} of the month`;
  return `On the cron schedule "${cron}"`;
}

function checkTimezone(tz: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    throw new HttpError(400, `body.timezone: got ${JSON.stringify(tz)}, expected an IANA time zone such as "Europe/Berlin"`);
  }
}

/** The dashboard (a workbook of the deployment) named by id or public id, or a 404. */
function resolveDashboard(ctx: Ctx, deploymentId: number, body: { dashboardId?: number | null; dashboardPublicId?: string | null }) {
  const workbooks = Object.values(ctx.state.collections.workbooks ?? {}).filter((w) => w.deploymentId === deploymentId);
  if (given(body.dashboardId)) {
    const w = workbooks.find((x) => x.id === body.dashboardId);
    if (!w) throw new HttpError(404, `body.dashboardId: dashboard ${body.dashboardId} not found in deployment ${deploymentId}`);
    return { dashboardId: body.dashboardId, dashboardPublicId: typeof w.publicId === 'string' ? w.publicId : null };
  }
  const publicId = body.dashboardPublicId as string;
  const w = workbooks.find((x) => x.publicId === publicId);
  if (!w) throw new HttpError(404, `body.dashboardPublicId: dashboard ${JSON.stringify(publicId)} not found in deployment ${deploymentId}`);
  return { dashboardId: Number(w.id), dashboardPublicId: publicId };
}

function notificationOut(n: Rec) {
  const { recipients: _r, schedule: _s, ...rest } = n;
  return rest;
}

function findNotification(ctx: Ctx): Rec {
  const d = requireDeployment(ctx);
  const id = ctx.params.id as number;
  const n = coll(ctx.state, 'notifications')[String(id)];
  if (!n || n.deploymentId !== d.id) throw new HttpError(404, `notification ${id} not found in deployment ${d.id}`);
  return n;
}

function recipientType(r: RecipientRec): string {
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
  const out: Rec = { type: recipientType(r) };
  for (const k of ['userId', 'email', 'username', 'embedTenantName', 'externalId', 'channelId', 'channelName'] as const) {
    if (given(r[k])) out[k] = r[k];
  }
  return out;
}

function recipientsOf(n: Rec): RecipientRec[] {
  return (n.recipients as RecipientRec[] | undefined) ?? [];
}

type RecipientInput = {
  type: 'USER' | 'EMBED_USER' | 'SLACK';
  userId?: number | null;
  email?: string | null;
  username?: string | null;
  embedTenantName?: string | null;
  externalId?: string | null;
  securityContext?: Rec | null;
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

const notificationHandlers: HandlerTable = {
  getNotifications(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as {
      first?: number;
      after?: string;
      dashboardId?: number | null;
      dashboardPublicId?: string | null;
      recipientUserId?: number | null;
      recipientEmail?: string | null;
      recipientEmbedTenantName?: string | null;
      recipientExternalId?: string | null;
    };
    let rows = Object.values(coll(ctx.state, 'notifications')).filter((n) => n.deploymentId === d.id);
    if (given(q.dashboardId)) rows = rows.filter((n) => n.dashboardId === q.dashboardId);
    if (given(q.dashboardPublicId)) {
      const wb = Object.values(ctx.state.collections.workbooks ?? {}).find((w) => w.deploymentId === d.id && w.publicId === q.dashboardPublicId);
      rows = rows.filter((n) => n.dashboardPublicId === q.dashboardPublicId || (wb !== undefined && n.dashboardId === wb.id));
    }
    if (given(q.recipientUserId)) {
      rows = rows.filter((n) => recipientsOf(n).some((r) => recipientType(r) === 'USER' && r.userId === q.recipientUserId));
    }
    if (given(q.recipientEmail)) {
      const email = q.recipientEmail.toLowerCase();
      rows = rows.filter((n) => recipientsOf(n).some((r) => recipientType(r) === 'USER' && r.email?.toLowerCase() === email));
    }
    if (given(q.recipientEmbedTenantName) && given(q.recipientExternalId)) {
      rows = rows.filter((n) =>
        recipientsOf(n).some(
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
    const schedule: Schedule = { scheduleType: body.scheduleType };
    for (const k of SCHEDULE_KEYS) if (given(body[k])) (schedule as unknown as Rec)[k] = body[k];
    const cronExpression = cronOf(schedule);
    const timezone = body.timezone ?? 'UTC';
    checkTimezone(timezone);
    const id = nextId(ctx.state, 'notification');
    const n: Rec = {
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
    coll(ctx.state, 'notifications')[String(id)] = n;
    return notificationOut(n);
  },

  getNotification(ctx) {
    return notificationOut(findNotification(ctx));
  },

  updateNotification(ctx) {
    const n = findNotification(ctx);
    const body = ctx.body as NotificationBody;
    const patch: Rec = {};
    if (given(body.dashboardId) || given(body.dashboardPublicId)) Object.assign(patch, resolveDashboard(ctx, n.deploymentId as number, body));
    if (SCHEDULE_KEYS.some((k) => body[k] !== undefined)) {
      // Seed records have no schedule inputs: their cron expression stands as a CUSTOM schedule.
      const schedule: Schedule = { ...((n.schedule as Schedule | undefined) ?? { scheduleType: 'CUSTOM', customCron: n.cronExpression as string }) };
      for (const k of SCHEDULE_KEYS) {
        if (body[k] === null && k !== 'scheduleType') delete schedule[k];
        else if (given(body[k])) (schedule as unknown as Rec)[k] = body[k];
      }
      const parts = (['minute', 'hour', 'dayOfWeek', 'dayOfMonth'] as const).filter((k) => given(body[k]));
      if (schedule.scheduleType === 'CUSTOM' && !given(body.scheduleType) && !given(body.customCron) && parts.length) {
        throw new HttpError(400, `body.scheduleType: got nothing, expected a schedule type to go with ${parts.join(', ')} (the notification runs on a custom cron expression)`);
      }
      const cron = cronOf(schedule);
      Object.assign(patch, { schedule, cronExpression: cron, humanReadableSchedule: describeCron(cron) });
    }
    if (given(body.timezone)) {
      checkTimezone(body.timezone);
      patch.timezone = body.timezone;
    }
    for (const k of ['isEnabled', 'notificationEnabled', 'notificationFormat', 'notificationAiSummary'] as const) {
      if (given(body[k])) patch[k] = body[k];
    }
    // Lists: null clears, a value replaces, omitted leaves alone.
    for (const k of ['filters', 'timeGrains', 'memberSwitchers'] as const) {
      if (body[k] !== undefined) patch[k] = body[k];
    }
    Object.assign(n, patch, { updatedAt: ctx.clock.iso() });
    return notificationOut(n);
  },

  deleteNotification(ctx) {
    const n = findNotification(ctx);
    delete coll(ctx.state, 'notifications')[String(n.id)];
    return undefined;
  },

  getRecipients(ctx) {
    const n = findNotification(ctx);
    const q = ctx.query as { first?: number; after?: string };
    return cursorPaginate([...recipientsOf(n)].reverse().map(recipientOut), q);
  },

  addRecipients(ctx) {
    const n = findNotification(ctx);
    const body = ctx.body as { recipients: RecipientInput[] };
    const next = recipientsOf(n).map((r) => ({ ...r }));
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
    const list = (which: string) =>
      [...outcome].filter(([, o]) => o === which).map(([key]) => recipientOut(next[index.get(key) as number] as RecipientRec));
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
        if (!given(r.embedTenantName)) throw new HttpError(400, `body.recipients[${i}].embedTenantName: got nothing, expected the embed tenant of an EMBED_USER recipient`);
        keys.add(`EMBED_USER:${r.embedTenantName}:${r.id}`);
      } else {
        keys.add(`SLACK:${r.id}`);
      }
    });
    // Unknown recipients are ignored: removing is idempotent.
    n.recipients = recipientsOf(n).filter((r) => !keys.has(recipientKey(r)));
    return undefined;
  },
};

// =============================================================================================
// Audit-log export (4.9).

/** `2024-05-01`, `2024-05-01T10:00`, `2024-05-01 10:00:00Z`… as ms; a zone-less time is UTC. */
function parseIsoDate(text: string, input: string): number {
  const bad = () => new HttpError(400, `query.${input}: got ${JSON.stringify(text)}, expected a valid ISO 8601 date such as 2024-05-01`);
  const [y, m, d] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  const day = new Date(Date.UTC(y, m - 1, d));
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d) throw bad();
  let s = text.replace(' ', 'T');
  if (s.includes('T') && !/(Z|[+-]\d{2}:?\d{2})$/.test(s)) s += 'Z';
  const ms = Date.parse(s);
  if (Number.isNaN(ms)) throw bad();
  return ms;
}

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote, CR or LF; quotes doubled. */
export function csvField(value: unknown): string {
  const s = value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const AUDIT_CSV_COLUMNS = ['id', 'createdAt', 'eventName', 'userEmail', 'data'] as const;

const auditLogHandlers: HandlerTable = {
  exportAuditLogs(ctx) {
    if (!ctx.state.tenant.auditLogEnabled) {
      throw new HttpError(403, 'the audit log is not enabled for this account (it needs the top plan tier)');
    }
    const q = ctx.query as { start?: string; end?: string; search?: string; eventName?: string; userEmail?: string };
    const start = q.start ? parseIsoDate(q.start, 'start') : undefined;
    const end = q.end ? parseIsoDate(q.end, 'end') : undefined;
    if (start !== undefined && end !== undefined && end < start) {
      throw new HttpError(400, `query.end: got ${JSON.stringify(q.end)}, expected a date not before start (${q.start})`);
    }
    const search = q.search?.toLowerCase();
    const email = q.userEmail?.toLowerCase();
    const rows = ctx.state.auditEvents
      .filter((e) => {
        const t = Date.parse(e.createdAt);
        if (start !== undefined && t < start) return false;
        if (end !== undefined && t >= end) return false;
        if (q.eventName && e.eventName !== q.eventName) return false;
        if (email && e.userEmail.toLowerCase() !== email) return false;
        if (search && !`${e.eventName}\n${JSON.stringify(e.data)}`.toLowerCase().includes(search)) return false;
        return true;
      })
      .sort((a, b) => (a.createdAt === b.createdAt ? a.id - b.id : a.createdAt < b.createdAt ? -1 : 1));
    const lines = [AUDIT_CSV_COLUMNS.join(',')];
    for (const e of rows) lines.push([e.id, e.createdAt, e.eventName, e.userEmail, e.data].map(csvField).join(','));
    const csv = `${lines.join('\r\n')}\r\n`;
    return reply({
      raw: csv,
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="audit-log-${ctx.clock.iso().slice(0, 10)}.csv"`,
      },
    });
  },
};

// =============================================================================================
// Usage-analytics token (4.10): one per user, reissued only once the stored one expired.

export const USAGE_ANALYTICS_DEPLOYMENT_ID = 9000;
const USAGE_TOKEN_LIFETIME_SEC = 3600;

const usageAnalyticsHandlers: HandlerTable = {
  createToken(ctx) {
    if (!ctx.state.tenant.usageAnalyticsEnabled) throw new HttpError(404, 'usage analytics is not enabled for this account');
    const user = ctx.principal.user;
    const tokens = coll(ctx.state, 'usageAnalyticsTokens');
    const nowSec = Math.floor(ctx.clock.now() / 1000);
    let stored = tokens[String(user.id)] as { token: string; exp: number } | undefined;
    if (!stored || stored.exp <= nowSec) {
      const exp = nowSec + USAGE_TOKEN_LIFETIME_SEC;
      const token = signJwt(
        {
          sub: String(user.id),
          aud: 'usage-analytics',
          securityContext: { userId: user.id, email: user.email, scope: 'own-account' },
          iat: nowSec,
          exp,
        },
        ctx.state.secret,
      );
      stored = { token, exp };
      tokens[String(user.id)] = stored;
      ctx.controls.minted.push(token);
    }
    return {
      apiUrl: `${ctx.origin}/usage-analytics/cubejs-api/v1`,
      deploymentId: USAGE_ANALYTICS_DEPLOYMENT_ID,
      token: stored.token,
      expiresAt: new Date(stored.exp * 1000).toISOString(),
    };
  },
};

// =============================================================================================
// SCIM 2.0 (4.11; RFC 7643/7644 where the spec is silent). Groups are `state.groups`; members are
// the users whose `groupIds` hold the group.

const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

interface ScimGroupRec extends GroupRec {
  externalId?: string;
  lastModified?: string;
}

/** A SCIM error (RFC 7644 3.12), with the control plane's `error` string too. */
class ScimFailure extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly scimType?: string,
  ) {
    super(detail);
  }
  reply() {
    const body = {
      schemas: [SCIM_ERROR_SCHEMA],
      status: String(this.status),
      ...(this.scimType ? { scimType: this.scimType } : {}),
      detail: this.detail,
      error: this.detail,
    };
    // Raw: a SCIM error body is not the endpoint's success schema.
    return reply({ status: this.status, raw: JSON.stringify(body), headers: { 'content-type': 'application/scim+json' } });
  }
}

function scimHandler(h: Handler): Handler {
  return (ctx) => {
    try {
      return h(ctx);
    } catch (error) {
      if (error instanceof ScimFailure) return error.reply();
      if (error instanceof HttpError) return new ScimFailure(error.status, error.message).reply();
      throw error;
    }
  };
}

function scimGroupOut(ctx: Ctx, g: ScimGroupRec) {
  const members = ctx.state.users
    .filter((u) => u.groupIds.includes(g.id))
    .map((u) => ({ value: String(u.id), display: displayName(u) }));
  return {
    schemas: [SCIM_GROUP_SCHEMA],
    id: String(g.id),
    displayName: g.name,
    ...(g.externalId ? { externalId: g.externalId } : {}),
    members,
    meta: {
      resourceType: 'Group',
      created: g.createdAt,
      lastModified: g.lastModified ?? g.createdAt,
      location: `${ctx.origin}/api/scim/v2/Groups/${g.id}`,
    },
  };
}

function displayName(u: UserRec): string {
  return [u.firstName, u.lastName].filter(Boolean).join(' ') || u.username;
}

function scimUserOut(ctx: Ctx, u: UserRec) {
  const extra = u as UserRec & { externalId?: string; updatedAt?: string };
  return {
    schemas: [SCIM_USER_SCHEMA],
    id: String(u.id),
    userName: u.email,
    ...(extra.externalId ? { externalId: extra.externalId } : {}),
    displayName: displayName(u),
    active: u.active,
    name: { formatted: displayName(u), givenName: u.firstName, familyName: u.lastName },
    emails: [{ value: u.email, type: 'work', primary: true }],
    groups: ctx.state.groups.filter((g) => u.groupIds.includes(g.id)).map((g) => ({ value: String(g.id), display: g.name })),
    meta: {
      resourceType: 'User',
      created: u.createdAt,
      lastModified: extra.updatedAt ?? u.createdAt,
      location: `${ctx.origin}/api/scim/v2/Users/${u.id}`,
    },
  };
}

/** The `attr eq "value"` filters (the only form the emulator understands). */
function scimFilter(filter: string | undefined, attrs: string[]): { attr: string; value: string } | undefined {
  if (filter === undefined) return undefined;
  const m = /^\s*([A-Za-z.]+)\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$/i.exec(filter);
  const attr = m ? attrs.find((a) => a.toLowerCase() === (m[1] as string).toLowerCase()) : undefined;
  if (!m || !attr) {
    throw new ScimFailure(400, `filter: got ${JSON.stringify(filter)}, expected <attribute> eq "<value>" with attribute ${attrs.join(', ')}`, 'invalidFilter');
  }
  return { attr, value: (m[2] as string).replace(/\\(.)/g, '$1') };
}

function scimList<T>(ctx: Ctx, rows: T[]) {
  const q = ctx.query as { startIndex?: number; count?: number };
  const startIndex = q.startIndex ?? 1;
  const count = Math.min(q.count ?? 100, 1000);
  const page = rows.slice(startIndex - 1, startIndex - 1 + count);
  return { schemas: [SCIM_LIST_SCHEMA], totalResults: rows.length, startIndex, itemsPerPage: page.length, Resources: page };
}

function scimGroupById(ctx: Ctx): ScimGroupRec {
  const raw = String(ctx.params.id);
  const g = /^\d+$/.test(raw) ? ctx.state.groups.find((x) => x.id === Number(raw)) : undefined;
  if (!g) throw new ScimFailure(404, `group ${JSON.stringify(raw)} not found`);
  return g;
}

const scimHandlers: HandlerTable = {
  createScimGroup: scimHandler((ctx) => {
    const body = ctx.body as { displayName: string; externalId?: string | null; members?: { value: string }[] };
    const name = body.displayName.trim();
    if (!name) throw new ScimFailure(400, 'displayName: got an empty name, expected a non-empty display name', 'invalidValue');
    const clash = ctx.state.groups.find((g) => g.name.toLowerCase() === name.toLowerCase());
    if (clash) throw new ScimFailure(409, `a group named ${JSON.stringify(clash.name)} already exists (id ${clash.id})`, 'uniqueness');
    const members = (body.members ?? []).map((m, i) => {
      const u = /^\d+$/.test(m.value) ? userById(ctx.state, Number(m.value)) : undefined;
      if (!u) throw new ScimFailure(400, `members[${i}].value: got ${JSON.stringify(m.value)}, expected the id of an existing user`, 'invalidValue');
      return u;
    });
    const now = ctx.clock.iso();
    const g: ScimGroupRec = { id: nextId(ctx.state, 'group'), name, createdAt: now, lastModified: now };
    if (given(body.externalId)) g.externalId = body.externalId;
    ctx.state.groups.push(g);
    for (const u of members) if (!u.groupIds.includes(g.id)) u.groupIds.push(g.id);
    return scimGroupOut(ctx, g);
  }),

  listScimGroups: scimHandler((ctx) => {
    const f = scimFilter((ctx.query as { filter?: string }).filter, ['displayName', 'externalId']);
    let rows = [...(ctx.state.groups as ScimGroupRec[])].sort((a, b) => a.id - b.id);
    if (f?.attr === 'displayName') rows = rows.filter((g) => g.name.toLowerCase() === f.value.toLowerCase());
    if (f?.attr === 'externalId') rows = rows.filter((g) => g.externalId === f.value);
    return scimList(ctx, rows.map((g) => scimGroupOut(ctx, g)));
  }),

  getScimGroup: scimHandler((ctx) => scimGroupOut(ctx, scimGroupById(ctx))),

  deleteScimGroup: scimHandler((ctx) => {
    const g = scimGroupById(ctx);
    ctx.state.groups = ctx.state.groups.filter((x) => x.id !== g.id);
    for (const u of ctx.state.users) u.groupIds = u.groupIds.filter((id) => id !== g.id);
    return undefined;
  }),

  listScimUsers: scimHandler((ctx) => {
    const f = scimFilter((ctx.query as { filter?: string }).filter, ['userName', 'externalId', 'emails.value']);
    let rows = [...ctx.state.users].sort((a, b) => a.id - b.id);
    if (f && f.attr !== 'externalId') rows = rows.filter((u) => u.email.toLowerCase() === f.value.toLowerCase());
    if (f?.attr === 'externalId') rows = rows.filter((u) => (u as UserRec & { externalId?: string }).externalId === f.value);
    return scimList(ctx, rows.map((u) => scimUserOut(ctx, u)));
  }),

  getScimUser: scimHandler((ctx) => {
    const raw = String(ctx.params.id);
    const u = /^\d+$/.test(raw) ? userById(ctx.state, Number(raw)) : undefined;
    if (!u) throw new ScimFailure(404, `user ${JSON.stringify(raw)} not found`);
    return scimUserOut(ctx, u);
  }),
};

// =============================================================================================
// Users, settings and groups (4.14, 4.15).

type UserExtra = UserRec & { externalId?: string; title?: string; notifications?: string[]; updatedAt?: string };

interface RoleRec {
  id: number;
  name: string;
  description: string | null;
  policies: { resourceType: string; actions: string[]; resources: string[] }[];
  userIds: number[];
  createdAt: string;
}

function roles(state: State): RoleRec[] {
  return Object.values(coll(state, 'roles')) as unknown as RoleRec[];
}

/** Effective policies: the admin role or the direct permissions, plus the custom roles assigned. */
function policiesOf(state: State, u: UserRec) {
  const out: RoleRec['policies'] = [];
  if (u.isAdmin) out.push({ resourceType: 'Global', actions: ['All'], resources: ['*'] });
  else if (u.permissions.length) out.push({ resourceType: 'Deployment', actions: [...u.permissions], resources: ['*'] });
  for (const r of roles(state).sort((a, b) => a.id - b.id)) {
    if (r.userIds.includes(u.id)) out.push(...r.policies.map((p) => ({ ...p, actions: [...p.actions], resources: [...p.resources] })));
  }
  return out;
}

function userOut(u: UserRec) {
  const x = u as UserExtra;
  return {
    id: u.id,
    email: u.email,
    username: u.username,
    isAdmin: u.isAdmin,
    firstName: u.firstName,
    lastName: u.lastName,
    isDeactivated: !u.active,
    createdAt: u.createdAt,
    permissions: u.isAdmin ? [...ALL_PERMISSIONS] : [...u.permissions],
    groupIds: [...u.groupIds],
    settings: u.settings,
    ...(x.title !== undefined ? { title: x.title } : {}),
    ...(x.externalId !== undefined ? { externalId: x.externalId } : {}),
    ...(x.notifications !== undefined ? { notifications: x.notifications } : {}),
  };
}

function searchable(search: string | undefined): ((...fields: (string | undefined)[]) => boolean) | undefined {
  const s = search?.trim().toLowerCase();
  if (!s) return undefined;
  return (...fields) => fields.some((f) => f?.toLowerCase().includes(s));
}

/** Why `actor` may not deactivate or delete `target`, as the single-user answer (status, message). */
function selfGuard(actor: UserRec, target: UserRec, verb: 'deactivate' | 'delete'): { status: number; message: string } | undefined {
  if (actor.id === target.id) return { status: 400, message: `you cannot ${verb} your own user (${target.email})` };
  return undefined;
}

/** Remove a user and everything that points at it. */
function deleteUserRecord(state: State, id: number): void {
  state.users = state.users.filter((u) => u.id !== id);
  state.apiKeys = state.apiKeys.filter((k) => k.userId !== id);
  for (const r of roles(state)) r.userIds = r.userIds.filter((x) => x !== id);
  const values = coll(state, 'userAttributeValues');
  for (const [k, v] of Object.entries(values)) if (v.userId === id) delete values[k];
  for (const n of Object.values(coll(state, 'notifications'))) {
    if (Array.isArray(n.recipients)) n.recipients = recipientsOf(n).filter((r) => !(recipientType(r) === 'USER' && r.userId === id));
  }
  delete coll(state, 'usageAnalyticsTokens')[String(id)];
}

/** Apply a merge patch to settings: null deletes, objects merge one level down for `sheets`. */
function mergeSettings(settings: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...settings };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined || k === 'lastSeenChangelogId') continue;
    if (v === null) {
      delete out[k];
    } else if (k === 'sheets' && typeof v === 'object' && !Array.isArray(v)) {
      const sheets: Record<string, unknown> = { ...((out.sheets as Record<string, unknown> | undefined) ?? {}) };
      for (const [sk, sv] of Object.entries(v as Record<string, unknown>)) {
        if (sv === undefined) continue;
        if (sv === null) delete sheets[sk];
        else sheets[sk] = sv;
      }
      out.sheets = sheets;
    } else {
      out[k] = v;
    }
  }
  return out;
}

const userHandlers: HandlerTable = {
  getCurrentUser(ctx) {
    const u = ctx.principal.user;
    return { ...userOut(u), userPolicies: policiesOf(ctx.state, u) };
  },

  updateMySettings(ctx) {
    const u = ctx.principal.user;
    const body = ctx.body as Record<string, unknown> & { defaultDeploymentId?: number | null };
    if (given(body.defaultDeploymentId)) {
      const id = body.defaultDeploymentId;
      const scope = ctx.principal.key.deploymentIds;
      if (!ctx.state.deployments.some((d) => d.id === id) || (scope && !scope.includes(id))) {
        throw new HttpError(400, `body.defaultDeploymentId: got ${id}, expected the id of a deployment you can access`);
      }
    }
    u.settings = mergeSettings(u.settings ?? {}, body);
    return userOut(u);
  },

  listUsers(ctx) {
    const q = ctx.query as { first?: number; after?: string; search?: string };
    const match = searchable(q.search);
    const rows = [...ctx.state.users].sort((a, b) => a.id - b.id).filter((u) => !match || match(u.firstName, u.username, u.email));
    return cursorPaginate(rows.map(userOut), q);
  },

  listGroups(ctx) {
    const q = ctx.query as { first?: number; after?: string; search?: string };
    const match = searchable(q.search);
    const rows = [...ctx.state.groups].sort((a, b) => a.id - b.id).filter((g) => !match || match(g.name));
    return cursorPaginate(
      rows.map((g) => ({
        id: g.id,
        name: g.name,
        description: (g as GroupRec & { description?: string }).description ?? null,
        userCount: ctx.state.users.filter((u) => u.groupIds.includes(g.id)).length,
      })),
      q,
    );
  },

  createUser(ctx) {
    const body = ctx.body as {
      email: string;
      username: string;
      firstName?: string | null;
      isAdmin?: boolean | null;
      externalId?: string | null;
      defaultRoles?: string[] | null;
      settings?: Record<string, unknown> | null;
    };
    const email = body.email.trim();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new HttpError(400, `body.email: got ${JSON.stringify(body.email)}, expected an e-mail address`);
    if (ctx.state.users.some((u) => u.email.toLowerCase() === email.toLowerCase())) {
      throw new HttpError(409, `a user with e-mail ${JSON.stringify(email)} already exists`);
    }
    if (ctx.state.users.some((u) => u.username.toLowerCase() === body.username.toLowerCase())) {
      throw new HttpError(409, `a user with username ${JSON.stringify(body.username)} already exists`);
    }
    const assigned = (body.defaultRoles ?? []).map((name, i) => {
      const r = roles(ctx.state).find((x) => x.name === name);
      if (!r) throw new HttpError(400, `body.defaultRoles[${i}]: got ${JSON.stringify(name)}, expected the name of an existing role`);
      return r;
    });
    const isAdmin = body.isAdmin ?? false;
    const u: UserExtra = {
      id: nextId(ctx.state, 'user'),
      email,
      username: body.username,
      firstName: body.firstName ?? '',
      lastName: '',
      isAdmin,
      permissions: isAdmin ? [...ALL_PERMISSIONS] : [],
      active: true,
      createdAt: ctx.clock.iso(),
      groupIds: [],
      settings: body.settings ?? {},
    };
    if (given(body.externalId)) u.externalId = body.externalId;
    ctx.state.users.push(u);
    for (const r of assigned) if (!r.userIds.includes(u.id)) r.userIds.push(u.id);
    auditEnabledRecord(ctx, 'user.created', { userId: u.id, email: u.email, firstName: u.firstName });
    return userOut(u);
  },

  updateUser(ctx) {
    const u = requireUser(ctx.state, ctx.params.id as number) as UserExtra;
    const body = ctx.body as {
      firstName?: string | null;
      title?: string | null;
      isAdmin?: boolean | null;
      isDeactivated?: boolean | null;
      notifications?: string[] | null;
      settings?: Record<string, unknown> | null;
    };
    if (body.isDeactivated === true) {
      const no = selfGuard(ctx.principal.user, u, 'deactivate');
      if (no) throw new HttpError(no.status, no.message);
    }
    if (body.firstName !== undefined) u.firstName = body.firstName ?? '';
    if (body.title !== undefined) {
      if (body.title === null) delete u.title;
      else u.title = body.title;
    }
    if (given(body.isAdmin)) u.isAdmin = body.isAdmin;
    if (given(body.isDeactivated)) u.active = !body.isDeactivated;
    if (body.notifications !== undefined) {
      if (body.notifications === null) delete u.notifications;
      else u.notifications = body.notifications;
    }
    if (body.settings !== undefined) u.settings = body.settings ?? {};
    u.updatedAt = ctx.clock.iso();
    auditEnabledRecord(ctx, 'user.updated', { userId: u.id, email: u.email });
    return userOut(u);
  },

  deleteUser(ctx) {
    const u = requireUser(ctx.state, ctx.params.id as number);
    const no = selfGuard(ctx.principal.user, u, 'delete');
    if (no) throw new HttpError(no.status, no.message);
    deleteUserRecord(ctx.state, u.id);
    auditEnabledRecord(ctx, 'user.deleted', { userId: u.id, email: u.email });
    return { id: u.id, deleted: true };
  },

  bulkUserAction(ctx) {
    const body = ctx.body as { action: 'DEACTIVATE' | 'ACTIVATE' | 'DELETE'; userIds: number[] };
    const succeeded: number[] = [];
    const failed: { userId: number; error: { status: number; message: string } }[] = [];
    for (const id of [...new Set(body.userIds)]) {
      const u = userById(ctx.state, id);
      if (!u) {
        failed.push({ userId: id, error: { status: 404, message: `user ${id} not found` } });
        continue;
      }
      const no = body.action === 'ACTIVATE' ? undefined : selfGuard(ctx.principal.user, u, body.action === 'DELETE' ? 'delete' : 'deactivate');
      if (no) {
        failed.push({ userId: id, error: no });
        continue;
      }
      if (body.action === 'DELETE') deleteUserRecord(ctx.state, id);
      else u.active = body.action === 'ACTIVATE';
      succeeded.push(id);
    }
    if (succeeded.length) auditEnabledRecord(ctx, 'users.bulk_action', { action: body.action, userIds: succeeded });
    return { action: body.action, succeeded, failed };
  },
};

// =============================================================================================
// User attributes and their values (4.15).

type AttributeType = 'string' | 'number' | 'boolean' | 'string_array' | 'number_array';

interface AttributeRec {
  id: number;
  name: string;
  type: AttributeType;
  displayName: string | null;
  description: string | null;
  defaultValue: string | null;
  createdAt: string;
}

const ATTRIBUTE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const TYPE_WORDS: Record<AttributeType, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  string_array: 'an array of strings',
  number_array: 'an array of numbers',
};

function valueFits(type: AttributeType, v: unknown): boolean {
  const num = (x: unknown) => typeof x === 'number' && Number.isFinite(x);
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'number':
      return num(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'string_array':
      return Array.isArray(v) && v.every((x) => typeof x === 'string');
    case 'number_array':
      return Array.isArray(v) && v.every(num);
  }
}

/** The typed value of a default given as text (`"42"`, `"true"`, `'["a","b"]'`), or undefined when it does not fit. */
function parseDefault(type: AttributeType, text: string): { value: unknown } | undefined {
  let v: unknown = text;
  if (type === 'number') v = text.trim() === '' ? Number.NaN : Number(text);
  else if (type === 'boolean') v = text === 'true' ? true : text === 'false' ? false : undefined;
  else if (type !== 'string') {
    try {
      v = JSON.parse(text);
    } catch {
      return undefined;
    }
  }
  return valueFits(type, v) ? { value: v } : undefined;
}

function checkDefault(type: AttributeType, text: string | null | undefined): void {
  if (!given(text)) return;
  if (!parseDefault(type, text)) {
    const hint = type === 'string_array' || type === 'number_array' ? ' as JSON text' : '';
    throw new HttpError(400, `body.defaultValue: got ${JSON.stringify(text)}, expected ${TYPE_WORDS[type]}${hint} (the attribute is of type ${type})`);
  }
}

function attributes(state: State): AttributeRec[] {
  return Object.values(coll(state, 'userAttributes')) as unknown as AttributeRec[];
}

function attributeOut(a: AttributeRec) {
  const { createdAt: _c, ...rest } = a;
  return rest;
}

function requireAttribute(state: State, id: number, input = 'user attribute'): AttributeRec {
  const a = coll(state, 'userAttributes')[String(id)] as unknown as AttributeRec | undefined;
  if (!a) throw new HttpError(404, `${input}: user attribute ${id} not found`);
  return a;
}

const attributeHandlers: HandlerTable = {
  getUserAttributes(ctx) {
    const q = ctx.query as { first?: number; after?: string; name?: string; type?: AttributeType; offset?: number; limit?: number };
    const name = q.name?.toLowerCase();
    const rows = attributes(ctx.state)
      .filter((a) => (!name || a.name.toLowerCase().includes(name)) && (!q.type || a.type === q.type))
      .sort(newestFirst)
      .map(attributeOut);
    if (q.first === undefined && q.after === undefined && (q.offset !== undefined || q.limit !== undefined)) {
      // Deprecated offset/limit paging, answered with the cursor envelope of the same window.
      const offset = q.offset ?? 0;
      return cursorPaginate(rows, { first: q.limit ?? rows.length, after: String(offset) });
    }
    return cursorPaginate(rows, q);
  },

  createUserAttribute(ctx) {
    const body = ctx.body as { name: string; type: AttributeType; displayName?: string | null; description?: string | null; defaultValue?: string | null };
    if (!ATTRIBUTE_NAME.test(body.name)) {
      throw new HttpError(400, `body.name: got ${JSON.stringify(body.name)}, expected an identifier of letters, digits and "_" not starting with a digit`);
    }
    const clash = attributes(ctx.state).find((a) => a.name === body.name);
    if (clash) throw new HttpError(409, `a user attribute named ${JSON.stringify(body.name)} already exists (id ${clash.id})`);
    checkDefault(body.type, body.defaultValue);
    const a: AttributeRec = {
      id: nextId(ctx.state, 'userAttribute'),
      name: body.name,
      type: body.type,
      displayName: body.displayName ?? null,
      description: body.description ?? null,
      defaultValue: body.defaultValue ?? null,
      createdAt: ctx.clock.iso(),
    };
    coll(ctx.state, 'userAttributes')[String(a.id)] = a as unknown as Rec;
    return attributeOut(a);
  },

  updateUserAttribute(ctx) {
    const a = requireAttribute(ctx.state, ctx.params.id as number);
    const body = ctx.body as { displayName?: string | null; description?: string | null; defaultValue?: string | null };
    checkDefault(a.type, body.defaultValue);
    for (const k of ['displayName', 'description', 'defaultValue'] as const) {
      if (body[k] !== undefined) a[k] = body[k] ?? null;
    }
    return attributeOut(a);
  },

  getUserAttributeValues(ctx) {
    const u = requireUser(ctx.state, ctx.params.userId as number);
    const values = coll(ctx.state, 'userAttributeValues');
    const out: Rec[] = [];
    for (const a of attributes(ctx.state).sort((x, y) => x.id - y.id)) {
      const set = values[`${u.id}:${a.id}`];
      const base = { userAttributeId: a.id, userId: u.id, name: a.name, type: a.type };
      if (set) out.push({ ...base, value: set.value, isDefault: false });
      else if (given(a.defaultValue)) out.push({ ...base, value: parseDefault(a.type, a.defaultValue)?.value ?? null, isDefault: true });
    }
    return out;
  },

  upsertUserAttributeValue(ctx) {
    const body = ctx.body as { userAttributeId: string; userId: string; value?: unknown };
    const a = requireAttribute(ctx.state, numericId(body.userAttributeId, 'body.userAttributeId'), 'body.userAttributeId');
    const u = requireUser(ctx.state, numericId(body.userId, 'body.userId'), 'body.userId');
    const key = `${u.id}:${a.id}`;
    const base = { userAttributeId: a.id, userId: u.id, name: a.name, type: a.type };
    if (!given(body.value)) {
      // null (or nothing) clears the user's value: the default, if any, applies again.
      delete coll(ctx.state, 'userAttributeValues')[key];
      return { ...base, value: null };
    }
    if (!valueFits(a.type, body.value)) {
      throw new HttpError(400, `body.value: got ${JSON.stringify(body.value)}, expected ${TYPE_WORDS[a.type]} (attribute ${JSON.stringify(a.name)} is of type ${a.type})`);
    }
    coll(ctx.state, 'userAttributeValues')[key] = { userAttributeId: a.id, userId: u.id, value: body.value, updatedAt: ctx.clock.iso() };
    return { ...base, value: body.value };
  },
};

// =============================================================================================
// Custom roles (4.15; admin only).

function roleOut(r: RoleRec) {
  return { id: r.id, name: r.name, description: r.description, policies: r.policies, userIds: [...r.userIds] };
}

function requireRole(state: State, id: number): RoleRec {
  const r = coll(state, 'roles')[String(id)] as unknown as RoleRec | undefined;
  if (!r) throw new HttpError(404, `role ${id} not found`);
  return r;
}

function roleNameFree(state: State, name: string, except?: number): void {
  const clash = roles(state).find((r) => r.id !== except && r.name.toLowerCase() === name.toLowerCase());
  if (clash) throw new HttpError(409, `a role named ${JSON.stringify(clash.name)} already exists (id ${clash.id})`);
}

const roleHandlers: HandlerTable = {
  getRoles(ctx) {
    const q = ctx.query as { first?: number; after?: string };
    return cursorPaginate(roles(ctx.state).sort(newestFirst).map(roleOut), q);
  },

  createRole(ctx) {
    const body = ctx.body as { name: string; description?: string | null; policies: RoleRec['policies'] };
    roleNameFree(ctx.state, body.name);
    const r: RoleRec = {
      id: nextId(ctx.state, 'role'),
      name: body.name,
      description: body.description ?? null,
      policies: body.policies.map((p) => ({ resourceType: p.resourceType, actions: [...p.actions], resources: [...p.resources] })),
      userIds: [],
      createdAt: ctx.clock.iso(),
    };
    coll(ctx.state, 'roles')[String(r.id)] = r as unknown as Rec;
    return roleOut(r);
  },

  getRole(ctx) {
    return roleOut(requireRole(ctx.state, ctx.params.roleId as number));
  },

  updateRole(ctx) {
    const r = requireRole(ctx.state, ctx.params.roleId as number);
    const body = ctx.body as { name?: string; description?: string | null; policies?: RoleRec['policies'] };
    if (body.name !== undefined) roleNameFree(ctx.state, body.name, r.id);
    if (body.name !== undefined) r.name = body.name;
    if (body.description !== undefined) r.description = body.description ?? null;
    if (body.policies !== undefined) r.policies = body.policies.map((p) => ({ resourceType: p.resourceType, actions: [...p.actions], resources: [...p.resources] }));
    return roleOut(r);
  },

  deleteRole(ctx) {
    const r = requireRole(ctx.state, ctx.params.roleId as number);
    delete coll(ctx.state, 'roles')[String(r.id)];
    return undefined;
  },

  assignRoleToUser(ctx) {
    const r = requireRole(ctx.state, ctx.params.roleId as number);
    const u = requireUser(ctx.state, ctx.params.userId as number);
    if (!r.userIds.includes(u.id)) r.userIds.push(u.id);
    return undefined;
  },

  removeRoleFromUser(ctx) {
    const r = requireRole(ctx.state, ctx.params.roleId as number);
    const u = requireUser(ctx.state, ctx.params.userId as number);
    r.userIds = r.userIds.filter((id) => id !== u.id);
    return undefined;
  },
};

export const accountHandlers: HandlerTable = {
  ...notificationHandlers,
  ...auditLogHandlers,
  ...usageAnalyticsHandlers,
  ...scimHandlers,
  ...userHandlers,
  ...attributeHandlers,
  ...roleHandlers,
};
