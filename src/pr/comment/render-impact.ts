/**
 * The semantic-layer section of the PR comment and the job summary: one summary line, then collapsible
 * tables of the breaking changes, the content they break and the other changes. The comment shows the
 * first rows of each table and points to the job summary, which shows them all.
 */
import { countContent, type AffectedItem, type ContentCounts, type ContentEffect, type ContentKind } from '../../impact/base/affected.js';
import { ownRow, type CubeChange, type MemberChange } from '../../impact/base/diff.js';
import type { MemberKind } from '../../impact/base/meta.js';
import { impactSummaryLine, type ImpactResult } from '../../operations/impact.js';
import { code, cut, link, text } from './markdown.js';
import { plural } from '../../report/plural.js';

/** One row of a change table, as the view keeps it. */
export interface ImpactChangeRow {
  /** The member's full name; the cube's name for a change of the cube itself (`whole`). */
  member: string;
  cube: string;
  cubeType: 'cube' | 'view';
  /** Measure, dimension or segment (absent for a change of the cube or view itself). */
  kind?: MemberKind;
  change: MemberChange['change'] | CubeChange['change'];
  breaking: boolean;
  /** Same name and type, other numbers. */
  values?: boolean;
  /** A change of the cube or view itself (its table, joins, key, access policy, visibility). */
  whole?: boolean;
  /** The change in words (`removed`, `type string → number; title …`). */
  what: string;
  /** A view member gone because of this cube member's change. */
  because?: string;
}

export interface ImpactContentRow {
  kind: ContentKind;
  /** It breaks, or its numbers move (absent: breaks). */
  effect?: ContentEffect;
  name: string;
  url?: string;
  /** `member` in `place`, each use once. */
  uses: { member: string; place: string }[];
}

/** What the comment shows of the impact: counts, and the rows (the view keeps the first ones). */
export interface ImpactView {
  base: string;
  head: string;
  /** The summary line (`2 breaking, 5 added, 1 changed; 3 reports and 1 notification affected`). */
  summary: string;
  breakingTotal: number;
  /** Changes that move the numbers (absent in views recorded before there were any). */
  valuesTotal?: number;
  otherTotal: number;
  /** Members added, and changed without breaking (the verdict of a change that breaks nothing). */
  counts?: { added: number; changed: number };
  /** Content the changes break. */
  affectedTotal: number;
  /** Content whose numbers move, and nothing of it breaks. */
  movingTotal?: number;
  /** Both, by kind (the verdict names them). */
  content?: { breaks: ContentCounts; numbers: ContentCounts };
  breaking: ImpactChangeRow[];
  values?: ImpactChangeRow[];
  /** Members whose numbers move because they use a changed one (formulas, view members), each with its kind, and how many in all. */
  moved?: { total: number; members: { member: string; kind?: MemberKind }[] };
  other: ImpactChangeRow[];
  /** Content that breaks. */
  affected: ImpactContentRow[];
  /** Content whose numbers move. */
  moving?: ImpactContentRow[];
  notices: string[];
  /** Why the layers were not compared. */
  unavailable?: string;
  /** The reads did not show the whole layer: members the files declare public out of sight (examples), and why. */
  narrower?: { total: number; members: { member: string; side: 'production' | 'preview' }[]; why: string[] };
}

const changeRow = (m: MemberChange): ImpactChangeRow => ({
  member: m.member,
  cube: m.cube,
  cubeType: m.cubeType,
  kind: m.kind,
  change: m.change,
  breaking: m.breaking,
  ...(m.values ? { values: true } : {}),
  what: m.change === 'renamed' ? `renamed to ${m.to ?? '?'}` : m.details.join('; '),
  ...(m.because ? { because: m.because } : {}),
});

/** A cube or view changed (or made private) itself: one row. */
const cubeRow = (c: CubeChange): ImpactChangeRow => ({
  member: c.name,
  cube: c.name,
  cubeType: c.type,
  change: c.change,
  breaking: c.change === 'private' || !!c.breaking,
  ...(c.values ? { values: true } : {}),
  whole: true,
  what: c.change === 'private' ? 'made private' : (c.details ?? []).join('; '),
});

const contentRow = (a: AffectedItem): ImpactContentRow => ({
  kind: a.kind,
  effect: a.effect,
  name: a.name,
  ...(a.url ? { url: a.url } : {}),
  uses: a.uses.map((u) => ({ member: u.member, place: u.place })),
});

/** The whole result as a view (the view then keeps the first rows, view.ts). */
export function impactView(r: ImpactResult): ImpactView {
  const rows = [...(r.changes?.cubes ?? []).filter(ownRow).map(cubeRow), ...(r.changes?.members ?? []).map(changeRow)];
  const breaking = rows.filter((m) => m.breaking);
  const values = rows.filter((m) => !m.breaking && m.values);
  const other = rows.filter((m) => !m.breaking && !m.values);
  const direct = new Set(values.map((v) => v.member));
  const moved = (r.definition?.values ?? []).map((v) => v.member).filter((m) => !direct.has(m));
  // Each member's kind as the pull request's /meta lists it, else as the change set does (a member /meta hides from the reader).
  const kinds = new Map([
    ...(r.changes?.members ?? []).map((m) => [m.member, m.kind] as const),
    ...(r.sources?.headMeta.cubes ?? []).flatMap((c) => c.members.map((m) => [m.name, m.kind] as const)),
  ]);
  const breaks = r.affected.filter((a) => a.effect !== 'numbers-move');
  const moving = r.affected.filter((a) => a.effect === 'numbers-move');
  return {
    base: r.base,
    head: r.head,
    summary: impactSummaryLine(r),
    breakingTotal: breaking.length,
    valuesTotal: values.length,
    otherTotal: other.length,
    counts: { added: r.counts.added, changed: r.counts.changed },
    affectedTotal: breaks.length,
    movingTotal: moving.length,
    content: { breaks: countContent(breaks), numbers: countContent(moving) },
    breaking,
    values,
    ...(moved.length
      ? { moved: { total: moved.length, members: moved.slice(0, 20).map((m) => ({ member: m, ...(kinds.has(m) ? { kind: kinds.get(m) } : {}) })) } }
      : {}),
    other,
    affected: breaks.map(contentRow),
    moving: moving.map(contentRow),
    notices: r.notices,
    ...(r.unavailable ? { unavailable: r.unavailable } : {}),
    ...(r.layer && !r.layer.whole
      ? {
          narrower: {
            total: r.layer.unseen.length,
            members: r.layer.unseen.slice(0, 5).map((u) => ({ member: u.member, side: u.side })),
            why: [...new Set(r.layer.unseen.map((u) => u.why))].slice(0, 3),
          },
        }
      : {}),
  };
}

const KIND: Record<ContentKind, string> = { report: 'Report', dashboard: 'Dashboard', notification: 'Notification' };

/** A view member lost through its cube member names that member as code; the rest is prose. */
function what(r: ImpactChangeRow): string {
  if (r.change !== 'view-lost' || !r.because || !r.what.startsWith(`${r.because} `)) return text(cut(r.what, 300));
  return `gone from the view: ${code(r.because, { cell: true })} ${text(cut(r.what.slice(r.because.length + 1), 200))}`;
}

function changeTable(rows: ImpactChangeRow[]): string[] {
  return [
    '| Member | In | Change |',
    '|---|---|---|',
    ...rows.map((r) =>
      r.whole
        ? `| ${code(r.member, { cell: true })} | the ${r.cubeType} itself | ${what(r)} |`
        : `| ${code(r.member, { cell: true })} | ${r.kind ? `${r.kind} of ` : ''}${r.cubeType} ${code(r.cube, { cell: true })} | ${what(r)} |`,
    ),
  ];
}

const KIND_WORDS: Record<MemberKind | 'other', [string, string]> = {
  measure: ['measure', 'measures'],
  dimension: ['dimension', 'dimensions'],
  segment: ['segment', 'segments'],
  other: ['member', 'members'],
};

/** `measures `a`, `b`; dimensions `x``: the members named as what they are, measures first. */
export function membersByKind(members: { member: string; kind?: MemberKind }[]): string {
  const order: (MemberKind | 'other')[] = ['measure', 'dimension', 'segment', 'other'];
  return order
    .map((k) => {
      const names = members.filter((m) => (m.kind ?? 'other') === k).map((m) => code(m.member));
      return names.length ? `${KIND_WORDS[k][names.length === 1 ? 0 : 1]} ${names.join(', ')}` : '';
    })
    .filter(Boolean)
    .join('; ');
}

/** The values table, and the members whose numbers move with the changed ones. */
function valuesTable(moved: ImpactView['moved'], limit: number) {
  return (rows: ImpactChangeRow[]): string[] => {
    if (!moved?.total) return changeTable(rows);
    const names = moved.members.slice(0, Math.min(limit, 10));
    const rest = moved.total - names.length;
    return [...changeTable(rows), '', `Moving with them: ${membersByKind(names)}${rest > 0 ? `; and ${plural(rest, 'more member')}` : ''}.`];
  };
}

function contentTable(rows: ImpactContentRow[]): string[] {
  const uses = (r: ImpactContentRow) => {
    const shown = r.uses.slice(0, 6).map((u) => `${code(u.member, { cell: true })} in ${text(cut(u.place, 120))}`);
    return shown.join('<br>') + (r.uses.length > 6 ? `<br>… ${plural(r.uses.length - 6, 'more use')}` : '');
  };
  return [
    '| Content | Name | Uses |',
    '|---|---|---|',
    ...rows.map((r) => `| ${KIND[r.kind]} | ${r.url ? link(cut(r.name, 200), r.url) : text(cut(r.name, 200))} | ${uses(r)} |`),
  ];
}

export interface ImpactRenderOptions {
  target: 'comment' | 'summary';
  /** Rows per table in a comment before the rest is left to the job summary. */
  rows?: number;
  runUrl?: string;
}

/** One collapsible table: the first `limit` rows, and a pointer to the job summary for the rest. */
function block<T>(title: string, total: number, rows: T[], render: (rows: T[]) => string[], open: boolean, limit: number, runUrl?: string): string[] {
  if (!total) return [];
  const shown = rows.slice(0, limit);
  const out = [`<details${open ? ' open' : ''}><summary>${title} (${total})</summary>`, '', ...render(shown), ''];
  if (shown.length < total) {
    const rest = `${total - shown.length} more in the job summary`;
    out.push(runUrl ? `… ${link(rest, runUrl)}.` : `… ${rest}.`, '');
  }
  return [...out, '</details>', ''];
}

/** The section, for a comment (first rows) or the job summary (every row of `full`, else of the view). */
export function renderImpact(v: ImpactView, options: ImpactRenderOptions, full?: ImpactView): string[] {
  const head = `**Semantic layer** (${code(v.base)} → ${code(v.head)}): `;
  if (v.unavailable) return [`${head}not compared: ${text(cut(v.unavailable, 600))}`, '', ...notices(v)];
  const all = options.target === 'summary' && full ? full : v;
  const limit = options.target === 'comment' ? (options.rows ?? 15) : Number.POSITIVE_INFINITY;
  return [
    head + text(v.summary),
    '',
    ...narrower(v),
    ...block('Breaking changes', all.breakingTotal, all.breaking, changeTable, true, limit, options.runUrl),
    ...block('Changes to the numbers', all.valuesTotal ?? 0, all.values ?? [], valuesTable(all.moved, limit), true, limit, options.runUrl),
    ...block('Content it breaks', all.affectedTotal, all.affected, contentTable, true, limit, options.runUrl),
    ...block('Content whose numbers move', all.movingTotal ?? 0, all.moving ?? [], contentTable, true, limit, options.runUrl),
    ...block('Other changes', all.otherTotal, all.other, changeTable, false, limit, options.runUrl),
    ...notices(v),
  ];
}

/** Said before any table: a verdict over part of the layer is no verdict (docs/impact.md, "The whole layer"). */
function narrower(v: ImpactView): string[] {
  const n = v.narrower;
  if (!n) return [];
  const some = n.members.slice(0, 3).map((m) => `${code(m.member)}${m.side === 'production' ? ' on production' : ''}`);
  return [
    `> 🛑 **Breaking changes not established:** the review could not see the whole semantic layer. ${plural(n.total, 'member')} the model files declare public ${n.total === 1 ? 'is' : 'are'} listed by no \`/meta\` read (${some.join(', ')}${n.total > some.length ? ', …' : ''}): ${text(cut(n.why.join('; '), 600))}. The counts above cover only what was seen; see "The whole layer" in docs/impact.md.`,
    '',
  ];
}

function notices(v: ImpactView): string[] {
  return v.notices.flatMap((n) => [`> ⚠️ ${text(cut(n, 500))}`, '']);
}
