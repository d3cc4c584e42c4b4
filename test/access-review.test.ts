/**
 * The comparison of the two layers with access policies, without sockets: each side is the union of its
 * `/meta` reads (the empty context's and each persona's); a policy change is never reported as members
 * removed (with or without personas); per persona, what it loses or gains, what is masked, and the saved
 * content it loses; a persona whose groups do not reach production's policies is said, not reported.
 */
import { describe, expect, it } from 'vitest';
import { reportContent } from '../src/impact/base/affected.js';
import { contextDifferences } from '../src/impact/access/reach.js';
import type { Persona } from '../src/impact/access/types.js';
import { unionMeta } from '../src/impact/access/visibility.js';
import { definitionsFor } from '../src/impact/definition/index.js';
import type { MetaDocument } from '../src/impact/base/meta.js';
import { parseMeta } from '../src/impact/base/meta.js';
import { compareLayers, type PersonaRead } from '../src/operations/impact-personas.js';

const finance: Persona = { name: 'finance analyst', groups: ['finance'], securityContext: {} };
const marketing: Persona = { name: 'marketer', groups: ['marketing'], securityContext: {} };

const CUBE = `cubes:
  - name: orders
    sql_table: orders
    dimensions:
      - { name: id, sql: id, type: number, primary_key: true }
      - { name: status, sql: status, type: string }
    measures:
      - { name: amount, sql: amount, type: sum }
      - { name: count, type: count }
`;
const view = (policy = '', extra = '') => `views:
  - name: orders_view
    cubes:
      - join_path: orders
        includes: [status, amount, count${extra}]
${policy}`;
const FINANCE_ONLY = `    access_policy:
      - group: finance
        member_level: { includes: "*" }
`;

/** A `/meta` body: each cube or view with its members (`-name`: listed but not visible, as Cube lists a member a policy hides). */
function meta(cubes: Record<string, string[]>): MetaDocument {
  return parseMeta(
    {
      cubes: Object.entries(cubes).map(([name, members]) => ({
        name,
        type: name.endsWith('_view') ? 'view' : 'cube',
        measures: members
          .filter((m) => /amount|count/.test(m))
          .map((m) => ({ name: `${name}.${m.replace('-', '')}`, type: 'number', isVisible: !m.startsWith('-'), public: !m.startsWith('-') })),
        dimensions: members
          .filter((m) => !/amount|count/.test(m))
          .map((m) => ({ name: `${name}.${m.replace('-', '')}`, type: 'string', isVisible: !m.startsWith('-'), public: !m.startsWith('-') })),
      })),
    },
    'test',
  );
}

const files = (viewText: string) =>
  new Map([
    ['model/cubes/orders.yml', CUBE],
    ['model/views/orders_view.yml', viewText],
  ]);
const reads = (list: [Persona, MetaDocument][]): Promise<PersonaRead[]> => Promise.resolve(list.map(([persona, m]) => ({ persona, read: { meta: m } })));
const report = reportContent({
  id: 7,
  name: 'Revenue by status',
  jsonQuery: JSON.stringify({ measures: ['orders_view.amount'], dimensions: ['orders_view.status'] }),
});

const OPEN = { orders: ['status', 'amount', 'count'], orders_view: ['status', 'amount', 'count'] };
const GUARDED = { orders: ['status', 'amount', 'count'], orders_view: ['-status', '-amount', '-count'] };

describe('a policy-only pull request', () => {
  it('without personas: no member removed, no content broken; the access review names the policy', async () => {
    const defs = await definitionsFor(Promise.resolve(files(view())), files(view(FINANCE_ONLY)));
    const r = await compareLayers(meta(OPEN), meta(GUARDED), { list: [] }, defs, [report]);
    expect(r.changes.members.filter((m) => m.breaking)).toEqual([]);
    expect(r.changes.cubes.filter((c) => c.change === 'removed')).toEqual([]);
    expect(r.access.policyTargets).toEqual(['orders_view']);
    expect(r.changes.access).toBeUndefined();
    expect(r.access.notices.join('\n')).toContain('view orders_view: amount, count, status no longer listed');
    expect(r.access.notices.join('\n')).toContain('touches the access policy of orders_view (added)');
    // Production's files unread: the pull request's alone still tell the policy's hiding from a removal.
    const headOnly = await definitionsFor(Promise.resolve({ problem: 'not readable' }), files(view(FINANCE_ONLY)));
    const blind = await compareLayers(meta(OPEN), meta(GUARDED), { list: [] }, headOnly, [report]);
    expect(blind.changes.members.filter((m) => m.breaking)).toEqual([]);
    // A view Cube leaves out of /meta altogether (no member visible) is not removed either.
    const gone = await compareLayers(meta(OPEN), meta({ orders: OPEN.orders }), { list: [] }, defs, [report]);
    expect(gone.changes.members.filter((m) => m.breaking)).toEqual([]);
    expect(gone.changes.cubes).toEqual([]);
  });

  it('with personas: hidden for the persona no policy applies to, nothing for the one it grants; the content it loses', async () => {
    const defs = await definitionsFor(Promise.resolve(files(view())), files(view(FINANCE_ONLY)));
    const personas = {
      list: [finance, marketing],
      base: reads([
        [finance, meta(OPEN)],
        [marketing, meta(OPEN)],
      ]),
      head: reads([
        [finance, meta(OPEN)],
        [marketing, meta(GUARDED)],
      ]),
    };
    const r = await compareLayers(meta(OPEN), meta(GUARDED), personas, defs, [report]);
    expect(r.changes.members.filter((m) => m.breaking)).toEqual([]);
    expect(r.access.changes).toEqual([
      expect.objectContaining({
        persona: 'marketer',
        target: 'orders_view',
        change: 'hidden',
        detail: expect.stringContaining('no policy applies to it on the preview'),
      }),
    ]);
    expect(r.changes.access).toBe(r.access.changes);
    expect(r.access.lost).toEqual([
      { persona: 'marketer', kind: 'report', id: 7, name: 'Revenue by status', members: ['orders_view.amount', 'orders_view.status'] },
    ]);
    expect(r.access.rowFilters).toMatchObject([
      { persona: 'finance analyst', target: 'orders_view', production: { all: true }, preview: { all: true } },
      { persona: 'marketer', target: 'orders_view', production: { all: true }, preview: { none: true } },
    ]);
    expect(r.access.rowFilters![1]!.members!['orders_view.amount']).toEqual({ production: { all: true }, preview: { none: true } });
  });

  it('exposed: a policy removed shows the view to a persona it hid it from, and no member is "added"', async () => {
    const defs = await definitionsFor(Promise.resolve(files(view(FINANCE_ONLY))), files(view()));
    const personas = { list: [marketing], base: reads([[marketing, meta(GUARDED)]]), head: reads([[marketing, meta(OPEN)]]) };
    const r = await compareLayers(meta(GUARDED), meta(OPEN), personas, defs, []);
    expect(r.changes.members.filter((m) => m.change === 'added')).toEqual([]);
    expect(r.access.changes).toEqual([expect.objectContaining({ persona: 'marketer', target: 'orders_view', change: 'exposed' })]);
  });
});

describe('a view guarded by group policies', () => {
  it('its breaking change is reported, found through the persona that can see it (the empty context sees nothing on either side)', async () => {
    const defs = await definitionsFor(Promise.resolve(files(view(FINANCE_ONLY))), files(view(FINANCE_ONLY).replace('count]', ']')));
    const personas = {
      list: [finance],
      base: reads([[finance, meta(OPEN)]]),
      head: reads([[finance, meta({ orders: OPEN.orders, orders_view: ['status', 'amount'] })]]),
    };
    const r = await compareLayers(meta(GUARDED), meta({ orders: OPEN.orders, orders_view: ['-status', '-amount'] }), personas, defs, []);
    expect(r.changes.members.filter((m) => m.breaking).map((m) => [m.member, m.change])).toEqual([['orders_view.count', 'removed']]);
    expect(r.access.changes).toEqual([]);
    // Without the persona, the same change is invisible: the view is hidden on both sides.
    const blind = await compareLayers(meta(GUARDED), meta({ orders: OPEN.orders, orders_view: ['-status', '-amount'] }), { list: [] }, defs, []);
    expect(blind.changes.members.filter((m) => m.breaking)).toEqual([]);
  });

  it("a persona whose group production's /meta does not honour is a notice, its changes not reported as fact", async () => {
    const defs = await definitionsFor(Promise.resolve(files(view(FINANCE_ONLY))), files(view(FINANCE_ONLY)));
    const personas = { list: [finance], base: reads([[finance, meta(GUARDED)]]), head: reads([[finance, meta(GUARDED)]]) };
    const r = await compareLayers(meta(GUARDED), meta(GUARDED), personas, defs, []);
    expect(r.access.notices.join('\n')).toContain("persona finance analyst: production's /meta hides view orders_view (granted to group finance)");
    expect(r.access.changes).toEqual([]);
  });
});

describe('masking, per persona', () => {
  it('masked and unmasked come from the policies, where /meta shows the member on both sides', async () => {
    const full = `    access_policy:\n      - group: finance\n        member_level: { includes: "*" }\n`;
    const masked = `    access_policy:\n      - group: finance\n        member_level: { includes: [status, count] }\n        member_masking: { includes: "*" }\n`;
    const defs = await definitionsFor(Promise.resolve(files(view(full))), files(view(masked)));
    const personas = { list: [finance], base: reads([[finance, meta(OPEN)]]), head: reads([[finance, meta(OPEN)]]) };
    const r = await compareLayers(meta(GUARDED), meta(GUARDED), personas, defs, []);
    expect(r.access.changes).toEqual([expect.objectContaining({ persona: 'finance analyst', target: 'orders_view.amount', change: 'masked' })]);
    const back = await definitionsFor(Promise.resolve(files(view(masked))), files(view(full)));
    const r2 = await compareLayers(meta(GUARDED), meta(GUARDED), personas, back, []);
    expect(r2.access.changes).toEqual([expect.objectContaining({ target: 'orders_view.amount', change: 'unmasked' })]);
  });
});

describe('the union of reads', () => {
  it('a member visible in any read is visible in the union; a persona read on one side only is left out of it', async () => {
    const u = unionMeta([meta(GUARDED), meta({ orders_view: ['status'] })]);
    expect(
      u.cubes
        .find((c) => c.name === 'orders_view')!
        .members.filter((m) => m.visible)
        .map((m) => m.name),
    ).toEqual(['orders_view.status']);
    const defs = await definitionsFor(Promise.resolve(files(view(FINANCE_ONLY))), files(view(FINANCE_ONLY)));
    const personas = {
      list: [finance],
      base: reads([[finance, meta(OPEN)]]),
      head: Promise.resolve([{ persona: finance, read: { problem: 'refused' } }]),
    };
    const r = await compareLayers(meta(GUARDED), meta(GUARDED), personas, defs, []);
    expect(r.changes.members).toEqual([]);
    expect(r.access.notices.join('\n')).toContain('persona finance analyst: not compared (the preview: refused)');
  });
});

describe('a cube or view the pull request adds under a policy', () => {
  it('is said with the personas that see it and those that do not; one added without a policy is not', async () => {
    const baseFiles = new Map([['model/cubes/orders.yml', CUBE]]);
    const defs = await definitionsFor(Promise.resolve(baseFiles), files(view(FINANCE_ONLY)));
    const base = meta({ orders: OPEN.orders });
    const personas = {
      list: [finance, marketing],
      base: reads([
        [finance, base],
        [marketing, base],
      ]),
      head: reads([
        [finance, meta(OPEN)],
        [marketing, meta({ orders: OPEN.orders })],
      ]),
    };
    const r = await compareLayers(base, meta(OPEN), personas, defs, []);
    expect(r.access.newGuarded).toEqual([{ target: 'orders_view', seenBy: ['finance analyst'] }]);
    const open = await definitionsFor(Promise.resolve(baseFiles), files(view()));
    expect((await compareLayers(base, meta(OPEN), personas, open, [])).access.newGuarded).toBeUndefined();
  });
});

describe("calibration: do the personas' groups reach the policies (every target, the touched ones too)", () => {
  it('every persona reading as the empty context where the policy grants finance the view: said, no change reported; a persona no policy names is no evidence', async () => {
    const defs = await definitionsFor(Promise.resolve(files(view())), files(view(FINANCE_ONLY)));
    // The marketer alone reads as the empty context, as the policy says it should: nothing to say.
    const alone = await compareLayers(
      meta(OPEN),
      meta(GUARDED),
      { list: [marketing], base: reads([[marketing, meta(OPEN)]]), head: reads([[marketing, meta(GUARDED)]]) },
      defs,
      [report],
    );
    expect(alone.access.groupsUnreached).toBeUndefined();
    expect(alone.access.changes.map((c) => [c.persona, c.change])).toEqual([['marketer', 'hidden']]);
    // Finance reads as the empty context too, where its group's policy gives it the view: the groups did not reach.
    const both = await compareLayers(
      meta(OPEN),
      meta(GUARDED),
      {
        list: [finance, marketing],
        base: reads([
          [finance, meta(OPEN)],
          [marketing, meta(OPEN)],
        ]),
        head: Promise.resolve([
          { persona: finance, read: { meta: meta(GUARDED) }, echoDiffers: ['cubeCloud.groups'] },
          { persona: marketing, read: { meta: meta(GUARDED) } },
        ]),
      },
      defs,
      [report],
    );
    expect(both.access.groupsUnreached).toMatchObject({ sides: ['preview'] });
    expect(both.access.groupsUnreached!.evidence[0]).toContain('given to finance analyst by the policies, hidden from the empty context');
    expect(both.access.groupsUnreached!.remedy).toContain('the echoed security_context differs');
    expect(both.access.changes).toEqual([]);
    expect(both.changes.access).toEqual([]);
    expect(both.access.lost).toEqual([]);
    expect(both.access.notices).toContainEqual(
      expect.stringContaining(
        "persona finance analyst: the platform's token carries another security context than the one sent (it differs at cubeCloud.groups)",
      ),
    );
  });

  it('the echo compared path by path, values never shown', () => {
    const sent = { groups: ['a'], region: 'EU', cubeCloud: { userAttributes: {}, groups: ['a'] } };
    expect(contextDifferences(sent, structuredClone(sent))).toEqual([]);
    expect(contextDifferences(sent, undefined)).toEqual([]);
    expect(contextDifferences(sent, { groups: ['a'], region: 'EU', cubeCloud: {} })).toEqual(['cubeCloud.userAttributes', 'cubeCloud.groups']);
    expect(contextDifferences(sent, { groups: ['b'], cubeCloud: sent.cubeCloud, extra: 1 })).toEqual(['groups', 'region', 'extra']);
  });
});
