/**
 * The doctor's persona-groups check: one persona token minted on production with the groups production's
 * own access policies name (a probe group when none does), its `/meta` read beside the empty context's, so
 * the report says whether groups take effect on this deployment and which claim of the security context
 * its `contextToGroups` reads (`cubeCloud.groups`, the top-level `groups`, or `roles`: a token with the
 * groups at that claim alone tells). The mint's echoed security context is compared with the one sent.
 */
import { messageOf } from '../client/errors.js';
import { everyGroup } from '../impact/access/layer.js';
import { contextDifferences, staticDifference, unreachedOn } from '../impact/access/reach.js';
import { personaSecurityContext } from '../impact/access/types.js';
import type { ModelDefinition } from '../impact/base/model-definition.js';
import { modelDefinition } from '../impact/definition/source.js';
import type { MetaDocument } from '../impact/base/meta.js';
import type { OpContext } from './context.js';
import { mintEchoed } from './data-api.js';
import type { AddCheck } from './doctor-fed.js';
import { groupsOf } from './impact-layer.js';
import { branchModelFiles, environmentMeta, findEnvironments, type EnvironmentRef } from './impact.js';

const NAME = 'persona groups';
/** The group a token carries when no policy names one: it matches nothing, so it can only show the echo. */
export const PROBE_GROUP = 'datamodel-ci-doctor-probe';

/** Each claim a deployment's contextToGroups may read, and the security context that carries the groups there alone. */
const CLAIMS: { claim: string; context: (groups: string[]) => Record<string, unknown> }[] = [
  { claim: 'securityContext.cubeCloud.groups', context: (groups) => ({ cubeCloud: { userAttributes: {}, groups } }) },
  { claim: 'securityContext.groups', context: (groups) => ({ groups, cubeCloud: { userAttributes: {} } }) },
  { claim: 'securityContext.roles', context: (groups) => ({ roles: groups, cubeCloud: { userAttributes: {} } }) },
];

/** `/meta` of production under a token minted with `context`, and where the mint's echo differs from it. */
async function readAs(
  ctx: OpContext,
  env: EnvironmentRef,
  context: Record<string, unknown>,
): Promise<{ meta?: MetaDocument; problem?: string; echo: string[] }> {
  let echo: string[] = [];
  const token = mintEchoed(ctx, env, context, ['meta'], 600).then(({ token, echoed }) => {
    echo = contextDifferences(context, echoed);
    return { token };
  });
  token.catch(() => undefined);
  const read = await environmentMeta(ctx, env, token);
  return { ...(read.meta ? { meta: read.meta } : { problem: read.problem ?? 'not read' }), echo };
}

/** Whether a read as `groups` at one claim differs from the empty context's as the policies say it should. */
function reaches(def: ModelDefinition, empty: MetaDocument, groups: string[], meta: MetaDocument | undefined): boolean {
  return !!meta && !unreachedOn({ side: 'production', empty, reads: [{ persona: everyGroup(groups), meta }], def });
}

/** Whether groups take effect on production, and through which claim; never throws (an abort does). */
export async function groupsCheck(ctx: OpContext, add: AddCheck, deployBranch: string, cliDeploy: boolean): Promise<void> {
  const { production } = await findEnvironments(ctx);
  if (!production) return add(NAME, 'not checked', 'the deployment lists no production environment', '');
  const files = await branchModelFiles(ctx, deployBranch, cliDeploy).catch((e: unknown) => new Error(messageOf(e)));
  const def = files instanceof Error ? undefined : modelDefinition(files);
  const named = files instanceof Error ? [] : (groupsOf(files) ?? []);
  const groups = named.length ? named : [PROBE_GROUP];
  const empty = await environmentMeta(ctx, production);
  const persona = everyGroup(groups);
  const sent = personaSecurityContext(persona);
  const mine = await readAs(ctx, production, sent);
  const list = groups.join(', ');
  const echo = mine.echo.length
    ? `; the mint's echoed security context differs from the one sent at ${mine.echo.slice(0, 4).join(', ')} (the platform rewrote it)`
    : "; the mint's echoed security context is the one sent";
  if (!empty.meta || !mine.meta)
    return add(NAME, 'failed', `production's /meta could not be read (${empty.problem ?? mine.problem})${echo}`, 'the personas are read as they can be');
  const tried = `a persona token with group${groups.length > 1 ? 's' : ''} ${list} (at securityContext.cubeCloud.groups and securityContext.groups)`;
  // With no policy naming a group, or groups that change nothing, the reads cannot tell: not checked, never ok.
  if (!def || !named.length || !staticDifference(def, persona))
    return add(
      NAME,
      'not checked',
      `${tried}: ${files instanceof Error ? `production's files could not be read (${files.message})` : "no access policy of production's model gives a group more or less than the empty context"}, so whether groups take effect cannot be told here${echo}`,
      'calibrates the personas on every review: where their groups do not reach the policies, it says so and fail-on-exposure fails',
    );
  const claims: string[] = [];
  for (const c of CLAIMS) if (reaches(def, empty.meta, groups, (await readAs(ctx, production, c.context(groups))).meta)) claims.push(c.claim);
  const read = claims.length ? `; the deployment reads ${claims.join(' and ')}` : '';
  if (reaches(def, empty.meta, groups, mine.meta))
    return add(
      NAME,
      'ok',
      `${tried}: its /meta differs from the empty context's as production's policies say: groups take effect${read}${echo}`,
      "mints each persona's tokens with its groups at securityContext.cubeCloud.groups and securityContext.groups",
    );
  add(
    NAME,
    'failed',
    `${tried}: its /meta is the empty context's, while production's policies give these groups otherwise: the groups do not reach the policies${read || '; neither at securityContext.roles'}${echo}`,
    claims.length
      ? `reads the personas' groups only where the personas file puts them: add ${claims.map((c) => c.replace('securityContext.', '')).join(', ')} with each persona's groups to its securityContext; until then the review says the groups do not reach the policies and fail-on-exposure fails`
      : "the review will say the personas' groups do not reach the policies, and fail-on-exposure fails: make the deployment's contextToGroups read securityContext.groups or securityContext.cubeCloud.groups, or set the claim it reads in each persona's securityContext",
  );
}
