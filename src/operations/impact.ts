/**
 * impact: what a pull request changes in the semantic layer, and which content it breaks. The deploy branch's
 * `/meta` (production) and the pull request's (its staging environment) are read with a data-API token minted
 * for each environment, else the deployment's (see `metaToken`), and once more as a user of every group the
 * side's access policies name (impact-layer.ts: the whole layer, checked against the files); reports,
 * workbooks and notifications are paged through (impact-content.ts). What cannot be read becomes a notice,
 * never a failure.
 *
 * The work is split so the PR lifecycle can overlap it with the upload: `startImpact` reads what does not
 * depend on the pull request (production's `/meta`, the content); `environmentMeta` one environment's; `finishImpact` compares.
 */
import { AbortedError, isHtml, PlatformError, messageOf } from '../client/errors.js';
import { HttpClient } from '../client/http.js';
import { collect } from '../client/pagination.js';
import { DEFAULTS } from '../defaults.js';
import { affectedContent, breaksContent, countContent, type AffectedItem, type ContentCounts, type ContentItem } from '../impact/base/affected.js';
import { layerNotice, type LayerCheck } from '../impact/access/layer.js';
import type { AccessOutcome, Persona } from '../impact/access/types.js';
import { countChanges, type ChangeCounts, type ChangeSet } from '../impact/base/diff.js';
import { parseMeta, type MetaDocument } from '../impact/base/meta.js';
import { layerOfReads } from '../impact/layer-digest.js';
import { definitionsFor, type DefinitionOutcome } from '../impact/definition/index.js';
import { modelHasRollups } from '../impact/rollups/outcome.js';
import { rollupPairs, type RollupPair } from '../impact/rollups/definitions.js';
import { flattenSourceTree } from '../impact/definition/files.js';
import { modelFilesOf, type FileTexts } from '../model/model-files.js';
import { plural } from '../report/plural.js';
import type { OpContext } from './context.js';
import { dataApiClient } from './data-api.js';
import { findEnvironments, metaToken, type EnvironmentRef, type MetaToken } from './impact-environments.js';
import type { EnableStagingResult } from './enable-staging.js';
import { scanContent, type ContentScan } from './impact-content.js';
import { groupsOf, layerCheck, readWholeLayer, standIn, wholeReads, type WholeRead } from './impact-layer.js';
import { compareLayers, readPersonaMetas, type PersonaRead } from './impact-personas.js';

export { scanContent, type ContentScan } from './impact-content.js';
export { findEnvironments, metaToken, type EnvironmentRef, type MetaToken } from './impact-environments.js';

/** One environment's `/meta`, or why it could not be read. */
export interface MetaRead {
  meta?: MetaDocument;
  problem?: string;
  /** Said when the read took a detour (another token than the environment's own). */
  notice?: string;
}

export interface ImpactResult {
  /** The deploy branch (production) and the pull request's branch (its staging environment). */
  base: string;
  head: string;
  /** The member diff; absent when one side's `/meta` could not be read (`unavailable` says why). */
  changes?: ChangeSet;
  counts: ChangeCounts;
  /** The content the changes break (`effect: 'breaks'`), then the content whose numbers move (`'numbers-move'`). */
  affected: AffectedItem[];
  /** The content the changes break, by kind. */
  affectedCounts: ContentCounts;
  /** The content whose numbers move (and that nothing breaks), by kind. */
  numbersMoveCounts?: ContentCounts;
  scanned: ContentCounts;
  notices: string[];
  unavailable?: string;
  /** Why the pull request's side (its staging `/meta`) could not be read: what is asked of that branch would not be its model's answer. */
  headUnavailable?: string;
  /** The definition diff (absent when it did not run: a notice says why). */
  definition?: DefinitionOutcome;
  /** Who can see what: per persona, and the policies the pull request touches (absent when the layers were not compared). */
  access?: AccessOutcome;
  /**
   * The layer each side's reads showed, checked against the members its files declare public (absent
   * without the pull request's files); not `whole`: the breaking verdict is not established.
   */
  layer?: LayerCheck;
  /**
   * The preview's layer as the proof after a merge reads production's (the empty context's read with the
   * read by every group its policies name): digest and member count, for the validation record. Absent
   * when the groups were not known or the read with every group failed (part of the layer proves nothing).
   */
  layerDigest?: { digest: string; members: number };
  /** Either side's model files define a pre-aggregation (the rollup plans then run even with the data diff off). */
  rollupsInModel?: boolean;
  /** Rollups both sides define whose build the pull request may change: their own queries are planned too. */
  rollupPairs?: RollupPair[];
  /** What the data diff reads next: the pull request's `/meta`, the content, the two environments (never in the JSON file). */
  sources?: {
    headMeta: MetaDocument;
    baseMeta: MetaDocument;
    /** Each side's layer: every member some read (the empty context's, every group's, the personas') listed. */
    layers?: { base: MetaDocument; head: MetaDocument };
    content: ContentItem[];
    production?: EnvironmentRef;
    staging?: EnvironmentRef;
    /** Each side's model files, when read: the breaking members are annotated where they are declared (src/pr/breaking-places.ts). */
    files?: { base?: FileTexts; head?: FileTexts };
  };
}

/**
 * A branch's staging environment as the enabling reported it; none without its URL and id. No branch: the
 * pull request's run compares only a preview its own validation found valid (asking again could read an older build).
 */
function stagingRef(branch: string, s: Pick<EnableStagingResult, 'stagingUrl' | 'environmentId'>): EnvironmentRef | undefined {
  return s.stagingUrl && s.environmentId ? { id: s.environmentId, restUrl: s.stagingUrl, label: `the staging environment of ${branch}` } : undefined;
}

/** The impact's token for a branch's staging environment, minted as soon as it is enabled (awaited by the impact). */
export function stagingTokenFor(ctx: OpContext, branch: string, s: EnableStagingResult): Promise<MetaToken> | undefined {
  const env = stagingRef(branch, s);
  if (!env) return undefined;
  const token = metaToken(ctx, env);
  token.catch(() => undefined);
  return token;
}

/** Read one environment's `/meta`; a failure is the result's `problem`, never thrown (an abort is). */
export async function environmentMeta(
  ctx: OpContext,
  env: EnvironmentRef | Promise<EnvironmentRef | undefined>,
  /** A token already being minted for this environment (the PR lifecycle mints it while validation runs). */
  minted?: Promise<MetaToken>,
): Promise<MetaRead> {
  let data: HttpClient | undefined;
  let label = 'an environment';
  try {
    const e = await env;
    if (!e) return { problem: 'no environment to read' };
    label = e.label;
    const { token, notice } = await (minted ?? metaToken(ctx, e));
    const url = new URL(`${e.restUrl}/meta`);
    data = dataApiClient(ctx, url.origin, token);
    // A few tries only: a model that does not compile answers 500 every time, and the comparison is an extra.
    // `/meta` is no long poll: it gets the request timeout, not the data API's 95 s floor.
    const timeoutMs = ctx.requestTimeoutMs ?? DEFAULTS.requestTimeoutSeconds * 1000;
    const text = (await data.send({ method: 'GET', path: url.pathname }, { signal: ctx.signal, timeoutMs, retry: { maxAttempts: 3 } })).text ?? '';
    if (isHtml(text)) return { problem: `${label}: ${url.origin}${url.pathname} answered with a web page, not the data API` };
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return { problem: `${label}: /meta answered with something that is not JSON (${JSON.stringify(text.slice(0, 80))})` };
    }
    return { meta: parseMeta(body, label), ...(notice ? { notice } : {}) };
  } catch (e) {
    if (e instanceof AbortedError || ctx.signal?.aborted) throw e;
    return { problem: e instanceof PlatformError ? `${label}: ${e.message}` : messageOf(e) };
  } finally {
    await data?.close().catch(() => undefined);
  }
}

/** Work that does not depend on the pull request, started at once. */
export interface StartedImpact {
  base: Promise<MetaRead>;
  /** The deploy branch's model files (production's definitions), or why they could not be read. */
  baseFiles: Promise<FileTexts | { problem: string }>;
  content: Promise<ContentScan>;
  environments: Promise<{ production?: EnvironmentRef; staging?: EnvironmentRef }>;
  /** The personas (none without a personas file) and their reads of production's `/meta`. */
  personas: readonly Persona[];
  personaBase: Promise<PersonaRead[]>;
  /** Production's `/meta` read with every group its policies name (undefined: its files not read). */
  wholeBase: Promise<WholeRead | undefined>;
}

/**
 * Start reading production's `/meta` and the content (the staging environment is found here too when it
 * already runs). `cliDeploy`: production runs the last upload, not the deploy branch's git (CLI mode).
 */
export function startImpact(
  ctx: OpContext,
  input: { branch?: string; deployBranch?: string; cliDeploy?: boolean; personas?: readonly Persona[] },
): StartedImpact {
  const environments = findEnvironments(ctx, input.branch);
  const production = environments.then((e) => e.production);
  const base = environmentMeta(ctx, production).then((r) =>
    r.problem === 'no environment to read' ? { problem: 'the deployment lists no production environment' } : r,
  );
  const personas = input.personas ?? [];
  const personaBase = readPersonaMetas(ctx, production, personas);
  const content = scanContent(ctx);
  const baseFiles = input.deployBranch
    ? branchModelFiles(ctx, input.deployBranch, input.cliDeploy).catch((e: unknown) => {
        if (e instanceof AbortedError || ctx.signal?.aborted) throw e;
        return { problem: messageOf(e) };
      })
    : Promise.resolve({ problem: 'the deploy branch is not known' });
  const wholeBase = readWholeLayer(
    ctx,
    production,
    baseFiles.then((f) => (f instanceof Map ? groupsOf(f) : undefined)),
  );
  // Awaited later; a rejection here must not be unhandled meanwhile.
  for (const p of [environments, production, base, content, baseFiles]) p.catch(() => undefined);
  return { base, baseFiles, content, environments, personas, personaBase, wholeBase };
}

/** Compare the two sides, find the content the breaking changes hit, and say what could not be read. */
export async function finishImpact(
  ctx: OpContext,
  started: StartedImpact,
  head: Promise<MetaRead>,
  input: {
    branch: string;
    deployBranch: string;
    headFiles?: FileTexts;
    staging?: EnvironmentRef;
    personaHead?: Promise<PersonaRead[]>;
    /** The preview's `/meta` read with every group its policies name. */
    wholeHead?: Promise<WholeRead | undefined>;
  },
): Promise<ImpactResult> {
  const [empty, emptyHead, content, envs] = await Promise.all([started.base, head, started.content, started.environments.catch(() => ({}) as const)]);
  const production = 'production' in envs ? envs.production : undefined;
  const whole = await wholeReads(ctx, started.wholeBase, input.wholeHead, Promise.resolve(production));
  // A model whose policies read user attributes may refuse the empty context: the read with every group stands in.
  const base = standIn('production', empty, whole.base);
  const headRead = standIn('the preview', emptyHead, whole.head);
  const notices = [base.notice, headRead.notice, ...content.notices].filter((n): n is string => !!n);
  const result: ImpactResult = {
    base: input.deployBranch,
    head: input.branch,
    counts: { breaking: 0, added: 0, changed: 0 },
    affected: [],
    affectedCounts: { report: 0, dashboard: 0, notification: 0 },
    numbersMoveCounts: { report: 0, dashboard: 0, notification: 0 },
    scanned: content.scanned,
    notices,
  };
  if (!base.meta || !headRead.meta) {
    result.unavailable = [base.problem, headRead.problem].filter(Boolean).join('; ') || 'a /meta could not be read';
    if (!headRead.meta) result.headUnavailable = headRead.problem ?? `the /meta of ${input.branch} could not be read`;
    ctx.reporter.warning(`impact: the semantic layers were not compared: ${result.unavailable}`);
    return result;
  }
  const defs = await definitionsFor(started.baseFiles, input.headFiles);
  const personas = { list: started.personas, base: started.personaBase, ...(input.personaHead ? { head: input.personaHead } : {}) };
  const layers = await compareLayers(
    base.meta,
    headRead.meta,
    personas,
    defs,
    content.items,
    { base: whole.base?.meta, head: whole.head?.meta },
    {
      base: empty.meta,
      head: emptyHead.meta,
    },
  );
  result.changes = layers.changes;
  result.access = layers.access;
  if (whole.head && !whole.head.problem) {
    const shown = layerOfReads([emptyHead.meta, whole.head?.meta].filter((m): m is MetaDocument => !!m));
    result.layerDigest = { digest: shown.digest, members: shown.members.length };
  }
  const layer = layerCheck(defs.models, whole, layers.unions);
  if (layer) result.layer = layer;
  if (defs.outcome) result.definition = defs.apply(result.changes);
  if (modelHasRollups(defs.models)) result.rollupsInModel = true;
  const pairs = rollupPairs(defs.models, result.definition?.changes);
  if (pairs.length) result.rollupPairs = pairs;
  result.notices.push(...defs.notices);
  result.counts = countChanges(result.changes);
  result.affected = affectedContent(result.changes, content.items, result.definition?.values);
  const staging = input.staging ?? ('staging' in envs ? envs.staging : undefined);
  const baseFiles = await started.baseFiles.catch(() => undefined);
  const files = { ...(baseFiles instanceof Map ? { base: baseFiles } : {}), ...(input.headFiles ? { head: input.headFiles } : {}) };
  result.sources = {
    headMeta: headRead.meta,
    baseMeta: base.meta,
    layers: layers.unions,
    content: content.items,
    ...(production ? { production } : {}),
    ...(staging ? { staging } : {}),
    files,
  };
  result.affectedCounts = countContent(breaksContent(result.affected));
  result.numbersMoveCounts = countContent(result.affected.filter((a) => a.effect === 'numbers-move'));
  for (const n of [...notices, ...layers.access.notices]) ctx.reporter.notice(`impact: ${n}`);
  const narrower = layer && layerNotice(layer);
  if (narrower) ctx.reporter.warning(`impact: ${narrower}`);
  ctx.reporter.info(`impact: ${impactSummaryLine(result)}`);
  return result;
}

/** Every step for a branch whose staging environment already runs (the `impact` action, `datamodel-ci diff`). */
export async function analyseImpact(
  ctx: OpContext,
  input: { branch: string; deployBranch: string; headFiles?: FileTexts; cliDeploy?: boolean; personas?: readonly Persona[] },
): Promise<ImpactResult> {
  const { branch, deployBranch, cliDeploy, personas } = input;
  const started = startImpact(ctx, { branch, deployBranch, cliDeploy, ...(personas ? { personas } : {}) });
  const personaHead = readPersonaMetas(
    ctx,
    started.environments.then((e) => e.staging),
    started.personas,
  );
  const head = started.environments.then(async (e) =>
    e.staging
      ? environmentMeta(ctx, e.staging)
      : { problem: `${input.branch} has no staging environment (enable it first: datamodel-ci enable-staging, or the enable-staging action)` },
  );
  const wholeHead = readWholeLayer(
    ctx,
    started.environments.then((e) => e.staging),
    Promise.resolve(groupsOf(input.headFiles)),
  );
  return finishImpact(ctx, started, head, { ...input, personaHead, wholeHead });
}

/** `1 report, 2 dashboards and 1 notification` (empty for none). */
export function contentWords(c: ContentCounts): string {
  const parts = [
    c.report ? plural(c.report, 'report') : '',
    c.dashboard ? plural(c.dashboard, 'dashboard') : '',
    c.notification ? plural(c.notification, 'notification') : '',
  ].filter(Boolean);
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : (parts[0] ?? '');
}

/**
 * `2 breaking, 5 added, 1 changed; 3 reports and 1 notification affected; numbers move on 1 dashboard`;
 * led by `breaking changes not established (…); seen: ` when the reads did not show the whole layer.
 */
export function impactSummaryLine(r: Pick<ImpactResult, 'counts' | 'affectedCounts' | 'numbersMoveCounts' | 'changes' | 'unavailable' | 'layer'>): string {
  if (r.unavailable || !r.changes) return `not compared: ${r.unavailable ?? 'no change set'}`;
  const { breaking, added, changed } = r.counts;
  const values = r.counts.values ?? 0;
  const changes =
    breaking + values + added + changed === 0
      ? 'no member changes'
      : `${breaking} breaking, ${values ? `${plural(values, 'values change')}, ` : ''}${added} added, ${changed} changed`;
  const broken = contentWords(r.affectedCounts);
  const moving = r.numbersMoveCounts ? contentWords(r.numbersMoveCounts) : '';
  const unseen = r.layer && !r.layer.whole ? r.layer.unseen.length : 0;
  const lead = unseen ? `breaking changes not established (${plural(unseen, 'member')} the model files declare public out of sight); seen: ` : '';
  const content = broken ? `${broken} affected` : moving ? 'no content breaks' : 'no content affected';
  return `${lead}${changes}; ${content}${moving ? `; numbers move on ${moving}` : ''}`;
}

/**
 * A branch's model files, with their content, from the platform. `lastUpload`: the deploy branch of a CLI
 * deployment as production runs it, its last upload (`showLastCLIUpload`), not the branch's git.
 */
export async function branchModelFiles(ctx: OpContext, branch: string, lastUpload = false): Promise<FileTexts> {
  let nodes: unknown[];
  try {
    const query = { branchName: branch, withContent: true, ...(lastUpload ? { showLastCLIUpload: true } : {}) };
    nodes = await collect(ctx.client.dataModel.iterateFiles({ deploymentId: ctx.deploymentId, query }, { signal: ctx.signal }));
  } catch (e) {
    if (e instanceof AbortedError) throw e;
    throw new Error(`the files of ${branch} could not be read (${messageOf(e)})`, { cause: e });
  }
  return modelFilesOf(flattenSourceTree(nodes));
}

/** The staging environment's `/meta` against production's, once the branch's model is valid. */
export function compareWithProduction(
  ctx: OpContext,
  started: StartedImpact,
  s: Pick<EnableStagingResult, 'stagingUrl' | 'environmentId'>,
  input: { branch: string; deployBranch: string; modelFiles?: FileTexts },
  minted?: Promise<MetaToken>,
): Promise<ImpactResult> {
  const label = `the staging environment of ${input.branch}`;
  const known = stagingRef(input.branch, s);
  const env = known ? Promise.resolve(known) : findEnvironments(ctx, input.branch).then((e) => e.staging);
  // Minted while the change built, the token may have been refused for the build before it (profile
  // mint-refuses-uncompiled): validation has passed since, so it is minted once more.
  const token = s.environmentId
    ? minted?.catch(async (e: unknown) => {
        const ref = await env;
        if (!ref || e instanceof AbortedError || ctx.signal?.aborted) throw e;
        return metaToken(ctx, ref);
      })
    : undefined;
  token?.catch(() => undefined);
  const head = s.stagingUrl
    ? environmentMeta(ctx, env, token).then((r) => (r.problem === 'no environment to read' ? { problem: `${label} is not listed` } : r))
    : Promise.resolve({ problem: `${label} is not enabled` });
  const staging = known ? { staging: known } : {};
  const personaHead = s.stagingUrl ? readPersonaMetas(ctx, env, started.personas) : undefined;
  const wholeHead = s.stagingUrl ? readWholeLayer(ctx, env, Promise.resolve(groupsOf(input.modelFiles))) : undefined;
  return finishImpact(ctx, started, head, {
    ...staging,
    ...(personaHead ? { personaHead } : {}),
    ...(wholeHead ? { wholeHead } : {}),
    branch: input.branch,
    deployBranch: input.deployBranch,
    headFiles: input.modelFiles,
  });
}
