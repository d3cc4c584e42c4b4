/**
 * The comment's "Cost" section, its rollup part: key queries that lose, gain or move their pre-aggregation on
 * the preview, the rollups the merge rebuilds, the queries a build range cuts, and the warning for a pull
 * request that changes any rollup (branch builds share production's Cube Store). Everything from outside
 * (query, persona and rollup names, platform messages) is shown as code or escaped text.
 */
import type { RebuiltRollup, RollupChange, RollupTruncation } from '../../impact/rollups/compare.js';
import { lostByPullRequest, type RollupOutcome } from '../../impact/rollups/outcome.js';
import { buildSentence, type BuildSkips } from '../../impact/rollups/builds.js';
import { plural } from '../../report/plural.js';
import { code, cut, text } from './markdown.js';

/** The key queries that change rollup the same way (the same production and preview rollup): one row of the comment. */
export interface RollupGroup {
  production: string | null;
  preview: string | null;
  change: RollupChange['change'];
  /** The row may come from the Cube versions the sides run (the label), not from the pull request. */
  versions?: string;
  /** Key queries in the group (the names below may be fewer). */
  total: number;
  queries: { query: string; persona?: string }[];
}

/** What the comment keeps of the rollup plans (lists capped, names cut). */
export interface RollupsView {
  /** The key queries that change rollup, grouped by the change (the rollup lost, gained or moved between). */
  groups: RollupGroup[];
  rebuilt: RebuiltRollup[];
  /** Rollups built otherwise on the two sides while they run other Cube versions (not counted as rebuilt). */
  versionRebuilt?: RebuiltRollup[];
  truncated: RollupTruncation[];
  /** How many of each there were, when the lists were capped (`lost`: the pull request's, none that may come from the versions). */
  totals: { changes: number; lost: number; rebuilt: number; truncated: number; versionRebuilt?: number };
  /** Set when the sides run other Cube versions or planners: what every row may come from. */
  versions?: string;
  planned: number;
  notRun: number;
  warning?: string;
  notices: string[];
  skipped?: string;
  /** The preview's loads skipped (or, allowed, run) because they would build a pre-aggregation: said in one line. */
  builds?: BuildSkips;
}

/** Rows of each list the view keeps and the comment shows (the job summary and the JSON have them all). */
export const ROLLUP_ROWS = 15;
/** Key queries the line about builds names (it says how many more). */
const SHOWN_NAMES = 5;
/** Key queries a group's row names in a comment (it says how many more). */
const GROUP_NAMES = 3;

const name = (s: string) => cut(s, 120);

const shortRebuilt = (b: RebuiltRollup): RebuiltRollup => ({
  ...b,
  rollup: name(b.rollup),
  reason: cut(b.reason, 300),
  ...(b.versions ? { versions: cut(b.versions, 200) } : {}),
});

/** The view of a run's rollup plans, whole (the job summary's); names cut. */
export function rollupsView(r: RollupOutcome): RollupsView {
  const persona = (p?: string) => (p ? { persona: cut(p, 60) } : {});
  const groups = new Map<string, RollupGroup>();
  for (const c of r.changes) {
    const key = JSON.stringify([c.change, c.production, c.preview, c.versions]);
    const g = groups.get(key) ?? {
      production: c.production && name(c.production),
      preview: c.preview && name(c.preview),
      change: c.change,
      ...(c.versions ? { versions: cut(c.versions, 200) } : {}),
      total: 0,
      queries: [],
    };
    g.total += 1;
    g.queries.push({ query: name(c.query), ...persona(c.persona) });
    groups.set(key, g);
  }
  // Losses first (they reach the warehouse), then the largest groups.
  const rank: Record<RollupChange['change'], number> = { lost: 0, moved: 1, gained: 2 };
  return {
    groups: [...groups.values()].sort((a, b) => rank[a.change] - rank[b.change] || b.total - a.total),
    rebuilt: r.rebuilt.map(shortRebuilt),
    ...(r.versionRebuilt?.length ? { versionRebuilt: r.versionRebuilt.map(shortRebuilt) } : {}),
    truncated: r.truncated.map((t) => ({ ...t, query: name(t.query), ...persona(t.persona), rollup: name(t.rollup) })),
    totals: {
      changes: r.changes.length,
      lost: lostByPullRequest(r.changes),
      rebuilt: r.rebuilt.length,
      truncated: r.truncated.length,
      ...(r.versionRebuilt?.length ? { versionRebuilt: r.versionRebuilt.length } : {}),
    },
    ...(r.versions ? { versions: cut(r.versions, 200) } : {}),
    planned: r.planned,
    notRun: r.notRun,
    ...(r.warning ? { warning: cut(r.warning, 400) } : {}),
    notices: r.notices.map((n) => cut(n, 300)),
    ...(r.skipped ? { skipped: cut(r.skipped, 300) } : {}),
    ...(r.builds
      ? { builds: { ...r.builds, keyQueries: r.builds.keyQueries.map(name), rollups: r.builds.rollups.map((b) => ({ ...b, rollup: name(b.rollup) })) } }
      : {}),
  };
}

/** What the view keeps of it: the first rows of each list (the comment shows them). */
export const viewRollups = (v: RollupsView): RollupsView => ({
  ...v,
  groups: v.groups.slice(0, ROLLUP_ROWS).map((g) => ({ ...g, queries: g.queries.slice(0, GROUP_NAMES + 1) })),
  rebuilt: v.rebuilt.slice(0, ROLLUP_ROWS),
  ...(v.versionRebuilt ? { versionRebuilt: v.versionRebuilt.slice(0, ROLLUP_ROWS) } : {}),
  truncated: v.truncated.slice(0, ROLLUP_ROWS),
  notices: v.notices.slice(0, 3),
  // The line names the first key queries (and says how many more): the view keeps those.
  ...(v.builds ? { builds: { ...v.builds, keyQueries: v.builds.keyQueries.slice(0, SHOWN_NAMES + 1), rollups: v.builds.rollups.slice(0, ROLLUP_ROWS) } } : {}),
});

const WORDS: Record<RollupChange['change'], string> = {
  lost: '⚠️ lost: reaches the warehouse',
  gained: 'gained',
  moved: 'moved',
};

const rollupCell = (id: string | null) => (id ? code(id, { cell: true }) : '—');
const who = (persona?: string) => (persona ? ` (${code(persona, { cell: true })})` : '');
const more = (shown: number, total: number, one: string, many: string) =>
  total > shown ? [`… ${plural(total - shown, one, many)} more in the job summary and \`diff --json\`.`, ''] : [];

/** One row per rollup change: the rollups, what it does, and the key queries it does it to (a comment names the first ones). */
function changeTable(v: RollupsView, comment: boolean): string[] {
  if (!v.groups.length) return [];
  const names = (g: RollupGroup) => {
    const shown = comment ? g.queries.slice(0, GROUP_NAMES) : g.queries;
    const rest = g.total - shown.length;
    return `${shown.map((q) => `${code(q.query, { cell: true })}${who(q.persona)}`).join(', ')}${rest > 0 ? ` and ${rest} more` : ''}`;
  };
  const rows = v.groups.map(
    (g) =>
      `| ${rollupCell(g.production)} → ${rollupCell(g.preview)} | ${g.versions ? `${g.change}: ${text(g.versions)}` : WORDS[g.change]} | ${plural(g.total, 'key query', 'key queries')}: ${names(g)} |`,
  );
  const shown = v.groups.reduce((n, g) => n + g.total, 0);
  return [
    '| Rollup (production → preview) | Change | Key queries |',
    '|---|---|---|',
    ...rows,
    '',
    ...more(shown, v.totals.changes, 'key query', 'key queries'),
  ];
}

function rebuiltLines(v: RollupsView): string[] {
  if (!v.rebuilt.length) return [];
  const lines = v.rebuilt.map(
    (b) => `- ${code(b.rollup)}: ${text(b.reason)}${b.partitionGranularity ? ` (partitioned by ${text(b.partitionGranularity)}: every partition)` : ''}`,
  );
  return [`Rebuilt on merge (${plural(v.totals.rebuilt, 'rollup')}):`, '', ...lines, '', ...more(v.rebuilt.length, v.totals.rebuilt, 'rollup', 'rollups')];
}

function versionRebuiltLines(v: RollupsView): string[] {
  const list = v.versionRebuilt ?? [];
  if (!list.length) return [];
  const total = v.totals.versionRebuilt ?? list.length;
  const lines = list.map((b) => `- ${code(b.rollup)}: ${text(b.reason)}: ${text(b.versions ?? '')}`);
  return [
    `Built otherwise on the preview, not counted as rebuilt (${plural(total, 'rollup')}):`,
    '',
    ...lines,
    '',
    ...more(list.length, total, 'rollup', 'rollups'),
  ];
}

function truncationLines(v: RollupsView): string[] {
  if (!v.truncated.length) return [];
  const day = (s: string) => text(s.slice(0, 10));
  const lines = v.truncated.map((t) =>
    t.buildRange
      ? `- ${code(t.query)}${who(t.persona)}: asks ${day(t.queryRange[0])} to ${day(t.queryRange[1])}, ${code(t.rollup)} is built for ${day(t.buildRange[0])} to ${day(t.buildRange[1])}: the rows outside are missing`
      : `- ${code(t.query)}${who(t.persona)}: asks ${day(t.queryRange[0])} to ${day(t.queryRange[1])} of ${code(t.rollup)}: build range not known (not literal SQL)`,
  );
  return ['Build range of the rollup serving a key query:', '', ...lines, '', ...more(v.truncated.length, v.totals.truncated, 'key query', 'key queries')];
}

/** The rollup part of the "Cost" section (src/pr/comment/render-cost.ts puts the heading over it). */
export function renderRollups(v: RollupsView, options: { target: 'comment' | 'summary' } = { target: 'comment' }): string[] {
  const sentence = v.builds ? buildSentence(v.builds, { name: (s) => code(s), text }, SHOWN_NAMES) : undefined;
  const warning = [...(v.warning ? [`⚠️ ${text(v.warning)}`, ''] : []), ...(sentence ? [`${v.builds?.allowed ? 'ℹ️' : '⏭️'} ${sentence}`, ''] : [])];
  if (v.skipped) return [...warning, `Rollups not planned: ${text(v.skipped)}`, ''];
  const lost = v.totals.lost;
  const head = `Rollups (production → preview, ${plural(v.planned, 'key query plan', 'key query plans')}): ${v.totals.changes ? `${v.totals.changes} changed (${lost} lost)` : 'no key query changes rollup'}, ${plural(v.totals.rebuilt, 'rollup')} rebuilt on merge`;
  const versions = v.versions
    ? [
        `⚠️ Production and the preview plan with other Cube versions: every row ${text(v.versions)}, not from this pull request; none counts for fail-on-rollup-loss or as rebuilt.`,
        '',
      ]
    : [];
  const out = [
    head,
    '',
    ...warning,
    ...versions,
    ...changeTable(v, options.target === 'comment'),
    ...rebuiltLines(v),
    ...versionRebuiltLines(v),
    ...truncationLines(v),
  ];
  out.push('Rollups are compared where a key query reaches them, and each rollup the pull request may change by its own query.', '');
  if (v.notRun) out.push(`${plural(v.notRun, 'more key query', 'more key queries')} found but not planned (data-diff-max-queries).`, '');
  for (const n of v.notices) out.push(`- ${text(n)}`);
  return out;
}
