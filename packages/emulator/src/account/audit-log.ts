/** Audit-log export (spec 4.9): the events of a time range as CSV. */
import { HttpError, reply, type HandlerTable } from '../context.js';

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

const AUDIT_CSV_COLUMNS = ['id', 'createdAt', 'eventName', 'userEmail', 'data'] as const;

export const auditLogHandlers: HandlerTable = {
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
