/**
 * Persona probes without the network: what a target's probe counts, how the probes are capped, where
 * they may run (never for a fork, a public repository needs the data diff's allow, `data-diff: off` does
 * not stop them), how an answer becomes a count, and which access change the counts show.
 */
import { describe, expect, it } from 'vitest';
import {
  checkNotices,
  checkQueries,
  countOf,
  counterOf,
  sideToCheck,
  planProbes,
  probeChanges,
  withProbeChanges,
  type PlannedProbe,
  type ProbeCatalogueEntry,
} from '../src/impact/access/probes.js';
import type { AccessChange, AccessProbe, ProbeSide, RowAccess } from '../src/impact/access/types.js';
import { probesRefusal } from '../src/impact/base/pull-request.js';
import { planDataDiff } from '../src/impact/data/plan.js';
import type { DataDiffSettings } from '../src/impact/data/types.js';

const limits = { maxQueries: 20, maxRows: 1000, concurrency: 4, queryTimeoutMs: 45_000, absTolerance: 0, relTolerance: 0 };
const settings = (over: Partial<DataDiffSettings> = {}): DataDiffSettings => ({
  mode: 'off',
  allowPublic: false,
  securityContext: {},
  limits,
  failOnChange: false,
  ...over,
});

const probe = (production: ProbeSide, preview: ProbeSide, over: Partial<AccessProbe> = {}): AccessProbe => ({
  persona: 'analyst',
  target: 'orders_view',
  counted: 'orders_view.count',
  production,
  preview,
  ...over,
});

describe('what a probe counts', () => {
  it('a count measure (one named count first), else the primary key, else a dimension named id, else the first dimension', () => {
    const measure = (name: string, aggType?: string) => ({ name, kind: 'measure' as const, ...(aggType ? { aggType } : {}) });
    const dim = (name: string, primaryKey?: boolean) => ({ name, kind: 'dimension' as const, ...(primaryKey ? { primaryKey } : {}) });
    expect(counterOf({ name: 'o', members: [measure('o.total', 'sum'), measure('o.orders', 'count'), measure('o.count', 'count')] })).toEqual({
      member: 'o.count',
      byRows: false,
    });
    expect(counterOf({ name: 'o', members: [measure('o.n', 'count'), dim('o.id', true)] })).toEqual({ member: 'o.n', byRows: false });
    expect(counterOf({ name: 'o', members: [measure('o.total', 'sum'), dim('o.status'), dim('o.key', true)] })).toEqual({ member: 'o.key', byRows: true });
    expect(counterOf({ name: 'o', members: [dim('o.status'), dim('o.id')] })).toEqual({ member: 'o.id', byRows: true });
    expect(counterOf({ name: 'o', members: [dim('o.status')] })).toEqual({ member: 'o.status', byRows: true });
    expect(counterOf({ name: 'o', members: [measure('o.total', 'sum')] })).toBeUndefined();
    expect(counterOf(undefined)).toBeUndefined();
  });

  it('one probe per persona and target, target by target, capped by data-diff-max-queries; a target with nothing to count is named', () => {
    const catalogue: ProbeCatalogueEntry[] = ['a', 'b', 'c'].map((t) => ({ name: t, members: [{ name: `${t}.count`, kind: 'measure', aggType: 'count' }] }));
    catalogue.push({ name: 'rows', members: [{ name: 'rows.id', kind: 'dimension' }] });
    const plan = planProbes({ targets: ['a', 'rows', 'gone', 'b', 'c'], personas: ['p1', 'p2'], catalogue, maxProbes: 5, maxRows: 500 });
    // Kept target by target; run persona by persona.
    expect(plan.run.map((p) => `${p.target}/${p.persona}`)).toEqual(['a/p1', 'rows/p1', 'b/p1', 'a/p2', 'rows/p2']);
    expect(plan.notRun).toBe(3);
    expect(plan.uncounted).toEqual(['gone']);
    expect(plan.run[0]?.query).toEqual({ measures: ['a.count'] });
    expect(plan.run[1]?.query).toEqual({ dimensions: ['rows.id'], limit: 500 });
  });

  it('an answer as a count: the measure read as a number (Cube sends text), rows up to the cap as at least', () => {
    const byMeasure: PlannedProbe = { persona: 'p', target: 'o', counter: { member: 'o.count', byRows: false }, query: {} };
    const byRows: PlannedProbe = { ...byMeasure, counter: { member: 'o.id', byRows: true } };
    expect(countOf(byMeasure, [{ 'o.count': '1204' }], 1000)).toEqual({ rows: 1204 });
    expect(countOf(byMeasure, [], 1000)).toEqual({ rows: 0 });
    expect(countOf(byMeasure, [{ 'o.count': 'many' }], 1000).error).toContain('not a count');
    expect(countOf(byRows, [{}, {}, {}], 3)).toEqual({ rows: 3, atLeast: true });
    expect(countOf(byRows, [{}, {}], 3)).toEqual({ rows: 2 });
  });
});

describe('where the probes run', () => {
  it('never for a fork; a public repository needs data-diff-allow-public; data-diff off does not stop them', async () => {
    expect(probesRefusal({ allowPublic: true }, { pr: { fork: true }, repositoryPublic: false })).toMatch(/fork/);
    expect(probesRefusal({ allowPublic: false }, { pr: { fork: false }, repositoryPublic: true })).toMatch(/public.*data-diff-allow-public/);
    expect(probesRefusal({ allowPublic: true }, { pr: { fork: false }, repositoryPublic: true })).toBeUndefined();
    const off = await planDataDiff(settings(), { pr: { fork: false }, repositoryPublic: false });
    expect(off.refusal).toMatch(/off/);
    expect(off.probesRefusal).toBeUndefined();
    const fork = await planDataDiff(settings({ mode: 'relative', allowPublic: true }), { pr: { fork: true }, repositoryPublic: false });
    expect(fork.probesRefusal).toMatch(/fork/);
  });
});

describe('what the counts show', () => {
  it('fewer rows, more rows, none at all (the silent deny), a refusal where production answered', () => {
    const changes = probeChanges([
      probe({ rows: 1204 }, { rows: 310 }, { persona: 'narrow' }),
      probe({ rows: 10 }, { rows: 12 }, { persona: 'wide' }),
      probe({ rows: 1204 }, { rows: 0 }, { persona: 'silent' }),
      probe({ rows: 5 }, { refused: 'You requested hidden member: orders_view.count' }, { persona: 'refused' }),
      probe({ refused: 'hidden' }, { rows: 7 }, { persona: 'opened' }),
      probe({ rows: 5 }, { rows: 5 }, { persona: 'same' }),
      probe({ refused: 'a' }, { refused: 'b' }, { persona: 'never' }),
    ]);
    expect(changes.map((c) => `${c.persona}:${c.change}`)).toEqual([
      'narrow:rows-narrowed',
      'wide:rows-widened',
      'silent:denied-all',
      'refused:denied-all',
      'opened:rows-widened',
    ]);
    expect(changes[0]?.detail).toBe('rows 1,204 → 310, counted with orders_view.count');
    expect(changes[2]?.detail).toContain('silent deny');
    expect(changes[3]?.detail).toContain('You requested hidden member');
  });

  it('a cube or view one side does not have is no evidence: the semantic layer says it was added or removed', () => {
    expect(probeChanges([probe({ refused: "Cube 'finance_view' not found for path 'finance_view.count'" }, { rows: 12 })])).toEqual([]);
    expect(probeChanges([probe({ rows: 12 }, { refused: "'orders_view' cube not found" })])).toEqual([]);
  });

  it('a failed side is no evidence; a count at the cap moves nothing it cannot prove', () => {
    expect(probeChanges([probe({ rows: 5 }, { error: 'no answer within 45 s' }), probe({ error: 'reset' }, { rows: 0 })])).toEqual([]);
    expect(probeChanges([probe({ rows: 1000, atLeast: true }, { rows: 1000, atLeast: true })])).toEqual([]);
    expect(probeChanges([probe({ rows: 1000, atLeast: true }, { rows: 200 })]).map((c) => c.change)).toEqual(['rows-narrowed']);
    expect(probeChanges([probe({ rows: 200 }, { rows: 1000, atLeast: true })])[0]?.detail).toBe('rows 200 → ≥ 1,000, counted with orders_view.count');
  });

  it('equal counts under a changed row filter: rows-filter-changed; a filter not known or unchanged, nothing', () => {
    const equal = [probe({ rows: 40 }, { rows: 40 })];
    const sides = (production: RowAccess, preview: RowAccess) => [{ persona: 'analyst', target: 'orders_view', production, preview }];
    const [c] = probeChanges(equal, [], sides({ filter: "region = 'EU'" }, { filter: "region IN ('EU', 'UK')" }));
    expect(c?.change).toBe('rows-filter-changed');
    expect(c?.detail).toBe("row filter region = 'EU' → region IN ('EU', 'UK'); rows 40 → 40, counted with orders_view.count");
    expect(probeChanges(equal, [], sides({ all: true }, { filter: 'x' }))[0]?.detail).toMatch(/^row filter every row → x;/);
    expect(probeChanges(equal, [], sides({ filter: 'x' }, { filter: 'x' }))).toEqual([]);
    expect(probeChanges(equal, [], sides({ unknown: 'a JavaScript filter' }, { filter: 'x' }))).toEqual([]);
    expect(probeChanges(equal)).toEqual([]);
  });

  it("the counted member's own rows decide rows-filter-changed: another member's filter moving is no change of the count's", () => {
    const equal = [probe({ rows: 40 }, { rows: 40 })];
    const members = { 'orders_view.count': { production: { all: true } as RowAccess, preview: { all: true } as RowAccess } };
    expect(probeChanges(equal, [], [{ persona: 'analyst', target: 'orders_view', production: { filter: 'a' }, preview: { filter: 'b' }, members }])).toEqual(
      [],
    );
  });

  it('denied-all only when the other queries of the target give no row either; a refused count beside rows is a notice', () => {
    const entry: ProbeCatalogueEntry = {
      name: 'orders',
      members: [
        { name: 'orders.count', kind: 'measure', aggType: 'count' },
        { name: 'orders.id', kind: 'dimension', primaryKey: true },
        { name: 'orders.status', kind: 'dimension', type: 'string' },
        { name: 'orders.created_at', kind: 'dimension', type: 'time' },
      ],
    };
    expect(checkQueries(entry, { member: 'orders.count', byRows: false })).toEqual([
      { member: 'orders.status', query: { dimensions: ['orders.status'], limit: 1 } },
      { member: 'orders.id', query: { dimensions: ['orders.id'], limit: 1 } },
    ]);
    const zero = probe({ rows: 50 }, { rows: 0 });
    expect(sideToCheck(zero)).toBe('preview');
    expect(sideToCheck(probe({ refused: 'hidden member' }, { rows: 3 }))).toBe('production');
    expect(sideToCheck(probe({ rows: 3 }, { rows: 2 }))).toBeUndefined();
    const rows = { ...zero, checks: [{ side: 'preview' as const, counted: 'orders.status', answer: { rows: 1, atLeast: true } }] };
    expect(probeChanges([rows])).toEqual([]);
    expect(checkNotices([rows])[0]).toContain('orders_view.count gives no row on the preview while orders.status answers rows');
    const refused = { ...probe({ rows: 50 }, { refused: 'hidden member' }), checks: rows.checks };
    expect(probeChanges([refused])).toEqual([]);
    const none = { ...zero, checks: [{ side: 'preview' as const, counted: 'orders.status', answer: { rows: 0 } }] };
    expect(probeChanges([none]).map((c) => [c.change, c.detail])).toEqual([
      ['denied-all', 'rows 50 → 0, counted with orders_view.count; orders.status 0: a silent deny'],
    ]);
    expect(checkNotices([none])).toEqual([]);
    // Rows widened where production's count was refused but its other queries answered rows: no widening said.
    const widened = {
      ...probe({ refused: 'hidden member' }, { rows: 9 }),
      checks: [{ side: 'production' as const, counted: 'orders.status', answer: { rows: 1 } }],
    };
    expect(probeChanges([widened])).toEqual([]);
  });

  it('what /meta said already is not said twice: a refusal under hidden, an answer under exposed', () => {
    const hidden: AccessChange = { persona: 'analyst', target: 'orders_view', change: 'hidden', detail: 'group finance no longer in the policy' };
    const exposed: AccessChange = { ...hidden, change: 'exposed' };
    expect(probeChanges([probe({ rows: 5 }, { refused: 'hidden member' })], [hidden])).toEqual([]);
    expect(probeChanges([probe({ refused: 'hidden member' }, { rows: 5 })], [exposed])).toEqual([]);
    // Hidden member by member counts too.
    expect(probeChanges([probe({ rows: 5 }, { refused: 'hidden member' })], [{ ...hidden, target: 'orders_view.count' }])).toEqual([]);
    // The whole view hidden: its zero rows are that change's evidence, not a second change.
    const counts = [probe({ rows: 5 }, { rows: 0 })];
    expect(probeChanges(counts, [hidden])).toEqual([]);
    expect(withProbeChanges([hidden], [], counts)).toEqual([{ ...hidden, detail: `rows 5 → 0, counted with orders_view.count; ${hidden.detail}` }]);
    // Only a member hidden: the silent deny of the whole is the probe's own finding.
    const member = { ...hidden, target: 'orders_view.amount' };
    const silent = probeChanges(counts, [member]);
    expect(silent.map((x) => x.change)).toEqual(['denied-all']);
    expect(withProbeChanges([member], [...silent, { ...member }], counts)).toEqual([member, ...silent]);
    // A view exposed that production counted nothing of: the counts are the exposure's evidence.
    expect(probeChanges([probe({ rows: 0 }, { rows: 7 })], [exposed])).toEqual([]);
  });
});
