/**
 * A cube's or view's access policies (read from the model files by base/policies.ts) and what they give
 * one persona, as Cube decides it (server-core's CompilerApi): a policy applies when
 * its `group`/`groups` match one of the user's groups (`*` matches everyone; no group and no role: every
 * user) and all its `conditions` hold; a member is visible when an applying policy has no `member_level`
 * or includes it without excluding it; masked when an applying policy's `member_masking` gives it and no
 * applying policy gives it in full on every row (Cube's conditional mask); rows are unfiltered when an
 * applying policy has no `row_level` or `allow_all`, else the applying policies' filters (AND within one,
 * OR across them, each as the persona meets it: effective.ts), and per member the filters of the policies
 * that grant it. Once a cube has a policy, a user no policy applies to sees nothing. What
 * cannot be told without running the model (a condition it cannot read, a `role`) is "unknown".
 */
import type { MemberList, MemberRule, PolicyDef } from '../base/policies.js';
import { evaluateCondition } from './condition.js';
import { allOf, anyOf, policyFilter, rowsOf, type NormalFilter } from './effective.js';
import { personaSecurityContext, type Persona, type RowAccess } from './types.js';

export type { RowAccess } from './types.js';

export type Tri = true | false | 'unknown';

export type MemberAccess = 'full' | 'masked' | 'hidden' | 'unknown';

/** What a cube's or view's policies give one persona. */
export interface EntityAccess {
  /** The cube has policies at all (without any, everyone sees everything). */
  policed: boolean;
  /** Each member's access by short name. */
  members: Map<string, MemberAccess>;
  rows: RowAccess;
  /** Policies that apply, described (`group finance`), for the details. */
  applying: string[];
  /** Why some access is unknown (a condition not evaluated, a role). */
  unknown: string[];
  /** Conditions that read an attribute the persona's context does not set (Cube's reading of them is known). */
  notes: string[];
  /** Groups of the persona that a policy grants by name (not `*`), for the check that groups reach the policies. */
  grantedGroups: string[];
  /** Each member's rows as Cube resolves them per member (the policies that grant it, ORed); absent: not known. */
  memberRows: Map<string, NormalFilter | undefined>;
}

/** How the cube is reached: itself, or through a view (Cube then skips its member rules and keeps its rows). */
export interface Reach {
  /** The cube's name, for its members named in filters. */
  cube?: string;
  viaView?: boolean;
}
export function describePolicy(p: PolicyDef): string {
  const who = p.groups ? `${p.groups.length > 1 ? 'groups' : 'group'} ${p.groups.join(', ')}` : p.role ? `role ${p.role}` : 'every user';
  return p.conditions.length ? `${who} if ${p.conditions.join(' and ')}` : who;
}

/**
 * Does a policy apply to a persona? With why when it is not known, and a note when a condition reads an
 * attribute the persona's context does not set. Cube folds the conditions' values with `&&` and refuses a
 * value that is not true or false, except the first one's: so a lone condition on a missing attribute is
 * a silent "does not apply", while a later one fails the request (unknown here).
 */
export function policyApplies(p: PolicyDef, persona: Persona): { applies: Tri; why?: string; note?: string } {
  let who: Tri;
  if (p.groups) who = p.groups.some((g) => g === '*' || persona.groups.includes(g));
  else if (p.role) who = p.role === '*' ? true : 'unknown';
  else who = true;
  if (who === false) return { applies: false };
  const context = personaSecurityContext(persona);
  let all: unknown = true;
  let note: string | undefined;
  for (const [i, c] of p.conditions.entries()) {
    const r = evaluateCondition(c, context);
    if ('unknown' in r) return { applies: 'unknown', why: r.unknown };
    const missing = r.missing?.length ? ` (${r.missing.join(', ')} not set for ${persona.name})` : '';
    if (typeof r.value !== 'boolean') {
      const gives = `the condition ${JSON.stringify(c)} gives ${JSON.stringify(r.value) ?? 'undefined'}, not true or false${missing}`;
      if (i > 0) return { applies: 'unknown', why: `${gives}: Cube refuses the request` };
      note ??= gives;
    }
    all = i === 0 ? r.value : all && r.value;
  }
  if (!all) return { applies: false, ...(note ? { note: `${note}: the policy does not apply` } : {}) };
  if (who === 'unknown') return { applies: 'unknown', why: `role ${p.role} depends on the deployment's contextToRoles` };
  return { applies: true, ...(note ? { note } : {}) };
}

const lists = (l: MemberList, name: string) => l === '*' || l.includes(name);
const grants = (rule: MemberRule | undefined, name: string) => !rule || (lists(rule.includes, name) && !lists(rule.excludes, name));
/** Cube's reading: a policy without `member_level` gives every member in full. */
const inFull = (p: PolicyDef, name: string) => grants(p.memberLevel, name);
const inMask = (p: PolicyDef, name: string) => !!p.memberMasking && grants(p.memberMasking, name);
const filtersRows = (p: PolicyDef) => !!p.rowLevel && !p.rowLevel.allowAll && p.rowLevel.filters.length > 0;
/** The policies that grant a member (in full or masked); through a view every policy that applies does. */
const granting = (policies: PolicyDef[], name: string, viaView: boolean) =>
  policies.filter((p) => viaView || (!p.memberLevel && !p.memberMasking) || inFull(p, name) || inMask(p, name));

/**
 * One member's access under the policies that apply (`maybe`: those whose applying is unknown), as Cube's
 * applyRowLevelSecurity decides: masked unless a granting policy gives it in full on every row.
 */
function memberAccess(name: string, applying: PolicyDef[], maybe: PolicyDef[], viaView: boolean): MemberAccess {
  if (maybe.some((p) => granting([p], name, viaView).length)) return 'unknown';
  const by = granting(applying, name, viaView);
  if (!by.length) return 'hidden';
  if (by.some((p) => inFull(p, name) && !filtersRows(p))) return 'full';
  return by.some((p) => inMask(p, name)) ? 'masked' : 'full';
}

/** One policy's filters as the persona meets them (every row without `row_level` or with `allow_all`). */
const filterOf = (p: PolicyDef, reach: Reach, persona: Persona): NormalFilter =>
  filtersRows(p) ? policyFilter(p.rowLevel!.raw ?? [], reach.cube ?? '', personaSecurityContext(persona)) : allOf([]);

/** A member's rows: the filters of the policies that grant it, ORed (no policy grants it: no row). */
function memberRows(name: string, applying: PolicyDef[], maybe: PolicyDef[], reach: Reach, persona: Persona): NormalFilter | undefined {
  if (maybe.some((p) => granting([p], name, !!reach.viaView).length)) return undefined;
  return anyOf(granting(applying, name, !!reach.viaView).map((p) => filterOf(p, reach, persona)));
}

/** The rows the applying policies give (see the header), each filter as the persona meets it. */
function rowAccess(applying: PolicyDef[], maybe: PolicyDef[], why: string[], reach: Reach, persona: Persona): RowAccess {
  // Every row from one policy that applies: no other policy can narrow it (Cube ORs the policies).
  if (applying.some((p) => !filtersRows(p))) return { all: true };
  if (maybe.length) return { unknown: why.join('; ') || 'a policy whose conditions were not evaluated' };
  if (!applying.length) return { none: true };
  return rowsOf(anyOf(applying.map((p) => filterOf(p, reach, persona))));
}

/** What a cube's or view's policies give a persona, for each of `members` (short names). */
export function entityAccess(policies: PolicyDef[], members: Iterable<string>, persona: Persona, reach: Reach = {}): EntityAccess {
  const all = [...members];
  if (!policies.length)
    return {
      policed: false,
      members: new Map(all.map((m) => [m, 'full'])),
      rows: { all: true },
      applying: [],
      unknown: [],
      notes: [],
      grantedGroups: [],
      memberRows: new Map(all.map((m) => [m, allOf([])])),
    };
  const applying: PolicyDef[] = [];
  const maybe: PolicyDef[] = [];
  const unknown: string[] = [];
  const notes: string[] = [];
  for (const p of policies) {
    const r = policyApplies(p, persona);
    if (r.note && !notes.includes(r.note)) notes.push(r.note);
    if (r.applies === true) applying.push(p);
    else if (r.applies === 'unknown') {
      maybe.push(p);
      if (r.why && !unknown.includes(r.why)) unknown.push(r.why);
    }
  }
  const grantedGroups = [...new Set(applying.flatMap((p) => (p.groups ?? []).filter((g) => g !== '*' && persona.groups.includes(g))))];
  return {
    policed: true,
    members: new Map(all.map((m) => [m, memberAccess(m, applying, maybe, !!reach.viaView)])),
    rows: rowAccess(applying, maybe, unknown, reach, persona),
    applying: applying.map(describePolicy),
    unknown,
    notes,
    grantedGroups,
    memberRows: new Map(all.map((m) => [m, memberRows(m, applying, maybe, reach, persona)])),
  };
}

/** A row access as one line: `all rows`, `no rows`, `rows where …`, `not known (…)`. */
export function rowAccessText(r: RowAccess): string {
  if ('all' in r) return 'all rows';
  if ('none' in r) return 'no rows (no policy applies)';
  if ('filter' in r) return `rows where ${r.filter}`;
  return `not known (${r.unknown})`;
}
