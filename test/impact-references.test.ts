/**
 * What content uses (report queries, dashboard widgets and controls, notifications), which of it a
 * change set breaks, and the comment section: its summary line, its tables, the size cap and escaping.
 */
import { describe, expect, it } from 'vitest';
import { composeComment, COMMENT_LIMIT } from '../src/pr/comment/ledger.js';
import { nextView } from '../src/pr/comment/view.js';
import { impactView, renderImpact } from '../src/pr/comment/render-impact.js';
import { renderPreview } from '../src/pr/comment/render-preview.js';
import { affectedContent, dashboardContent, notificationContent, reportContent } from '../src/impact/base/affected.js';
import type { ChangeSet, MemberChange } from '../src/impact/base/diff.js';
import { controlUses, queryUses } from '../src/impact/base/references.js';
import { impactSummaryLine, type ImpactResult } from '../src/operations/impact.js';

const removed = (member: string, extra: Partial<MemberChange> = {}): MemberChange => ({
  member,
  cube: member.split('.')[0]!,
  cubeType: 'cube',
  kind: 'dimension',
  change: 'removed',
  breaking: true,
  details: ['removed'],
  ...extra,
});

describe('members a query uses', () => {
  it('reads every part of a Cube query, nested and/or filters, each order form, and the granularity shorthand', () => {
    const q = {
      measures: ['orders.count'],
      dimensions: ['orders.status', 'orders.created_at.week'],
      segments: ['orders.big'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month', dateRange: 'last year' }],
      filters: [
        {
          or: [
            { member: 'orders.a', operator: 'set' },
            {
              and: [
                { dimension: 'orders.b', operator: 'set' },
                { member: 'customers.c', operator: 'set' },
              ],
            },
          ],
        },
      ],
      order: { 'orders.count': 'desc' },
    };
    expect(queryUses(JSON.stringify(q)).map((u) => [u.member, u.place, u.granularity])).toEqual([
      ['orders.count', 'measures', undefined],
      ['orders.status', 'dimensions', undefined],
      ['orders.created_at', 'dimensions', 'week'],
      ['orders.big', 'segments', undefined],
      ['orders.created_at', 'timeDimensions', 'month'],
      ['orders.a', 'filters', undefined],
      ['orders.b', 'filters', undefined],
      ['customers.c', 'filters', undefined],
      ['orders.count', 'order', undefined],
    ]);
    expect(queryUses({ order: [['orders.x', 'asc']] }).map((u) => u.member)).toEqual(['orders.x']);
    expect(queryUses({ order: [{ id: 'orders.y', desc: true }] }).map((u) => u.member)).toEqual(['orders.y']);
    // Not a query: nothing, no throw.
    for (const bad of [null, 'not json', '[1,2]', 42, { measures: 'orders.count' }]) expect(queryUses(bad)).toEqual([]);
  });

  it('reads a notification’s filters, time grains and member switchers (`selected` is a name in the same view)', () => {
    const uses = controlUses({
      filters: [{ member: 'v.country', operator: 'equals', value: ['DE'] }],
      timeGrains: [{ member: 'v.created_at', grain: 'week' }],
      memberSwitchers: [{ member: 'v.status', selected: 'city' }],
    });
    expect(uses.map((u) => [u.member, u.place, u.granularity])).toEqual([
      ['v.country', 'filters', undefined],
      ['v.created_at', 'time grains', 'week'],
      ['v.status', 'member switchers', undefined],
      ['v.city', 'member switchers', undefined],
    ]);
  });
});

describe('affected content', () => {
  const report = reportContent({
    id: 7,
    name: 'Weekly',
    jsonQuery: JSON.stringify({ timeDimensions: [{ dimension: 'o.at', granularity: 'fortnight' }], measures: ['o.n'] }),
  });
  const monthly = reportContent({ id: 8, name: 'Monthly', jsonQuery: JSON.stringify({ timeDimensions: [{ dimension: 'o.at', granularity: 'month' }] }) });
  const board = dashboardContent({
    id: 3,
    name: 'Board',
    dashboardPublished: { widgets: [{ id: 'c', type: 'CHART', position: {}, config: { title: 'Weekly', reportId: 7 } }] },
    dashboardDraft: { widgets: [{ id: 's', type: 'FIELD', position: {}, config: { member: 'o.kind', options: ['n', 'other'] } }] },
    publishedDashboard: { id: 30, title: 'Ops' },
  });
  const note = notificationContent({ id: 5, dashboardId: 30, humanReadableSchedule: 'daily' });

  it('a granularity removed hits only the content that asks for it; a chart of a broken report and a notification of a broken dashboard are hit through them', () => {
    const changes: ChangeSet = {
      cubes: [],
      members: [removed('o.at', { change: 'changed', details: ['granularity fortnight removed'], onlyGranularities: ['fortnight'] })],
    };
    const hit = affectedContent(changes, [report, monthly, board, note]);
    expect(hit.map((a) => [a.kind, a.name, a.uses.map((u) => u.place)])).toEqual([
      ['report', 'Weekly', ['timeDimensions']],
      ['dashboard', 'Board · Ops', ['published widget “Weekly” (report “Weekly”)']],
      ['notification', 'Notification 5 (daily)', ['the dashboard it sends (Board · Ops)']],
    ]);
  });

  it('a member switcher’s choices are members of its view; non-breaking changes hit nothing', () => {
    expect(affectedContent({ cubes: [], members: [removed('o.other')] }, [board]).map((a) => a.uses[0]!.place)).toEqual(['draft member switcher “s”']);
    expect(affectedContent({ cubes: [], members: [removed('o.n', { breaking: false, change: 'changed', details: ['title a → b'] })] }, [report])).toEqual([]);
  });
});

/** An impact result with `n` breaking changes, each used by one report. */
function bigResult(n: number): ImpactResult {
  const members = Array.from({ length: n }, (_, i) => removed(`cube_${i}.member_with_a_long_name_${i}`));
  const content = members.map((m, i) =>
    reportContent({ id: i + 1, name: `Report @team #${i} <b>|x|</b>`, jsonQuery: JSON.stringify({ dimensions: [m.member] }) }),
  );
  const changes: ChangeSet = { cubes: [], members };
  const affected = affectedContent(changes, content);
  return {
    base: 'main',
    head: 'preview-pr-9',
    changes,
    counts: { breaking: n, added: 0, changed: 0 },
    affected,
    affectedCounts: { report: affected.length, dashboard: 0, notification: 0 },
    scanned: { report: n, dashboard: 0, notification: 0 },
    notices: ['notifications were not checked: this API key may not read them (403)'],
  };
}

describe('the comment section', () => {
  it('reads as the summary line, then the tables; outside names are escaped', () => {
    const r = bigResult(2);
    expect(impactSummaryLine(r)).toBe('2 breaking, 0 added, 0 changed; 2 reports affected');
    const md = renderImpact(impactView(r), { target: 'comment' }).join('\n');
    expect(md).toContain('**Semantic layer** (`main` → `preview-pr-9`): 2 breaking, 0 added, 0 changed; 2 reports affected');
    expect(md).toContain('<details open><summary>Breaking changes (2)</summary>');
    expect(md).toContain('| `cube_0.member_with_a_long_name_0` | dimension of cube `cube_0` | removed |');
    // A mention, an issue reference, HTML and a table pipe from a report's name stay inert.
    expect(md).toContain('Report @\u200Bteam \\#\u200B0 \\<b\\>\\|x\\|\\</b\\>');
    expect(md).toContain('> ⚠️ notifications were not checked');
  });

  it('1,000 breaking changes: the comment keeps under the cap and points to the job summary, which lists every row', () => {
    const r = bigResult(1000);
    const full = impactView(r);
    const view = nextView(undefined, { headSha: 'a'.repeat(40), runId: 1 }, { state: 'ready', impact: full, runUrl: 'https://github.com/o/r/actions/runs/1' });
    expect(view.impact!.breaking).toHaveLength(20);
    const body = composeComment({ deploymentId: '1', ledger: { deploymentId: '1', view } });
    expect(body.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(body).toContain('… [985 more in the job summary](https://github.com/o/r/actions/runs/1).');
    const summary = renderPreview(view, { target: 'summary', impact: full });
    expect(summary.match(/^\| `cube_\d+\./gm)).toHaveLength(1000);
    expect(summary).not.toContain('more in the job summary');
  });

  it('not compared: one line that says why', () => {
    const r: ImpactResult = { ...bigResult(0), changes: undefined, unavailable: 'preview-pr-9 has no staging environment' };
    expect(renderImpact(impactView(r), { target: 'comment' })[0]).toBe(
      '**Semantic layer** (`main` → `preview-pr-9`): not compared: preview\\-pr\\-9 has no staging environment',
    );
  });
});
