/** The team's key queries checked against the two semantic layers' `/meta` before any of them runs (pure logic). */
import { describe, expect, it } from 'vitest';
import type { MetaDocument } from '../src/impact/base/meta.js';
import type { KeyQuery } from '../src/impact/data/types.js';
import { checkKeyQueryMembers, unknownMembersText } from '../src/impact/data/query-members.js';

const cube = (name: string, members: string[]) => ({
  name,
  type: 'cube' as const,
  members: members.map((m) => ({
    name: `${name}.${m}`,
    kind: m === 'count' ? ('measure' as const) : ('dimension' as const),
    visible: true,
    granularities: [],
  })),
});
const PRODUCTION: MetaDocument = { cubes: [cube('orders', ['count', 'status', 'created_at'])] };
const PREVIEW: MetaDocument = { cubes: [cube('orders', ['count', 'status', 'created_at', 'region'])] };
const q = (name: string, query: KeyQuery['query']): KeyQuery => ({ name, source: 'file', query });

describe('key-query members against /meta', () => {
  it('passes a query whose members production has, unchanged', () => {
    const ok = q('Orders by status', { measures: ['orders.count'], dimensions: ['orders.status'] });
    expect(checkKeyQueryMembers([ok], PRODUCTION, PREVIEW)).toEqual({ queries: [ok], unknown: [], previewOnly: [] });
  });

  it('runs a query naming a member only the preview has on the preview only', () => {
    const r = checkKeyQueryMembers([q('By region', { measures: ['orders.count'], dimensions: ['orders.region'] })], PRODUCTION, PREVIEW);
    expect(r.unknown).toEqual([]);
    expect(r.previewOnly).toEqual([{ query: 'By region', members: ['orders.region'] }]);
    expect(r.queries[0]?.headOnly).toBe(true);
  });

  it('names a typo with the member near it, in a filter or a time dimension too', () => {
    const r = checkKeyQueryMembers(
      [
        q('Typo', { measures: ['orders.cuont'] }),
        q('Filter', { measures: ['orders.count'], filters: [{ member: 'orders.statuz', operator: 'set' }] }),
        q('Time', { measures: ['orders.count'], timeDimensions: [{ dimension: 'orders.created', granularity: 'day' }] }),
      ],
      PRODUCTION,
      PREVIEW,
    );
    expect(r.unknown.map((u) => [u.query, u.member, u.near])).toEqual([
      ['Typo', 'orders.cuont', ['orders.count']],
      ['Filter', 'orders.statuz', ['orders.status']],
      ['Time', 'orders.created', ['orders.created_at']],
    ]);
    expect(unknownMembersText(r.unknown.slice(0, 1))).toBe(
      `key query "Typo" names orders.cuont, which production's semantic layer does not have, nor the preview's (did you mean orders.count?)`,
    );
  });

  it("with no name near: the cube's members, or the cubes near an unknown cube", () => {
    const r = checkKeyQueryMembers([q('Far', { measures: ['orders.lifetime_value_total'] }), q('Cube', { measures: ['ordres.xyz'] })], PRODUCTION, PREVIEW);
    expect(unknownMembersText(r.unknown)).toBe(
      [
        `key query "Far" names orders.lifetime_value_total, which production's semantic layer does not have, nor the preview's (orders has orders.count, orders.status, orders.created_at, orders.region)`,
        `key query "Cube" names ordres.xyz, which production's semantic layer does not have, nor the preview's (no cube or view is named ordres; did you mean orders?)`,
      ].join('; '),
    );
  });
});
