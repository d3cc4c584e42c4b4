/**
 * The impact's read of each side's whole layer (src/impact/access/layer.ts): `/meta` read again with a
 * data-API token minted under every group the side's own access policies name (production's from the
 * deploy branch's files, the preview's from the pull request's), its groups where deployments read them
 * (`personaSecurityContext`); no mint when no policy of the side names a group. Then what every read of
 * each side lists is checked against the members its files declare public.
 */
import { AbortedError, messageOf } from '../client/errors.js';
import { everyGroup, checkLayer, policyGroups, type LayerCheck, type LayerSide, type WholeSide } from '../impact/access/layer.js';
import { personaSecurityContext } from '../impact/access/types.js';
import type { DefinitionStep } from '../impact/definition/index.js';
import { modelDefinition } from '../impact/definition/source.js';
import type { MetaDocument } from '../impact/base/meta.js';
import type { FileTexts } from '../model/model-files.js';
import type { OpContext } from './context.js';
import { mint } from './data-api.js';
import { environmentMeta, type EnvironmentRef, type MetaRead } from './impact.js';

/** One side's read with every group: the groups (none: no read made), its `/meta`, or why there is none. */
export interface WholeRead {
  groups: string[];
  meta?: MetaDocument;
  problem?: string;
}

/** The groups a side's model files name in their policies (undefined: the files are not known). */
export const groupsOf = (files: FileTexts | undefined): string[] | undefined => (files ? policyGroups(modelDefinition(files)) : undefined);

/**
 * Read an environment's `/meta` as a user of every group in `groups` sees it; undefined when the groups
 * are not known, no read (and no mint) when there are none. A failure is the read's `problem`, never thrown
 * (an abort is). The token is minted through the one mint (masked at once), with no detour to another
 * token: one without the groups would read the empty context's layer again.
 */
export function readWholeLayer(
  ctx: OpContext,
  env: Promise<EnvironmentRef | undefined>,
  groups: Promise<string[] | undefined>,
): Promise<WholeRead | undefined> {
  let named: string[] = [];
  const read = (async (): Promise<WholeRead | undefined> => {
    const known = await groups;
    if (!known) return undefined;
    named = known;
    if (!named.length) return { groups: [] };
    const e = await env.catch(() => undefined);
    if (!e) return { groups: named, problem: 'no environment to read' };
    const token = mint(ctx, e, personaSecurityContext(everyGroup(named)), ['meta'], 600).then((t) => ({ token: t }));
    // environmentMeta awaits it at once; a refusal must not go unhandled meanwhile.
    token.catch(() => undefined);
    const r = await environmentMeta(ctx, e, token);
    return { groups: named, ...(r.meta ? { meta: r.meta } : { problem: r.problem ?? 'not read' }) };
  })().catch((err: unknown): WholeRead => {
    if (err instanceof AbortedError || ctx.signal?.aborted) throw err;
    return { groups: named, problem: messageOf(err) };
  });
  read.catch(() => undefined);
  return read;
}

/** Both sides' reads: production's was started with the impact (its own files' groups); its files not read, it is read with the preview's. */
export async function wholeReads(
  ctx: OpContext,
  base: Promise<WholeRead | undefined>,
  head: Promise<WholeRead | undefined> | undefined,
  production: Promise<EnvironmentRef | undefined>,
): Promise<{ base?: WholeRead; head?: WholeRead }> {
  const h = await head;
  const b = (await base) ?? (h?.groups.length ? await readWholeLayer(ctx, production, Promise.resolve(h.groups)) : undefined);
  return { ...(b ? { base: b } : {}), ...(h ? { head: h } : {}) };
}

/**
 * A side's `/meta` for the empty context, or (that read refused, as Cube refuses a context without
 * `cubeCloud` when a policy's condition reads `userAttributes`) its read with every group in its place, said.
 */
export function standIn(side: string, empty: MetaRead, whole: WholeRead | undefined): MetaRead {
  if (empty.meta || !whole?.meta) return empty;
  const why = `${side}'s /meta could not be read with the empty security context (${empty.problem ?? 'not read'}): compared through its read with every group its policies name`;
  return { meta: whole.meta, notice: [empty.notice, why].filter(Boolean).join('; ') };
}

/** The check of the layer each side's reads showed against its files (none without the pull request's files). */
export function layerCheck(
  models: DefinitionStep['models'],
  whole: { base?: WholeRead; head?: WholeRead },
  unions: { base: MetaDocument; head: MetaDocument },
): LayerCheck | undefined {
  if (!models) return undefined;
  const side = (def: WholeSide['def'], union: MetaDocument, r: WholeRead | undefined): WholeSide => ({
    def,
    union,
    groups: r?.groups ?? [],
    ...(r?.problem ? { problem: r.problem } : {}),
  });
  const sides: Partial<Record<LayerSide, WholeSide>> = { preview: side(models.head, unions.head, whole.head) };
  if (models.base) sides.production = side(models.base, unions.base, whole.base);
  return checkLayer(sides, models.base ? [] : [{ side: 'production', why: "production's model files were not read" }]);
}
