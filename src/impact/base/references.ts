/**
 * The members a piece of content asks for: a report's query (`jsonQuery`: measures, dimensions, time
 * dimensions, segments, filters with their nested `and`/`or`, order), a dashboard's widgets, filters,
 * time-grain controls and member switchers (published and draft), and a notification's filters, time
 * grains and member switchers. Widget configs are free-form in the vendor's file: the keys read here
 * are recorded in docs/api-assumptions.md.
 */

/** One use of a member. */
export interface MemberUse {
  /** Full name, `cube.member`. */
  member: string;
  /** The time granularity it is asked with, when one is. */
  granularity?: string;
  /** Where in the content: `measures`, `filters`, `widget "Revenue"`, … */
  place: string;
}

const MEMBER = /^[A-Za-z_]\w*\.[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?$/;

/** `cube.member` or `cube.member.granularity` (Cube's shorthand for a time dimension with a granularity). */
function use(name: unknown, place: string, granularity?: unknown): MemberUse | undefined {
  if (typeof name !== 'string' || !MEMBER.test(name)) return undefined;
  const parts = name.split('.');
  const out: MemberUse = { member: `${parts[0]}.${parts[1]}`, place };
  const grain = parts[2] ?? (typeof granularity === 'string' ? granularity : undefined);
  if (grain) out.granularity = grain;
  return out;
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** A query given as an object or as JSON text; anything else reads as no query. */
export function asQuery(q: unknown): Record<string, unknown> | undefined {
  if (typeof q === 'string') {
    try {
      return asQuery(JSON.parse(q));
    } catch {
      return undefined;
    }
  }
  return q && typeof q === 'object' && !Array.isArray(q) ? (q as Record<string, unknown>) : undefined;
}

/** Filters, with `and`/`or` groups to any depth. */
function filterUses(filters: unknown, place: string, out: MemberUse[], depth = 0): void {
  if (depth > 32) return;
  for (const f of list(filters)) {
    if (!f || typeof f !== 'object') continue;
    const r = f as Record<string, unknown>;
    if (Array.isArray(r.and)) filterUses(r.and, place, out, depth + 1);
    if (Array.isArray(r.or)) filterUses(r.or, place, out, depth + 1);
    const u = use(r.member ?? r.dimension, place);
    if (u) out.push(u);
  }
}

/** Every member a Cube query uses (`place` prefixes the part of the query: `measures`, `filters`, …). */
export function queryUses(query: unknown, prefix = ''): MemberUse[] {
  const q = asQuery(query);
  if (!q) return [];
  const out: MemberUse[] = [];
  const at = (part: string) => (prefix ? `${prefix} ${part}` : part);
  for (const part of ['measures', 'dimensions', 'segments'] as const) {
    for (const m of list(q[part])) {
      const u = use(m, at(part));
      if (u) out.push(u);
    }
  }
  for (const td of list(q.timeDimensions)) {
    const t = td as { dimension?: unknown; granularity?: unknown } | null;
    const u = use(t?.dimension, at('timeDimensions'), t?.granularity);
    if (u) out.push(u);
  }
  filterUses(q.filters, at('filters'), out);
  // order: `{ "orders.count": "desc" }`, `[["orders.count", "desc"]]` or `[{ id, desc }]`.
  const order = q.order;
  const keys = Array.isArray(order)
    ? order.map((o: unknown) => (Array.isArray(o) ? (o[0] as unknown) : (o as { id?: unknown } | null)?.id))
    : order && typeof order === 'object'
      ? Object.keys(order)
      : [];
  for (const k of keys) {
    const u = use(k, at('order'));
    if (u) out.push(u);
  }
  return out;
}

/** A notification's (or a dashboard's) filters, time grains and member switchers. */
export function controlUses(source: { filters?: unknown; timeGrains?: unknown; memberSwitchers?: unknown }, prefix = ''): MemberUse[] {
  const at = (part: string) => (prefix ? `${prefix} ${part}` : part);
  const out: MemberUse[] = [];
  filterUses(source.filters, at('filters'), out);
  for (const g of list(source.timeGrains)) {
    const t = g as { member?: unknown; grain?: unknown } | null;
    const u = use(t?.member, at('time grains'), t?.grain);
    if (u) out.push(u);
  }
  for (const s of list(source.memberSwitchers)) {
    const t = s as { member?: unknown; selected?: unknown } | null;
    const u = use(t?.member, at('member switchers'));
    if (!u) continue;
    out.push(u);
    // `selected` names a member of the same cube or view without its prefix.
    const selected = typeof t?.selected === 'string' ? use(`${u.member.split('.')[0]}.${t.selected}`, at('member switchers')) : undefined;
    if (selected) out.push(selected);
  }
  return out;
}

const WIDGET_LABEL: Record<string, string> = { FILTER: 'filter', FIELD: 'member switcher', TIME_GRAIN: 'time-grain control' };

/** A dashboard widget's uses, and the report it shows (a chart of a report). */
export function widgetUses(
  widget: unknown,
  version: 'published' | 'draft',
): { uses: MemberUse[]; reportId?: number; label: string; query?: Record<string, unknown> } {
  const w = (widget ?? {}) as { id?: unknown; type?: unknown; config?: unknown };
  const c = asQuery(w.config) ?? {};
  const name = [c.title, c.name, w.id].find((x) => typeof x === 'string' && x) as string | undefined;
  const label = `${version} ${WIDGET_LABEL[String(w.type)] ?? 'widget'}${name ? ` “${name}”` : ''}`;
  const query = asQuery(c.query);
  const uses = [...queryUses(query, label), ...queryUses(c, label), ...controlUses(c, label)];
  const single = use(c.member ?? c.dimension, label, c.granularity ?? c.grain);
  if (single) uses.push(single);
  // A member switcher lists the members it offers by their names in the same cube or view.
  if (single)
    for (const o of list(c.options))
      if (typeof o === 'string') uses.push(...[use(o.includes('.') ? o : `${single.member.split('.')[0]}.${o}`, label)].filter((u): u is MemberUse => !!u));
  const reportId = typeof c.reportId === 'number' ? c.reportId : undefined;
  return { uses: dedupe(uses), label, ...(reportId !== undefined ? { reportId } : {}), ...(query ? { query } : {}) };
}

/** One entry per member, place and granularity. */
export function dedupe(uses: MemberUse[]): MemberUse[] {
  const seen = new Set<string>();
  return uses.filter((u) => {
    const k = `${u.member}\0${u.place}\0${u.granularity ?? ''}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
