/**
 * The facet checks' verdicts as pure logic (src/pr/facet-checks.ts): `failure` where a `fail-on-…` input
 * asks and the facet fails or was not established; `neutral` where something is to look at or a part
 * nobody gates was not established (the title says which); `success` only when every part was
 * established and clear; no check at all for a facet that did not run and nothing gates. And the places
 * of breaking changes (src/model/line-map.ts, src/model/locate/declared.ts).
 */
import { describe, expect, it } from 'vitest';
import { carryLine } from '../src/model/line-map.js';
import { DeclaredMembers } from '../src/model/locate/declared.js';
import type { ImpactResult } from '../src/operations/impact.js';
import type { VersionSkew } from '../src/model/version-skew.js';
import { configuredFacets, facetChecks, type FacetOutcome, type FacetSettings } from '../src/pr/facet-checks.js';

const settings = (gates: Partial<FacetSettings['gates']> = {}, more: Partial<FacetSettings> = {}): FacetSettings => ({
  impact: true,
  dataDiff: false,
  personas: false,
  gates: { breaking: false, dataChange: false, exposure: false, rollupLoss: false, versionSkew: true, ...gates },
  modelDir: '.',
  ...more,
});

const counts = { breaking: 0, added: 0, changed: 0, values: 0 };
/** An impact that compared both layers (and both sides' files: the definition diff ran). */
const impact = (over: Partial<ImpactResult> = {}): ImpactResult =>
  ({ base: 'main', head: 'preview-pr-1', counts, affected: [], notices: [], definition: { changes: [], values: [] }, ...over }) as unknown as ImpactResult;
const versions: VersionSkew = { production: '1.7.20', staging: '1.7.20', refused: [], notKnown: [] };

const verdicts = (o: FacetOutcome, s: FacetSettings) => Object.fromEntries(facetChecks(o, s).map((c) => [c.facet, `${c.conclusion}: ${c.title}`]));

describe('the facet checks', () => {
  it('every part established and clear: success; only the facets that ran or are gated get a check', () => {
    expect(verdicts({ impact: impact(), versions }, settings())).toEqual({
      impact: 'success: No breaking change: 0 added, 0 changed',
      cost: 'success: No pre-aggregation on either side of the model: no key query can lose one',
    });
    expect(configuredFacets(settings())).toEqual(['impact', 'cost']);
    expect(configuredFacets(settings({ exposure: true }, { dataDiff: true }))).toEqual(['impact', 'numbers', 'access', 'cost']);
    expect(facetChecks({ impact: impact(), versions }, settings({}, { impact: false }))).toEqual([]);
  });

  it('a breaking change: neutral, and failure with fail-on-breaking', () => {
    const r = impact({ counts: { ...counts, breaking: 2 } });
    expect(verdicts({ impact: r, versions }, settings()).impact).toBe('neutral: 2 breaking changes');
    expect(verdicts({ impact: r, versions }, settings({ breaking: true })).impact).toBe('failure: 2 breaking changes (fail-on-breaking is true)');
  });

  it('the impact did not run: no impact check unless fail-on-breaking asks, then a failure saying why; the gated cost fails too', () => {
    const o: FacetOutcome = { notRun: 'the model is invalid' };
    expect(verdicts(o, settings({ versionSkew: false }))).toEqual({});
    expect(verdicts(o, settings({ breaking: true }))).toEqual({
      impact: 'failure: Breaking changes not established: the model is invalid',
      cost: 'failure: Cube versions not read: the model is invalid',
    });
  });

  it('a layer not seen whole: no verdict on breaking, so never success; no check while nothing else was established, else neutral saying so', () => {
    const layer = { whole: false, unseen: ['orders.secret'] } as unknown as ImpactResult['layer'];
    expect(verdicts({ impact: impact({ layer }), versions }, settings()).impact).toBeUndefined();
    expect(verdicts({ impact: impact({ layer }), versions }, settings({ breaking: true })).impact).toMatch(
      /^failure: The review could not see the whole semantic layer \(1 public member/,
    );
    const more = impact({ layer, counts: { ...counts, values: 1 } });
    expect(verdicts({ impact: more, versions }, settings()).impact).toMatch(/^neutral: The review could not see the whole semantic layer/);
  });

  it("cost: production's Cube version unknown fails while fail-on-version-skew is on (the default), else says it was not checked", () => {
    const unknown = { refused: [], unchecked: "production's Cube version is unknown: the model was not checked against it" } as unknown as VersionSkew;
    expect(verdicts({ impact: impact(), versions: unknown }, settings()).cost).toMatch(
      /^failure: Cube version skew not checked: production's Cube version is unknown/,
    );
    expect(verdicts({ impact: impact(), versions: unknown }, settings({ versionSkew: false })).cost).toMatch(/^neutral: Cube version skew not checked/);
  });

  it("cost: keys the key table cannot settle for production's Cube are neutral, never a failure (issue 39)", () => {
    const key = { file: 'model/cubes/orders.yml', line: 3, path: 'cubes.measures.mask', version: '1.6.33' };
    const notKnown = {
      ...versions,
      production: '1.6.30',
      staging: '1.7.20',
      checkedAgainst: ['1.6.30'],
      notKnown: [key],
      notKnownWhy: 'between 1.6.10 and 1.6.33',
    } as unknown as VersionSkew;
    expect(verdicts({ impact: impact(), versions: notKnown }, settings()).cost).toBe(
      "neutral: Whether production's Cube 1.6.30 accepts 1 key of the model is not known (between 1.6.10 and 1.6.33)",
    );
  });

  it('numbers and access: off and ungated, no check; gated, a failure that says what was not done', () => {
    expect(verdicts({ impact: impact(), versions }, settings({ dataChange: true, exposure: true }))).toMatchObject({
      numbers: 'failure: The key queries were not compared: data-diff is off',
      access: 'failure: Who can see what was not compared: no personas file (input personas)',
    });
  });

  it('access: a persona gaining access is neutral, a failure with fail-on-exposure; probes not run never pass', () => {
    const access = {
      personas: [{ name: 'analyst' }],
      changes: [{ persona: 'analyst', change: 'exposed', member: 'orders.secret' }],
      lost: [],
    } as unknown as ImpactResult['access'];
    const o = { impact: impact({ access }), versions };
    expect(verdicts(o, settings({}, { personas: true })).access).toBe('neutral: 1 persona gains access (analyst): 1 change');
    expect(verdicts(o, settings({ exposure: true }, { personas: true })).access).toBe(
      'failure: 1 persona gains access (analyst): 1 change (fail-on-exposure is true)',
    );
    const unprobed = { personas: [{ name: 'analyst' }], changes: [], lost: [], probesNotRun: { count: 2 } } as unknown as ImpactResult['access'];
    expect(verdicts({ impact: impact({ access: unprobed }), versions }, settings({}, { personas: true })).access).toBeUndefined();
    expect(verdicts({ impact: impact({ access: unprobed }), versions }, settings({ exposure: true }, { personas: true })).access).toBe(
      'failure: 2 row probes not run: rows gained are not established',
    );
    const lostToo = { ...unprobed, lost: [{ persona: 'analyst', name: 'Revenue' }] } as unknown as ImpactResult['access'];
    expect(verdicts({ impact: impact({ access: lostToo }), versions }, settings({}, { personas: true })).access).toBe(
      'neutral: 2 row probes not run: rows gained are not established',
    );
  });
});

describe('the impact check at scale', () => {
  it("400 breaking members: every one an annotation, the summary under GitHub's 65,535 characters with a count of the rest", () => {
    const n = 400;
    const dims = Array.from({ length: n }, (_, i) => `      - name: member_${i}_${'x'.repeat(40)}\n        sql: c${i}\n        type: number\n`).join('');
    const files = new Map([['model/wide.yml', `cubes:\n  - name: wide\n    sql_table: t\n    dimensions:\n${dims}`]]);
    const members = Array.from({ length: n }, (_, i) => ({
      member: `wide.member_${i}_${'x'.repeat(40)}`,
      cube: 'wide',
      cubeType: 'cube' as const,
      kind: 'dimension' as const,
      change: 'changed' as const,
      breaking: true,
      details: ['type string → number'],
    }));
    const affected = [{ name: 'R'.repeat(900), uses: members.map((m) => ({ member: m.member })) }];
    const r = impact({
      counts: { ...counts, breaking: n },
      changes: { cubes: [], members },
      affected,
      sources: { files: { head: files } },
    } as unknown as Partial<ImpactResult>);
    const [check] = facetChecks({ impact: r, versions }, settings());
    expect(check!.annotations).toHaveLength(n);
    expect(check!.annotations[7]).toMatchObject({ path: 'model/wide.yml', startLine: 5 + 7 * 3, level: 'warning' });
    expect(check!.summary.length).toBeLessThan(65_535);
    expect(check!.summary).toMatch(/- … and \d+ more \(every one an annotation of this check\)/);
  });
});

describe('where a breaking member is written', () => {
  const CUBES = new Map([
    ['model/base.yml', 'cubes:\n  - name: base\n    sql_table: t\n    dimensions:\n      - name: code\n        sql: code\n        type: string\n'],
    ['model/child.yml', 'cubes:\n  - name: child\n    extends: base\n    measures:\n      - name: count\n        type: count\n'],
    [
      'model/v.yml',
      'views:\n  - name: v\n    cubes:\n      - join_path: child\n        includes:\n          - name: code\n            alias: the_code\n          - count\n',
    ],
  ]);

  it("a cube's own member, its parent's through extends, a view member on its include (after its alias)", () => {
    const d = new DeclaredMembers(CUBES);
    expect(d.memberAt('child', 'count')).toMatchObject({ file: 'model/child.yml', line: 5, via: 'member' });
    expect(d.memberAt('child', 'code')).toMatchObject({ file: 'model/base.yml', line: 5, via: 'member' });
    expect(d.memberAt('v', 'the_code')).toMatchObject({ file: 'model/v.yml', line: 7, via: 'include' });
    expect(d.memberAt('v', 'code')).toBeUndefined();
    expect(d.includesOf('child', 'count')).toMatchObject([{ file: 'model/v.yml', line: 8 }]);
  });

  it('a line carried across a change: unchanged lines move, a removal lands beside it, a rewrite on its first new line', () => {
    const before = 'a\nb\nc\nd\n';
    expect(carryLine(before, 'x\na\nb\nc\nd\n', 3)).toBe(4);
    expect(carryLine(before, 'a\nc\nd\n', 2)).toBe(2);
    expect(carryLine(before, 'a\nB\nc\nd\n', 2)).toBe(2);
    expect(carryLine(before, 'a\nb\nc\n', 4)).toBe(4);
    expect(carryLine('a\nb', 'a', 2)).toBe(1);
  });
});
