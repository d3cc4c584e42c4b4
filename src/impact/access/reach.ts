/**
 * Do the personas' groups reach the policies? Calibrated on each side against its own model (production's
 * reads against the base model's policies, the preview's against the head's), every cube and view included,
 * those the pull request touches too: where every persona's `/meta` lists what the empty context's lists
 * while the side's policies say some persona should see otherwise, the groups (and attributes) the tokens
 * carry did not reach the policies, and no persona's change is fact. The echoed security context of the
 * personas' mints, where it differs from the one sent, says why.
 */
import type { ModelDefinition } from '../base/model-definition.js';
import type { MetaDocument } from '../base/meta.js';
import { entityAccess } from './policy.js';
import type { Persona } from './types.js';
import { visibleMembers } from './visibility.js';

export type ReachSide = 'production' | 'preview';

/** The personas' groups did not reach the policies: on which sides, the evidence, and what to set. */
export interface GroupsUnreached {
  sides: ReachSide[];
  /** One example per side: a member a persona's policies give otherwise than the empty context's, yet its /meta reads alike. */
  evidence: string[];
  /** What the team sets so they reach (the claim its deployment reads). */
  remedy: string;
}

/** One side: the empty context's read, each persona's read, and the side's model. */
export interface ReachInput {
  side: ReachSide;
  empty: MetaDocument | undefined;
  reads: { persona: Persona; meta: MetaDocument }[];
  def: ModelDefinition | undefined;
}

/** The user of the empty context's read: no group, no attribute. */
const EMPTY: Persona = { name: 'the empty security context', groups: [], securityContext: {} };

const seen = (a: string | undefined) => a === 'full' || a === 'masked';

/** A member whose visibility the side's policies give the persona otherwise than the empty context (undefined: none, or not known). */
export function staticDifference(def: ModelDefinition, persona: Persona): string | undefined {
  for (const c of def.cubes.values()) {
    const policies = c.accessPolicies ?? [];
    if (!c.public || !policies.length) continue;
    const members = [...c.members.values()].filter((m) => m.public).map((m) => m.name);
    const mine = entityAccess(policies, members, persona).members;
    const empty = entityAccess(policies, members, EMPTY).members;
    for (const m of members) {
      const a = mine.get(m);
      const b = empty.get(m);
      if (a === 'unknown' || b === 'unknown' || seen(a) === seen(b)) continue;
      return `${c.name}.${m} (${seen(a) ? 'given to' : 'hidden from'} ${persona.name} by the policies, ${seen(b) ? 'given to' : 'hidden from'} the empty context)`;
    }
  }
  return undefined;
}

const sameLayer = (a: MetaDocument, b: MetaDocument): boolean => {
  const x = visibleMembers(a);
  const y = visibleMembers(b);
  if (x.size !== y.size) return false;
  for (const [cube, members] of x) {
    const other = y.get(cube);
    if (!other || other.size !== members.size || [...members].some((m) => !other.has(m))) return false;
  }
  return true;
};

/** The side's verdict: the evidence that the personas' groups did not reach its policies (undefined: they did, or it cannot tell). */
export function unreachedOn(input: ReachInput): string | undefined {
  const { empty, reads, def } = input;
  if (!empty || !def || !reads.length) return undefined;
  if (!reads.every((r) => sameLayer(r.meta, empty))) return undefined;
  for (const r of reads) {
    const d = staticDifference(def, r.persona);
    if (d) return `${input.side === 'production' ? 'production' : 'the preview'}: every persona's /meta lists what the empty context's lists, yet ${d}`;
  }
  return undefined;
}

/** What to set, from what the mints echoed (a context the platform rewrote says where the groups went). */
export function reachRemedy(echoDiffers: boolean): string {
  const claims =
    "the persona tokens carry each persona's groups at securityContext.cubeCloud.groups and at the top-level securityContext.groups: make the deployment's contextToGroups read one of them, or put the claim it reads (such as roles) in each persona's securityContext in the personas file";
  return echoDiffers
    ? `the platform rewrote the security context the tokens were minted with (the echoed security_context differs), so cubeCloud.groups never reaches the policies; ${claims}`
    : claims;
}

/** Both sides' verdicts together (undefined when the groups reached, or no side can tell). */
export function groupsReach(sides: ReachInput[], echoDiffers: boolean): GroupsUnreached | undefined {
  const found = sides.map((s) => ({ side: s.side, why: unreachedOn(s) })).filter((x): x is { side: ReachSide; why: string } => !!x.why);
  if (!found.length) return undefined;
  return { sides: found.map((f) => f.side), evidence: found.map((f) => f.why), remedy: reachRemedy(echoDiffers) };
}

/** The line the review says it with (the section's head, the notices, the check). */
export function unreachedText(u: GroupsUnreached): string {
  const where = u.sides.length === 2 ? 'on production and on the preview' : u.sides[0] === 'production' ? 'on production' : 'on the preview';
  return `the personas' groups do not reach the policies on this deployment (${where}): ${u.evidence[0]}; to fix: ${u.remedy}`;
}

/**
 * Where the echoed security context differs from the one sent: each path that differs (`cubeCloud.groups`),
 * none when equal or not echoed. Values are not shown: only the keys.
 */
export function contextDifferences(sent: Record<string, unknown>, echoed: unknown, at = ''): string[] {
  if (echoed === undefined) return [];
  const isMap = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
  if (!isMap(echoed)) return [at || '(the whole context)'];
  const out: string[] = [];
  for (const k of new Set([...Object.keys(sent), ...Object.keys(echoed)])) {
    const path = at ? `${at}.${k}` : k;
    const a = sent[k];
    const b = echoed[k];
    if (isMap(a) && isMap(b)) out.push(...contextDifferences(a, b, path));
    else if (JSON.stringify(a) !== JSON.stringify(b)) out.push(path);
  }
  return out;
}
