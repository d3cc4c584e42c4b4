/**
 * Date ranges of queries, resolved as Cube's gateway resolves them: to a pair of local times
 * `YYYY-MM-DDTHH:mm:ss.SSS` in the query's time zone. Absolute dates, and the relative forms of its
 * parser: `today`, `yesterday`, `tomorrow`, `this|last|next <unit>`, `last|next <n> <units>`,
 * `from <date> to <date>`. Free text beyond those (its natural-language parser) is refused with its
 * message, `Can't parse date: '…'`.
 */
import { userError } from './errors.js';

type Unit = 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year';
const UNIT = '(second|minute|hour|day|week|month|quarter|year)';
const FIXED_MS: Partial<Record<Unit, number>> = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 604_800_000 };

/** Time zone names as given, and their own names: a formatter made for every query cost seconds of the suite's CPU. */
const canonicalNames = new Map<string, string | undefined>();

/** The time zone's own name (`utc` is `UTC`), or undefined when it is not an IANA time zone. */
export function canonicalTimeZone(name: string): string | undefined {
  if (canonicalNames.has(name)) return canonicalNames.get(name);
  let canonical: string | undefined;
  try {
    canonical = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    canonical = undefined;
  }
  // Bounded: a name is outside text (a query's timezone).
  if (canonicalNames.size < 500) canonicalNames.set(name, canonical);
  return canonical;
}

/**
 * Wall-clock times are kept as Dates whose UTC fields are the local time: calendar arithmetic is then
 * plain UTC arithmetic.
 */
function wallClock(now: number, timeZone: string): Date {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(now));
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return new Date(Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'), now % 1000));
}

function add(d: Date, n: number, unit: Unit): Date {
  const fixed = FIXED_MS[unit];
  if (fixed) return new Date(d.getTime() + n * fixed);
  const months = n * (unit === 'year' ? 12 : unit === 'quarter' ? 3 : 1);
  const out = new Date(d);
  const day = out.getUTCDate();
  out.setUTCDate(1);
  out.setUTCMonth(out.getUTCMonth() + months);
  // Like the calendar libraries: Jan 31 + 1 month is the last day of February.
  const last = new Date(Date.UTC(out.getUTCFullYear(), out.getUTCMonth() + 1, 0)).getUTCDate();
  out.setUTCDate(Math.min(day, last));
  return out;
}

function startOf(d: Date, unit: Unit): Date {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  switch (unit) {
    case 'year':
      return new Date(Date.UTC(y, 0, 1));
    case 'quarter':
      return new Date(Date.UTC(y, m - (m % 3), 1));
    case 'month':
      return new Date(Date.UTC(y, m, 1));
    case 'week': {
      // ISO weeks start on Monday.
      const day = new Date(Date.UTC(y, m, d.getUTCDate()));
      return new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * 86_400_000);
    }
    default: {
      const step = FIXED_MS[unit] as number;
      return new Date(Math.floor(d.getTime() / step) * step);
    }
  }
}

const endOf = (d: Date, unit: Unit) => new Date(add(startOf(d, unit), 1, unit).getTime() - 1);
const local = (d: Date) => d.toISOString().slice(0, 23);

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const ABSOLUTE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/;

/** An absolute date or time as the gateway reads it (a bare time is UTC; an offset is applied). */
function absolute(text: string): Date | undefined {
  if (!ABSOLUTE.test(text)) return undefined;
  const iso = text.replace(' ', 'T');
  const zoned = /(Z|[+-]\d{2}(:?\d{2})?)$/.test(iso) && iso.length > 10;
  const d = new Date(DATE_ONLY.test(iso) ? `${iso}T00:00:00Z` : zoned ? iso : `${iso}Z`);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** One end of `from … to …`: an absolute date, `now`, `today`, `yesterday`, `tomorrow`. */
function point(text: string, now: Date): Date | undefined {
  const named: Record<string, number> = { now: 0, today: 0, yesterday: -1, tomorrow: 1 };
  if (text in named) return text === 'now' ? now : add(startOf(now, 'day'), named[text] as number, 'day');
  return absolute(text);
}

/** A relative or absolute date string as a [start, end] pair of local times. */
function parseDate(input: string, timeZone: string, nowMs: number): [string, string] {
  const text = input.toLowerCase();
  const now = wallClock(nowMs, timeZone);
  const span = (from: Date, to: Date, unit: Unit): [string, string] => [local(startOf(from, unit)), local(endOf(to, unit))];
  let m = new RegExp(`(this|last|next)\\s+${UNIT}`).exec(text);
  if (m) {
    const shift = m[1] === 'last' ? -1 : m[1] === 'next' ? 1 : 0;
    const at = add(now, shift, m[2] as Unit);
    return span(at, at, m[2] as Unit);
  }
  m = new RegExp(`(last|next)\\s+(\\d+)\\s+${UNIT}`).exec(text);
  if (m) {
    const n = Number(m[2]);
    const unit = m[3] as Unit;
    // `last 7 days` is the seven days before today; `next 7 days` the seven after it.
    return m[1] === 'last' ? span(add(now, -n, unit), add(now, -1, unit), unit) : span(add(now, 1, unit), add(now, n, unit), unit);
  }
  for (const [word, shift] of [
    ['today', 0],
    ['yesterday', -1],
    ['tomorrow', 1],
  ] as const) {
    if (text.includes(word)) return span(add(now, shift, 'day'), add(now, shift, 'day'), 'day');
  }
  const exact: Unit = (['second', 'minute', 'hour'] as const).find((u) => text.includes(u)) ?? 'day';
  const range = /^from(.{0,50})to(.{0,50})$/.exec(text);
  if (range) {
    const from = (range[1] as string).trim();
    const to = (range[2] as string).trim();
    const a = point(from, now);
    if (!a) throw userError(`Can't parse date: '${from}'`);
    const b = point(to, now);
    if (!b) throw userError(`Can't parse date: '${to}'`);
    return span(a, b, exact);
  }
  const single = point(text, now);
  if (!single) throw userError(`Can't parse date: '${text}'`);
  return span(single, single, exact);
}

/**
 * A query's `dateRange` (a string, or one or two dates) as the [start, end] the SQL builder takes.
 * Bare dates cover whole days; times keep their milliseconds.
 */
export function resolveDateRange(input: string | string[], timeZone: string, nowMs: number): [string, string] {
  const pair = typeof input === 'string' ? parseDate(input, timeZone, nowMs) : input.length === 1 ? [input[0] as string, input[0] as string] : input;
  return pair.map((d, i) => {
    if (DATE_ONLY.test(d)) return `${d}T${i === 0 ? '00:00:00.000' : '23:59:59.999'}`;
    const t = absolute(d);
    if (!t) throw userError(`Can't parse date: '${d}'`);
    return local(t);
  }) as [string, string];
}

/** Filter operators whose single value may be a date range or a relative date. */
const RANGE_OPERATORS = ['inDateRange', 'notInDateRange', 'onTheDate'];
/** Operators that compare with the start of the value's range, and with its end. */
const START_OPERATORS = ['beforeDate', 'afterOrOnDate'];
const END_OPERATORS = ['beforeOrOnDate', 'afterDate'];

/** A filter's date values, resolved as the gateway does (relative strings only where a single value is given). */
export function resolveFilterDates(operator: string, values: (string | null)[], timeZone: string, nowMs: number): (string | null)[] {
  if (RANGE_OPERATORS.includes(operator) && values.length > 1 && values.some((v) => typeof v === 'string' && !ABSOLUTE.test(v))) {
    throw userError(
      `Relative-date strings are only supported when \`values\` has a single element for operator \`${operator}\`. Pass an absolute two-element [start, end] pair, or a single relative string like ["last 2 weeks"]. Got: ${JSON.stringify(values)}`,
    );
  }
  const [value] = values;
  if (values.length !== 1 || typeof value !== 'string') return values;
  if (RANGE_OPERATORS.includes(operator)) return resolveDateRange(value, timeZone, nowMs);
  if (ABSOLUTE.test(value)) return values;
  if (START_OPERATORS.includes(operator)) return [resolveDateRange(value, timeZone, nowMs)[0]];
  if (END_OPERATORS.includes(operator)) return [resolveDateRange(value, timeZone, nowMs)[1]];
  return values;
}
