/**
 * The comment's verdict: one line under the heading that says what the pull request does, from the facets
 * the run has (Atlantis's "Plan: 1 to add, 0 to change" is the model): `2 breaking · 1 report hit ·
 * numbers move on 2 dashboards · analyst sees 517 fewer rows of orders · 8 key queries leave their
 * rollup`, or `✅ valid · no change to the semantic layer` when nothing moves. Only a ready preview has
 * one: a red comment leads with its errors or its failure.
 */
import { GAINS, type AccessChange } from '../../impact/access/types.js';
import { contentWords } from '../../operations/impact.js';
import { plural } from '../../report/plural.js';
import { code } from './markdown.js';
import type { AccessView } from './render-access.js';
import type { ImpactView } from './render-impact.js';
import { num, type NumbersView } from './render-numbers.js';
import type { CostView } from './render-cost.js';
import type { PreviewView } from './view.js';

/** Personas the verdict names before it counts the rest. */
const NAMED_PERSONAS = 2;

const ROWS = new Set<AccessChange['change']>(['rows-narrowed', 'rows-widened', 'denied-all']);

/** What the semantic layer's changes do: breaking, content hit, content whose numbers move (measured or not). */
function impactParts(i: ImpactView, n: NumbersView | undefined): string[] {
  if (i.unavailable) return ['semantic layer not compared'];
  const out: string[] = [];
  if (i.narrower) out.push('breaking changes not established');
  if (i.breakingTotal) out.push(`${i.breakingTotal} breaking`);
  const hit = i.content ? contentWords(i.content.breaks) : i.affectedTotal ? plural(i.affectedTotal, 'item of content', 'items of content') : '';
  if (hit) out.push(`${hit} hit`);
  const moving = i.content ? contentWords(i.content.numbers) : '';
  // The key queries measured nothing moving: the definitions differ, the numbers read the same.
  const measuredSame = !!n && !n.notRun && n.total > 0 && n.changed === 0 && n.failed === 0;
  if (moving)
    out.push(
      measuredSame ? `${moving} computed differently, numbers unchanged in ${plural(n.total, 'key query', 'key queries')}` : `numbers move on ${moving}`,
    );
  else if (i.valuesTotal && !n) out.push(plural(i.valuesTotal, 'change to the numbers', 'changes to the numbers'));
  return out;
}

function numbersParts(n: NumbersView, namedContent: boolean): string[] {
  if (n.notRun) return [];
  const out: string[] = [];
  // Content whose numbers move is named above: the count of key queries adds nothing then.
  if (n.changed && !namedContent) out.push(`numbers change in ${n.changed} of ${plural(n.total, 'key query', 'key queries')}`);
  if (n.failed) out.push(`${plural(n.failed, 'key query', 'key queries')} failed`);
  return out;
}

/** One phrase per persona (the first few): the rows it sees, else what it gains or loses. */
function accessParts(a: AccessView): string[] {
  const personas = [...new Set(a.changes.map((c) => c.persona))];
  const out = personas.slice(0, NAMED_PERSONAS).map((p) => {
    const mine = a.changes.filter((c) => c.persona === p);
    const rows = mine.find((c) => ROWS.has(c.change));
    if (rows) {
      const probe = a.probes.find((x) => x.persona === p && x.target === rows.target);
      const before = probe?.production.rows;
      const after = probe?.preview.rows;
      if (rows.change === 'denied-all') return `${code(p)} sees no rows of ${code(rows.target)}`;
      const more = rows.change === 'rows-widened';
      const by = before !== undefined && after !== undefined && before !== after ? `${num(Math.abs(after - before))} ` : '';
      return `${more ? '⚠️ ' : ''}${code(p)} sees ${by}${more ? 'more' : 'fewer'} rows of ${code(rows.target)}`;
    }
    const gains = mine.filter((c) => GAINS.has(c.change)).length;
    const losses = mine.length - gains;
    return [
      gains ? `⚠️ ${code(p)} gains access to ${plural(gains, 'member or view', 'members or views')}` : '',
      losses ? `${code(p)} loses ${plural(losses, 'member or view', 'members or views')}` : '',
    ]
      .filter(Boolean)
      .join(', ');
  });
  const rest = new Set(a.changes.map((c) => c.persona)).size - NAMED_PERSONAS;
  // The view keeps the first changes: personas past them are counted by the total only.
  if (rest > 0) out.push(`${plural(rest, 'more persona sees', 'more personas see')} differently`);
  else if (a.changeTotal > a.changes.length) out.push(`${plural(a.changeTotal - a.changes.length, 'more access change')}`);
  return out.filter(Boolean);
}

function costParts(c: CostView): string[] {
  const out: string[] = [];
  const r = c.rollups;
  if (r && !r.skipped) {
    const lost = r.totals.lost;
    if (lost) out.push(`${plural(lost, 'key query', 'key queries')} ${lost === 1 ? 'leaves its' : 'leave their'} rollup`);
    if (r.totals.rebuilt) out.push(`${plural(r.totals.rebuilt, 'rollup')} rebuilt on merge`);
  }
  if (c.versions?.refusedTotal) out.push(`${plural(c.versions.refusedTotal, 'key')} production's Cube refuses`);
  return out;
}

/** The verdict line of a ready preview (undefined for any other state). */
export function verdict(v: PreviewView): string | undefined {
  if (v.state !== 'ready') return undefined;
  const i = v.impact;
  const parts = [
    // The model compiles, but the agents break on merge: said first, never under a green word.
    ...(v.agents?.errors ? [`❌ ${plural(v.agents.errors, 'error')} in ${code(`${v.agents.folder}/`)}`] : []),
    ...(i ? impactParts(i, v.numbers) : []),
    ...(v.numbers ? numbersParts(v.numbers, !!i?.content && contentWords(i.content.numbers) !== '') : []),
    ...(v.access ? accessParts(v.access) : []),
    ...(v.cost ? costParts(v.cost) : []),
  ];
  if (parts.length) return `**${parts.join(' · ')}**`;
  if (!i) return '✅ valid';
  const other = i.counts ? [i.counts.added ? `${i.counts.added} added` : '', i.counts.changed ? `${i.counts.changed} changed` : ''].filter(Boolean) : [];
  if (!i.otherTotal && !(i.valuesTotal ?? 0)) return '✅ valid · no change to the semantic layer';
  return `✅ valid · nothing breaks${other.length ? ` · ${other.join(', ')}` : ''}`;
}
