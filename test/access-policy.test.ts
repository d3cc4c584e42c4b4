/**
 * Access policies read from the model files and evaluated per persona without running the model: group
 * matching, conditions on the security context (unknown when they cannot be read, never guessed),
 * member level, masking and the row filter; and the personas file's checks.
 */
import { describe, expect, it } from 'vitest';
import { evaluateCondition } from '../src/impact/access/condition.js';
import { entityAccess, rowAccessText } from '../src/impact/access/policy.js';
import type { PolicyDef } from '../src/impact/base/policies.js';
import { personaSecurityContext, type Persona } from '../src/impact/access/types.js';
import { modelDefinition } from '../src/impact/definition/source.js';
import { parsePersonas } from '../src/personas-input.js';

const persona = (name: string, groups: string[], securityContext: Record<string, unknown> = {}): Persona => ({ name, groups, securityContext });
const MEMBERS = ['id', 'status', 'amount', 'email'];

function policiesOf(yaml: string, cube = 'orders'): PolicyDef[] {
  const files = new Map([['model/cubes/orders.yml', yaml]]);
  return modelDefinition(files).cubes.get(cube)?.accessPolicies ?? [];
}

const ORDERS = `cubes:
  - name: orders
    sql_table: orders
    dimensions:
      - { name: id, sql: id, type: number, primary_key: true, public: true }
      - { name: status, sql: status, type: string }
      - { name: email, sql: email, type: string }
    measures:
      - { name: amount, sql: amount, type: sum }
    access_policy:
`;

describe('access policies, per persona', () => {
  it('reads YAML access_policy: groups, member level, masking, row level and conditions', () => {
    const p = policiesOf(
      ORDERS +
        `      - group: finance
        member_level: { includes: "*", excludes: [email] }
        row_level:
          filters:
            - { member: status, operator: equals, values: [paid] }
      - groups: [support, ops]
        member_masking: { includes: [email] }
        member_level: { includes: [id, status] }
        conditions:
          - if: "{ securityContext.region == 'EU' }"
`,
    );
    expect(p).toHaveLength(2);
    expect(p[0]).toMatchObject({ groups: ['finance'], memberLevel: { includes: '*', excludes: ['email'] }, rowLevel: { allowAll: false } });
    expect(p[0]!.rowLevel!.filters[0]).toContain('paid');
    expect(p[1]).toMatchObject({ groups: ['support', 'ops'], memberMasking: { includes: ['email'] }, conditions: ["{ securityContext.region == 'EU' }"] });
  });

  it('reads JS accessPolicy the same way', () => {
    const js = `cube('orders', { sql_table: 'orders', dimensions: { status: { sql: 'status', type: 'string' } },
      accessPolicy: [{ group: 'finance', memberLevel: { includes: ['status'] }, rowLevel: { allowAll: true },
        conditions: [{ if: securityContext.is_full_time }] }] });`;
    const p = modelDefinition(new Map([['model/cubes/orders.js', js]])).cubes.get('orders')!.accessPolicies!;
    expect(p[0]).toMatchObject({ groups: ['finance'], memberLevel: { includes: ['status'], excludes: [] }, rowLevel: { allowAll: true } });
    expect(p[0]!.conditions[0]).toContain('securityContext.is_full_time');
  });

  it('gives members by group: includes minus excludes, union over the policies that apply; nothing to a persona no policy applies to', () => {
    const p = policiesOf(
      ORDERS +
        `      - group: finance
        member_level: { includes: "*", excludes: [email] }
      - group: crm
        member_level: { includes: [email] }
`,
    );
    const both = entityAccess(p, MEMBERS, persona('both', ['finance', 'crm']));
    expect([...both.members.values()]).toEqual(['full', 'full', 'full', 'full']);
    const fin = entityAccess(p, MEMBERS, persona('fin', ['finance']));
    expect(fin.members.get('email')).toBe('hidden');
    expect(fin.members.get('amount')).toBe('full');
    expect(fin.grantedGroups).toEqual(['finance']);
    const nobody = entityAccess(p, MEMBERS, persona('nobody', ['marketing']));
    expect([...nobody.members.values()].every((a) => a === 'hidden')).toBe(true);
    expect(nobody.rows).toEqual({ none: true });
    // No policy at all: open to everyone.
    expect(entityAccess([], MEMBERS, persona('x', [])).members.get('email')).toBe('full');
  });

  it('masks what only member_masking gives; "*" matches every persona, groups or not', () => {
    const p = policiesOf(
      ORDERS +
        `      - group: "*"
        member_level: { includes: [id, status] }
        member_masking: { includes: "*" }
`,
    );
    const a = entityAccess(p, MEMBERS, persona('guest', []));
    expect(a.members.get('status')).toBe('full');
    expect(a.members.get('email')).toBe('masked');
    expect(a.grantedGroups).toEqual([]);
  });

  it('rows: allow_all or no row_level is every row; filters AND within a policy, OR across policies', () => {
    const p = policiesOf(
      ORDERS +
        `      - group: eu
        row_level:
          filters:
            - { member: country, operator: equals, values: [DE] }
            - { member: status, operator: equals, values: [paid] }
      - group: us
        row_level:
          filters:
            - { member: country, operator: equals, values: [US] }
      - group: admin
        row_level: { allow_all: true }
`,
    );
    const eu = entityAccess(p, MEMBERS, persona('eu', ['eu']));
    expect('filter' in eu.rows && eu.rows.filter.split(' AND ')).toHaveLength(2);
    const euUs = entityAccess(p, MEMBERS, persona('eu-us', ['eu', 'us'])).rows;
    expect('filter' in euUs && euUs.filter).toBe('(country equals ["DE"] AND status equals ["paid"]) OR country equals ["US"]');
    expect(entityAccess(p, MEMBERS, persona('adm', ['admin', 'eu'])).rows).toEqual({ all: true });
    expect(rowAccessText({ none: true })).toContain('no rows');
  });

  it('rows as the persona meets them: an equivalent rewrite reads the same, a renamed attribute the same where its value stays', () => {
    const rows = (policy: string, who: Persona) => entityAccess(policiesOf(ORDERS + policy), MEMBERS, who, { cube: 'orders' }).rows;
    const before = `      - group: eu
        row_level:
          filters:
            - { member: status, operator: equals, values: [paid, open] }
            - { member: email, operator: notEquals, values: ["{ userAttributes.blocked }"] }
`;
    // Reordered, as an \`and\`, the member with its cube, the values reordered, \`groups\`, and the policy split in two for the same group.
    const rewritten = `      - groups: [eu]
        row_level:
          filters:
            - and:
                - { member: "{CUBE}.email", operator: notEquals, values: ["{ userAttributes.blocked }"] }
                - { member: orders.status, operator: equals, values: [open, paid] }
      - group: eu
        row_level:
          filters:
            - { member: orders.email, operator: notEquals, values: ["{ userAttributes.blocked }"] }
            - { member: status, operator: equals, values: [paid, open] }
`;
    const renamed = before.replace('userAttributes.blocked', 'securityContext.blocked');
    const same = persona('same', ['eu'], { blocked: 'x@y', cubeCloud: { userAttributes: { blocked: 'x@y' } } });
    const other = persona('other', ['eu'], { blocked: 'a@b', cubeCloud: { userAttributes: { blocked: 'x@y' } } });
    expect(rows(rewritten, same)).toEqual(rows(before, same));
    expect(rows(before, same)).toEqual({ filter: 'orders.email notEquals ["x@y"] AND orders.status equals ["open", "paid"]' });
    expect(rows(renamed, same)).toEqual(rows(before, same));
    expect(rows(renamed, other)).not.toEqual(rows(before, other));
    // A value it cannot evaluate stays as written: a change of its text is still a change.
    expect(rows(before.replace('{ userAttributes.blocked }', '{ lookup(securityContext.id) }'), same)).toEqual({
      filter: 'orders.email notEquals ["as written: { lookup(securityContext.id) }"] AND orders.status equals ["open", "paid"]',
    });
  });

  it('conditions on security-context attributes decide; one it cannot read is unknown, never guessed', () => {
    const p = policiesOf(
      ORDERS +
        `      - group: "*"
        member_level: { includes: "*" }
        conditions:
          - if: "{ securityContext.is_full_time_employee }"
          - if: "{ securityContext.region === 'EU' && !securityContext.contractor }"
`,
    );
    expect(entityAccess(p, MEMBERS, persona('ft', [], { is_full_time_employee: true, region: 'EU' })).members.get('amount')).toBe('full');
    expect(entityAccess(p, MEMBERS, persona('us', [], { is_full_time_employee: true, region: 'US' })).members.get('amount')).toBe('hidden');
    // A lone condition on a missing attribute: Cube reads it as "does not apply" (a silent deny), said in a note.
    const p1 = policiesOf(ORDERS + `      - group: "*"\n        conditions:\n          - if: "{ securityContext.is_manager }"\n`);
    const missing = entityAccess(p1, MEMBERS, persona('none', [], {}));
    expect(missing.members.get('amount')).toBe('hidden');
    expect(missing.notes[0]).toContain('securityContext.is_manager not set for none): the policy does not apply');
    // A later condition that is not true or false: Cube refuses the request, unknown here.
    const later = entityAccess(p, MEMBERS, persona('ft', [], { is_full_time_employee: true }));
    expect(later.members.get('amount')).toBe('hidden');
    const odd = policiesOf(
      ORDERS + `      - group: "*"\n        conditions:\n          - if: "{ securityContext.a }"\n          - if: "{ securityContext.b }"\n`,
    );
    expect(entityAccess(odd, MEMBERS, persona('ab', [], { a: true })).unknown[0]).toContain('Cube refuses the request');
    const unread = policiesOf(ORDERS + `      - group: "*"\n        conditions:\n          - if: "{ lookup(securityContext.id) }"\n`);
    const r = entityAccess(unread, MEMBERS, persona('p', [], { id: 1 }));
    expect(r.members.get('status')).toBe('unknown');
    expect(r.unknown[0]).toContain('was not evaluated');
  });

  it('evaluates the small expressions teams write, and says which attributes are missing', () => {
    const ctx = { region: 'EU', level: 3, teams: ['a', 'b'], cubeCloud: { groups: ['x'] } };
    expect(evaluateCondition("{ securityContext.teams.includes('b') }", ctx)).toEqual({ value: true });
    expect(evaluateCondition('{ securityContext.level >= 2 || securityContext.region != "EU" }', ctx)).toEqual({ value: true });
    expect(evaluateCondition("securityContext['cubeCloud'].groups.includes('y')", ctx)).toEqual({ value: false });
    expect(evaluateCondition('(securityContext) => securityContext.level < 2', ctx)).toEqual({ value: false });
    expect(evaluateCondition('{ securityContext.tier === "gold" }', ctx)).toEqual({ value: false, missing: ['securityContext.tier'] });
    expect(evaluateCondition('{ process.env.X }', ctx)).toHaveProperty('unknown');
  });
});

describe('the personas file', () => {
  const bad = (text: string) => {
    try {
      parsePersonas(text, 'personas.yml');
    } catch (e) {
      return (e as Error).message;
    }
    return 'no error';
  };

  it('reads YAML and JSON', () => {
    expect(parsePersonas('personas:\n  - name: analyst\n    groups: [finance]\n    securityContext: { region: EU }\n', 'p.yml')).toEqual([
      { name: 'analyst', groups: ['finance'], securityContext: { region: 'EU' } },
    ]);
    expect(parsePersonas('{"personas":[{"name":"guest"}]}', 'p.json')).toEqual([{ name: 'guest', groups: [], securityContext: {} }]);
  });

  it("takes a persona's groups from wherever it names them, the same list at every place; its token carries them at both claims", () => {
    const [own] = parsePersonas('personas:\n  - name: a\n    securityContext: { region: EU, cubeCloud: { groups: [finance] } }\n', 'p.yml');
    expect(own!.groups).toEqual(['finance']);
    // An absent top-level `groups` never overwrites the persona's own cubeCloud.groups.
    expect(personaSecurityContext(own!)).toEqual({ region: 'EU', groups: ['finance'], cubeCloud: { userAttributes: {}, groups: ['finance'] } });
    const [top] = parsePersonas('personas:\n  - name: b\n    securityContext: { groups: [sales] }\n', 'p.yml');
    expect(personaSecurityContext(top!)).toMatchObject({ groups: ['sales'], cubeCloud: { groups: ['sales'] } });
    const [same] = parsePersonas('personas:\n  - name: c\n    groups: [x, y]\n    securityContext: { cubeCloud: { groups: [y, x] } }\n', 'p.yml');
    expect(same!.groups).toEqual(['x', 'y']);
    // A persona made in code (not from the file) merges its places.
    expect(personaSecurityContext({ name: 'd', groups: ['a'], securityContext: { cubeCloud: { groups: ['b'], userAttributes: { c: 1 } } } })).toEqual({
      groups: ['a', 'b'],
      cubeCloud: { userAttributes: { c: 1 }, groups: ['a', 'b'] },
    });
  });

  it.each([
    ['personas: [', 'personas: got "personas.yml", expected a YAML or JSON file'],
    ['people: []', 'expected a YAML or JSON file holding { personas:'],
    ['personas: []', 'at least one persona'],
    ['personas:\n  - groups: [a]', 'personas[0].name is a non-empty one-line string'],
    ['personas:\n  - name: a\n  - name: a', '(personas[1].name "a" is used twice)'],
    ['personas:\n  - name: a\n    groups: finance', 'personas[0].groups is a list of group names'],
    ['personas:\n  - name: a\n    groups: [1]', 'personas[0].groups is a list of group names'],
    ['personas:\n  - name: a\n    securityContext: [x]', 'personas[0].securityContext is a map'],
    ['personas:\n  - name: a\n    role: admin', 'has only name, groups and securityContext (it has "role")'],
    [`personas:\n${Array.from({ length: 21 }, (_, i) => `  - name: p${i}`).join('\n')}`, 'at most 20 personas (the file has 21)'],
    [
      'personas:\n  - name: a\n    groups: [finance]\n    securityContext: { cubeCloud: { groups: [admin] } }',
      'personas[0] names its groups once, or the same groups wherever it names them (personas[0].groups is ["finance"], personas[0].securityContext.cubeCloud.groups is ["admin"])',
    ],
    [
      'personas:\n  - name: a\n    securityContext: { groups: [finance], cubeCloud: { groups: [finance, admin] } }',
      '(personas[0].securityContext.groups is ["finance"], personas[0].securityContext.cubeCloud.groups is ["finance","admin"])',
    ],
    ['personas:\n  - name: a\n    securityContext: { groups: finance }', 'personas[0].securityContext.groups is a list of group names'],
    ['personas:\n  - name: a\n    securityContext: { cubeCloud: [x] }', 'personas[0].securityContext.cubeCloud is a map'],
  ])('refuses %j', (text, says) => {
    expect(bad(text)).toContain(says);
  });
});
