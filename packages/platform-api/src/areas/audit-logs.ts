/** Audit-log export as CSV (spec 4.9), streamed to a writable or a file. */
import { z } from 'zod';
import { endpoint, type ArgsOf } from '../endpoint.js';

/** An ISO 8601 date or date-time (`2024-05-01`, `2024-05-01T10:00:00Z`). */
const IsoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/, 'expected an ISO 8601 date');

export const AuditLogExportQuery = z.object({
  start: IsoDate.optional(),
  end: IsoDate.optional(),
  search: z.string().min(1).optional(),
  eventName: z.string().min(1).optional(),
  userEmail: z.string().min(1).optional(),
});

export const auditLogEndpoints = {
  export: endpoint({
    id: 'exportAuditLogs',
    method: 'GET',
    path: '/api/v1/audit-logs/export',
    section: '4.9',
    summary: 'Export audit-log events as a CSV attachment',
    query: AuditLogExportQuery,
    response: z.string(),
    responseType: 'csv',
    access: { permissions: ['AuditLogManage'] },
  }),
} as const;

export type AuditLogExportArgs = ArgsOf<(typeof auditLogEndpoints)['export']>;
