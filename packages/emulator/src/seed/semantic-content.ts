/**
 * Content of the demo that queries the demo model's members (model/cubes/orders.yml, customers.yml,
 * views/orders_view.yml): reports with Cube queries, the published and draft dashboard of workbook 1
 * (a chart of a report, a filter, a time-grain control, a member switcher), so a pull request that
 * changes those members has something to break. Widget configs follow docs/api-assumptions.md.
 */
import type { Clock } from '../clock.js';
import type { DashboardRec, ReportRec, WorkbookRec } from '../content/models.js';
import type { JsonObject } from '../json.js';
import { findRecord, nextId, putRecord, type State } from '../state.js';

/** The demo's reports beyond "Revenue by month": name, public id, Cube query. */
const REPORTS: [string, string, JsonObject][] = [
  ['Orders by status', 'OrdByStatus1', { measures: ['orders.count'], dimensions: ['orders.status'], order: { 'orders.count': 'desc' } }],
  [
    'Revenue by country',
    'RevByCntry01',
    {
      measures: ['orders_view.total_amount'],
      dimensions: ['orders_view.customers_country'],
      filters: [
        {
          or: [
            { member: 'orders_view.status', operator: 'equals', values: ['completed'] },
            { member: 'orders_view.status', operator: 'equals', values: ['shipped'] },
          ],
        },
      ],
      order: [['orders_view.total_amount', 'desc']],
    },
  ],
  ['Customer list', 'CustList0001', { measures: ['customers.count'], dimensions: ['customers.name'] }],
];

const at = (x: number, y: number) => ({ x, y, w: 6, h: 4 });

function widgets(revenueByCountry: number, draft: boolean): JsonObject[] {
  const published: JsonObject[] = [
    { id: 'revenue-by-country', type: 'CHART', position: at(0, 0), config: { title: 'Revenue by country', reportId: revenueByCountry } },
    { id: 'country-filter', type: 'FILTER', position: at(6, 0), config: { title: 'Country', member: 'orders_view.customers_country', operator: 'equals' } },
    { id: 'period', type: 'TIME_GRAIN', position: at(0, 4), config: { title: 'Period', member: 'orders_view.created_at', grain: 'month' } },
    {
      id: 'break-down',
      type: 'FIELD',
      position: at(6, 4),
      config: { title: 'Break down by', member: 'orders_view.status', options: ['status', 'customers_name'] },
    },
  ];
  if (!draft) return published;
  return [
    ...published,
    {
      id: 'orders-trend',
      type: 'CHART',
      position: at(0, 8),
      config: {
        title: 'Orders per week',
        query: { measures: ['orders_view.count'], timeDimensions: [{ dimension: 'orders_view.created_at', granularity: 'week' }] },
      },
    },
  ];
}

export function seedSemanticContent(state: State, clock: Clock, adminId: number): void {
  const when = (daysAgo: number) => new Date(clock.now() - daysAgo * 86400_000).toISOString();
  const ids: number[] = [];
  for (const [i, [name, publicId, query]] of REPORTS.entries()) {
    const id = nextId(state, 'report');
    ids.push(id);
    putRecord(state, 'reports', id, {
      id,
      deploymentId: 1,
      name,
      publicId,
      workbookId: 1,
      folderId: null,
      sqlQuery: null,
      jsonQuery: JSON.stringify(query),
      meta: null,
      source: 'PLAYGROUND',
      placements: [],
      createdAt: when(14 - i),
      updatedAt: when(14 - i),
      createdBy: adminId,
      refreshedAt: null,
    } satisfies ReportRec);
  }
  const wb = findRecord(state, 'workbooks', 1) as WorkbookRec;
  const dashboard: DashboardRec = {
    id: 1,
    publicId: wb.publicId ?? 'wb-pub-1',
    allowEmbed: false,
    title: 'Revenue overview',
    description: null,
    config: { title: 'Revenue overview', widgets: widgets(ids[1] as number, false) },
    publishedAt: when(7),
    aiWidgetThreads: {},
    reportSnapshots: [],
  };
  wb.dashboard = dashboard;
  wb.dashboardDraft = { title: 'Revenue overview', widgets: widgets(ids[1] as number, true) };
}
