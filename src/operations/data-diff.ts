/**
 * The data diff, after the impact: the key queries picked, then every one on production and on the
 * preview's staging environment, at most
 * `concurrency` in flight on each, each with its own deadline; then the two results compared. Tokens
 * are minted for each environment with the security context given (access policies shape the
 * numbers) and masked. A query that fails on a side is reported as failed, never as a difference.
 */
import { AbortedError, messageOf } from '../client/errors.js';
import type { OpContext } from './context.js';
import { DEFAULTS } from '../defaults.js';
import { dataApiClient, dataTarget, loadQuery, mint, type DataTarget, type LoadResult } from './data-api.js';
import { compareRows, newRows } from '../impact/data/compare.js';
import { contextShown, type DataDiffLimits, type DataDiffMode, type DataDiffResult, type KeyQuery, type QueryOutcome } from '../impact/data/types.js';
import { keyQueries } from '../impact/data/key-queries.js';
import { querySide, rowsAsHead } from '../impact/data/query-sides.js';
import { checkKeyQueryMembers, unknownMembersText } from '../impact/data/query-members.js';
import type { DataDiffPlan } from '../impact/data/plan.js';
import type { DataDiffSettings } from '../impact/data/types.js';
import { plural } from '../report/plural.js';
import type { EnvironmentRef, ImpactResult } from './impact.js';
import { mapLimit } from '../model/local-model.js';
import { keyQueryBuilds, type BuildGuard, type RollupBuild } from '../impact/rollups/builds.js';

export interface DataDiffInput {
  production: EnvironmentRef;
  staging: EnvironmentRef;
  queries: KeyQuery[];
  notRun: number;
  mode: DataDiffMode;
  limits: DataDiffLimits;
  securityContext: Record<string, unknown>;
  /** Key queries whose load on the preview would build a pre-aggregation, by name: run on neither side (one side compares nothing). */
  skip?: Map<string, RollupBuild[]>;
}

function outcomeOf(k: KeyQuery, base: LoadResult | undefined, head: LoadResult, input: DataDiffInput): QueryOutcome {
  const out: QueryOutcome = { name: k.name, source: k.source, ...(k.why ? { why: k.why } : {}), query: k.query, status: 'unchanged', ms: { head: head.ms } };
  if (base) out.ms.base = base.ms;
  const refreshed = { ...(base?.refreshed ? { base: base.refreshed } : {}), ...(head.refreshed ? { head: head.refreshed } : {}) };
  if (refreshed.base || refreshed.head) out.refreshed = refreshed;
  // Only a cap this run imposed can have cut rows the query itself wanted.
  const asked = k.capped ? (k.query.limit ?? input.limits.maxRows) : Number.POSITIVE_INFINITY;
  const baseError = base?.error;
  if (baseError || head.error) {
    const side = baseError && head.error ? 'both' : baseError ? 'production' : 'preview';
    return { ...out, status: 'failed', failed: { side, message: (side === 'preview' ? head.error : baseError) ?? '' } };
  }
  if (!base) return { ...out, status: 'new', comparison: newRows(k.query, head.rows ?? [], input.mode, asked) };
  // Production ran the base's version: its rows are read under the pull request's names.
  const baseRows = k.baseQuery ? rowsAsHead(base.rows ?? [], k.baseQuery, k.query) : (base.rows ?? []);
  const comparison = compareRows(k.query, baseRows, head.rows ?? [], input.limits, input.mode, asked, refreshed);
  const moved = comparison.added + comparison.removed + comparison.changed > 0;
  return { ...out, status: moved ? 'changed' : 'unchanged', comparison };
}

/** Run the key queries on both environments and compare; a token that cannot be minted ends it with a notice. */
export async function runDataDiff(ctx: OpContext, input: DataDiffInput): Promise<DataDiffResult> {
  const started = Date.now();
  let targets: DataTarget[] = [];
  const result = (queries: QueryOutcome[], notices: string[]): DataDiffResult => ({
    mode: input.mode,
    queries,
    notRun: input.notRun,
    changed: queries.filter((q) => q.status === 'changed').length,
    notices,
    elapsedMs: Date.now() - started,
    limits: input.limits,
    requests: { production: targets[0]?.requests ?? 0, preview: targets[1]?.requests ?? 0 },
    context: contextShown(input.securityContext),
    ...(queries.some((q) => q.refreshed) ? { refreshed: oldestRefresh(queries) } : {}),
  });
  const skipped = (k: KeyQuery) => input.skip?.get(k.name);
  const toRun = input.queries.filter((k) => !skipped(k) && !k.baseOnly);
  const outcomes = (bases: (LoadResult | undefined)[], heads: (LoadResult | undefined)[]) =>
    input.queries.map((k): QueryOutcome => {
      const builds = skipped(k);
      if (builds) return { name: k.name, source: k.source, ...(k.why ? { why: k.why } : {}), query: k.query, status: 'skipped', wouldBuild: builds, ms: {} };
      if (k.baseOnly) return { name: k.name, source: k.source, ...(k.why ? { why: k.why } : {}), query: k.query, status: 'gone', ms: {} };
      const i = toRun.indexOf(k);
      return outcomeOf(k, bases[i], heads[i] as LoadResult, input);
    });
  if (!toRun.length) return result(outcomes([], []), []);
  let tokens: [string, string];
  try {
    tokens = await Promise.all([mint(ctx, input.production, input.securityContext, ['data']), mint(ctx, input.staging, input.securityContext, ['data'])]);
  } catch (e) {
    if (e instanceof AbortedError || ctx.signal?.aborted) throw e;
    return result([], [`the data diff did not run: no data-API token could be minted (${messageOf(e)})`]);
  }
  // The first queries of an environment may wait for a cold compile of its model.
  const coldMs = Math.max(input.limits.queryTimeoutMs, DEFAULTS.dataDiffFirstQueryTimeoutSeconds * 1000);
  targets = [input.production, input.staging].map((env, i) => {
    const url = new URL(`${env.restUrl}/load`);
    return dataTarget(dataApiClient(ctx, url.origin, tokens[i] as string), url.pathname, coldMs);
  });
  const [production, staging] = targets as [DataTarget, DataTarget];
  // At most `concurrency` queries in flight on each environment, both asking for fresh answers.
  const each = (side: DataTarget, skip: (k: KeyQuery) => boolean) =>
    mapLimit(toRun, input.limits.concurrency, (k) =>
      skip(k)
        ? Promise.resolve(undefined)
        : loadQuery(side, querySide(k, side === production ? 'production' : 'preview'), input.limits.queryTimeoutMs, ctx.signal, DEFAULTS.dataDiffCacheMode),
    );
  try {
    const [bases, heads] = await Promise.all([each(production, (k) => !!k.headOnly), each(staging, () => false)]);
    return result(outcomes(bases, heads), []);
  } finally {
    await Promise.all(targets.map((s) => s.client.close().catch(() => undefined)));
  }
}

/** The oldest read of each side's answers (ISO instants sort as text). */
function oldestRefresh(queries: QueryOutcome[]): { production?: string; preview?: string } {
  const oldest = (xs: (string | undefined)[]) => xs.filter((x): x is string => !!x).sort()[0];
  const production = oldest(queries.map((q) => q.refreshed?.base));
  const preview = oldest(queries.map((q) => q.refreshed?.head));
  return { ...(production ? { production } : {}), ...(preview ? { preview } : {}) };
}

/** Members of the pull request whose own definition moved (not only through another member). */
const direct = (why: string) => !why.startsWith('uses ') && !why.startsWith('stands for ');

/** The key queries the data diff (and the rollup plans) pick from the impact; `{ skipped }` when there is none. */
export function pickKeyQueries(
  impact: ImpactResult,
  s: Pick<DataDiffSettings, 'limits' | 'queriesFile'>,
  fileQueries: KeyQuery[],
): { run: KeyQuery[]; notRun: number; production: EnvironmentRef; staging: EnvironmentRef } | { skipped: string } {
  const src = impact.sources;
  if (impact.unavailable || !src || !impact.changes) return { skipped: `the semantic layers were not compared (${impact.unavailable ?? 'no change set'})` };
  if (!src.production) return { skipped: 'the deployment lists no production environment' };
  if (!src.staging) return { skipped: `the staging environment of ${impact.head} is not known` };
  const values = new Map((impact.definition?.values ?? []).map((v) => [v.member, v.why] as const));
  const fromMeta = impact.changes.members.filter((m) => m.values && !m.breaking);
  for (const m of fromMeta) if (!values.has(m.member)) values.set(m.member, m.details.join('; '));
  const changedMeasures = [
    ...new Set([...[...values].filter(([, why]) => direct(why)).map(([m]) => m), ...fromMeta.filter((m) => m.kind === 'measure').map((m) => m.member)]),
  ];
  const addedMeasures = impact.changes.members.filter((m) => m.change === 'added' && m.kind === 'measure').map((m) => m.member);
  const picked = keyQueries({
    file: fileQueries,
    content: src.content,
    values,
    changedMeasures,
    addedMeasures,
    head: src.headMeta,
    maxQueries: s.limits.maxQueries,
    maxRows: s.limits.maxRows,
  });
  // A key-queries file refused for an unknown member is given, but none of its queries may run.
  const file = s.queriesFile ? 'the key-queries file was refused (see Numbers)' : 'no key-queries file was given';
  if (!picked.run.length) return { skipped: `no key query: no member whose numbers change is used or probed, and ${file}` };
  return { ...picked, production: src.production, staging: src.staging };
}

/** The key queries and the run; `{ skipped }` when there is nothing to compare on. */
export async function dataDiffFor(
  ctx: OpContext,
  impact: ImpactResult,
  s: DataDiffSettings & { mode: 'values' | 'relative' },
  fileQueries: KeyQuery[],
  guard?: BuildGuard,
): Promise<DataDiffResult | { skipped: string }> {
  const picked = pickKeyQueries(impact, s, fileQueries);
  if ('skipped' in picked) return picked;
  // A key query whose load on the preview would build a pre-aggregation runs only when the input allows it.
  const skip = new Map<string, RollupBuild[]>();
  for (const k of picked.run) {
    const builds = guard && !guard.allow && !k.baseOnly ? keyQueryBuilds(guard, k.name) : [];
    if (builds.length) skip.set(k.name, builds);
  }
  ctx.reporter.info(
    `data diff: ${picked.run.length} key queries on production and on ${picked.staging.label}${picked.notRun ? ` (${picked.notRun} more not run: data-diff-max-queries)` : ''}`,
  );
  const r = await runDataDiff(ctx, {
    production: picked.production,
    staging: picked.staging,
    queries: picked.run,
    notRun: picked.notRun,
    mode: s.mode,
    limits: s.limits,
    securityContext: s.securityContext,
    skip,
  });
  for (const n of r.notices) ctx.reporter.notice(`data diff: ${n}`);
  return r;
}

/** What the data diff step came to: its result, or why it did not run (`off`: the input has it off). */
export interface DataDiffOutcome {
  mode: 'values' | 'relative';
  off?: boolean;
  skipped?: string;
  /** The key-queries file names a member neither semantic layer has: nothing ran, and the step fails. */
  refused?: string;
  result?: DataDiffResult;
}

/**
 * The key-queries file checked against production's `/meta` (and the preview's) before any query runs,
 * plans included: the plan to go on with (a query naming a member only the preview has runs there only),
 * or why the data diff is refused (a member neither has, with the names near it).
 */
export function checkFileQueries(ctx: OpContext, plan: DataDiffPlan, impact: ImpactResult): { plan: DataDiffPlan; refused?: DataDiffOutcome } {
  const src = impact.sources;
  for (const n of plan.queryNotes ?? []) ctx.reporter.info(`data diff: ${n}`);
  if (!plan.fileQueries.length || !src) return { plan };
  const checked = checkKeyQueryMembers(plan.fileQueries, src.baseMeta, src.headMeta);
  for (const p of checked.previewOnly)
    ctx.reporter.info(`data diff: key query "${p.query}" names ${p.members.join(', ')}, which only the preview has: it runs on the preview only`);
  if (!checked.unknown.length) return { plan: { ...plan, fileQueries: checked.queries } };
  const mode = plan.settings.mode === 'relative' ? 'relative' : 'values';
  const refused = `data-diff-queries${plan.settings.queriesFile ? ` (${plan.settings.queriesFile})` : ''}: ${unknownMembersText(checked.unknown)}`;
  return { plan: { ...plan, fileQueries: [] }, refused: { mode, refused, skipped: refused } };
}

/** The data diff after the impact, when it may run. */
export async function dataDiffStep(ctx: OpContext, plan: DataDiffPlan, impact: ImpactResult, guard?: BuildGuard): Promise<DataDiffOutcome> {
  const s = plan.settings;
  const mode = s.mode === 'relative' ? 'relative' : 'values';
  if (plan.refusal) {
    if (s.mode === 'off') return { mode, off: true, skipped: plan.refusal };
    ctx.reporter.notice(`data diff: not run: ${plan.refusal}`);
    return { mode, skipped: plan.refusal };
  }
  const d = await ctx.reporter.group('Numbers: the key queries on production and on the preview', () =>
    dataDiffFor(ctx, impact, { ...s, mode }, plan.fileQueries, guard),
  );
  if ('skipped' in d) {
    ctx.reporter.info(`data diff: not run: ${d.skipped}`);
    return { mode, skipped: d.skipped };
  }
  const count = (status: string) => d.queries.filter((q) => q.status === status).length;
  // A failed key query is named (with the side it failed on): a count alone says nothing to fix.
  const failed = d.queries
    .filter((q) => q.status === 'failed')
    .map((q) => `"${q.name}" on ${q.failed?.side ?? '?'}: ${(q.failed?.message ?? '').slice(0, 200)}`);
  ctx.reporter.info(
    `data diff: ${plural(d.queries.length, 'key query', 'key queries')} in ${(d.elapsedMs / 1000).toFixed(1)} s: ${d.changed} changed, ${count('unchanged')} unchanged, ${count('new')} new, ${count('gone') ? `${count('gone')} gone, ` : ''}${count('failed')} failed${failed.length ? ` (${failed.join('; ')})` : ''}${count('skipped') ? `, ${count('skipped')} skipped (they would build a pre-aggregation)` : ''}; ${plural((d.requests?.production ?? 0) + (d.requests?.preview ?? 0), 'data-API request')}`,
  );
  return { mode, result: d };
}
