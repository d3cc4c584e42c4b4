/**
 * The "Numbers" section of the comment and the job summary, and where the data diff may run: off
 * until enabled, a public repository needs its own allow, never a fork's pull request. Values from
 * production are outside text (escaped); the relative mode shows none; the comment is capped, the
 * job summary is not, and the ledger keeps only what the comment shows.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readRunContext } from '../src/github/event.js';
import { nextView } from '../src/pr/comment/view.js';
import { numbersView, renderNumbers } from '../src/pr/comment/render-numbers.js';
import { renderPreview } from '../src/pr/comment/render-preview.js';
import type { DataDiffSettings } from '../src/impact/data/types.js';
import { dataDiffRefusal } from '../src/impact/data/plan.js';
import type { DataDiffResult, QueryOutcome } from '../src/impact/data/types.js';
import { renderGfm } from './support/gfm.js';
import { pullRequestEvent, writeEvent } from './support/payloads.js';

const limits = { maxQueries: 20, maxRows: 1000, concurrency: 4, queryTimeoutMs: 45_000, absTolerance: 0, relTolerance: 0 };

function changed(i: number, mode: 'values' | 'relative' = 'values'): QueryOutcome {
  const top = Array.from({ length: 8 }, (_, r) => ({
    key: `country = Land ${r}`,
    measure: 'orders_view.total_amount',
    base: 1000 + r,
    head: 900 + r,
    abs: -100,
    rel: -0.1,
  }));
  return {
    name: `Report “Revenue ${i}”`,
    source: 'report',
    why: 'uses orders_view.total_amount',
    query: { measures: ['orders_view.total_amount'] },
    status: 'changed',
    ms: { base: 10, head: 12 },
    comparison: {
      rows: { base: 8, head: 9 },
      added: 1,
      removed: 0,
      changed: 8,
      largest: [
        mode === 'values'
          ? { measure: 'orders_view.total_amount', rel: -0.1, abs: -123456.5, key: 'country = Germany', base: 1234565, head: 1111108.5 }
          : { measure: 'orders_view.total_amount', rel: -0.1 },
      ],
      top: mode === 'values' ? top : [],
      addedKeys: mode === 'values' ? ['country = <img src=x onerror=alert(1)> @octocat'] : [],
      removedKeys: [],
      truncated: false,
    },
  };
}

const result = (queries: QueryOutcome[], mode: 'values' | 'relative' = 'values'): DataDiffResult => ({
  mode,
  queries,
  notRun: 3,
  changed: queries.filter((q) => q.status === 'changed').length,
  notices: [],
  elapsedMs: 3140,
  limits,
});

const failedQuery: QueryOutcome = {
  name: 'orders.fresh: total',
  source: 'probe',
  query: { measures: ['orders.fresh'] },
  status: 'failed',
  failed: { side: 'production', message: "POST /cubejs-api/v1/load -> 400: 'fresh' not found for path 'orders.fresh'" },
  ms: {},
};

describe('the Numbers section', () => {
  it('values mode: per key query the rows, what changed and by how much; the rows that moved most, capped in a comment', () => {
    const view = numbersView(result([...Array.from({ length: 12 }, (_, i) => changed(i)), failedQuery]));
    const md = renderNumbers(view, { target: 'comment', runUrl: 'https://github.com/o/r/actions/runs/1' }).join('\n');
    expect(md).toContain('**Numbers** (production → preview, 13 key queries in 3.1 s): 12 changed, 0 unchanged, 1 failed');
    expect(md).toContain('| Report “Revenue 0” | 8 → 9 | 8 rows changed; largest −10.0 % (−123,456.5) on `total_amount` at country \\= Germany; 1 added |');
    // Ten queries in a comment, the rest in the job summary; three more were found but not run.
    expect(md.match(/^\| Report/gm)).toHaveLength(10);
    expect(md).toContain('… [3 more key queries in the job summary](https://github.com/o/r/actions/runs/1).');
    expect(md).toContain('3 more key queries found but not run (data-diff-max-queries).');
    // Five rows of each detail table; numbers formatted as numbers.
    expect(md).toContain('| country \\= Land 0 | `total_amount` | 1,000 | 900 | −100 (−10.0 %) |');
    expect(md).not.toContain('Land 5');
    // A value from production is outside text: rendered inert.
    // A summary is HTML, where markdown escapes would show: names there are entity-escaped instead.
    const hostile = numbersView(result([{ ...changed(0), name: 'Report “<b>x</b> @octocat & y_z.total”' }]));
    const summaryLine = renderNumbers(hostile, { target: 'comment' }).find((l) => l.startsWith('<details>'));
    expect(summaryLine).toBe('<details><summary>Report “&lt;b&gt;x&lt;/b&gt; @\u200Boctocat &amp; y_z.total”: the rows that moved most</summary>');
    const rendered = renderGfm(md);
    expect(JSON.stringify(rendered.tree)).not.toContain('"tagName":"img"');
    expect(rendered.links.map((l) => l.href)).toEqual(['https://github.com/o/r/actions/runs/1']);
    expect(rendered.text).toContain('<img src=x onerror=alert(1)>');
    expect(rendered.text).not.toContain('@octocat');
    const summary = renderNumbers(view, { target: 'summary' }).join('\n');
    expect(summary.match(/^\| Report/gm)).toHaveLength(12);
    expect(summary).toContain('Land 7');
    expect(summary).toContain("failed on production: POST /cubejs\\-api/v1/load \\-\\> 400\\: \\'fresh\\' not found for path \\'orders\\.fresh\\'");
  });

  it('relative mode: row counts and relative changes, no value and no row key', () => {
    const md = renderNumbers(numbersView(result([changed(0, 'relative')], 'relative')), { target: 'summary' }).join('\n');
    expect(md).toContain('relative changes only');
    expect(md).toContain('| Report “Revenue 0” | 8 → 9 | 8 rows changed; largest −10.0 % on `total_amount`; 1 added |');
    expect(md).not.toMatch(/Germany|Land|1,000|123,456|<details>/);
  });

  it("the read times: each side's in the comment and the summary, rows read after the older left out per query; the summary counts the requests", () => {
    const late = changed(0, 'relative');
    late.comparison = { ...late.comparison!, afterRefresh: 1, refreshedAt: '2026-03-02T16:00:00.000Z' };
    const r = {
      ...result([late], 'relative'),
      refreshed: { production: '2026-03-02T16:00:00.000Z', preview: '<b>soon</b>' },
      requests: { production: 21, preview: 1234 },
    };
    const comment = renderNumbers(numbersView(r), { target: 'comment' }).join('\n');
    expect(comment).toContain("Data as read (each side's oldest answer): production 2026-03-02 16:00:00 UTC, preview \\<b\\>soon\\</b\\>.");
    expect(comment).toContain('1 added (1 row ending after the older read, 2026-03-02 16:00:00 UTC, not compared) |');
    expect(comment).not.toContain('Data-API requests');
    const summary = renderNumbers(numbersView(r), { target: 'summary' }).join('\n');
    expect(summary).toContain('Data-API requests of this run: 1,255 (21 to production, 1,234 to the preview; every poll and repeat counted)');
  });

  it('not run: one line saying why', () => {
    expect(
      renderNumbers(numbersView({ skipped: 'the data diff is off (input data-diff: values or relative turns it on)', mode: 'values' }), { target: 'comment' }),
    ).toEqual(['**Numbers**: not compared: the data diff is off \\(input data\\-diff\\: values or relative turns it on\\)', '']);
  });

  it('the ledger keeps the queries and rows a comment shows; the comment renders from it', () => {
    const full = numbersView(result(Array.from({ length: 20 }, (_, i) => changed(i))));
    const v = nextView(undefined, { headSha: 'a'.repeat(40), runId: 1 }, { state: 'ready', numbers: full });
    expect(v.numbers!.queries).toHaveLength(12);
    expect(v.numbers!.queries[0]!.top).toHaveLength(5);
    const comment = renderPreview(v, { target: 'comment' });
    expect(comment).toContain('**Numbers** (production → preview, 20 key queries in 3.1 s)');
    expect(renderPreview(v, { target: 'summary', numbers: full }).match(/^\| Report/gm)).toHaveLength(20);
  });
});

describe('where the data diff may run', () => {
  const s = (mode: DataDiffSettings['mode'], allowPublic = false): DataDiffSettings => ({
    mode,
    allowPublic,
    securityContext: {},
    limits,
    failOnChange: false,
  });
  const run = (file?: string) => readRunContext({ ...(file ? { GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: file } : {}) });
  const publicRepo = writeEvent(pullRequestEvent('opened'));
  const privateEvent = pullRequestEvent('opened');
  privateEvent.repository.private = true;
  const privateRepo = writeEvent(privateEvent);
  const fork = writeEvent(pullRequestEvent('opened', { fork: true }));

  it('off until enabled; a public repository needs data-diff-allow-public; a fork never; a terminal run is not public', () => {
    expect(run(publicRepo).repositoryPublic).toBe(true);
    expect(run(privateRepo).repositoryPublic).toBe(false);
    expect(run().repositoryPublic).toBe(false);
    expect(dataDiffRefusal(s('off'), run(privateRepo))).toMatch(/^the data diff is off/);
    expect(dataDiffRefusal(s('values'), run(privateRepo))).toBeUndefined();
    expect(dataDiffRefusal(s('values'), run())).toBeUndefined();
    expect(dataDiffRefusal(s('relative'), run(publicRepo))).toMatch(/^the repository is public: .*data-diff-allow-public: true allows it$/);
    expect(dataDiffRefusal(s('relative', true), run(publicRepo))).toBeUndefined();
    expect(dataDiffRefusal(s('values', true), run(fork))).toMatch(/^this pull request comes from a fork: the data diff never runs for one/);
  });

  it('an event file whose repository says nothing counts as public', () => {
    const e = pullRequestEvent('opened');
    delete e.repository;
    const file = writeEvent(e);
    writeFileSync(file, JSON.stringify(e));
    expect(run(file).repositoryPublic).toBe(true);
  });
});
