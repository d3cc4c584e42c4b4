/**
 * Persona probes, after the impact: for each cube or view whose access policy the pull request touches,
 * one counting query per persona on production and on the preview, each with tokens minted under that
 * persona's security context (masked), so Cube's own policies decide what it counts. They share the data
 * diff's limits: at most `concurrency` queries in flight on each environment, the same deadlines, one
 * query of `data-diff-max-queries` per probe. They never run for a fork's pull request and follow
 * `data-diff-allow-public`; they run with `data-diff: off` too, since they count rows and never read a value.
 */
import { AbortedError, messageOf, type PlatformError } from '../client/errors.js';
import { DEFAULTS } from '../defaults.js';
import { mapLimit } from '../model/local-model.js';
import {
  checkNotices,
  checkQueries,
  countOf,
  planProbes,
  probeChanges,
  sideToCheck,
  withProbeChanges,
  type PlannedProbe,
  type ProbeCatalogueEntry,
} from '../impact/access/probes.js';
import { personaSecurityContext, type AccessOutcome, type AccessProbe, type Persona, type ProbeCheck, type ProbeSide } from '../impact/access/types.js';
import type { DataDiffLimits } from '../impact/data/types.js';
import type { DataDiffPlan } from '../impact/data/plan.js';
import { plural } from '../report/plural.js';
import type { OpContext } from './context.js';
import { dataApiClient, dataTarget, loadQuery, mint, type ApiScope, type DataTarget, type LoadResult } from './data-api.js';
import { environmentMeta, type EnvironmentRef, type ImpactResult } from './impact.js';
import { buildsOf, REASON_WORDS, type BuildGuard, type RollupBuild } from '../impact/rollups/builds.js';
import { planQuery } from './rollup-plans.js';

/** What the probes run against: the two environments, the personas, the policy targets, the data diff's limits. */
export interface ProbeInput {
  production: EnvironmentRef;
  staging: EnvironmentRef;
  personas: Persona[];
  targets: string[];
  /** Targets as a `/meta` listed them already (the rest are looked up with the personas' own tokens). */
  catalogue: ProbeCatalogueEntry[];
  limits: DataDiffLimits;
  /** Probes whose load on the preview would build a pre-aggregation are planned first (`/v1/sql`) and skipped unless allowed. */
  guard?: BuildGuard;
}

export interface ProbeRun {
  probes: AccessProbe[];
  notRun: number;
  notices: string[];
  /** Requests sent to each side's `/load` (every poll and repeat counted). */
  requests: { production: number; preview: number };
  elapsedMs: number;
  /** Each probe's time on each side, and each persona's two mints (the bench's bound reads them), ms. */
  ms: { production: number[]; preview: number[]; mints: number[] };
}

/** A persona's tokens: `/load` (data), its `/meta` for targets not listed yet, `/v1/sql` for the probes' builds. */
const PROBE_SCOPES: readonly ApiScope[] = ['meta', 'data', 'sql'];

/** One persona's two environments, each a `/load` with that persona's token. */
interface PersonaTargets {
  persona: Persona;
  production: DataTarget;
  preview: DataTarget;
  /** The tokens behind them (also read the persona's `/meta` when a target is not listed yet). */
  tokens: { production: string; preview: string };
  mintMs: number;
}

/** Cube's own refusal (a 4xx, its 500 `{ error }`, an answer with an error): the persona may not query it. */
function refusalOf(load: LoadResult): string | undefined {
  if (load.error === undefined) return undefined;
  // A pre-aggregation not built where the API builds none (rollup-only): a failure, not the persona's access.
  if (/No pre-aggregation partitions were built yet/i.test(load.error)) return undefined;
  const status = (load.cause as PlatformError | undefined)?.status;
  if (status !== undefined)
    return status < 500 || (status === 500 && /"error"/.test((load.cause as PlatformError).responseBody ?? '')) ? load.error : undefined;
  if (load.cause !== undefined || /^no answer within|answered with|an answer without rows/.test(load.error)) return undefined;
  return load.error;
}

function sideOf(p: PlannedProbe, load: LoadResult | undefined, maxRows: number): ProbeSide {
  if (!load) return { error: 'not run: no token for this persona' };
  const refused = refusalOf(load);
  if (refused !== undefined) return { refused };
  if (load.error !== undefined) return { error: load.error };
  return countOf(p, load.rows ?? [], maxRows);
}

/** Mint each persona's tokens; a persona whose tokens are refused is said and left out. */
async function personaTargets(ctx: OpContext, input: ProbeInput, notices: string[]): Promise<PersonaTargets[]> {
  const coldMs = Math.max(input.limits.queryTimeoutMs, DEFAULTS.dataDiffFirstQueryTimeoutSeconds * 1000);
  const target = (env: EnvironmentRef, token: string) => {
    const url = new URL(`${env.restUrl}/load`);
    return dataTarget(dataApiClient(ctx, url.origin, token), url.pathname, coldMs);
  };
  const minted = await mapLimit(input.personas, input.limits.concurrency, async (persona) => {
    const context = personaSecurityContext(persona);
    const t0 = Date.now();
    try {
      const [a, b] = await Promise.all([mint(ctx, input.production, context, PROBE_SCOPES), mint(ctx, input.staging, context, PROBE_SCOPES)]);
      return {
        persona,
        production: target(input.production, a),
        preview: target(input.staging, b),
        tokens: { production: a, preview: b },
        mintMs: Date.now() - t0,
      };
    } catch (e) {
      if (e instanceof AbortedError || ctx.signal?.aborted) throw e;
      notices.push(`persona ${persona.name} was not probed: no data-API token could be minted under its context (${messageOf(e)})`);
      return undefined;
    }
  });
  return minted.filter((m): m is PersonaTargets => !!m);
}

/** Targets no `/meta` listed yet, looked up in the preview's (then production's) `/meta` as each persona sees it, until all are found. */
async function completeCatalogue(ctx: OpContext, input: ProbeInput, personas: PersonaTargets[]): Promise<ProbeCatalogueEntry[]> {
  const found = new Map(input.catalogue.filter((c) => input.targets.includes(c.name)).map((c) => [c.name, c] as const));
  for (const p of personas) {
    for (const [env, token] of [
      [input.staging, p.tokens.preview],
      [input.production, p.tokens.production],
    ] as const) {
      if (input.targets.every((t) => found.has(t))) return [...found.values()];
      const read = await environmentMeta(ctx, env, Promise.resolve({ token }));
      for (const c of read.meta?.cubes ?? []) if (input.targets.includes(c.name) && !found.has(c.name)) found.set(c.name, c);
    }
  }
  return [...found.values()];
}

/** What each probe's load on the preview would build: planned on both sides with the persona's tokens (`/v1/sql`, no data read). */
async function probeBuilds(ctx: OpContext, input: ProbeInput, run: PlannedProbe[], byName: Map<string, PersonaTargets>): Promise<RollupBuild[][]> {
  const guard = input.guard;
  if (!guard || !run.length) return run.map(() => []);
  const plan = (t: DataTarget, p: PlannedProbe) =>
    planQuery(t.client, t.path.replace(/\/load$/, '/sql'), { name: p.target, source: 'probe', query: p.query }, input.limits.queryTimeoutMs, ctx.signal);
  return mapLimit(run, input.limits.concurrency, async (p) => {
    const t = byName.get(p.persona);
    if (!t) return [];
    const [base, head] = await Promise.all([plan(t.production, p), plan(t.preview, p)]);
    return buildsOf(guard, head, base);
  });
}

const notBuilt = (builds: RollupBuild[]) =>
  `not run: its load on the preview would build ${builds.map((b) => `${b.rollup} (${REASON_WORDS[b.reason]})`).join(', ')} in the shared Cube Store (data-diff-build-rollups: false)`;

/**
 * A side whose count gave no row (or was refused) while the other counted rows gets a few more queries of
 * the target (its dimensions, one row each) before `denied-all` is said: a count can need a member the
 * persona may not read (the primary key) while the target's other members still answer rows.
 */
async function checkEmptySides(
  ctx: OpContext,
  input: ProbeInput,
  run: PlannedProbe[],
  probes: AccessProbe[],
  catalogue: ProbeCatalogueEntry[],
  byName: Map<string, PersonaTargets>,
): Promise<void> {
  const entries = new Map(catalogue.map((c) => [c.name, c] as const));
  const work = run.flatMap((p, i) => {
    const side = sideToCheck(probes[i]!);
    const t = side && byName.get(p.persona)?.[side];
    return side && t ? checkQueries(entries.get(p.target), p.counter).map((q) => ({ i, side, t, ...q })) : [];
  });
  const answers = await mapLimit(work, input.limits.concurrency, async (w): Promise<ProbeCheck> => {
    const load = await loadQuery(w.t, w.query, input.limits.queryTimeoutMs, ctx.signal, DEFAULTS.dataDiffCacheMode);
    const counter = { persona: run[w.i]!.persona, target: run[w.i]!.target, counter: { member: w.member, byRows: true }, query: w.query };
    return { side: w.side, counted: w.member, answer: sideOf(counter, load, 1) };
  });
  for (const [k, w] of work.entries()) (probes[w.i]!.checks ??= []).push(answers[k]!);
}

/** Every probe on both environments, at most `concurrency` in flight on each. */
export async function runProbes(ctx: OpContext, input: ProbeInput): Promise<ProbeRun> {
  const started = Date.now();
  const notices: string[] = [];
  const personas = await personaTargets(ctx, input, notices);
  const all = personas.flatMap((p) => [p.production, p.preview]);
  try {
    const catalogue = await completeCatalogue(ctx, input, personas);
    const plan = planProbes({
      targets: input.targets,
      personas: personas.map((p) => p.persona.name),
      catalogue,
      maxProbes: input.limits.maxQueries,
      maxRows: input.limits.maxRows,
    });
    for (const t of plan.uncounted) notices.push(`${t} was not probed: no persona's /meta lists a measure or dimension of it to count`);
    if (plan.notRun) notices.push(`${plural(plan.notRun, 'more persona probe')} not run (data-diff-max-queries)`);
    const byName = new Map(personas.map((p) => [p.persona.name, p] as const));
    const builds = await probeBuilds(ctx, input, plan.run, byName);
    // A probe that would build runs on neither side unless allowed (one side alone compares nothing).
    const skipped = (i: number) => !!builds[i]?.length && !input.guard?.allow;
    const each = (side: 'production' | 'preview') =>
      mapLimit(plan.run, input.limits.concurrency, (p, i) => {
        const t = byName.get(p.persona)?.[side];
        return t && !skipped(i) ? loadQuery(t, p.query, input.limits.queryTimeoutMs, ctx.signal, DEFAULTS.dataDiffCacheMode) : Promise.resolve(undefined);
      });
    const [bases, heads] = await Promise.all([each('production'), each('preview')]);
    const probes = plan.run.map((p, i): AccessProbe => {
      const would = builds[i] ?? [];
      const probe = { persona: p.persona, target: p.target, counted: p.counter.member, ...(would.length ? { wouldBuild: would } : {}) };
      if (skipped(i)) return { ...probe, production: { skipped: notBuilt(would) }, preview: { skipped: notBuilt(would) } };
      return { ...probe, production: sideOf(p, bases[i], input.limits.maxRows), preview: sideOf(p, heads[i], input.limits.maxRows) };
    });
    await checkEmptySides(ctx, input, plan.run, probes, catalogue, byName);
    const sum = (side: 'production' | 'preview') => personas.reduce((n, p) => n + p[side].requests, 0);
    const ms = { production: bases.map((l) => l?.ms ?? 0), preview: heads.map((l) => l?.ms ?? 0), mints: personas.map((p) => p.mintMs) };
    return { probes, notRun: plan.notRun, notices, requests: { production: sum('production'), preview: sum('preview') }, elapsedMs: Date.now() - started, ms };
  } finally {
    await Promise.all(all.map((t) => t.client.close().catch(() => undefined)));
  }
}

/** The access review with the probes' evidence: run when personas and policy targets are there and the run may; else said why. */
export async function accessProbeStep(
  ctx: OpContext,
  plan: DataDiffPlan | undefined,
  impact: ImpactResult,
  guard?: BuildGuard,
): Promise<AccessOutcome | undefined> {
  const a = impact.access;
  if (!a || !a.policyTargets.length || !a.personaDefinitions?.length || !plan) return a;
  // Views over a target's cube read its masks and rows: probed beside the targets.
  const targets = [...a.policyTargets, ...(a.reachedViews ?? [])];
  const count = a.personaDefinitions.length * targets.length;
  const skip = (why: string): AccessOutcome => {
    ctx.reporter.notice(`persona probes: not run: ${why}`);
    return { ...a, probesNotRun: { count, why } };
  };
  if (plan.probesRefusal) return skip(plan.probesRefusal);
  // Each probe would count the empty context's rows under a persona's name.
  if (a.groupsUnreached) return skip("the personas' groups do not reach the policies on this deployment");
  const src = impact.sources;
  if (!src?.production) return skip('the deployment lists no production environment');
  if (!src.staging) return skip(`the staging environment of ${impact.head} is not known`);
  const headCubes = src.headMeta.cubes;
  const input: ProbeInput = {
    production: src.production,
    staging: src.staging,
    personas: a.personaDefinitions,
    targets,
    catalogue: [...(a.targetMeta ?? []), ...headCubes],
    limits: plan.settings.limits,
    // Plans tell what a probe's load would build only where the model has a pre-aggregation.
    ...(guard && impact.rollupsInModel ? { guard } : {}),
  };
  const r = await ctx.reporter.group('Who can see what: persona probes on production and on the preview', async () => {
    ctx.reporter.info(`persona probes: ${plural(a.personaDefinitions!.length, 'persona')} on ${plural(targets.length, 'cube or view', 'cubes and views')}`);
    const run = await runProbes(ctx, input);
    const failed = run.probes.filter((p) => p.production.error !== undefined || p.preview.error !== undefined).length;
    const skipped = run.probes.filter((p) => p.preview.skipped !== undefined).length;
    ctx.reporter.info(
      `persona probes: ${plural(run.probes.length, 'probe')} in ${(run.elapsedMs / 1000).toFixed(1)} s (${failed} failed${skipped ? `, ${skipped} skipped: they would build a pre-aggregation` : ''}); ${plural(run.requests.production + run.requests.preview, 'data-API request')}`,
    );
    return run;
  });
  for (const n of r.notices) ctx.reporter.notice(`persona probes: ${n}`);
  const checked = checkNotices(r.probes);
  for (const n of checked) ctx.reporter.notice(`persona probes: ${n}`);
  r.notices.push(...checked);
  const changes = withProbeChanges(a.changes, probeChanges(r.probes, a.changes, a.rowFilters), r.probes);
  // The change set's own list (ChangeSet.access) carries the probes' findings too.
  if (impact.changes?.access) impact.changes.access = changes;
  return { ...a, changes, probes: r.probes, notices: [...a.notices, ...r.notices], ...(r.notRun ? { probesNotRun: { count: r.notRun } } : {}) };
}
