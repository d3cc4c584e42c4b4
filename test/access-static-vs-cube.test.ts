/**
 * The toolkit reads access policies from the model files to say what a persona reads masked and whether
 * its groups reach the policies; Cube decides it at run time. Here both read the same models: for every
 * persona, every member of every cube and view, the files' reading (src/impact/access/policy.ts) must
 * agree with Cube's own CompilerApi (in the emulator: what its /meta shows, what a one-member query
 * masks or denies) wherever the files' reading decides. The models are the shapes of Cube's own RBAC
 * test models (test/support/access-shapes.ts) and the access model the other tests use.
 */
import { describe, expect, it } from 'vitest';
import { applyPolicies, policyMeta } from '../packages/emulator/src/engine/access.js';
import { visibleCubes } from '../packages/emulator/src/engine/meta.js';
import { compileTree } from '../packages/emulator/src/engine/model.js';
import { normalizeQuery } from '../packages/emulator/src/engine/query.js';
import { entityAccess } from '../src/impact/access/policy.js';
import { personaSecurityContext, type Persona } from '../src/impact/access/types.js';
import { modelDefinition } from '../src/impact/definition/source.js';
import { ACCESS_SHAPES_MODEL, SHAPE_PERSONAS } from './support/access-shapes.js';
import { ACCESS_MODEL, ACCESS_PERSONAS } from './support/access-model.js';

type Access = 'full' | 'masked' | 'hidden' | 'denied';
/** Cube refused the query for this persona (a policy reads an attribute its context lacks): only a probe finds it. */
type Outcome = Access | 'refused';

/** Cube's answer for every member a persona may ask for: hidden from /meta, masked, denied, or full. */
async function cubeAccess(tree: Record<string, string>, persona: Persona): Promise<Map<string, Outcome>> {
  const compiled = await compileTree(Object.fromEntries(Object.entries(tree).map(([k, v]) => [k, Buffer.from(v).toString('base64')])));
  const compilers = compiled.compilers!;
  const access = { securityContext: personaSecurityContext(persona), groupsFrom: 'cubeCloud.groups' as const };
  const shown = visibleCubes(compilers, await policyMeta(compilers, access));
  const out = new Map<string, Outcome>();
  for (const c of shown)
    for (const m of [...c.measures, ...c.dimensions]) {
      const kind = c.measures.includes(m) ? 'measures' : 'dimensions';
      const q = await applyPolicies(compilers, normalizeQuery({ [kind]: [m.name] }, Date.now()), access).catch(() => undefined);
      if (!q) {
        out.set(m.name, 'refused');
        continue;
      }
      const denied = (q.segments as unknown[] | undefined)?.some((s) => (s as { name?: string }).name === 'rlsAccessDenied');
      const masked = (q as { maskedMembers?: { member: string }[] }).maskedMembers?.some((x) => x.member === m.name);
      out.set(m.name, denied ? 'denied' : masked ? 'masked' : 'full');
    }
  return out;
}

/** The files' reading of the same members (cubes' primary keys left out: Cube never shows them unless public). */
function fileAccess(tree: Record<string, string>, persona: Persona): { decided: Map<string, Access>; unknown: string[] } {
  const def = modelDefinition(new Map(Object.entries(tree).filter(([k]) => k.startsWith('model/'))));
  const decided = new Map<string, Access>();
  const unknown: string[] = [];
  const rowsOf = (cube: string) => {
    const c = def.cubes.get(cube);
    return c ? entityAccess(c.accessPolicies ?? [], [], persona).rows : { all: true as const };
  };
  for (const [name, c] of def.cubes) {
    const members = [...c.members.values()].filter((m) => m.public && !(m.primaryKey && c.type === 'cube'));
    const short = members.map((m) => m.name.split('.').pop()!);
    const a = entityAccess(c.accessPolicies ?? [], short, persona);
    for (const [i, m] of short.entries()) {
      const v = a.members.get(m)!;
      // Through a view Cube skips the cube's member rules but keeps its rows: no cube policy for the persona is a deny.
      const cubeRows = c.type === 'view' && members[i]!.alias ? rowsOf(members[i]!.alias.split('.')[0]!) : { all: true as const };
      if (v === 'unknown') unknown.push(`${name}.${m}`);
      else decided.set(`${name}.${m}`, ('none' in a.rows || 'none' in cubeRows) && v !== 'hidden' ? 'denied' : v);
    }
  }
  return { decided, unknown };
}

async function compare(tree: Record<string, string>, personas: Persona[]) {
  let agreed = 0;
  const differ: string[] = [];
  const refused: string[] = [];
  for (const p of personas) {
    const cube = await cubeAccess(tree, p);
    const files = fileAccess(tree, p);
    for (const [member, said] of files.decided) {
      const is = cube.get(member) ?? 'hidden';
      if (is === 'refused') refused.push(`${p.name} ${member}`);
      else if (said === is) agreed++;
      else differ.push(`${p.name} ${member}: files ${said}, Cube ${is}`);
    }
  }
  return { agreed, differ, refused };
}

describe("the files' reading of access policies agrees with Cube's own code", () => {
  it("on the shapes of Cube's RBAC test models, for 15 personas", async () => {
    const r = await compare(ACCESS_SHAPES_MODEL, SHAPE_PERSONAS);
    expect(r.differ).toEqual([]);
    expect(r.agreed).toBeGreaterThan(300);
  }, 60_000);

  it('on the access model the other tests use', async () => {
    const personas = ACCESS_PERSONAS.map((p) => ({ name: p.name, groups: p.groups ?? [], securityContext: p.securityContext ?? {} }));
    const r = await compare(ACCESS_MODEL, personas);
    expect(r.differ).toEqual([]);
    expect(r.agreed).toBeGreaterThan(40);
    // A persona's tokens carry user attributes (none set: `{}`), so a filter on a missing one reads nothing rather than failing.
    expect(r.refused).toEqual([]);
  }, 60_000);

  it('the shapes mean what they say: a union across groups, overlapping policies, masks, conditions', async () => {
    const by = async (name: string) =>
      cubeAccess(
        ACCESS_SHAPES_MODEL,
        SHAPE_PERSONAS.find((p) => p.name === name)!,
      );
    const both = await by('emea-and-apac');
    expect([both.get('orders_by_region.status'), both.get('orders_by_region.total_amount')]).toEqual(['full', 'full']);
    const emea = await by('emea');
    expect(emea.get('orders_by_region.total_amount')).toBeUndefined();
    const nobody = await by('nobody');
    expect([nobody.get('shop_orders.total_amount'), nobody.get('customers_view.name'), nobody.get('customers_view.country')]).toEqual([
      'masked',
      'masked',
      'full',
    ]);
    expect(nobody.get('audited_customers.country')).toBeUndefined();
    expect((await by('auditor')).get('audited_customers.country')).toBe('full');
    expect((await by('support')).get('shop_orders.status')).toBe('full');
    expect((await by('support')).get('shop_orders.total_amount')).toBe('masked');
    expect((await by('big-deals')).get('orders_by_size.total_amount')).toBe('full');
  }, 60_000);
});
