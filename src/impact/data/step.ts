/**
 * The data diff as a step after the impact: whether it may run here (off until enabled; a public
 * repository needs its own allow; never for a fork's pull request), which key queries, and the run.
 */
import type { OpContext } from '../../operations/context.js';
import type { ImpactResult } from '../../operations/impact.js';
import { keyQueries } from './key-queries.js';
import { runDataDiff } from './run.js';
import { plural } from '../../report/plural.js';
import { readKeyQueriesFile } from './queries-file.js';
import type { DataDiffSettings } from './settings.js';
import type { DataDiffResult, KeyQuery } from './types.js';

/** What the data diff asks of the event: a fork's pull request, a public repository. */
export interface PullRequestFacts {
  pr?: { fork: boolean } | undefined;
  repositoryPublic: boolean;
}

/** Why the data diff does not run here, or nothing when it may. */
export function dataDiffRefusal(s: DataDiffSettings, run: PullRequestFacts): string | undefined {
  if (s.mode === 'off') return 'the data diff is off (input data-diff: values or relative turns it on)';
  if (run.pr?.fork) return "this pull request comes from a fork: the data diff never runs for one (production's numbers would reach its author)";
  if (run.repositoryPublic && !s.allowPublic)
    return "the repository is public: production's numbers would be public in this comment; data-diff-allow-public: true allows it";
  return undefined;
}

/** Members of the pull request whose own definition moved (not only through another member). */
const direct = (why: string) => !why.startsWith('uses ') && !why.startsWith('stands for ');

/** The key queries and the run; `{ skipped }` when there is nothing to compare on. */
export async function dataDiffFor(
  ctx: OpContext,
  impact: ImpactResult,
  s: DataDiffSettings & { mode: 'values' | 'relative' },
  fileQueries: KeyQuery[],
  ca?: string,
): Promise<DataDiffResult | { skipped: string }> {
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
  if (!picked.run.length) return { skipped: 'no key query: no member whose numbers change is used or probed, and no key-queries file was given' };
  ctx.reporter.info(
    `data diff: ${picked.run.length} key queries on production and on ${src.staging.label}${picked.notRun ? ` (${picked.notRun} more not run: data-diff-max-queries)` : ''}`,
  );
  const r = await runDataDiff(ctx, {
    production: src.production,
    staging: src.staging,
    queries: picked.run,
    notRun: picked.notRun,
    mode: s.mode,
    limits: s.limits,
    securityContext: s.securityContext,
    ...(ca ? { ca } : {}),
  });
  for (const n of r.notices) ctx.reporter.notice(`data diff: ${n}`);
  return r;
}

/** Read before the first platform call: may the data diff run here, and the team's key queries, checked. */
export interface DataDiffPlan {
  settings: DataDiffSettings;
  /** Why the data diff does not run here (off, a fork, a public repository without the allow). */
  refusal?: string;
  fileQueries: KeyQuery[];
}

export async function planDataDiff(settings: DataDiffSettings, run: PullRequestFacts): Promise<DataDiffPlan> {
  const refusal = dataDiffRefusal(settings, run);
  // Read whenever given, even with the data diff off: a wrong path is said now, not when it is turned on.
  const fileQueries = settings.queriesFile ? await readKeyQueriesFile(settings.queriesFile) : [];
  return { settings, fileQueries, ...(refusal ? { refusal } : {}) };
}

/** What the data diff step came to: its result, or why it did not run (`off`: the input has it off). */
export interface DataDiffOutcome {
  mode: 'values' | 'relative';
  off?: boolean;
  skipped?: string;
  result?: DataDiffResult;
}

/** The data diff after the impact, when it may run. */
export async function dataDiffStep(ctx: OpContext, plan: DataDiffPlan, impact: ImpactResult, ca?: string): Promise<DataDiffOutcome> {
  const s = plan.settings;
  const mode = s.mode === 'relative' ? 'relative' : 'values';
  if (plan.refusal) {
    if (s.mode === 'off') return { mode, off: true, skipped: plan.refusal };
    ctx.reporter.notice(`data diff: not run: ${plan.refusal}`);
    return { mode, skipped: plan.refusal };
  }
  const d = await ctx.reporter.group('Numbers: the key queries on production and on the preview', () =>
    dataDiffFor(ctx, impact, { ...s, mode }, plan.fileQueries, ca),
  );
  if ('skipped' in d) {
    ctx.reporter.info(`data diff: not run: ${d.skipped}`);
    return { mode, skipped: d.skipped };
  }
  const count = (status: string) => d.queries.filter((q) => q.status === status).length;
  ctx.reporter.info(
    `data diff: ${plural(d.queries.length, 'key query', 'key queries')} in ${(d.elapsedMs / 1000).toFixed(1)} s: ${d.changed} changed, ${count('unchanged')} unchanged, ${count('new')} new, ${count('failed')} failed`,
  );
  return { mode, result: d };
}
