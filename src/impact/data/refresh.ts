/**
 * When two answers were read at different times (their `lastRefreshTime`), only the periods both could
 * have seen are comparable: a row whose time bucket ends after the older read may hold data the older
 * answer never had. Cube prints a bucket's start as wall-clock time in the query's time zone
 * (`2025-04-01T00:00:00.000`), so the read time is turned into that wall clock too. Rows of a custom
 * granularity, or without a time bucket, are always compared.
 */
import type { CubeQuery } from './types.js';

type Row = Record<string, unknown>;

const DAY = 86_400_000;
const FIXED: Record<string, number> = { second: 1_000, minute: 60_000, hour: 3_600_000, day: DAY, week: 7 * DAY };
const MONTHS: Record<string, number> = { month: 1, quarter: 3, year: 12 };

/** The end of the bucket that starts at `start` (wall-clock ms), or undefined for a granularity of the model's own. */
function bucketEnd(start: number, grain: string): number | undefined {
  if (FIXED[grain] !== undefined) return start + FIXED[grain];
  const months = MONTHS[grain];
  if (months === undefined) return undefined;
  const d = new Date(start);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds());
}

/** `2025-04-01T00:00:00.000` as wall-clock ms (read as if UTC), or undefined for anything else. */
function wallStart(v: unknown): number | undefined {
  const m = typeof v === 'string' ? /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/.exec(v) : null;
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  return Date.UTC(y, mo - 1, d, h, mi, s, Number((m[7] ?? '0').padEnd(3, '0')));
}

/** An instant as the wall clock of `timeZone` shows it, in ms read as if UTC (an unknown zone: UTC). */
function wallClock(instant: number, timeZone: string): number {
  let parts: Intl.DateTimeFormatPart[];
  try {
    const f = { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' } as const;
    parts = new Intl.DateTimeFormat('en-US', f).formatToParts(new Date(instant));
  } catch {
    return instant;
  }
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'), instant % 1000);
}

/** Whether a row's time bucket ends after `readAt` (an ISO instant): that row is not comparable. */
export function periodAfter(q: CubeQuery, readAt: string): (row: Row) => boolean {
  const at = Date.parse(readAt);
  const grained = (q.timeDimensions ?? [])
    .filter((t) => t.granularity)
    .map((t) => ({ column: `${t.dimension}.${t.granularity}`, grain: t.granularity as string }));
  if (!Number.isFinite(at) || !grained.length) return () => false;
  const cutoff = wallClock(at, typeof q.timezone === 'string' ? q.timezone : 'UTC');
  return (row) =>
    grained.some(({ column, grain }) => {
      const start = wallStart(row[column]);
      const end = start === undefined ? undefined : bucketEnd(start, grain);
      return end !== undefined && end > cutoff;
    });
}
