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
import { modelAccess } from '../src/impact/access/chain.js';
import { allOf, policyFilter, rowsOf } from '../src/impact/access/effective.js';
import { rowAccessText } from '../src/impact/access/policy.js';
import { personaSecurityContext, type Persona } from '../src/impact/access/types.js';
import { modelDefinition } from '../src/impact/definition/source.js';
import { ACCESS_SHAPES_MODEL, SHAPE_PERSONAS } from './support/access-shapes.js';
import { ACCESS_MODEL, ACCESS_PERSONAS } from './support/access-model.js';
import { ACCESS_PROJECT_MODEL, PROJECT_PERSONAS } from './support/access-projects.js';

type Access = 'full' | 'masked' | 'hidden' | 'denied';
/** The filter Cube adds to a one-member query, in the files' normal form (`every row` without one). */
type Rows = string;
/** Cube refused the query for this persona (a policy reads an attribute its context lacks): only a probe finds it. */
type Outcome = Access | 'refused';

/** Cube's answer for every member a persona may ask for: hidden from /meta, masked, denied, or full. */
async function cubeAccess(tree: Record<string, string>, persona: Persona, rows = new Map<string, Rows>()): Promise<Map<string, Outcome>> {
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
      // A view member reads its cube member's mask: Cube lists the cube member it stands for (`aliasMember`).
      const alias = (m as { aliasMember?: string }).aliasMember;
      const masked = (q as { maskedMembers?: { member: string }[] }).maskedMembers?.some((x) => x.member === m.name || x.member === alias);
      if (!denied) rows.set(m.name, rowAccessText(rowsOf(allOf((q.filters ?? []).map((f) => policyFilter([f as never], '', {}))))));
      out.set(m.name, denied ? 'denied' : masked ? 'masked' : 'full');
    }
  return out;
}

/** The files' reading of the same members (cubes' primary keys left out: Cube never shows them unless public), and each one's rows. */
function fileAccess(tree: Record<string, string>, persona: Persona): { decided: Map<string, Access>; unknown: string[]; rows: Map<string, Rows> } {
  const def = modelDefinition(new Map(Object.entries(tree).filter(([k]) => k.startsWith('model/'))));
  const decided = new Map<string, Access>();
  const rows = new Map<string, Rows>();
  const unknown: string[] = [];
  for (const [name, c] of def.cubes) {
    const members = [...c.members.values()].filter((m) => m.public && !(m.primaryKey && c.type === 'cube'));
    const a = modelAccess(def, name, persona)!;
    for (const m of members.map((x) => x.name.split('.').pop()!)) {
      const v = a.members.get(m)!;
      const r = a.memberRows.get(m);
      if (v === 'unknown' || !r) {
        unknown.push(`${name}.${m}`);
        continue;
      }
      const none = 'none' in rowsOf(r);
      // No row (no policy of the cube under a view applies): Cube denies the query.
      decided.set(`${name}.${m}`, none && v !== 'hidden' ? 'denied' : v);
      if (!none && v !== 'hidden') rows.set(`${name}.${m}`, rowAccessText(rowsOf(r)));
    }
  }
  return { decided, unknown, rows };
}

async function compare(tree: Record<string, string>, personas: Persona[]) {
  let agreed = 0;
  const differ: string[] = [];
  const refused: string[] = [];
  const rowsDiffer: string[] = [];
  let rowsAgreed = 0;
  for (const p of personas) {
    const cubeRows = new Map<string, Rows>();
    const cube = await cubeAccess(tree, p, cubeRows);
    const files = fileAccess(tree, p);
    for (const [member, said] of files.decided) {
      const is = cube.get(member) ?? 'hidden';
      if (is === 'refused') refused.push(`${p.name} ${member}`);
      else if (said === is) agreed++;
      else differ.push(`${p.name} ${member}: files ${said}, Cube ${is}`);
    }
    // The filter each member's own query gets, where Cube runs it: the files' effective filter must be Cube's.
    for (const [member, said] of files.rows) {
      const is = cubeRows.get(member);
      if (is === undefined) continue;
      if (is === said) rowsAgreed++;
      else rowsDiffer.push(`${p.name} ${member}: files ${said}, Cube ${is}`);
    }
  }
  return { agreed, differ, refused, rowsAgreed, rowsDiffer };
}

describe("the files' reading of access policies agrees with Cube's own code", () => {
  it("on the shapes of Cube's RBAC test models, for 15 personas", async () => {
    const r = await compare(ACCESS_SHAPES_MODEL, SHAPE_PERSONAS);
    expect(r.differ).toEqual([]);
    expect(r.agreed).toBeGreaterThan(300);
    expect(r.rowsDiffer).toEqual([]);
    expect(r.rowsAgreed).toBeGreaterThan(100);
  }, 60_000);

  it('on the access model the other tests use', async () => {
    const personas = ACCESS_PERSONAS.map((p) => ({ name: p.name, groups: p.groups ?? [], securityContext: p.securityContext ?? {} }));
    const r = await compare(ACCESS_MODEL, personas);
    expect(r.differ).toEqual([]);
    expect(r.agreed).toBeGreaterThan(40);
    expect(r.rowsDiffer).toEqual([]);
    expect(r.rowsAgreed).toBeGreaterThan(20);
    // A persona's tokens carry user attributes (none set: `{}`), so a filter on a missing one reads nothing rather than failing.
    expect(r.refused).toEqual([]);
  }, 60_000);

  it('on a project shaped like public ones: masks and row filters through views, or-filters, conditional masks, a JavaScript cube', async () => {
    const r = await compare(ACCESS_PROJECT_MODEL, PROJECT_PERSONAS);
    expect(r.differ).toEqual([]);
    expect(r.rowsDiffer).toEqual([]);
    expect(r.agreed).toBeGreaterThan(100);
    expect(r.rowsAgreed).toBeGreaterThan(60);
    // What the comparison covers, in Cube's own answers: a cube's mask and row filter through views.
    const cubeRows = new Map<string, Rows>();
    const country = await cubeAccess(
      ACCESS_PROJECT_MODEL,
      PROJECT_PERSONAS.find((p) => p.name === 'country-only')!,
      cubeRows,
    );
    expect([country.get('buyer_directory.full_name'), country.get('sales_overview.buyers_full_name')]).toEqual(['masked', 'masked']);
    expect(cubeRows.get('buyer_directory.country')).toBe('rows where buyers.country equals ["Germany"]');
    const manager = await cubeAccess(
      ACCESS_PROJECT_MODEL,
      PROJECT_PERSONAS.find((p) => p.name === 'manager')!,
    );
    expect([manager.get('sales.revenue'), manager.get('sales_overview.revenue')]).toEqual(['masked', 'masked']);
  }, 60_000);

  it('the shapes mean what they say: a union across groups, overlapping policies, masks, conditions', async () => {
    const by = async (name: string) =>
      cubeAccess(
        ACCESS_SHAPES_MODEL,
        SHAPE_PERSONAS.find((p) => p.name === name)!,
      );
    const both = await by('emea-and-apac');
    // Through the view, the cube's mask for everyone reaches the view's members: Cube renders the mask.
    expect([both.get('orders_by_region.status'), both.get('orders_by_region.total_amount')]).toEqual(['masked', 'masked']);
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
    // The view grants big_deals the amount, and the cube under it still masks it for everyone (no policy of the cube gives it in full).
    expect((await by('big-deals')).get('orders_by_size.total_amount')).toBe('masked');
  }, 60_000);
});
