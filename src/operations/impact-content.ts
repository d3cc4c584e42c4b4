/**
 * The saved content the impact checks: reports, workbooks (with their dashboards) and notifications of the
 * deployment, paged through with the client's iterators; a list that cannot be read is a notice, never a
 * failure of the impact.
 */
import { AbortedError, AuthenticationError, PermissionDeniedError, messageOf } from '../client/errors.js';
import { collect } from '../client/pagination.js';
import { DEFAULTS } from '../defaults.js';
import { dashboardContent, notificationContent, reportContent, type ContentCounts, type ContentItem } from '../impact/base/affected.js';
import type { OpContext } from './context.js';

export interface ContentScan {
  items: ContentItem[];
  /** How many of each were read. */
  scanned: ContentCounts;
  /** Lists that could not be read, and why. */
  notices: string[];
}

const PAGE = { first: DEFAULTS.impactPageSize };
const refused = (e: unknown) => e instanceof PermissionDeniedError || e instanceof AuthenticationError;

/** Every item of one content list, or a notice saying why the list was not read. */
async function readList<T>(ctx: OpContext, what: string, list: () => AsyncIterable<T>, notices: string[]): Promise<T[]> {
  try {
    return await collect(list());
  } catch (e) {
    if (e instanceof AbortedError || ctx.signal?.aborted) throw e;
    notices.push(
      refused(e)
        ? `${what} were not checked: this API key may not read them (${messageOf(e)})`
        : `${what} were not checked: the list could not be read (${messageOf(e)})`,
    );
    return [];
  }
}

/** Reports, workbooks (with their dashboards) and notifications of the deployment. */
export async function scanContent(ctx: OpContext): Promise<ContentScan> {
  const { client, deploymentId } = ctx;
  const opts = { signal: ctx.signal };
  const notices: string[] = [];
  const [reports, workbooks, notifications] = await Promise.all([
    readList(ctx, 'reports', () => client.workspace.iterateReports({ deploymentId, query: PAGE }, opts), notices),
    readList(ctx, 'dashboards', () => client.workspace.iterateWorkbooks({ deploymentId, query: PAGE }, opts), notices),
    readList(ctx, 'notifications', () => client.notifications.iterate({ deploymentId, query: PAGE }, opts), notices),
  ]);
  // A list without the dashboards' configs: read each workbook (a few at a time).
  const full = [...workbooks];
  const bare = full
    .map((w, i) => [w, i] as const)
    .filter(
      ([w]) =>
        (w.dashboardDraft === undefined && w.dashboardPublished === undefined && !w.publishedDashboard?.config) ||
        // A published dashboard without its record has no id a notification could name.
        (w.dashboardPublished && !w.publishedDashboard),
    );
  for (let at = 0; at < bare.length; at += 8) {
    await Promise.all(
      bare.slice(at, at + 8).map(async ([w, i]) => {
        full[i] = await client.workspace.getWorkbook({ deploymentId, workbookId: w.id }, opts).catch((e: unknown) => {
          if (e instanceof AbortedError) throw e;
          notices.push(`workbook ${w.id} (${w.name}): its dashboard was not checked (${messageOf(e)})`);
          return w;
        });
      }),
    );
  }
  const dashboards = full.filter((w) => w.dashboardPublished || w.dashboardDraft || w.publishedDashboard);
  const items = [...reports.map(reportContent), ...dashboards.map(dashboardContent), ...notifications.map(notificationContent)];
  return { items, scanned: { report: reports.length, dashboard: dashboards.length, notification: notifications.length }, notices };
}
