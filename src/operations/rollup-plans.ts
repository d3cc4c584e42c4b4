/**
 * The rollup plans: every key query the data diff picks, asked of production and of the preview with
 * `POST /v1/sql` (Cube's plan only: the query is not run, no data is read), and, for the personas, the key
 * queries on cubes and views whose access policy the pull request touches (a row filter can move that
 * persona's query off its rollup), all counted against `data-diff-max-queries`. Tokens are minted per
 * environment and security context, and masked; a query that cannot be planned is a notice, never a change.
 */
import { AbortedError, isHtml, messageOf } from '../client/errors.js';
import type { HttpClient } from '../client/http.js';
import { sleep } from '../client/retry.js';
import { personaSecurityContext, type Persona } from '../impact/access/types.js';
import type { DataDiffPlan } from '../impact/data/plan.js';
import type { KeyQuery } from '../impact/data/types.js';
import { querySide } from '../impact/data/query-sides.js';
import { plannedRollups, rebuiltRollups, rollupChanges, truncations, type PlanSide, type QueryPlan } from '../impact/rollups/compare.js';
import type { RollupOutcome } from '../impact/rollups/outcome.js';
import { lostByPullRequest, rollupLines, rollupWarning, versionLabel } from '../impact/rollups/outcome.js';
import { rollupQuery, type RollupDef } from '../impact/rollups/definitions.js';
import { mapLimit } from '../model/local-model.js';
import { plural } from '../report/plural.js';
import type { OpContext } from './context.js';
import { dataApiClient, mint, needsMulti } from './data-api.js';
import { cubeOf } from '../impact/base/meta.js';
import { pickKeyQueries } from './data-diff.js';
import type { EnvironmentRef, ImpactResult } from './impact.js';

/** One security context's key queries: the run's own (no persona), or a persona's. */
export interface PlanGroup {
  persona?: Persona;
  queries: KeyQuery[];
  /** Production's own query for each of `queries` (a rollup's, as production's files define it); absent: the same query. */
  production?: KeyQuery[];
}

/** One `/v1/sql` plan within `timeoutMs`, asked again while Cube answers "Continue wait" (a cold compile). */
export async function planQuery(client: HttpClient, path: string, k: KeyQuery, timeoutMs: number, signal?: AbortSignal): Promise<PlanSide> {
  const deadline = Date.now() + timeoutMs;
  for (let waits = 0; ; waits++) {
    const left = deadline - Date.now();
    if (left <= 0) return { error: `no plan within ${Math.round(timeoutMs / 1000)} s` };
    let text: string;
    try {
      // As the data diff sends it: Cube plans a compareDateRange query as one query per range (a list of plans).
      const json = { query: k.query, ...(needsMulti(k.query) ? { queryType: 'multi' } : {}) };
      text = (await client.send({ method: 'POST', path, json, idempotent: true }, { signal, deadline, timeoutMs: left })).text ?? '';
    } catch (e) {
      if (e instanceof AbortedError || signal?.aborted) throw e;
      return { error: messageOf(e) };
    }
    if (isHtml(text)) return { error: `${path} answered with a web page, not the data API` };
    let body: { error?: unknown };
    try {
      body = JSON.parse(text) as { error?: unknown };
    } catch {
      return { error: `${path} answered with something that is not JSON` };
    }
    if (typeof body?.error === 'string' && body.error.includes('Continue wait')) {
      if (waits > 1) await sleep(Math.min(1_000, 100 * waits), signal);
      continue;
    }
    if (typeof body?.error === 'string') return { error: body.error };
    return plannedRollups(body);
  }
}

/** The cubes and views a key query names. */
function cubesOf(k: KeyQuery): Set<string> {
  const q = k.query;
  const names = [...(q.measures ?? []), ...(q.dimensions ?? []), ...(q.segments ?? []), ...(q.timeDimensions ?? []).map((t) => t.dimension)];
  return new Set(names.map(cubeOf));
}

/** The persona groups: each persona's key queries on a cube or view whose policy the pull request touches, within `room`. */
export function personaGroups(impact: ImpactResult, queries: KeyQuery[], room: number): { groups: PlanGroup[]; notRun: number } {
  const a = impact.access;
  const targets = new Set(a?.policyTargets ?? []);
  const guarded = queries.filter((k) => [...cubesOf(k)].some((c) => targets.has(c)));
  const groups: PlanGroup[] = [];
  let left = room;
  let notRun = 0;
  for (const persona of a?.personaDefinitions ?? []) {
    const taken = guarded.slice(0, Math.max(0, left));
    notRun += guarded.length - taken.length;
    left -= taken.length;
    if (taken.length) groups.push({ persona, queries: taken });
  }
  return { groups, notRun };
}

/** Every group's queries planned on both environments, at most `concurrency` in flight on each. */
export async function planGroups(
  ctx: OpContext,
  envs: { production: EnvironmentRef; staging: EnvironmentRef },
  groups: PlanGroup[],
  s: DataDiffPlan['settings'],
  notices: string[],
): Promise<QueryPlan[]> {
  const plans: QueryPlan[] = [];
  for (const g of groups) {
    const context = g.persona ? personaSecurityContext(g.persona) : s.securityContext;
    const who = g.persona ? `persona ${g.persona.name}` : 'the run';
    let clients: HttpClient[] = [];
    try {
      const tokens = await Promise.all([mint(ctx, envs.production, context, ['sql']), mint(ctx, envs.staging, context, ['sql'])]);
      clients = [envs.production, envs.staging].map((env, i) => dataApiClient(ctx, new URL(env.restUrl).origin, tokens[i] as string));
      const paths = [envs.production, envs.staging].map((env) => `${new URL(env.restUrl).pathname}/sql`);
      const side = (i: number, skip: (k: KeyQuery) => boolean) =>
        mapLimit(g.queries, s.limits.concurrency, (k, n) => {
          if (skip(k)) return Promise.resolve(undefined);
          // Production's own form: a rollup's own query as its files define it, a key query as the base's file has it.
          const own = i === 0 ? (g.production?.[n] ?? k) : k;
          const query = querySide(own, i ? 'preview' : 'production');
          return planQuery(clients[i] as HttpClient, paths[i] as string, { ...own, query }, s.limits.queryTimeoutMs, ctx.signal);
        });
      const [bases, heads] = await Promise.all([side(0, (k) => !!k.headOnly), side(1, () => false)]);
      g.queries.forEach((k, i) => {
        const base = bases[i];
        const head = heads[i] as PlanSide;
        const persona = g.persona ? { persona: g.persona.name } : {};
        for (const [label, p] of [['production', base] as const, ['the preview', head] as const])
          if (p && 'error' in p) notices.push(`${k.name}${g.persona ? ` (${who})` : ''} was not planned on ${label}: ${p.error}`);
        plans.push({ query: k.name, ...persona, ...(base ? { production: base } : {}), preview: head });
      });
    } catch (e) {
      if (e instanceof AbortedError || ctx.signal?.aborted) throw e;
      notices.push(`the rollup plans of ${who} did not run: ${messageOf(e)}`);
    } finally {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    }
  }
  return plans;
}

/** Why the rollup plans do not run here, or nothing: never for a fork; `off` and a public repository do not stop them (no data is read). */
export function rollupPlansRefusal(plan: DataDiffPlan, impact: ImpactResult): string | undefined {
  if (plan.fork || plan.refusal?.includes('fork')) return 'this pull request comes from a fork: no token is minted for one';
  if (plan.settings.mode === 'off' && !impact.rollupsInModel) return 'the data diff is off and neither side of the model has a pre-aggregation';
  return undefined;
}

/** The rollups' own queries, each side's as its files define it: a rollup whose build changes is seen with no key query on it. */
export function rollupQueryGroup(impact: ImpactResult, limit: number): { queries: KeyQuery[]; production: KeyQuery[]; notRun: number } {
  const pairs = impact.rollupPairs ?? [];
  const taken = pairs.slice(0, Math.max(0, limit));
  const named = (id: string, r: RollupDef): KeyQuery => ({ name: `rollup ${id}'s own query`, source: 'probe', query: rollupQuery(r) });
  return { queries: taken.map((p) => named(p.id, p.head)), production: taken.map((p) => named(p.id, p.base)), notRun: pairs.length - taken.length };
}

/**
 * The rollup impact of the key queries, after the impact. `versions`: the Cube versions production and the
 * preview run; when they differ, every row is labelled as one that may come from them (docs/impact.md).
 */
export async function rollupPlansStep(
  ctx: OpContext,
  plan: DataDiffPlan,
  impact: ImpactResult,
  versions?: { production?: string; staging?: string },
): Promise<RollupOutcome> {
  const warning = rollupWarning(impact);
  if (warning) ctx.reporter.warning(`rollups: ${warning}`);
  const base = { changes: [], rebuilt: [], truncated: [], notices: [], planned: 0, notRun: 0, ...(warning ? { warning } : {}) };
  const skipped = (why: string): RollupOutcome => {
    if (impact.rollupsInModel) ctx.reporter.info(`rollups: not planned: ${why}`);
    return { ...base, skipped: why };
  };
  const refusal = rollupPlansRefusal(plan, impact);
  if (refusal) return skipped(refusal);
  const all = pickKeyQueries(impact, plan.settings, plan.fileQueries);
  if ('skipped' in all) return skipped(all.skipped);
  // A key query gone from the pull request's file is planned on neither side.
  const picked = { ...all, run: all.run.filter((k) => !k.baseOnly) };
  return ctx.reporter.group('Rollups: which pre-aggregation serves each key query on production and on the preview', async () => {
    const started = Date.now();
    const room = plan.settings.limits.maxQueries - picked.run.length;
    const personas = personaGroups(impact, picked.run, room);
    // Each changed rollup's own query, planned with the run's key queries (one token per side), each side's definition.
    const own = rollupQueryGroup(impact, plan.settings.limits.maxQueries);
    const run: PlanGroup = { queries: [...picked.run, ...own.queries], production: [...picked.run, ...own.production] };
    const notices: string[] = [];
    const all = await planGroups(ctx, picked, [run, ...personas.groups], plan.settings, notices);
    const ownNames = new Set(own.queries.map((k) => k.name));
    const plans = all.filter((p) => p.persona || !ownNames.has(p.query));
    const ownPlans = all.filter((p) => !p.persona && ownNames.has(p.query));
    const label = versionLabel(versions);
    const rebuilt = rebuiltRollups(plans, ownPlans, label);
    if (own.notRun)
      notices.push(`${plural(own.notRun, 'changed rollup')}' own queries not planned (data-diff-max-queries): whether they are rebuilt is not known`);
    const r: RollupOutcome = {
      ...base,
      changes: rollupChanges(plans, label),
      rebuilt: rebuilt.filter((b) => !b.versions),
      truncated: truncations(plans),
      notices,
      planned: plans.length,
      notRun: picked.notRun + personas.notRun,
      plans,
      ...(label ? { versions: label, versionRebuilt: rebuilt.filter((b) => b.versions) } : {}),
      ...(ownPlans.length ? { rollupQueries: ownPlans.length } : {}),
    };
    for (const n of notices) ctx.reporter.notice(`rollups: ${n}`);
    if (label) ctx.reporter.notice(`rollups: production and the preview run other Cube versions: every difference below ${label}, not from the pull request`);
    const lost = lostByPullRequest(r.changes);
    ctx.reporter.info(
      `rollups: ${plural(r.planned, 'key query plan', 'key query plans')} on both sides${ownPlans.length ? ` (and ${plural(ownPlans.length, "rollup's own query", "rollups' own queries")})` : ''} in ${((Date.now() - started) / 1000).toFixed(1)} s: ${lost} lost, ${r.changes.length - lost} gained, moved or from the versions, ${r.rebuilt.length} rebuilt on merge`,
    );
    for (const line of rollupLines(r)) ctx.reporter.info(line);
    return r;
  });
}
