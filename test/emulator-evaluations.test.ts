/**
 * The emulator plays evaluations (issue 40): a run on a branch reads the branch's eval questions, runs each
 * ground truth and the fixture agent's recorded REST query on the branch's model and data, grades them by
 * the documented rule, takes time on the emulator's clock and pages its results with `first`/`after`.
 * Profiles: no-evaluations, evaluation-incomplete, evaluation-never-finishes. Real HTTPS throughout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL } from '../packages/emulator/src/seed/demo-model.js';
import { control, emulatorFixture, rawRequest, uploadTree, type EmulatorFixture } from './support/emulator.js';

const ORDERS_WITH_CANCELLED = (DEMO_MODEL['model/cubes/orders.yml'] as string).replace(
  '    measures:\n',
  `    measures:\n      - name: cancelled_count\n        type: count\n        filters:\n          - sql: "{CUBE}.status = 'cancelled'"\n`,
);

const QUESTIONS = `eval_questions:
  - name: orders_by_status
    question: How many orders are there in each status?
    sql: SELECT status, MEASURE(count) FROM orders GROUP BY 1 ORDER BY 2 DESC
  - name: amount_by_status
    question: What is the total order amount per status?
    certifiedQuery: amount_by_status
  - name: cancelled_orders
    question: How many orders were cancelled?
    sql: SELECT MEASURE(count) FROM orders WHERE status = 'cancelled'
  - name: cancelled_certified
    question: How many cancelled orders do we have?
    certifiedQuery: cancelled_orders
`;
/** A certified query as a Markdown file: its SQL in the body's fenced block. */
const CERTIFIED_MD = `---
name: cancelled_orders
user_request: how many orders were cancelled
---
The count of cancelled orders.

\`\`\`sql
SELECT MEASURE(count) AS cancelled FROM orders WHERE status IN ('cancelled')
\`\`\`
`;
const MORE_QUESTIONS = `eval_questions:
  - name: top_status
    question: Which three statuses have the most orders?
    sql: SELECT status, MEASURE(count) FROM orders GROUP BY 1 ORDER BY 2 DESC LIMIT 3
  - name: unsupported_truth
    question: What is the count with a subquery?
    sql: SELECT status FROM (SELECT status FROM orders) AS t
  - name: missing_certified
    question: What is our churn?
    certifiedQuery: churn
  - name: unanswered
    question: Is anyone there?
    sql: SELECT MEASURE(count) FROM orders
`;
const CONFIG = `certified_queries:
  - name: amount_by_status
    user_request: total order amount per status
    sql_query: SELECT status, MEASURE(total_amount) FROM orders GROUP BY status
`;

const tree = (orders = ORDERS_WITH_CANCELLED) => ({
  ...DEMO_MODEL,
  'model/cubes/orders.yml': orders,
  'agents/config.yml': CONFIG,
  'agents/certified_queries/cancelled_orders.md': CERTIFIED_MD,
  'agents/eval_questions/main.yml': QUESTIONS,
  'agents/eval_questions/more.yml': MORE_QUESTIONS,
});

/** The fixture agent: each question's recorded REST query (the view's names for one: aliases differ; extra columns for another). */
const ANSWERS = {
  'How many orders are there in each status?': { measures: ['orders.count'], dimensions: ['orders.status'], order: [['orders.status', 'asc']] },
  amount_by_status: { measures: ['orders_view.total_amount', 'orders_view.count'], dimensions: ['orders_view.status'] },
  'How many orders were cancelled?': { measures: ['orders.cancelled_count'] },
  cancelled_certified: { measures: ['orders.cancelled_count'] },
  'Which three statuses have the most orders?': { measures: ['orders.count'], dimensions: ['orders.status'], order: [['orders.count', 'desc']], limit: 2 },
  'What is the count with a subquery?': { measures: ['orders.count'] },
  'What is our churn?': { measures: ['orders.count'] },
  'Is anyone there?': null,
};

let fx: EmulatorFixture;

async function api(em: EmulatorFixture['em'], method: string, path: string, body?: unknown) {
  const text = body === undefined ? '' : JSON.stringify(body);
  const headers: Record<string, string> = { authorization: `Bearer ${em.credentials.admin}`, 'content-length': String(Buffer.byteLength(text)) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await rawRequest(em, { method, path, headers, body: text });
  return { status: res.status, body: res.text ? JSON.parse(res.text) : undefined };
}

async function branchWith(f: EmulatorFixture, name: string, files: Record<string, string>) {
  await f.admin.branches.create({ deploymentId: 1, body: { name, from: 'main' } });
  await uploadTree(f.admin, 1, name, files);
}

/** Start a run, move the clock past it, and read every result page. */
async function runToEnd(f: EmulatorFixture, branchName: string) {
  const started = await api(f.em, 'POST', '/api/v1/deployments/1/evaluations', { branchName });
  expect(started.status).toBe(200);
  const id = started.body.id as string;
  expect((await api(f.em, 'GET', `/api/v1/deployments/1/evaluations/${id}`)).body.status).toBe('running');
  f.em.clock.advance(60_000);
  const run = (await api(f.em, 'GET', `/api/v1/deployments/1/evaluations/${id}`)).body;
  const items: any[] = [];
  const pages: any[] = [];
  let after: string | undefined;
  for (;;) {
    const page = (await api(f.em, 'GET', `/api/v1/deployments/1/evaluations/${id}/results${after ? `?after=${after}` : ''}`)).body;
    pages.push(page);
    items.push(...page.items);
    if (!page.pageInfo.hasNextPage) break;
    after = page.pageInfo.endCursor;
  }
  const by = (name: string) => items.find((i) => i.questionName === name);
  return { id, run, items, pages, by };
}

beforeAll(async () => {
  fx = await emulatorFixture();
  await branchWith(fx, 'evals-base', tree());
  // The PR: the measure the agent answers with now counts every order that is not cancelled.
  await branchWith(fx, 'evals-pr', tree(ORDERS_WITH_CANCELLED.replace("status = 'cancelled'", "status <> 'cancelled'")));
  await control(fx.em, 'evals/answers', { answers: ANSWERS });
}, 120_000);
afterAll(() => fx.close());

describe('a run on a branch', () => {
  it('grades every question of the branch, paged, once the run has taken its time on the clock', async () => {
    const { run, items, pages, by } = await runToEnd(fx, 'evals-base');
    expect(run).toMatchObject({ status: 'completed', branchName: 'evals-base', agentName: 'auto', totalQuestions: 8, passedQuestions: 4 });
    // By default one page holds the whole run: the vendor's CLI reads one page without `first`.
    expect(pages.map((p) => p.items.length)).toEqual([8]);
    expect(pages[0].pageInfo).toMatchObject({ hasNextPage: false, endCursor: '8' });
    expect(Number.isInteger(run.id)).toBe(true);
    expect(items.map((i) => i.questionName)).toEqual([
      'orders_by_status',
      'amount_by_status',
      'cancelled_orders',
      'cancelled_certified',
      'top_status',
      'unsupported_truth',
      'missing_certified',
      'unanswered',
    ]);
    // Sort-invariant; a view's names and extra columns pass; the certified query's SQL is run as the truth.
    for (const name of ['orders_by_status', 'amount_by_status', 'cancelled_orders', 'cancelled_certified'])
      expect(by(name)).toMatchObject({ verdict: 'pass', score: 1, scoreReason: null });
    expect(by('amount_by_status').groundTruthSql).toContain('MEASURE(total_amount)');
    expect(by('orders_by_status').questionTextSnapshot).toBe('How many orders are there in each status?');
    expect(by('orders_by_status').agentSql).toMatch(/select/i);
    expect(by('top_status')).toMatchObject({
      verdict: 'fail',
      score: 0,
      scoreReason: 'Row count mismatch',
      failureAnalysis: 'The agent returned 2 rows, but the ground truth has 3 rows.',
    });
    expect(by('unsupported_truth')).toMatchObject({ verdict: 'error', scoreReason: 'Ground truth query failed' });
    expect(by('unsupported_truth').failureAnalysis).toContain('a FROM of anything but one cube or view');
    expect(by('missing_certified')).toMatchObject({ verdict: 'error', scoreReason: 'Ground truth not found' });
    expect(by('unanswered')).toMatchObject({ verdict: 'review', scoreReason: null });
  });

  it('a PR changing the SQL of the measure the agent answers with turns that question from pass to fail (Value mismatch)', async () => {
    const base = await runToEnd(fx, 'evals-base');
    const pr = await runToEnd(fx, 'evals-pr');
    expect(base.by('cancelled_orders').verdict).toBe('pass');
    expect(pr.by('cancelled_orders')).toMatchObject({ verdict: 'fail', score: 0, scoreReason: 'Value mismatch' });
    expect(pr.by('cancelled_certified')).toMatchObject({ verdict: 'fail', scoreReason: 'Value mismatch' });
    expect(pr.by('orders_by_status').verdict).toBe('pass');
    expect(pr.run.passedQuestions).toBe(2);
  });

  it('pages with first/after; results appear as questions finish; an unknown run or branch is 404; a bad first is 400', async () => {
    const { id } = (await api(fx.em, 'POST', '/api/v1/deployments/1/evaluations', { branchName: 'evals-base', agentName: 'auto' })).body;
    const page = (q: string) => api(fx.em, 'GET', `/api/v1/deployments/1/evaluations/${id}/results${q}`);
    expect((await page('')).body.items).toEqual([]);
    fx.em.clock.advance(3_000 * 2);
    expect((await page('')).body.items.map((i: any) => i.questionName)).toEqual(['orders_by_status', 'amount_by_status']);
    fx.em.clock.advance(60_000);
    const first = (await page('?first=3')).body;
    expect(first.items).toHaveLength(3);
    const second = (await page(`?first=3&after=${first.pageInfo.endCursor}`)).body;
    expect(second.items.map((i: any) => i.questionName)).toEqual(['cancelled_certified', 'top_status', 'unsupported_truth']);
    expect(second.pageInfo.hasNextPage).toBe(true);
    expect((await page('?first=0')).status).toBe(400);
    expect((await api(fx.em, 'GET', '/api/v1/deployments/1/evaluations/999999')).status).toBe(404);
    expect((await api(fx.em, 'POST', '/api/v1/deployments/1/evaluations', { branchName: 'no-such-branch' })).status).toBe(404);
    expect((await api(fx.em, 'POST', '/api/v1/deployments/1/evaluations', {})).body.error).toContain('body.branchName');
  });

  it('questionFile keeps one file under agents/; a model that does not compile fails the run; bad answers are refused', async () => {
    const one = await api(fx.em, 'POST', '/api/v1/deployments/1/evaluations', { branchName: 'evals-base', questionFile: 'eval_questions/more.yml' });
    expect(one.body).toMatchObject({ questionFile: 'eval_questions/more.yml', status: 'running' });
    fx.em.clock.advance(60_000);
    const page = (await api(fx.em, 'GET', `/api/v1/deployments/1/evaluations/${one.body.id}/results`)).body;
    expect(page.items.map((i: any) => i.questionName)).toEqual(['top_status', 'unsupported_truth', 'missing_certified', 'unanswered']);

    await branchWith(fx, 'evals-broken', { ...tree(), 'model/cubes/orders.yml': ORDERS_WITH_CANCELLED.replace('type: count', 'type: cnt') });
    const broken = await api(fx.em, 'POST', '/api/v1/deployments/1/evaluations', { branchName: 'evals-broken' });
    fx.em.clock.advance(60_000);
    const run = (await api(fx.em, 'GET', `/api/v1/deployments/1/evaluations/${broken.body.id}`)).body;
    expect(run).toMatchObject({ status: 'failed', totalQuestions: 0, accuracy: null });
    expect(run.error).toContain('does not compile');

    await expect(control(fx.em, 'evals/answers', { answers: { 'Is anyone there?': 'SELECT 1' } })).rejects.toThrow(
      /answers\["Is anyone there\?"\]: got "SELECT 1", expected a REST query object or null/,
    );
    expect((await control(fx.em, 'evals/answers')).answers).toEqual(ANSWERS);
  });

  it('the tenant spec lists the evaluation endpoints', async () => {
    const spec = (await api(fx.em, 'GET', '/api/v1/spec')).body;
    expect(Object.keys(spec.paths)).toEqual(expect.arrayContaining(['/api/v1/deployments/{deploymentId}/evaluations/{evaluationId}/results']));
  });
});

describe('profiles', () => {
  it('no-evaluations: the endpoints answer 404 and the spec lacks them', async () => {
    const f = await emulatorFixture({ profiles: ['no-evaluations'] });
    try {
      const started = await api(f.em, 'POST', '/api/v1/deployments/1/evaluations', { branchName: 'main' });
      expect(started.status).toBe(404);
      expect((await api(f.em, 'GET', '/api/v1/deployments/1/evaluations/x/results')).status).toBe(404);
      const spec = (await api(f.em, 'GET', '/api/v1/spec')).body;
      expect(Object.keys(spec.paths).filter((p) => p.includes('evaluations'))).toEqual([]);
    } finally {
      await f.close();
    }
  });

  it('evaluation-incomplete: a finished run pages with hasNextPage and no endCursor', async () => {
    const f = await emulatorFixture({ profiles: ['evaluation-incomplete'] });
    try {
      await branchWith(f, 'evals-base', tree());
      const { id } = (await api(f.em, 'POST', '/api/v1/deployments/1/evaluations', { branchName: 'evals-base' })).body;
      f.em.clock.advance(60_000);
      expect((await api(f.em, 'GET', `/api/v1/deployments/1/evaluations/${id}`)).body.status).toBe('completed');
      const page = (await api(f.em, 'GET', `/api/v1/deployments/1/evaluations/${id}/results?first=100`)).body;
      expect(page.items).toHaveLength(8);
      expect(page.pageInfo).toMatchObject({ hasNextPage: true, endCursor: null });
    } finally {
      await f.close();
    }
  }, 60_000);

  it('evaluation-never-finishes: the run stays running with no results', async () => {
    const f = await emulatorFixture({ profiles: ['evaluation-never-finishes'] });
    try {
      await branchWith(f, 'evals-base', tree());
      const { id } = (await api(f.em, 'POST', '/api/v1/deployments/1/evaluations', { branchName: 'evals-base' })).body;
      f.em.clock.advance(24 * 3_600_000);
      expect((await api(f.em, 'GET', `/api/v1/deployments/1/evaluations/${id}`)).body).toMatchObject({ status: 'running', completedAt: null });
      expect((await api(f.em, 'GET', `/api/v1/deployments/1/evaluations/${id}/results`)).body).toMatchObject({ items: [], pageInfo: { hasNextPage: false } });
    } finally {
      await f.close();
    }
  }, 60_000);

  it('evaluation-results-paged: a page without `first` holds 5 results; the cursor reads the rest', async () => {
    const f = await emulatorFixture({ profiles: ['evaluation-results-paged'] });
    try {
      await branchWith(f, 'evals-base', tree());
      await control(f.em, 'evals/answers', { answers: ANSWERS });
      const { items, pages, run } = await runToEnd(f, 'evals-base');
      expect(pages.map((p) => p.items.length)).toEqual([5, 3]);
      expect(pages[0].pageInfo).toMatchObject({ hasNextPage: true, endCursor: '5' });
      expect(pages[1].pageInfo).toMatchObject({ hasNextPage: false, endCursor: '8' });
      expect(new Set(items.map((i) => i.questionName)).size).toBe(8);
      expect(run.passedQuestions).toBe(4);
    } finally {
      await f.close();
    }
  }, 60_000);
});
