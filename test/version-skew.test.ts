/**
 * The key table read from Cube's own validators (src/model/cube-keys.json, scripts/cube-model-keys.mjs)
 * and the check on it: the table's shape and what it says of the keys that came late, and each key of a
 * model (YAML or JS) that an older production refuses, with its file and line.
 */
import { describe, expect, it } from 'vitest';
import table from '../src/model/cube-keys.json' with { type: 'json' };
import { readFileSync } from 'node:fs';
import {
  acceptsKey,
  acceptsValue,
  compareVersions,
  coverageOf,
  coverageStatement,
  coveredVersions,
  firstAccepting,
  missingMinors,
} from '../src/model/cube-keys.js';
import { refusedKeys, versionSkew } from '../src/model/version-skew.js';
import { renderCost, type VersionsView } from '../src/pr/comment/render-cost.js';

const versions = coveredVersions();
const newest = versions.at(-1) as string;
/** The first covered version that accepts member masking, as the table says (not a guess of ours). */
const masking = firstAccepting('cube.accessPolicy.*.memberMasking') as string;
/** The covered version just before it. */
const beforeMasking = versions[versions.indexOf(masking) - 1] as string;

describe('the key table', () => {
  it('covers published versions, oldest first, with runs of covered versions for every key and value', () => {
    expect(table.package).toBe('@cubejs-backend/schema-compiler');
    expect(versions.length).toBeGreaterThan(5);
    expect([...versions].sort(compareVersions)).toEqual(versions);
    for (const v of versions) expect(v).toMatch(/^\d+\.\d+\.\d+$/);
    const runs = [...Object.values(table.keys), ...Object.values(table.values).flatMap((byValue) => Object.values(byValue))] as string[][][];
    for (const run of runs.flat()) {
      expect(run).toHaveLength(2);
      expect(versions).toContain(run[0]);
      expect(versions).toContain(run[1]);
      expect(compareVersions(run[0]!, run[1]!)).toBeLessThanOrEqual(0);
    }
  });

  it('holds the basics in every covered version: cubes, measures and their types, joins and their relationships', () => {
    for (const v of versions) {
      for (const key of ['cube.sql', 'cube.measures.*.type', 'cube.dimensions.*.primaryKey', 'cube.joins.*.relationship', 'cube.preAggregations.*.type'])
        expect(acceptsKey(v, key), `${key} in ${v}`).toBe(true);
      expect(acceptsValue(v, 'cube.measures.*.type', 'count')).toBe(true);
    }
  });

  it('member masking and mask: absent before the version that brought them, present in the newest', () => {
    expect(versions).toContain(masking);
    expect(compareVersions(masking, '1.6.0')).toBeGreaterThan(0);
    expect(acceptsKey(beforeMasking, 'cube.accessPolicy.*.memberMasking')).toBe(false);
    expect(acceptsKey(beforeMasking, 'cube.measures.*.mask')).toBe(false);
    expect(acceptsKey(newest, 'cube.accessPolicy.*.memberMasking')).toBe(true);
    expect(acceptsKey(newest, 'view.accessPolicy.*.memberMasking')).toBe(true);
    expect(acceptsKey(newest, 'cube.dimensions.*.mask')).toBe(true);
    // Access policies themselves came in 1.x: the oldest covered version has none.
    expect(acceptsKey(versions[0]!, 'cube.accessPolicy')).toBe(false);
  });

  it('a running version is covered itself, else stands between the nearest covered versions (one side only outside the table)', () => {
    expect(coverageOf(newest)).toEqual({ exact: newest });
    expect(coverageOf(`v${newest}`)).toEqual({ exact: newest });
    const [major, minor, patch] = newest.split('.').map(Number) as [number, number, number];
    expect(coverageOf(`${major}.${minor}.${patch + 7}`)).toEqual({ older: newest });
    expect(coverageOf('0.20.1')).toEqual({ newer: versions[0] });
    // A patch inside a hole of the table: the covered patches on both sides, never read as the older one.
    expect(coverageOf('1.6.30')).toEqual({ older: '1.6.10', newer: '1.6.33' });
    // A minor the table lacks: the neighbours across minors.
    expect(coverageOf('1.4.2')).toEqual({ older: '1.3.40', newer: '1.5.10' });
    expect(coverageOf('latest')).toBeUndefined();
  });
});

const YAML_WITH_MASKING = `cubes:
  - name: orders
    sql_table: orders
    measures:
      - name: count
        type: count
      - name: total
        sql: amount
        type: sum
        mask: 0
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
    access_policy:
      - group: finance
        member_masking:
          includes: "*"
`;

const JS_WITH_MASKING = `cube('payments', {
  sql_table: 'payments',
  measures: {
    total: { sql: 'amount', type: 'sum', mask: 0 },
  },
});
`;

describe("the table's coverage as docs/impact.md states it", () => {
  it('is the statement generated from the table, naming every covered patch and the minors it lacks', () => {
    const statement = coverageStatement();
    for (const v of versions) expect(statement).toContain(v);
    expect(missingMinors()).toEqual(expect.arrayContaining(['1.0', '1.4']));
    const doc = readFileSync(new URL('../docs/impact.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    expect(doc).toContain(statement);
  });
});

describe('the check', () => {
  it('names each key production refuses, with its file and line, and the version that brought it', () => {
    const refused = refusedKeys({ 'model/cubes/orders.yml': YAML_WITH_MASKING, 'model/cubes/payments.js': JS_WITH_MASKING }, beforeMasking);
    expect(refused).toEqual([
      { key: 'orders.measures.total.mask', file: 'model/cubes/orders.yml', line: 10, version: masking },
      { key: 'orders.access_policy[0].member_masking', file: 'model/cubes/orders.yml', line: 18, version: masking },
      { key: 'payments.measures.total.mask', file: 'model/cubes/payments.js', line: 4, version: masking },
    ]);
    expect(refusedKeys({ 'model/cubes/orders.yml': YAML_WITH_MASKING }, masking)).toEqual([]);
  });

  it('refuses the whole access policy on a version before policies, once, not each key under it', () => {
    const refused = refusedKeys({ 'model/cubes/orders.yml': YAML_WITH_MASKING }, versions[0]!);
    expect(refused.map((r) => r.key)).toEqual(['orders.measures.total.mask', 'orders.access_policy']);
  });

  it('names a value production refuses (a measure type), read as YAML or JS spell it; a list item’s name is not a key', () => {
    const agg = firstAccepting('cube.measures.*.type', 'numberAgg') as string;
    const older = versions[versions.indexOf(agg) - 1] as string;
    const yaml = `cubes:\n  - name: a\n    sql_table: a\n    joins:\n      - name: b\n        sql: "1 = 1"\n        relationship: many_to_one\n    measures:\n      - name: n\n        sql: x\n        type: number_agg\n      - name: d\n        sql: x\n        type: count_distinct\n`;
    const js = "cube('c', { sql_table: 'c', measures: { n: { sql: 'x', type: 'numberAgg' } } });\n";
    expect(refusedKeys({ 'model/a.yml': yaml, 'model/c.js': js }, older)).toEqual([
      { key: 'a.measures.n.type', value: 'number_agg', file: 'model/a.yml', line: 11, version: agg },
      { key: 'c.measures.n.type', value: 'numberAgg', file: 'model/c.js', line: 1, version: agg },
    ]);
    expect(refusedKeys({ 'model/a.yml': yaml }, agg)).toEqual([]);
  });

  it('says so when the versions are equal (nothing to check), unknown, or outside the table', () => {
    const files = { 'model/cubes/orders.yml': YAML_WITH_MASKING };
    expect(versionSkew(files, { production: beforeMasking, staging: beforeMasking }).refused).toEqual([]);
    expect(versionSkew(files, { production: beforeMasking, staging: newest }).refused).toHaveLength(2);
    expect(versionSkew(files, { staging: newest })).toMatchObject({ refused: [], unchecked: expect.stringContaining('unknown') });
    expect(versionSkew(files, { production: '0.20.1', staging: newest }).unchecked).toContain('does not cover');
    expect(versionSkew(files, { production: '9.1.0', staging: '9.1.0' })).toEqual({
      production: '9.1.0',
      staging: '9.1.0',
      checkedAgainst: ['9.1.0'],
      refused: [],
      notKnown: [],
    });
  });

  it('a version inside a hole of the table: a key the covered versions around it disagree on is not known, never refused', () => {
    const files = { 'model/cubes/orders.yml': YAML_WITH_MASKING };
    // 1.6.30 lies between beforeMasking (1.6.10) and masking (1.6.33): the table cannot say.
    expect([beforeMasking, masking]).toEqual(['1.6.10', '1.6.33']);
    const skew = versionSkew(files, { production: '1.6.30', staging: newest });
    expect(skew.refused).toEqual([]);
    expect(skew.notKnown.map((k) => k.key)).toEqual(['orders.measures.total.mask', 'orders.access_policy[0].member_masking']);
    expect(skew.notKnownWhy).toContain('the nearest covered versions are 1.6.10 and 1.6.33');
    // A key both covered versions around it refuse is refused: that is no guess (dimension `links` came later).
    const links = firstAccepting('cube.dimensions.*.links') as string;
    expect(compareVersions(links, '1.6.33')).toBeGreaterThan(0);
    const withLinks = YAML_WITH_MASKING.replace(
      '        primary_key: true\n',
      '        primary_key: true\n        links:\n          - label: Order\n            url: "https://x"\n',
    );
    const both = versionSkew({ 'model/cubes/orders.yml': withLinks }, { production: '1.6.30', staging: newest });
    expect(both.refused).toEqual([{ key: 'orders.dimensions.id.links', file: 'model/cubes/orders.yml', line: 16, version: links }]);
    expect(both.notKnown).toHaveLength(2);
  });

  it('without a hold production is checked as its channel’s newest patch; with one as it runs; when the settings do not say, a key only one refuses is not known', () => {
    const files = { 'model/cubes/orders.yml': YAML_WITH_MASKING };
    const automatic = versionSkew(files, { production: beforeMasking, newestPatch: masking, upgrades: 'automatic', staging: newest });
    expect(automatic).toMatchObject({ afterMerge: masking, checkedAgainst: [masking], refused: [], notKnown: [] });
    const held = versionSkew(files, { production: beforeMasking, newestPatch: masking, upgrades: 'held', staging: newest });
    expect(held.afterMerge).toBeUndefined();
    expect(held.refused.map((k) => k.key)).toEqual(['orders.measures.total.mask', 'orders.access_policy[0].member_masking']);
    const unsaid = versionSkew(files, { production: beforeMasking, newestPatch: masking, upgrades: 'not-said', staging: newest });
    expect(unsaid).toMatchObject({ checkedAgainst: [beforeMasking, masking], refused: [] });
    expect(unsaid.notKnown).toHaveLength(2);
    expect(unsaid.notKnownWhy).toContain('do not say whether production holds its version');
    // No newer patch listed while the channel's head is another minor: the newest covered patch of the minor stands in.
    const unlisted = versionSkew(files, { production: beforeMasking, upgrades: 'automatic', channelHead: newest, staging: newest });
    expect(unlisted).toMatchObject({ checkedAgainst: [beforeMasking, '1.6.65'], refused: [] });
    expect(unlisted.notKnown).toHaveLength(2);
    expect(unlisted.notKnownWhy).toContain('shows no patch of 1.6 newer than 1.6.10');
    expect(versionSkew(files, { production: beforeMasking, upgrades: 'held', channelHead: newest, staging: newest }).refused).toHaveLength(2);
    // A key both candidates refuse stays refused: the oldest covered version has no access policies at all.
    const policies = versionSkew(files, { production: versions[0]!, newestPatch: versions[1]!, upgrades: 'not-said', staging: newest });
    expect(policies.refused.map((k) => k.key)).toContain('orders.access_policy');
  });
});

describe('the Cost section', () => {
  const refused = Array.from({ length: 12 }, (_, i) => ({ key: `orders.measures.m${i}.mask`, file: 'model/cubes/orders.yml', line: 10 + i, version: masking }));
  const view = (over: Partial<VersionsView> = {}): VersionsView => ({ production: '1.6.30', staging: newest, refusedTotal: 12, refused, ...over });

  it('says nothing when production runs staging’s Cube and nothing is refused or unknown', () => {
    expect(renderCost({ versions: view({ production: newest, refusedTotal: 0, refused: [] }) }, { target: 'comment' })).toEqual([]);
    expect(renderCost(undefined, { target: 'summary' })).toEqual([]);
  });

  it('names the two versions and the refused keys with their place; the comment shows the first rows, the summary all', () => {
    const comment = renderCost({ versions: view() }, { target: 'comment' }).join('\n');
    expect(comment).toContain('**Cost**');
    expect(comment).toContain(`Production runs Cube \`1.6.30\`, staging \`${newest}\``);
    expect(comment).toContain(`| \`orders.measures.m0.mask\` | \`model/cubes/orders.yml:10\` | \`${masking}\` |`);
    expect(comment).not.toContain('m11.mask');
    expect(comment).toContain('…and 2 more');
    expect(renderCost({ versions: view() }, { target: 'summary' }).join('\n')).toContain('m11.mask');
  });

  it("says the version production moves to at the merge's deploy, and the keys not known as a warning", () => {
    const lines = renderCost(
      {
        versions: view({
          production: '1.6.10',
          afterMerge: '1.6.30',
          refusedTotal: 0,
          refused: [],
          notKnownTotal: 1,
          notKnown: [{ key: 'orders.measures.total.mask', file: 'model/cubes/orders.yml', line: 10, version: masking }],
          notKnownWhy: 'the nearest covered versions are 1.6.10 and 1.6.33',
        }),
      },
      { target: 'comment' },
    ).join('\n');
    expect(lines).toContain("Production runs Cube `1.6.10` now and will run `1.6.30` after the merge's deploy (automatic patch upgrades).");
    expect(lines).toContain('⚠️ 1 key not known to production');
    expect(lines).toContain('`orders.measures.total.mask` (`model/cubes/orders.yml:10`)');
    expect(lines).toContain('1\\.6\\.10 and 1\\.6\\.33');
    expect(lines).not.toContain('❌');
    expect(lines).not.toContain('accepts every key');
  });

  it('keeps outside text inert, says an accepted model and an unchecked one', () => {
    const odd = view({ refusedTotal: 1, refused: [{ key: 'a|b`c', value: 'x|y', file: 'model/x.yml', line: 3, version: masking }] });
    expect(renderCost({ versions: odd }, { target: 'comment' }).join('\n')).toContain('| ``a\\|b`c`` = `x\\|y` |');
    expect(renderCost({ versions: view({ refusedTotal: 0, refused: [] }) }, { target: 'comment' }).join('\n')).toContain("Production's Cube accepts every key");
    const unknown = renderCost(
      { versions: view({ production: undefined, refusedTotal: 0, refused: [], unchecked: 'production’s Cube version is unknown' }) },
      { target: 'comment' },
    );
    expect(unknown.join('\n')).toContain('ℹ️ production’s Cube version is unknown');
  });
});
