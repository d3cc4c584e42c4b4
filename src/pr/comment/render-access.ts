/**
 * The "Who can see what" section of the PR comment and the job summary: per persona, the members and
 * views hidden or exposed, masks put on or lifted, row changes with the probes' counts as evidence, and
 * the saved content the persona loses; then the probes themselves, folded. A persona's table folds when
 * the section is long; the comment shows the first rows and points to the job summary for the rest.
 * Without personas, one line says which policies the pull request touches and how to add personas.
 * Every name and message comes from outside: code spans and escaped prose only.
 */
import { GAINS, type AccessChange, type AccessChangeKind, type AccessOutcome, type AccessProbe, type LostContent } from '../../impact/access/types.js';
import { sideText } from '../../impact/access/probes.js';
import { unreachedText } from '../../impact/access/reach.js';
import { plural } from '../../report/plural.js';
import { code, cut, link, plain, text } from './markdown.js';
import { htmlText } from './render-numbers.js';
import { VIEW_ACCESS_PROBES } from './view.js';

/** What the comment keeps of the access review (the view keeps the first rows, view.ts). */
export interface AccessView {
  personas: string[];
  policyTargets: string[];
  changes: AccessChange[];
  lost: LostContent[];
  probes: AccessProbe[];
  notices: string[];
  probesNotRun?: { count: number; why?: string };
  newGuarded?: { target: string; seenBy: string[] }[];
  /** The personas' groups did not reach the policies: what to set (their changes are not reported). */
  groupsUnreached?: { sides: string[]; remedy: string };
  /** Totals before the view cut the lists. */
  changeTotal: number;
  gainTotal: number;
}

/** The outcome as a view (counts taken before anything is cut). */
export function accessView(a: AccessOutcome): AccessView {
  return {
    personas: a.personas,
    policyTargets: a.policyTargets,
    changes: a.changes,
    lost: a.lost,
    probes: a.probes,
    notices: a.notices,
    ...(a.probesNotRun ? { probesNotRun: a.probesNotRun } : {}),
    ...(a.newGuarded ? { newGuarded: a.newGuarded } : {}),
    ...(a.groupsUnreached ? { groupsUnreached: { sides: a.groupsUnreached.sides, remedy: a.groupsUnreached.remedy } } : {}),
    changeTotal: a.changes.length,
    gainTotal: a.changes.filter((c) => GAINS.has(c.change)).length,
  };
}

/** Each kind as the table says it; a gain of access is marked. */
const LABEL: Record<AccessChangeKind, string> = {
  hidden: 'hidden',
  exposed: '⚠️ exposed',
  masked: 'masked',
  unmasked: '⚠️ unmasked',
  'rows-narrowed': 'fewer rows',
  'rows-widened': '⚠️ more rows',
  'rows-filter-changed': 'row filter changed',
  'denied-all': '⛔ no rows at all',
};

export interface AccessRenderOptions {
  target: 'comment' | 'summary';
  /** Rows of each persona's table shown in a comment. */
  rows?: number;
  runUrl?: string;
}

/** Rows of all tables together past which each persona's table folds. */
const FOLD_AFTER = 8;
const COMMENT_ROWS = 10;
const SHOWN_TARGETS = 6;

const names = (xs: string[], max = SHOWN_TARGETS) =>
  `${xs
    .slice(0, max)
    .map((x) => code(x))
    .join(', ')}${xs.length > max ? ` and ${xs.length - max} more` : ''}`;

/** A cube or view the pull request adds under a policy: which personas see it and which do not. */
function newGuardedLine(g: { target: string; seenBy: string[] }, personas: string[]): string {
  const not = personas.filter((p) => !g.seenBy.includes(p));
  const seen = g.seenBy.length ? `seen by ${names(g.seenBy)}` : 'seen by none of the personas';
  return `New under a policy: ${code(g.target)}, ${seen}${g.seenBy.length && not.length ? `; not by ${names(not)}` : ''}.`;
}

function changeTable(changes: AccessChange[]): string[] {
  return [
    '| Change | Target | Why, and the evidence |',
    '|---|---|---|',
    ...changes.map((c) => `| ${LABEL[c.change] ?? text(c.change)} | ${code(c.target, { cell: true })} | ${text(cut(c.detail, 240))} |`),
  ];
}

function lostLines(lost: LostContent[]): string[] {
  if (!lost.length) return [];
  const item = (l: LostContent) => `${l.url ? link(cut(l.name, 120), l.url) : text(cut(l.name, 120))} (${text(l.kind)}, uses ${names(l.members, 4)})`;
  return [`Saved content it can no longer see: ${lost.slice(0, 10).map(item).join('; ')}${lost.length > 10 ? ` … and ${lost.length - 10} more` : ''}.`, ''];
}

/** One persona's part: its changes (folded when the section is long) and the content it loses. */
function personaPart(persona: string, changes: AccessChange[], lost: LostContent[], fold: boolean, max: number, more: string): string[] {
  const gains = changes.filter((c) => GAINS.has(c.change)).length;
  const counts = `${plural(changes.length, 'change')}${gains ? `, ${gains} gaining access` : ''}${lost.length ? `, ${plural(lost.length, 'saved item')} lost` : ''}`;
  const shown = changes.slice(0, max);
  const rest = changes.length - shown.length;
  const body = [
    ...(shown.length ? [...changeTable(shown), ''] : []),
    ...(rest > 0 ? [`… ${plural(rest, 'more change')} ${more}.`, ''] : []),
    ...lostLines(lost),
  ];
  if (!fold) return [`${code(persona)}: ${counts}`, '', ...body];
  return [`<details><summary>${htmlText(cut(persona, 80))}: ${counts}</summary>`, '', ...body, '</details>', ''];
}

/** The probes as counts per side, folded: the evidence behind the row changes. */
function probeTable(probes: AccessProbe[], max: number): string[] {
  if (!probes.length) return [];
  const cell = (s: AccessProbe['production']) =>
    s.refused !== undefined
      ? `refused: ${text(cut(s.refused, 80))}`
      : s.error !== undefined
        ? `failed: ${text(cut(s.error, 80))}`
        : s.skipped !== undefined
          ? 'not run: it would build a pre-aggregation (see Cost)'
          : sideText(s);
  const shown = probes.slice(0, max);
  return [
    `<details><summary>Persona probes: ${plural(probes.length, 'counting query', 'counting queries')} on each side (row counts only, never a value)</summary>`,
    '',
    '| Persona | Target | Counted with | Production | Preview |',
    '|---|---|---|---|---|',
    ...shown.map(
      (p) =>
        `| ${code(p.persona, { cell: true })} | ${code(p.target, { cell: true })} | ${code(p.counted, { cell: true })} | ${cell(p.production)} | ${cell(p.preview)} |`,
    ),
    ...(probes.length > shown.length ? ['', `… ${plural(probes.length - shown.length, 'more probe')} in the job summary.`] : []),
    '',
    '</details>',
    '',
  ];
}

/** The section, for a comment (the first rows) or the job summary (all of `full`, else of the view); nothing when there is nothing to say. */
export function renderAccess(v: AccessView, options: AccessRenderOptions, full?: AccessView): string[] {
  const all = options.target === 'summary' && full ? full : v;
  const comment = options.target === 'comment';
  if (!all.personas.length) {
    if (!all.policyTargets.length) return [];
    return [
      `**Who can see what**: this pull request touches the access policy of ${names(all.policyTargets)}. Name the kinds of users in a personas file (input \`personas\`, docs/impact.md) to see who gains or loses what.`,
      '',
    ];
  }
  const unreached = all.groupsUnreached;
  if (!unreached && !all.policyTargets.length && !all.changes.length && !all.lost.length && !all.newGuarded?.length) return [];
  const head = `**Who can see what** (${plural(all.personas.length, 'persona')}; ${plural(all.policyTargets.length, 'access policy', 'access policies')} touched): ${
    unreached
      ? "❔ the personas' groups do not reach the policies on this deployment"
      : all.changeTotal
        ? `${plural(all.changeTotal, 'change')}${all.gainTotal ? `, ⚠️ ${all.gainTotal} gaining access` : ''}`
        : 'no persona sees anything differently'
  }`;
  const out = [head, ''];
  if (unreached)
    out.push(
      `Every persona's view ${text(unreached.sides.join(' and '))} equals the empty security context's while the policies say it should differ: nothing here is established. What to set: ${text(cut(unreached.remedy, 400))}.`,
      '',
    );
  if (all.policyTargets.length) out.push(`Policies touched: ${names(all.policyTargets)}.`, '');
  for (const g of all.newGuarded ?? []) out.push(newGuardedLine(g, all.personas), '');
  const fold = all.changes.length + all.lost.length > FOLD_AFTER;
  const max = comment ? (options.rows ?? COMMENT_ROWS) : Number.POSITIVE_INFINITY;
  const more = options.runUrl ? link('in the job summary', options.runUrl) : 'in the job summary';
  // Each name once: names cut short in the view may meet.
  for (const persona of new Set(all.personas)) {
    const changes = all.changes.filter((c) => c.persona === persona);
    const lost = all.lost.filter((l) => l.persona === persona);
    if (changes.length || lost.length) out.push(...personaPart(persona, changes, lost, fold, max, more));
  }
  if (comment && all.changeTotal > all.changes.length) out.push(`… ${plural(all.changeTotal - all.changes.length, 'more change')} ${more}.`, '');
  out.push(...probeTable(all.probes, comment ? VIEW_ACCESS_PROBES : Number.POSITIVE_INFINITY));
  const notRun = all.probesNotRun;
  if (notRun?.why) out.push(`Persona probes not run: ${text(cut(notRun.why, 300))}`, '');
  else if (notRun?.count) out.push(`${plural(notRun.count, 'more persona probe')} found but not run (data-diff-max-queries).`, '');
  for (const n of all.notices.slice(0, comment ? 2 : undefined)) out.push(`> ${text(cut(n, 300))}`, '');
  return out;
}

/** The review as a terminal prints it (`diff`): one line of counts, then one line per change, the first `max`. */
export function accessLines(a: AccessOutcome, max = 20): string[] {
  if (!a.personas.length)
    return a.policyTargets.length ? [`who can see what: policies touched: ${a.policyTargets.map(plain).join(', ')} (no personas file: --personas)`] : [];
  const gains = a.changes.filter((c) => GAINS.has(c.change)).length;
  const probes = a.probes.length ? `; ${plural(a.probes.length, 'persona probe')}` : '';
  if (a.groupsUnreached) return [`who can see what: ${plural(a.personas.length, 'persona')}: ${plain(unreachedText(a.groupsUnreached))}`];
  const out = [`who can see what: ${plural(a.personas.length, 'persona')}, ${plural(a.changes.length, 'change')}, ${gains} gaining access${probes}`];
  for (const c of a.changes.slice(0, max)) out.push(`  ${plain(c.persona)}: ${c.change} ${plain(c.target)}: ${plain(cut(c.detail, 200))}`);
  if (a.changes.length > max) out.push(`  … ${plural(a.changes.length - max, 'more change')} (--json has them all)`);
  for (const l of a.lost.slice(0, max)) out.push(`  ${plain(l.persona)}: no longer sees ${l.kind} ${plain(l.name)}`);
  for (const g of a.newGuarded ?? [])
    out.push(`  new under a policy: ${plain(g.target)}, seen by ${g.seenBy.length ? g.seenBy.map(plain).join(', ') : 'none of the personas'}`);
  return out;
}
