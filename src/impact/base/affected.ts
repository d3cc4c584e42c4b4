/**
 * Which content a change set breaks: every report, dashboard and notification that uses a breaking
 * member, with the members and the places it uses them; and the content whose numbers move (it uses a
 * member whose numbers change, and nothing it uses breaks). A dashboard widget that shows an affected
 * report is affected through it; a notification renders a dashboard, so one on an affected dashboard is
 * affected too.
 */
import type { ChangeSet, MemberChange } from './diff.js';
import { asQuery, controlUses, dedupe, queryUses, widgetUses, type MemberUse } from './references.js';
import { sqlUses } from './sql-uses.js';

export type ContentKind = 'report' | 'dashboard' | 'notification';

/** Content as the impact reads it: what the platform's lists give, trimmed to the fields used here. */
export interface ContentItem {
  kind: ContentKind;
  id: number;
  name: string;
  /** A link the platform gave with the record. */
  url?: string;
  uses: MemberUse[];
  /** Dashboards: reports its widgets show, with the widget's label. */
  shows?: { reportId: number; place: string }[];
  /** Dashboards: the ids and public ids a notification may name it by (the published dashboard's, never the workbook's). */
  dashboardIds?: number[];
  publicIds?: string[];
  /** Reports and dashboard widgets: the queries it runs, where (the data diff's key queries). */
  queries?: { place: string; query: Record<string, unknown> }[];
  /** Reports written against the SQL API: the members its SQL names, in order (the data diff's key query). */
  sqlMembers?: string[];
  /** Notifications: the dashboard it renders, by id or by public id (the vendor's file: exactly one is given). */
  dashboardId?: number;
  dashboardPublicId?: string;
}

/** `breaks`: it uses a breaking change; `numbers-move`: nothing it uses breaks, but a member's numbers change. */
export type ContentEffect = 'breaks' | 'numbers-move';

export interface AffectedItem {
  kind: ContentKind;
  id: number;
  name: string;
  url?: string;
  effect: ContentEffect;
  /** The members it uses that break (or whose numbers move), each once, with where and why. */
  uses: { member: string; place: string; change: string }[];
}

export interface ContentCounts {
  report: number;
  dashboard: number;
  notification: number;
}

const https = (v: unknown): string | undefined => (typeof v === 'string' && /^https:\/\/\S+$/.test(v) ? v : undefined);
const label = (m: MemberChange) => (m.change === 'renamed' ? `renamed to ${m.to}` : m.details.join('; '));

/** A report record of the platform's list: its Cube query, and its SQL API query when it has one. */
export function reportContent(r: { id: number; name: string; jsonQuery?: string | null; sqlQuery?: string | null; url?: unknown }): ContentItem {
  const url = https(r.url);
  const query = asQuery(r.jsonQuery);
  const named = sqlUses(r.sqlQuery);
  return {
    kind: 'report',
    id: r.id,
    name: r.name,
    ...(url ? { url } : {}),
    uses: dedupe([...queryUses(query), ...named]),
    ...(query ? { queries: [{ place: 'report', query }] } : {}),
    ...(named.length ? { sqlMembers: named.map((u) => u.member) } : {}),
  };
}

interface DashboardConfigLike {
  title?: string | null;
  widgets?: unknown[] | null;
  settings?: Record<string, unknown> | null;
}

/** A workbook's dashboards (published and draft) as one item: its name, the members its widgets and controls use. */
export function dashboardContent(w: {
  id: number;
  name: string;
  url?: unknown;
  dashboardPublished?: DashboardConfigLike | null;
  dashboardDraft?: DashboardConfigLike | null;
  publishedDashboard?: { id?: number; publicId?: string | null; title?: string | null; config?: DashboardConfigLike | null; url?: unknown } | null;
}): ContentItem {
  const published = w.dashboardPublished ?? w.publishedDashboard?.config ?? null;
  const uses: MemberUse[] = [];
  const shows: { reportId: number; place: string }[] = [];
  const queries: { place: string; query: Record<string, unknown> }[] = [];
  for (const [version, config] of [
    ['published', published],
    ['draft', w.dashboardDraft],
  ] as const) {
    if (!config) continue;
    for (const widget of config.widgets ?? []) {
      const wu = widgetUses(widget, version);
      uses.push(...wu.uses);
      if (wu.reportId !== undefined) shows.push({ reportId: wu.reportId, place: wu.label });
      if (wu.query) queries.push({ place: wu.label, query: wu.query });
    }
    if (config.settings) uses.push(...controlUses(config.settings, `${version} dashboard`));
  }
  const title = w.publishedDashboard?.title ?? published?.title;
  const url = https(w.url) ?? https(w.publishedDashboard?.url);
  const pd = w.publishedDashboard;
  return {
    kind: 'dashboard',
    id: w.id,
    name: title && title !== w.name ? `${w.name} · ${title}` : w.name,
    ...(url ? { url } : {}),
    uses: dedupe(uses),
    shows,
    ...(queries.length ? { queries } : {}),
    dashboardIds: typeof pd?.id === 'number' ? [pd.id] : [],
    publicIds: typeof pd?.publicId === 'string' && pd.publicId ? [pd.publicId] : [],
  };
}

/** A scheduled notification: its filters, time grains and member switchers, and the dashboard it renders. */
export function notificationContent(n: {
  id: number;
  dashboardId?: number | null;
  dashboardPublicId?: string | null;
  humanReadableSchedule?: string;
  filters?: unknown;
  timeGrains?: unknown;
  memberSwitchers?: unknown;
}): ContentItem {
  const when = n.humanReadableSchedule ? ` (${n.humanReadableSchedule})` : '';
  return {
    kind: 'notification',
    id: n.id,
    name: `Notification ${n.id}${when}`,
    uses: dedupe(controlUses(n)),
    ...(typeof n.dashboardId === 'number' ? { dashboardId: n.dashboardId } : {}),
    ...(typeof n.dashboardPublicId === 'string' && n.dashboardPublicId ? { dashboardPublicId: n.dashboardPublicId } : {}),
  };
}

/** `published filter “Country”` and `draft filter “Country”` as one `filter “Country” (published and draft)`. */
function mergeVersions(uses: AffectedItem['uses']): AffectedItem['uses'] {
  const out: AffectedItem['uses'] = [];
  for (const u of uses) {
    const m = /^(published|draft) (.*)$/.exec(u.place);
    const twin = m && out.find((o) => o.member === u.member && o.place === `${m[1] === 'draft' ? 'published' : 'draft'} ${m[2]}`);
    if (m && twin) twin.place = `${m[2]} (published and draft)`;
    else out.push({ ...u });
  }
  return out;
}

/** Does a use hit a breaking change? A granularity removal hits only the uses with that granularity. */
function hits(change: MemberChange, use: MemberUse): boolean {
  if (change.member !== use.member || !change.breaking) return false;
  return !change.onlyGranularities || (!!use.granularity && change.onlyGranularities.includes(use.granularity));
}

/**
 * The content `direct` finds uses in, and through them: a dashboard whose widget shows such a report, a
 * notification that sends such a dashboard. Each item once, its uses each once.
 */
function reach(content: ContentItem[], effect: ContentEffect, direct: (item: ContentItem) => AffectedItem['uses']): Map<string, AffectedItem> {
  const result = new Map<string, AffectedItem>();
  const add = (item: ContentItem, uses: AffectedItem['uses']) => {
    if (!uses.length) return;
    const key = `${item.kind}:${item.id}`;
    const prior = result.get(key);
    const all = [...(prior?.uses ?? []), ...uses].filter((u, i, xs) => xs.findIndex((x) => x.member === u.member && x.place === u.place) === i);
    result.set(key, { kind: item.kind, id: item.id, name: item.name, ...(item.url ? { url: item.url } : {}), effect, uses: all });
  };
  for (const item of content) add(item, direct(item));
  const reports = new Map(content.filter((c) => c.kind === 'report').map((r) => [r.id, r]));
  for (const d of content.filter((c) => c.kind === 'dashboard')) {
    for (const s of d.shows ?? []) {
      const r = reports.get(s.reportId);
      const hit = r && result.get(`report:${r.id}`);
      if (r && hit)
        add(
          d,
          hit.uses.map((u) => ({ ...u, place: `${s.place} (report “${r.name}”)` })),
        );
    }
  }
  const dashboards = content.filter((c) => c.kind === 'dashboard');
  for (const n of content.filter((c) => c.kind === 'notification')) {
    // By the dashboard's own id or public id: a workbook's id is another number space.
    const sends = dashboards.find(
      (d) => (n.dashboardId !== undefined && d.dashboardIds?.includes(n.dashboardId)) || (!!n.dashboardPublicId && d.publicIds?.includes(n.dashboardPublicId)),
    );
    const dash = sends ? result.get(`dashboard:${sends.id}`) : undefined;
    // Once per member: the dashboard's own row says where.
    const members = dash ? [...new Map(dash.uses.map((u) => [u.member, u])).values()] : [];
    if (dash)
      add(
        n,
        members.map((u) => ({ ...u, place: `the dashboard it sends (${dash.name})` })),
      );
  }
  for (const [key, item] of result) if (item.kind === 'dashboard') result.set(key, { ...item, uses: mergeVersions(item.uses) });
  return result;
}

/**
 * The content a change set breaks, then the content whose numbers move (it uses a member in `moving`, the
 * definition diff's members whose numbers change, with why) and that nothing breaks: each kind in turn,
 * reports first, then dashboards, then notifications.
 */
export function affectedContent(changes: ChangeSet, content: ContentItem[], moving: readonly { member: string; why: string }[] = []): AffectedItem[] {
  const breaking = new Map<string, MemberChange[]>();
  for (const m of changes.members.filter((x) => x.breaking)) breaking.set(m.member, [...(breaking.get(m.member) ?? []), m]);
  const breaks = reach(content, 'breaks', (item) =>
    item.uses.flatMap((u) => {
      const change = (breaking.get(u.member) ?? []).find((c) => hits(c, u));
      return change ? [{ member: u.member, place: u.place, change: label(change) }] : [];
    }),
  );
  const why = new Map(moving.map((m) => [m.member, m.why]));
  const numbers = reach(content, 'numbers-move', (item) =>
    item.uses.flatMap((u) => {
      const because = why.get(u.member);
      return because === undefined ? [] : [{ member: u.member, place: u.place, change: because }];
    }),
  );
  const rank: Record<ContentKind, number> = { report: 0, dashboard: 1, notification: 2 };
  const order = (a: AffectedItem, b: AffectedItem) => rank[a.kind] - rank[b.kind] || a.name.localeCompare(b.name) || a.id - b.id;
  const moved = [...numbers].filter(([key]) => !breaks.has(key)).map(([, item]) => item);
  return [...[...breaks.values()].sort(order), ...moved.sort(order)];
}

/** Content a change breaks (the rest of `affected` only has numbers that move). */
export const breaksContent = (items: readonly AffectedItem[]): AffectedItem[] => items.filter((i) => i.effect === 'breaks');

export function countContent(items: AffectedItem[]): ContentCounts {
  const out: ContentCounts = { report: 0, dashboard: 0, notification: 0 };
  for (const i of items) out[i.kind] += 1;
  return out;
}
