/**
 * The whole layer without sockets (issue 36): the groups a model's policies name (the token of the whole
 * layer carries them), the members its files declare public under a policy (as Cube's visibility patch
 * decides: member_level, member_masking, excludes), the check of each side's reads against them with why a
 * member is out of sight, and how a layer not seen whole is presented: the status, the gate's failure, the
 * summary line, the comment's and the job summary's section, the ledger's bounds and the JSON.
 */
import { describe, expect, it } from 'vitest';
import { checkLayer, declaredUnderPolicy, layerNotice, policyGroups, type LayerCheck } from '../src/impact/access/layer.js';
import { modelDefinition } from '../src/impact/definition/source.js';
import { parseMeta, type MetaDocument } from '../src/impact/base/meta.js';
import { impactSummaryLine, type ImpactResult } from '../src/operations/impact.js';
import { impactView, renderImpact } from '../src/pr/comment/render-impact.js';
import { nextView } from '../src/pr/comment/view.js';
import { presentImpact } from '../src/pr/presenters.js';
import { changeSetJson } from '../src/pr/records.js';
import { ACCESS_MODEL } from './support/access-model.js';
import { renderGfm } from './support/gfm.js';
import { NETWORK_GROUPS, NETWORK_MODEL, PII_CONDITIONED } from './support/network-model.js';

const files = (tree: Record<string, string>) => new Map(Object.entries(tree).filter(([p]) => p.startsWith('model/')));

/** A `/meta` listing these members (full names) as visible, each under its cube or view. */
function meta(members: string[]): MetaDocument {
  const byCube = new Map<string, string[]>();
  for (const m of members) byCube.set(m.split('.')[0]!, [...(byCube.get(m.split('.')[0]!) ?? []), m]);
  return parseMeta({ cubes: [...byCube].map(([name, ms]) => ({ name, type: 'view', dimensions: ms.map((m) => ({ name: m, type: 'string' })) })) }, 'test');
}

/** Every member the network model declares public under a policy, full names. */
const declared = (tree: Record<string, string>) =>
  declaredUnderPolicy(modelDefinition(files(tree))).flatMap((d) => d.members.map((m) => `${d.cube.name}.${m}`));

describe('what the files say', () => {
  it('the groups the policies name, `*` left out, JavaScript models too', () => {
    expect(policyGroups(modelDefinition(files(NETWORK_MODEL)))).toEqual(NETWORK_GROUPS);
    // orders.yml names finance, support, sales and `*`; customers.js (JavaScript) finance and `*`.
    expect(policyGroups(modelDefinition(files(ACCESS_MODEL)))).toEqual(['finance', 'sales', 'support']);
    expect(policyGroups(undefined)).toEqual([]);
  });

  it('the members declared public under a policy: what some policy shows, private cubes and members left out', () => {
    const all = declared(NETWORK_MODEL);
    // Private cubes are not the layer; the views are, each with every member some policy shows.
    expect(all.filter((m) => !/^(attendance_summary|student_roster|staff_directory|staff_pii)\./.test(m))).toEqual([]);
    expect(all.filter((m) => m.startsWith('student_roster.'))).toEqual([
      'student_roster.count_students',
      'student_roster.grade_level',
      'student_roster.school_abbreviation',
      'student_roster.is_ell',
      'student_roster.date_of_birth',
    ]);
    const only = (policy: string) =>
      declared({
        ...NETWORK_MODEL,
        'model/views/staff_pii.yml': NETWORK_MODEL['model/views/staff_pii.yml']!.replace(/ {4}access_policy:[\s\S]*$/, `    access_policy:\n${policy}`),
      }).filter((m) => m.startsWith('staff_pii.'));
    // Excluded by the one policy: no user sees it, so no read can be asked to show it.
    expect(only('      - group: hr\n        member_level:\n          includes: "*"\n          excludes: [salary]\n')).toEqual([
      'staff_pii.department',
      'staff_pii.personal_email',
    ]);
    // A masked member is listed by /meta (its values are the mask).
    expect(only('      - group: hr\n        member_level:\n          includes: [department]\n        member_masking:\n          includes: [salary]\n')).toEqual(
      ['staff_pii.department', 'staff_pii.salary'],
    );
    // A policy with neither list shows every member.
    expect(only('      - group: hr\n')).toEqual(['staff_pii.department', 'staff_pii.personal_email', 'staff_pii.salary']);
  });
});

describe('the check of the reads against the files', () => {
  const net = modelDefinition(files(NETWORK_MODEL));
  const every = declared(NETWORK_MODEL);

  it('whole when every declared member is listed; what is not, per side, with why', () => {
    expect(checkLayer({ production: { def: net, union: meta(every), groups: NETWORK_GROUPS } })).toEqual({
      whole: true,
      groups: { production: NETWORK_GROUPS, preview: [] },
      unseen: [],
    });
    const conditioned = modelDefinition(files(PII_CONDITIONED));
    const seen = every.filter((m) => !m.startsWith('staff_pii.') && m !== 'attendance_summary.count_truants');
    const c = checkLayer(
      {
        production: { def: net, union: meta(every.filter((m) => m !== 'attendance_summary.count_truants')), groups: NETWORK_GROUPS },
        preview: { def: conditioned, union: meta(seen), groups: NETWORK_GROUPS },
      },
      [],
    );
    expect(c.whole).toBe(false);
    expect(c.unseen.map((u) => [u.side, u.member])).toEqual([
      ['production', 'attendance_summary.count_truants'],
      ['preview', 'attendance_summary.count_truants'],
      ['preview', 'staff_pii.department'],
      ['preview', 'staff_pii.personal_email'],
      ['preview', 'staff_pii.salary'],
    ]);
    expect(c.unseen[0]!.why).toBe(
      'granted to group student-data, which the token carried: the groups did not reach the policies on this deployment (docs/api-assumptions.md)',
    );
    expect(c.unseen[2]!.why).toBe(
      'granted only under conditions (group staff-pii if { userAttributes.is_hr }) that a token with every group and no user attributes does not meet',
    );
    // The read with every group failed: said as such.
    const failed = checkLayer({ preview: { def: net, union: meta([]), groups: NETWORK_GROUPS, problem: 'POST … -> 403: admin only' } });
    expect(new Set(failed.unseen.map((u) => u.why))).toEqual(new Set(['the read with every group failed (POST … -> 403: admin only)']));
    expect(layerNotice(c)).toBe(
      'the review could not see the whole semantic layer: 5 members the model files declare public are listed by no /meta read (production: 1 (attendance_summary.count_truants); the preview: 4 (attendance_summary.count_truants, …)), so the breaking changes are not established; why: granted to group student-data, which the token carried: the groups did not reach the policies on this deployment (docs/api-assumptions.md); granted only under conditions (group staff-pii if { userAttributes.is_hr }) that a token with every group and no user attributes does not meet',
    );
    expect(layerNotice({ whole: true, groups: { production: [], preview: [] }, unseen: [] })).toBeUndefined();
  });
});

describe('a layer not seen whole, as the run shows it', () => {
  const layer: LayerCheck = {
    whole: false,
    groups: { production: ['student-data'], preview: ['student-data'] },
    unseen: [
      {
        side: 'production',
        member: 'attendance_summary.count_truants',
        why: 'granted to group student-data, which the token carried: the groups did not reach',
      },
      { side: 'preview', member: 'attendance_summary.`x`|y', why: 'granted to group student-data, which the token carried: the groups did not reach' },
    ],
  };
  const result = (over: Partial<ImpactResult> = {}): ImpactResult => ({
    base: 'main',
    head: 'preview-pr-36',
    changes: { cubes: [], members: [] },
    counts: { breaking: 0, added: 0, changed: 0 },
    affected: [],
    affectedCounts: { report: 0, dashboard: 0, notification: 0 },
    scanned: { report: 2, dashboard: 0, notification: 0 },
    notices: [],
    layer,
    ...over,
  });

  it('status not-established, never compatible; fail-on-breaking fails on it, and says it beside a breaking change', () => {
    expect(presentImpact(result(), false)).toMatchObject({ status: 'not-established', outputs: { 'breaking-count': '0' } });
    expect(presentImpact(result(), false).failure).toBeUndefined();
    expect(presentImpact(result(), true).failure).toBe(
      'preview-pr-36: the review could not see the whole semantic layer (2 members the model files declare public listed by no /meta read, such as attendance_summary.count_truants), so its breaking changes are not established (fail-on-breaking is true)',
    );
    const broken = result({ counts: { breaking: 1, added: 0, changed: 0 } });
    expect(presentImpact(broken, false).status).toBe('breaking');
    expect(presentImpact(broken, true).failure).toMatch(
      /^preview-pr-36 makes 1 breaking change to the semantic layer; and the review could not see .*\(fail-on-breaking is true\)$/,
    );
    const whole = result({ layer: { ...layer, whole: true, unseen: [] } });
    expect(presentImpact(whole, true)).toMatchObject({ status: 'compatible' });
    expect(presentImpact(whole, true).failure).toBeUndefined();
    // Not compared at all: the layer check does not speak.
    expect(presentImpact(result({ unavailable: 'no staging environment' }), false).status).toBe('not-compared');
  });

  it('the summary line leads with it; the comment and the job summary say it before any table, outside text inert', () => {
    expect(impactSummaryLine(result())).toBe(
      'breaking changes not established (2 members the model files declare public out of sight); seen: no member changes; no content affected',
    );
    const view = impactView(result());
    for (const target of ['comment', 'summary'] as const) {
      const md = renderImpact(view, { target }, view).join('\n');
      const html = renderGfm(md);
      expect(html.text).toContain(
        '🛑 Breaking changes not established: the review could not see the whole semantic layer. 2 members the model files declare public are listed by no /meta read (attendance_summary.count_truants on production, attendance_summary.`x`|y): granted to group student-data, which the token carried: the groups did not reach.',
      );
      expect(html.codes).toContain('attendance_summary.`x`|y');
    }
    // The ledger keeps a few examples and reasons, short.
    const many: LayerCheck = {
      ...layer,
      unseen: Array.from({ length: 30 }, (_, i) => ({ side: 'preview' as const, member: `v.m${i}`, why: `${'w'.repeat(400)}${i}` })),
    };
    const kept = nextView(undefined, { headSha: 'a'.repeat(40), runId: 1 }, { state: 'ready', impact: impactView(result({ layer: many })) }).impact!.narrower!;
    expect(kept.total).toBe(30);
    expect(kept.members).toHaveLength(5);
    expect(kept.why).toHaveLength(3);
    expect(kept.why.every((w) => w.length <= 300)).toBe(true);
    // Seen whole: nothing said.
    expect(impactView(result({ layer: { ...layer, whole: true, unseen: [] } })).narrower).toBeUndefined();
  });

  it('the JSON holds the whole check', () => {
    expect(changeSetJson(1, result()).layer).toEqual(layer);
    expect('layer' in changeSetJson(1, result({ layer: undefined }))).toBe(false);
  });
});
