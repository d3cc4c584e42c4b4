/**
 * The data diff as a step after the impact: whether it may run here (off until enabled; a public
 * repository needs its own allow; never for a fork's pull request), which key queries, and the run.
 */
import type { RunContext } from '../../github/event.js';
import type { OpContext } from '../../operations/context.js';
import type { ImpactResult } from '../../operations/impact.js';
import { keyQueries } from './key-queries.js';
import { runDataDiff } from './run.js';
import type { DataDiffSettings } from './settings.js';
import type { DataDiffResult, KeyQuery } from './types.js';

/** Why the data diff does not run here, or nothing when it may. */
export function dataDiffRefusal(s: DataDiffSettings, run: Pick<RunContext, 'pr' | 'repositoryPublic'>): string | undefined {
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
