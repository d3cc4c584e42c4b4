/**
 * Persona probes, planned and read without the network: for each cube or view whose access policy the
 * pull request touches, one counting query per persona, the same on production and on the preview, so a
 * silent deny or a widening is shown with evidence. What is counted: a `count` measure of the target,
 * else the rows of a dimension (its primary key first) up to the row cap. The probes share the data
 * diff's caps: every probe (one persona on one target, both sides) is one query of
 * `data-diff-max-queries`, on a budget of its own beside the key queries. The run is an operation
 * (src/operations/access-probes.ts).
 */
import { shortName } from '../base/meta.js';
import type { CubeQuery } from '../base/types.js';
import type { AccessChange, AccessProbe, ProbeCheck, ProbeSide, RowAccess, RowFilterSides } from './types.js';

/** A member as a `/meta` lists it, with what the probe needs to pick a counter. */
export interface ProbeMember {
  name: string;
  kind: 'measure' | 'dimension' | 'segment';
  type?: string;
  aggType?: string;
  primaryKey?: boolean;
}

/** A cube or view as some `/meta` listed it. */
export interface ProbeCatalogueEntry {
  name: string;
  members: ProbeMember[];
}

/** What a target's probe counts: a count measure's value, or the rows of a dimension. */
export interface Counter {
  member: string;
  byRows: boolean;
}

/** One persona's counting query on one target, run on both sides. */
export interface PlannedProbe {
  persona: string;
  target: string;
  counter: Counter;
  query: CubeQuery;
}

export interface ProbePlan {
  run: PlannedProbe[];
  /** Probes beyond the cap, not run. */
  notRun: number;
  /** Targets no `/meta` listed with a member to count. */
  uncounted: string[];
}

/** The counter of a target: a `count` measure (one named `count` first), else a dimension (the primary key, then `id`, then the first). */
export function counterOf(entry: ProbeCatalogueEntry | undefined): Counter | undefined {
  if (!entry) return undefined;
  const counts = entry.members.filter((m) => m.kind === 'measure' && (m.aggType === 'count' || m.type === 'count'));
  const measure = counts.find((m) => shortName(m.name) === 'count') ?? counts[0];
  if (measure) return { member: measure.name, byRows: false };
  const dims = entry.members.filter((m) => m.kind === 'dimension');
  const dim = dims.find((m) => m.primaryKey) ?? dims.find((m) => shortName(m.name) === 'id') ?? dims[0];
  return dim ? { member: dim.name, byRows: true } : undefined;
}

/** The counting query: the measure's total, or the dimension's rows up to the cap. */
export function probeQuery(c: Counter, maxRows: number): CubeQuery {
  return c.byRows ? { dimensions: [c.member], limit: maxRows } : { measures: [c.member] };
}

/** Every persona on every target that has a counter, kept target by target up to `maxProbes`, in the order they run. */
export function planProbes(input: { targets: string[]; personas: string[]; catalogue: ProbeCatalogueEntry[]; maxProbes: number; maxRows: number }): ProbePlan {
  const byName = new Map(input.catalogue.map((c) => [c.name, c] as const));
  const all: PlannedProbe[] = [];
  const uncounted: string[] = [];
  for (const target of input.targets) {
    const counter = counterOf(byName.get(target));
    if (!counter) {
      uncounted.push(target);
      continue;
    }
    for (const persona of input.personas) all.push({ persona, target, counter, query: probeQuery(counter, input.maxRows) });
  }
  const cap = Math.max(0, input.maxProbes);
  // Kept target by target, run persona by persona: the same query of two personas is never in flight at once
  // (on production, before any policy, it is one query; Cube's queue would hold one behind the other).
  const rank = new Map(input.personas.map((p, i) => [p, i] as const));
  const run = all.slice(0, cap).sort((x, y) => (rank.get(x.persona) ?? 0) - (rank.get(y.persona) ?? 0));
  return { run, notRun: Math.max(0, all.length - cap), uncounted };
}

/** One side's answer as a count: the measure's value, or the rows returned (`atLeast` at the cap). */
export function countOf(p: PlannedProbe, rows: Record<string, unknown>[], maxRows: number): ProbeSide {
  if (p.counter.byRows) return rows.length >= maxRows ? { rows: rows.length, atLeast: true } : { rows: rows.length };
  const raw = rows[0]?.[p.counter.member];
  const n = raw === undefined || raw === null ? 0 : Number(raw);
  return Number.isFinite(n) ? { rows: n } : { error: `${p.counter.member} answered ${JSON.stringify(raw).slice(0, 40)}, not a count` };
}

const NUMBER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
/** `1,204`, `≥ 1,000`, `refused`: one side as the detail reads it. */
export function sideText(s: ProbeSide): string {
  if (s.refused !== undefined) return 'refused';
  if (s.error !== undefined) return 'failed';
  if (s.skipped !== undefined) return 'not run';
  return `${s.atLeast ? '≥ ' : ''}${NUMBER.format(s.rows ?? 0)}`;
}

/** How many more queries a side whose count gave no row gets before `denied-all` is said. */
export const CHECKS_PER_SIDE = 2;

/** The other queries of a target: its dimensions other than the counter (the primary key last), each asked for one row. */
export function checkQueries(entry: ProbeCatalogueEntry | undefined, counter: Counter): { member: string; query: CubeQuery }[] {
  const dims = (entry?.members ?? []).filter((m) => m.kind === 'dimension' && m.name !== counter.member && m.type !== 'time');
  const ordered = [...dims.filter((m) => !m.primaryKey), ...dims.filter((m) => m.primaryKey)];
  return ordered.slice(0, CHECKS_PER_SIDE).map((m) => ({ member: m.name, query: { dimensions: [m.name], limit: 1 } }));
}

const empty = (s: ProbeSide) => s.error === undefined && s.skipped === undefined && (s.refused !== undefined ? !notInModel(s.refused) : (s.rows ?? 0) === 0);

/** The side (if any) whose count gave no row (or was refused) while the other side counted rows: it gets more queries. */
export function sideToCheck(p: Pick<AccessProbe, 'production' | 'preview'>): 'production' | 'preview' | undefined {
  const rows = (s: ProbeSide) => s.refused === undefined && s.error === undefined && s.skipped === undefined && (s.rows ?? 0) > 0;
  if (empty(p.preview) && rows(p.production)) return 'preview';
  if (empty(p.production) && rows(p.preview)) return 'production';
  return undefined;
}

/** A side of the probe where another query of the target answered rows (or failed): not every row is denied there. */
function notAllDenied(p: AccessProbe, side: ProbeCheck['side']): ProbeCheck | undefined {
  return p.checks?.find((c) => c.side === side && !empty(c.answer));
}

/** What a count that gave no row, while other queries of the target answered rows, says: the count alone is refused. */
export function checkNotices(probes: AccessProbe[]): string[] {
  const out: string[] = [];
  for (const p of probes) {
    const side = sideToCheck(p);
    const other = side && notAllDenied(p, side);
    if (!side || !other) continue;
    const where = side === 'preview' ? 'the preview' : 'production';
    const answer = other.answer.error !== undefined ? `failed (${other.answer.error})` : 'answers rows';
    out.push(
      `persona ${p.persona}: ${p.counted} gives no row on ${where} while ${other.counted} ${answer}: not every row of ${p.target} is denied (a count needs members the persona may not read, its primary key among them), so no rows change is said from it`,
    );
  }
  return out;
}

/** Whether `/meta` said `change` of the target or of one of its members already. */
const has = (existing: AccessChange[], persona: string, target: string, change: AccessChange['change']) =>
  existing.some((c) => c.persona === persona && (c.target === target || c.target.startsWith(`${target}.`)) && c.change === change);

/** A refusal because the target is not in that model at all (added or removed by the pull request): no access evidence. */
export const notInModel = (message: string): boolean => /not found|does ?n[o']t exist|unknown (cube|view|member)/i.test(message);

/**
 * What the probes show, beside what `/meta` already said (`existing`): a refusal already reported as
 * `hidden` (or an answer as `exposed`) of the target or its members is not said twice. A failed side, or a
 * target one side does not have, says nothing: it is no evidence about access.
 */
export function probeChanges(probes: AccessProbe[], existing: AccessChange[] = [], rowFilters: RowFilterSides[] = []): AccessChange[] {
  const out: AccessChange[] = [];
  for (const p of probes) {
    const { production: a, preview: b } = p;
    if (a.error !== undefined || b.error !== undefined || a.skipped !== undefined || b.skipped !== undefined) continue;
    const evidence = `rows ${sideText(a)} → ${sideText(b)}, counted with ${p.counted}`;
    const add = (change: AccessChange['change'], detail: string) => out.push({ persona: p.persona, target: p.target, change, detail });
    if (a.refused !== undefined && b.refused !== undefined) continue;
    // A cube or view one side does not have: the semantic layer's own diff says it was added or removed.
    if ((a.refused !== undefined && notInModel(a.refused)) || (b.refused !== undefined && notInModel(b.refused))) continue;
    const before = a.rows ?? 0;
    const after = b.rows ?? 0;
    // A count that gives no row says nothing where another query of the target answers rows on that side.
    const also = (side: ProbeCheck['side']) => {
      const checks = p.checks?.filter((c) => c.side === side) ?? [];
      return checks.length ? `; ${checks.map((c) => `${c.counted} ${sideText(c.answer)}`).join(', ')}` : '';
    };
    if (notAllDenied(p, 'preview') && before > 0 && (b.refused !== undefined || after === 0)) continue;
    if (notAllDenied(p, 'production') && after > 0 && (a.refused !== undefined || before === 0)) continue;
    if (b.refused !== undefined) {
      if (before > 0 && !has(existing, p.persona, p.target, 'hidden')) add('denied-all', `${evidence}${also('preview')} (${b.refused})`);
      continue;
    }
    if (a.refused !== undefined) {
      if (after > 0 && !has(existing, p.persona, p.target, 'exposed')) add('rows-widened', evidence);
      continue;
    }
    // The whole cube or view hidden (exposed) by /meta already: its counts are that change's evidence, not another change.
    const whole = (change: AccessChange['change']) => existing.some((c) => c.persona === p.persona && c.target === p.target && c.change === change);
    if (before > 0 && after === 0) {
      if (!whole('hidden')) add('denied-all', `${evidence}${also('preview')}: a silent deny`);
    } else if (after < before && !b.atLeast) add('rows-narrowed', evidence);
    else if (after > before && !a.atLeast) {
      if (!(before === 0 && whole('exposed'))) add('rows-widened', evidence);
    } else {
      const whole = rowFilters.find((f) => f.persona === p.persona && f.target === p.target);
      // The counted member's own rows where known: Cube resolves rows per member queried.
      const filter = whole?.members?.[p.counted] ?? whole;
      const [from, to] = filter ? [rowAccessText(filter.production), rowAccessText(filter.preview)] : [];
      if (from !== undefined && to !== undefined && from !== to) add('rows-filter-changed', `row filter ${from} → ${to}; ${evidence}`);
    }
  }
  return out;
}

/** A side's row access as the detail says it; a filter not known says nothing (undefined). */
export function rowAccessText(r: RowAccess): string | undefined {
  if ('all' in r) return 'every row';
  if ('none' in r) return 'no row';
  if ('filter' in r) return r.filter;
  return undefined;
}

/** The changes `/meta` gave (a whole cube or view hidden or exposed with its probe's counts as evidence) and the probes' own, each once. */
export function withProbeChanges(existing: AccessChange[], fromProbes: AccessChange[], probes: AccessProbe[] = []): AccessChange[] {
  const evidenced = existing.map((c) => {
    const p = c.change === 'hidden' || c.change === 'exposed' ? probes.find((x) => x.persona === c.persona && x.target === c.target) : undefined;
    const counted = p && [p.production, p.preview].every((s) => s.error === undefined && s.skipped === undefined);
    // The counts first: the comment and the ledger cut long details from the end.
    return counted ? { ...c, detail: `rows ${sideText(p.production)} → ${sideText(p.preview)}, counted with ${p.counted}; ${c.detail}` } : c;
  });
  const fresh = fromProbes.filter((c) => !has(existing, c.persona, c.target, c.change));
  return [...evidenced, ...fresh];
}
