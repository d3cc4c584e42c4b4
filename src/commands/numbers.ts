/**
 * The data diff of a run, between the impact and the comment: the key-queries file read (and checked)
 * before the first call, the run when it may run here, its outputs (`data-changed-count`,
 * `data-diff-file`), the comment's "Numbers" view, and the failure `fail-on-data-change` asks for.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { numbersView, type NumbersView } from '../github/render-numbers.js';
import { readKeyQueriesFile } from '../impact/data/queries-file.js';
import type { DataDiffSettings } from '../impact/data/settings.js';
import { dataDiffFor, dataDiffRefusal } from '../impact/data/step.js';
import type { DataDiffResult, KeyQuery } from '../impact/data/types.js';
import { plural } from '../report/plural.js';
import type { ImpactResult } from '../operations/impact.js';
import type { ActionRun } from './action-run.js';

export interface NumbersPlan {
  settings: DataDiffSettings;
  /** Why the data diff does not run here (off, a fork, a public repository without the allow). */
  refusal?: string;
  fileQueries: KeyQuery[];
}

/** Before the first platform call: may the data diff run, and the team's key queries, checked. */
export async function planNumbers(x: ActionRun<'impact' | 'pr'>): Promise<NumbersPlan> {
  const settings = x.settings.inputs.dataDiff;
  const refusal = dataDiffRefusal(settings, x.run);
  // Read whenever given, even with the data diff off: a wrong path is said now, not when it is turned on.
  const fileQueries = settings.queriesFile ? await readKeyQueriesFile(settings.queriesFile) : [];
  return { settings, fileQueries, ...(refusal ? { refusal } : {}) };
}

export interface NumbersOutcome {
  /** The comment's section (absent: nothing to say). */
  view?: NumbersView;
  result?: DataDiffResult;
}

/** The whole data diff as the JSON file holds it (in the mode it ran in). */
export function dataDiffJson(deploymentId: number, head: string, r: DataDiffResult) {
  return { version: 1, deploymentId, head, ...r };
}

/** Run the data diff after the impact, when it may; record its outputs and file. */
export async function runNumbers(x: ActionRun<'impact' | 'pr'>, plan: NumbersPlan, impact: ImpactResult, ca?: string): Promise<NumbersOutcome> {
  x.out['data-changed-count'] = '';
  x.out['data-diff-file'] = '';
  const s = plan.settings;
  const mode = s.mode === 'relative' ? 'relative' : 'values';
  if (plan.refusal) {
    // Off: said in the comment only when some member's numbers do change.
    if (s.mode === 'off') return (impact.counts.values ?? 0) > 0 ? { view: numbersView({ skipped: plan.refusal, mode }) } : {};
    x.reporter.notice(`data diff: not run: ${plan.refusal}`);
    return { view: numbersView({ skipped: plan.refusal, mode }) };
  }
  const d = await x.reporter.group('Numbers: the key queries on production and on the preview', () =>
    dataDiffFor(x.op, impact, { ...s, mode }, plan.fileQueries, ca),
  );
  if ('skipped' in d) {
    x.reporter.info(`data diff: not run: ${d.skipped}`);
    return { view: numbersView({ skipped: d.skipped, mode }) };
  }
  const dir = join(process.env.RUNNER_TEMP || tmpdir(), 'datamodel-ci');
  const file = join(dir, `data-diff-${x.settings.deploymentId}-${impact.head.replace(/[^\w.-]+/g, '_')}.json`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(dataDiffJson(x.settings.deploymentId, impact.head, d), null, 2)}\n`);
  x.out['data-changed-count'] = String(d.changed);
  x.out['data-diff-file'] = file;
  const count = (status: string) => d.queries.filter((q) => q.status === status).length;
  x.reporter.info(
    `data diff: ${plural(d.queries.length, 'key query', 'key queries')} in ${(d.elapsedMs / 1000).toFixed(1)} s: ${d.changed} changed, ${count('unchanged')} unchanged, ${count('new')} new, ${count('failed')} failed`,
  );
  return { view: numbersView(d), result: d };
}

/** The failure `fail-on-data-change` asks for, when a key query's numbers moved. */
export function dataChangeFailure(n: NumbersOutcome, plan: NumbersPlan, head: string): string | undefined {
  if (!plan.settings.failOnChange || !n.result?.changed) return undefined;
  return `${head} changes the results of ${plural(n.result.changed, 'key query', 'key queries')} against production (fail-on-data-change is true)`;
}
