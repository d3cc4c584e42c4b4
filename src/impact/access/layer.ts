/**
 * The whole layer: the model's public members as a user of any group sees them. The impact's default
 * read of `/meta` carries an empty security context, and Cube leaves out of `/meta` every member no
 * applicable policy grants: a model whose cubes and views are granted to groups shows that read nothing
 * of them. So each side is read again with a token carrying every group its own policies name (a group
 * only the other side names grants nothing on this side), and then the members its files declare public
 * under a policy are checked against every read of that side: one that no read lists is out of the
 * review's sight, and the breaking verdict is not established.
 */
import type { CubeDef, ModelDefinition } from '../base/model-definition.js';
import type { MetaDocument } from '../base/meta.js';
import type { MemberList, MemberRule, PolicyDef } from '../base/policies.js';
import { describePolicy, entityAccess } from './policy.js';
import type { Persona } from './types.js';
import { visibleMembers } from './visibility.js';

export type LayerSide = 'production' | 'preview';

/** A member the files declare public under a policy that no read of its side lists, and why it is not seen. */
export interface UnseenMember {
  side: LayerSide;
  member: string;
  why: string;
}

/** The check of the layer the review read against the members the files declare public. */
export interface LayerCheck {
  /** Every member declared public under a policy is listed by some read of its side. */
  whole: boolean;
  /** The groups each side's extra read carried (none: no policy of that side names a group, no extra read). */
  groups: Record<LayerSide, string[]>;
  unseen: UnseenMember[];
  /** Sides whose model files were not read: not checked, and why. */
  unchecked?: { side: LayerSide; why: string }[];
}

/** Every group the model's access policies name (`*` matches everyone: not a group), sorted. */
export function policyGroups(def: ModelDefinition | undefined): string[] {
  const out = new Set<string>();
  for (const c of def?.cubes.values() ?? []) for (const p of c.accessPolicies ?? []) for (const g of p.groups ?? []) if (g !== '*') out.add(g);
  return [...out].sort();
}

/** The user whose token reads the whole layer: every group, no attribute of its own (personaSecurityContext puts the groups where deployments read them). */
export const everyGroup = (groups: readonly string[]): Persona => ({ name: 'every group of the model', groups: [...groups], securityContext: {} });

const lists = (l: MemberList, name: string) => l === '*' || l.includes(name);
const grants = (rule: MemberRule, name: string) => lists(rule.includes, name) && !lists(rule.excludes, name);

/** A policy lists the member when it applies, as Cube's `patchVisibilityByAccessPolicy` decides (masking shows a member too). */
function policyShows(p: PolicyDef, name: string): boolean {
  if (p.memberLevel ? grants(p.memberLevel, name) : !p.memberMasking) return true;
  return !!p.memberMasking && grants(p.memberMasking, name);
}

/** Each cube or view under a policy, with its public members some policy shows to someone (short names). */
export function declaredUnderPolicy(def: ModelDefinition): { cube: CubeDef; members: string[] }[] {
  const out: { cube: CubeDef; members: string[] }[] = [];
  for (const c of [...def.cubes.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    const policies = c.accessPolicies ?? [];
    if (!c.public || !policies.length) continue;
    const members = [...c.members.values()].filter((m) => m.public && policies.some((p) => policyShows(p, m.name))).map((m) => m.name);
    if (members.length) out.push({ cube: c, members });
  }
  return out;
}

/** What the side's whole read was: the groups it carried, or why it was not made. */
export interface WholeSide {
  def: ModelDefinition;
  /** Every read of the side, unioned (the empty context's, the whole read's, the personas'). */
  union: MetaDocument;
  groups: string[];
  /** Why the read with every group gave nothing (not minted, not read). */
  problem?: string;
}

/** Why one member is not seen, from what its policies give a token with every group and no attribute. */
function whyUnseen(c: CubeDef, member: string, side: WholeSide): string {
  if (side.problem) return `the read with every group failed (${side.problem})`;
  const policies = (c.accessPolicies ?? []).filter((p) => policyShows(p, member));
  const plain = policies.filter((p) => !p.conditions.length && p.groups?.some((g) => g !== '*' && side.groups.includes(g)));
  if (plain.length)
    return `granted to ${describePolicy(plain[0]!)}, which the token carried: the groups did not reach the policies on this deployment (docs/api-assumptions.md)`;
  const conditioned = policies.find((p) => p.conditions.length);
  if (conditioned) return `granted only under conditions (${describePolicy(conditioned)}) that a token with every group and no user attributes does not meet`;
  const acc = entityAccess(policies, [member], everyGroup(side.groups));
  if (acc.unknown.length) return `its policies were not all evaluated (${acc.unknown[0]})`;
  return `granted by ${policies.map(describePolicy).join('; ')}, yet no read lists it`;
}

/** The members each side declares public under a policy that none of its reads lists. */
export function checkLayer(sides: Partial<Record<LayerSide, WholeSide>>, unchecked: { side: LayerSide; why: string }[] = []): LayerCheck {
  const unseen: UnseenMember[] = [];
  for (const side of ['production', 'preview'] as const) {
    const s = sides[side];
    if (!s) continue;
    const shown = visibleMembers(s.union);
    for (const { cube, members } of declaredUnderPolicy(s.def)) {
      for (const m of members) {
        const full = `${cube.name}.${m}`;
        if (!shown.get(cube.name)?.has(full)) unseen.push({ side, member: full, why: whyUnseen(cube, m, s) });
      }
    }
  }
  return {
    whole: !unseen.length,
    groups: { production: sides.production?.groups ?? [], preview: sides.preview?.groups ?? [] },
    unseen,
    ...(unchecked.length ? { unchecked } : {}),
  };
}

const SIDE: Record<LayerSide, string> = { production: 'production', preview: 'the preview' };

/**
 * The notice of a layer not seen whole: how many members, an example of each side, and why (each reason
 * once). Never said alone: the breaking verdict is not established.
 */
export function layerNotice(c: LayerCheck): string | undefined {
  if (c.whole) return undefined;
  const examples = (['production', 'preview'] as const).flatMap((side) => {
    const of = c.unseen.filter((u) => u.side === side);
    return of.length ? [`${SIDE[side]}: ${of.length} (${of[0]!.member}${of.length > 1 ? ', …' : ''})`] : [];
  });
  const whys = [...new Set(c.unseen.map((u) => u.why))];
  const n = c.unseen.length;
  return (
    `the review could not see the whole semantic layer: ${n} ${n === 1 ? 'member' : 'members'} the model files declare public ${n === 1 ? 'is' : 'are'} listed by no /meta read ` +
    `(${examples.join('; ')}), so the breaking changes are not established; why: ${whys.slice(0, 3).join('; ')}${whys.length > 3 ? ` and ${whys.length - 3} more reasons` : ''}`
  );
}
