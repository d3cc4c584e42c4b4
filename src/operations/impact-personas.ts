/**
 * The impact's reads per persona and the comparison they feed: each persona's `/meta` of production (read
 * from the start, beside the upload) and of the preview (beside the preview's own read), with tokens minted
 * under the persona's security context, a few at a time; a read that fails is a notice, never the whole
 * impact. The member diff then compares the union of each side's reads (src/impact/access/visibility.ts),
 * and the access review says who gains or loses what (src/impact/access/review.ts).
 */
import { AbortedError, messageOf } from '../client/errors.js';
import { DEFAULTS } from '../defaults.js';
import type { ContentItem } from '../impact/base/affected.js';
import { reviewAccess, type PersonaMetas } from '../impact/access/review.js';
import { personaSecurityContext, type AccessOutcome, type Persona } from '../impact/access/types.js';
import { contextDifferences, groupsReach, unreachedText } from '../impact/access/reach.js';
import { explainedNotices, unionMeta, withoutPolicyEffects } from '../impact/access/visibility.js';
import type { DefinitionStep } from '../impact/definition/index.js';
import { diffMeta, type ChangeSet } from '../impact/base/diff.js';
import { withoutEngineDifferences } from '../impact/engine-version.js';
import type { ModelDefinition } from '../impact/base/model-definition.js';
import type { MetaDocument } from '../impact/base/meta.js';
import { mapLimit } from '../model/local-model.js';
import type { OpContext } from './context.js';
import { mintEchoed } from './data-api.js';
import { environmentMeta, type EnvironmentRef, type MetaRead, type MetaToken } from './impact.js';

/** One persona's `/meta` of one environment. */
export interface PersonaRead {
  persona: Persona;
  read: MetaRead;
  /** Where the security context the mint echoed differs from the one sent (paths; none: the same). */
  echoDiffers?: string[];
}

/**
 * A data-API token carrying the persona's security context. No detour to another token: one minted
 * otherwise would read another user's view, not the persona's.
 */
async function personaToken(ctx: OpContext, env: EnvironmentRef, persona: Persona, echo: (paths: string[]) => void): Promise<MetaToken> {
  const sent = personaSecurityContext(persona);
  const { token, echoed } = await mintEchoed(ctx, env, sent, ['meta'], 600);
  echo(contextDifferences(sent, echoed));
  return { token };
}

/** Every persona's `/meta` of one environment (none without personas); a failure is that persona's `problem`. */
export function readPersonaMetas(ctx: OpContext, env: Promise<EnvironmentRef | undefined>, personas: readonly Persona[]): Promise<PersonaRead[]> {
  if (!personas.length) return Promise.resolve([]);
  const reads = mapLimit(personas, DEFAULTS.accessMetaConcurrency, async (persona): Promise<PersonaRead> => {
    const e = await env.catch(() => undefined);
    if (!e) return { persona, read: { problem: 'no environment to read' } };
    let echoDiffers: string[] = [];
    const token = personaToken(ctx, e, persona, (paths) => (echoDiffers = paths));
    // environmentMeta awaits it at once; a refusal must not go unhandled meanwhile.
    token.catch(() => undefined);
    const read = await environmentMeta(ctx, e, token).catch((err: unknown) => {
      if (err instanceof AbortedError || ctx.signal?.aborted) throw err;
      return { problem: messageOf(err) };
    });
    return { persona, read, ...(echoDiffers.length ? { echoDiffers } : {}) };
  });
  reads.catch(() => undefined);
  return reads;
}

/** Each persona's two reads side by side (in the personas' order). */
function pair(personas: readonly Persona[], base: PersonaRead[], head: PersonaRead[]): PersonaMetas[] {
  return personas.map((persona) => {
    const b = base.find((r) => r.persona === persona)?.read;
    const h = head.find((r) => r.persona === persona)?.read;
    const problems = [b?.problem && `production: ${b.problem}`, h?.problem && `the preview: ${h.problem}`].filter(Boolean);
    return {
      persona,
      ...(b?.meta ? { base: b.meta } : {}),
      ...(h?.meta ? { head: h.meta } : {}),
      ...(problems.length ? { problem: problems.join('; ') } : {}),
    };
  });
}

/**
 * Calibrate the personas on each side (every cube and view, those the pull request touches too): where every
 * persona's /meta lists what the empty context's lists while that side's policies say otherwise, their groups
 * did not reach the policies, and no persona's change is fact (changes and lost content dropped, said instead).
 * A mint whose echoed security context differs from the one sent is said too.
 */
function calibrate(
  access: AccessOutcome,
  reads: { base: PersonaRead[]; head: PersonaRead[] },
  empty: { base?: MetaDocument; head?: MetaDocument },
  models: DefinitionStep['models'],
): void {
  const echoed = [...reads.base, ...reads.head].filter((r) => r.echoDiffers?.length);
  if (echoed.length) {
    // One line for every persona: the platform rewrites each token alike.
    const who = [...new Set(echoed.map((r) => r.persona.name))];
    const paths = [...new Set(echoed.flatMap((r) => r.echoDiffers!))];
    access.notices.push(
      `${who.length === 1 ? 'persona' : 'personas'} ${who.slice(0, 5).join(', ')}${who.length > 5 ? ' and more' : ''}: the platform's token carries another security context than the one sent (it differs at ${paths.slice(0, 4).join(', ')}${paths.length > 4 ? ' and more' : ''}): what reaches the policies is the platform's`,
    );
  }
  const side = (s: 'production' | 'preview', rs: PersonaRead[], e: MetaDocument | undefined, def: ModelDefinition | undefined) => ({
    side: s,
    empty: e,
    reads: rs.filter((r) => r.read.meta).map((r) => ({ persona: r.persona, meta: r.read.meta! })),
    def,
  });
  const unreached = groupsReach(
    [side('production', reads.base, empty.base, models?.base), side('preview', reads.head, empty.head, models?.head)],
    echoed.length > 0,
  );
  if (!unreached) return;
  access.groupsUnreached = unreached;
  access.notices.unshift(`${unreachedText(unreached)}; the personas' changes are not reported`);
  access.changes = [];
  access.lost = [];
}

/** The member diff of the two layers and the access review, from every read of each side. */
export interface LayerComparison {
  changes: ChangeSet;
  access: AccessOutcome;
  /** Each side's reads unioned: the layer the diff compared. */
  unions: { base: MetaDocument; head: MetaDocument };
}

/**
 * Compare the two sides: the union of the empty context's read, the whole layer's (every group the side's
 * policies name, where read: src/operations/impact-layer.ts) and the reads of each persona read on both
 * sides (one persona's read on one side only would make its members look removed or added); what a policy
 * explains is taken out of the member diff and said in the access review instead.
 */
export async function compareLayers(
  base: MetaDocument,
  head: MetaDocument,
  personas: { list: readonly Persona[]; base?: Promise<PersonaRead[]>; head?: Promise<PersonaRead[]> },
  defs: DefinitionStep,
  content: ContentItem[],
  whole: { base?: MetaDocument; head?: MetaDocument } = {},
  empty: { base?: MetaDocument; head?: MetaDocument } = { base, head },
): Promise<LayerComparison> {
  const [b, h] = await Promise.all([personas.base ?? Promise.resolve([]), personas.head ?? Promise.resolve([])]);
  const reads = pair(personas.list, b, h);
  const both = reads.filter((r) => r.base && r.head);
  // A whole read on one side only is safe: a member its policies still grant is taken out below (withoutPolicyEffects).
  const baseUnion = unionMeta([base, ...(whole.base ? [whole.base] : []), ...both.map((r) => r.base!)]);
  const headUnion = unionMeta([head, ...(whole.head ? [whole.head] : []), ...both.map((r) => r.head!)]);
  // Staging may run a newer Cube than production: what only the versions explain is not a change.
  const changes = withoutEngineDifferences(diffMeta(baseUnion, headUnion, defs.metaOptions));
  const explained = withoutPolicyEffects(changes, defs.models ?? {});
  const access = reviewAccess({
    personas: [...personas.list],
    reads,
    baseUnion,
    headUnion,
    ...(defs.models?.base ? { defs: { base: defs.models.base, head: defs.models.head } } : {}),
    content,
  });
  access.notices.unshift(...explainedNotices(explained, both.length, !!(whole.base || whole.head)));
  calibrate(access, { base: b, head: h }, empty, defs.models);
  // The change set carries the access review only when it ran (personas read); the policy targets are always in `access`.
  if (personas.list.length) changes.access = access.changes;
  // What the persona probes need: the personas whole, and the policy targets as any read listed them.
  const probed = new Set([...access.policyTargets, ...(access.reachedViews ?? [])]);
  const targetMeta = [...headUnion.cubes, ...baseUnion.cubes].filter((c) => probed.has(c.name));
  return {
    changes,
    access: { ...access, ...(personas.list.length ? { personaDefinitions: [...personas.list] } : {}), targetMeta },
    unions: { base: baseUnion, head: headUnion },
  };
}
