/**
 * A cube's or view's access policies as the model files write them (YAML `access_policy`, JS `accessPolicy`),
 * read into `PolicyDef`s: the groups, role, member rules, row filters and conditions of each entry. Shared
 * below the facets because the model definition carries each cube's policies; what they give one persona
 * is the access facet's (access/policy.ts).
 */
import { canon, field, isCode, isMap, type Raw, type RawMap } from './model-definition.js';

/** A member list of a policy: every member (`*`), or these short names. */
export type MemberList = '*' | string[];

export interface MemberRule {
  includes: MemberList;
  excludes: string[];
}

/** One entry of an `access_policy` list, as written. */
export interface PolicyDef {
  /** Groups it names (`group` or `groups`); absent when it names none. */
  groups?: string[];
  /** A `role` (older models): whether a user holds it is the deployment's `contextToRoles`, not known here. */
  role?: string;
  memberLevel?: MemberRule;
  memberMasking?: MemberRule;
  /** Absent: every row. */
  rowLevel?: { allowAll: boolean; filters: string[]; raw?: Raw[] };
  /** Each condition's `if`, as source text. */
  conditions: string[];
}

const text = (v: Raw | undefined): string | undefined =>
  typeof v === 'string' || typeof v === 'number' ? String(v).trim() : isCode(v) ? v.code.trim() : undefined;

/** `orders.status` and `status` name the same member of `orders`. */
const short = (name: string) => name.slice(name.lastIndexOf('.') + 1);

function memberList(v: Raw | undefined): MemberList | undefined {
  if (v === undefined || v === null) return undefined;
  if (text(v) === '*') return '*';
  if (Array.isArray(v)) {
    if (v.some((x) => text(x) === '*')) return '*';
    return v.flatMap((x) => (text(x) ? [short(text(x)!)] : []));
  }
  const one = text(v);
  return one ? [short(one)] : [];
}

function memberRule(v: Raw | undefined): MemberRule | undefined {
  if (!isMap(v)) return undefined;
  const excludes = memberList(field(v, 'excludes'));
  // Only excludes: the rest of the members are included (as the compiler reads it).
  return { includes: memberList(field(v, 'includes')) ?? '*', excludes: excludes === '*' ? ['*'] : (excludes ?? []) };
}

function names(v: Raw | undefined): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  const list = Array.isArray(v) ? v : [v];
  return list.flatMap((x) => (text(x) ? [text(x)!] : []));
}

/** The policies of one cube or view from its `access_policy` value (none when it has none). */
export function readPolicies(raw: Raw | undefined): PolicyDef[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter(isMap).map((p: RawMap) => {
    const out: PolicyDef = { conditions: [] };
    const groups = names(field(p, 'group')) ?? names(field(p, 'groups'));
    if (groups) out.groups = groups;
    const role = text(field(p, 'role'));
    if (role) out.role = role;
    const ml = memberRule(field(p, 'memberLevel'));
    if (ml) out.memberLevel = ml;
    const mm = memberRule(field(p, 'memberMasking'));
    if (mm) out.memberMasking = mm;
    const rl = field(p, 'rowLevel');
    if (isMap(rl)) {
      const filters = field(rl, 'filters');
      const allow = field(rl, 'allowAll');
      const list = Array.isArray(filters) ? filters : [];
      out.rowLevel = { allowAll: allow === true || allow === 'true', filters: list.map((f) => canon(f) ?? ''), raw: list };
    }
    const conds = field(p, 'conditions');
    for (const c of Array.isArray(conds) ? conds.filter(isMap) : []) {
      const t = text(field(c, 'if'));
      if (t !== undefined) out.conditions.push(t);
    }
    return out;
  });
}
