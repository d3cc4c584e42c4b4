/**
 * Matching content to changes where the emulator cannot tell right from wrong: reports written
 * against the SQL API (matched by the columns they name), and a notification's dashboard named by the
 * published dashboard's id or public id, never by the workbook's id (a number space of its own).
 */
import { describe, expect, it } from 'vitest';
import { affectedContent, dashboardContent, notificationContent, reportContent } from '../src/impact/base/affected.js';
import type { ChangeSet } from '../src/impact/base/diff.js';
import { sqlUses } from '../src/impact/base/sql-uses.js';

const members = (sql: string) => sqlUses(sql).map((u) => u.member);

describe('SQL API reports', () => {
  it('names the columns of the tables it reads, with aliases, quotes, MEASURE() and qualified names', () => {
    expect(members('SELECT status, MEASURE(total_amount) FROM orders_view GROUP BY 1')).toEqual(['orders_view.status', 'orders_view.total_amount']);
    expect(members('SELECT o."Customers Country", MEASURE(o.count) FROM public.orders_view AS o WHERE o.status = \'completed\'')).toEqual([
      'orders_view.Customers Country',
      'orders_view.count',
      'orders_view.status',
    ]);
    // Comments and literals name nothing; keywords and function names are not members.
    expect(
      members("SELECT DATE_TRUNC('month', created_at) AS m, SUM(amount) -- country\nFROM orders WHERE status IN ('country') ORDER BY m DESC LIMIT 10"),
    ).toEqual(['orders.created_at', 'orders.m', 'orders.amount', 'orders.status']);
    expect(members('SELECT 1')).toEqual([]);
  });

  it('a report written in SQL only is affected by a breaking change of a member it names', () => {
    const report = reportContent({
      id: 9,
      name: 'Country revenue (SQL)',
      jsonQuery: null,
      sqlQuery: 'SELECT customers_country, MEASURE(total_amount) FROM orders_view GROUP BY 1',
    });
    const cs: ChangeSet = {
      cubes: [],
      members: [
        {
          member: 'orders_view.customers_country',
          cube: 'orders_view',
          cubeType: 'view',
          kind: 'dimension',
          change: 'removed',
          breaking: true,
          details: ['removed'],
        },
      ],
    };
    expect(affectedContent(cs, [report])).toEqual([
      {
        kind: 'report',
        id: 9,
        name: 'Country revenue (SQL)',
        effect: 'breaks',
        uses: [{ member: 'orders_view.customers_country', place: 'SQL query', change: 'removed' }],
      },
    ]);
  });
});

describe("a notification's dashboard", () => {
  const cs: ChangeSet = {
    cubes: [],
    members: [{ member: 'orders.status', cube: 'orders', cubeType: 'cube', kind: 'dimension', change: 'removed', breaking: true, details: ['removed'] }],
  };
  const config = { title: 'Board', widgets: [{ id: 'f', type: 'FILTER', config: { title: 'Status', member: 'orders.status' } }] };
  // Workbook 41 shows dashboard 7; workbook 7 shows dashboard 99 and uses nothing that changed.
  const hit = dashboardContent({ id: 41, name: 'Sales', publishedDashboard: { id: 7, publicId: 'dash-sales', config } });
  const other = dashboardContent({ id: 7, name: 'Other', publishedDashboard: { id: 99, publicId: 'dash-other', config: { widgets: [] } } });

  it('is the published dashboard with that id, not the workbook with that id', () => {
    const n = notificationContent({ id: 1, dashboardId: 7 });
    const r = affectedContent(cs, [hit, other, n]);
    expect(r.map((a) => [a.kind, a.name])).toEqual([
      ['dashboard', 'Sales · Board'],
      ['notification', 'Notification 1'],
    ]);
    expect(r[1]!.uses).toEqual([{ member: 'orders.status', place: 'the dashboard it sends (Sales · Board)', change: 'removed' }]);
    // Workbook 41's id names no dashboard.
    expect(affectedContent(cs, [hit, other, notificationContent({ id: 2, dashboardId: 41 })]).map((a) => a.kind)).toEqual(['dashboard']);
  });

  it('or the one with that public id, when the notification names it so', () => {
    const r = affectedContent(cs, [hit, other, notificationContent({ id: 3, dashboardPublicId: 'dash-sales' })]);
    expect(r.map((a) => a.kind)).toEqual(['dashboard', 'notification']);
  });
});
