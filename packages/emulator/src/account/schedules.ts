/** Notification schedules: the cron expression of a schedule, its English rendering, and the time zone. */
import { HttpError } from '../context.js';
import type { Schedule } from './models.js';
import { given } from './records.js';

/** The fields of a request that make up a schedule. */
export const SCHEDULE_KEYS = ['scheduleType', 'customCron', 'minute', 'hour', 'dayOfWeek', 'dayOfMonth'] as const;

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const CRON_FIELD = /^[0-9A-Za-z*,/?LW#-]+$/;

function inRange(v: number | null | undefined, lo: number, hi: number, input: string, fallback: number): number {
  if (!given(v)) return fallback;
  if (v < lo || v > hi) throw new HttpError(400, `body.${input}: got ${v}, expected an integer from ${lo} to ${hi}`);
  return v;
}

/** The cron expression of a schedule, or a 400 naming the bad field. */
export function cronOf(s: Schedule): string {
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
        throw new HttpError(
          400,
          `body.customCron: got ${JSON.stringify(s.customCron)}, expected a cron expression of 5 fields (minute hour day-of-month month day-of-week)`,
        );
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

export function checkTimezone(tz: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    throw new HttpError(400, `body.timezone: got ${JSON.stringify(tz)}, expected an IANA time zone such as "Europe/Berlin"`);
  }
}
