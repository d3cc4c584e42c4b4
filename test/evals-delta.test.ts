/**
 * The eval delta against the emulator over HTTPS (issue 40): a run on the PR's branch and one on production,
 * waited on the emulator's clock (no wall-clock margin), every results page followed, and the fail-closed
 * rules: a tenant without evaluations is one line, an incomplete page and a run that never finishes are
 * "not compared", never a pass.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL } from '../packages/emulator/src/seed/demo-model.js';
import type { OpContext } from '../src/operations/context.js';
import { evalsFail, evalsGreen, type EvalDelta } from '../src/operations/evals/delta.js';
import { NO_EVALUATIONS, evalDelta, type EvalClock } from '../src/operations/evals/run.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { EVALS_ORDERS as ORDERS } from './support/evals-fixtures.js';
import { control, emulatorFixture, uploadTree, type EmulatorFixture } from './support/emulator.js';

const QUESTIONS = `eval_questions:
  - name: orders_by_status
    question: How many orders are there in each status?
    sql: SELECT status, MEASURE(count) FROM orders GROUP BY 1
  - name: cancelled_orders
    question: How many orders were cancelled?
    sql: SELECT MEASURE(count) FROM orders WHERE status = 'cancelled'
  - name: top_status
    question: Which three statuses have the most orders?
    sql: SELECT status, MEASURE(count) FROM orders GROUP BY 1 ORDER BY 2 DESC LIMIT 3
`;
const ANSWERS = {
  orders_by_status: { measures: ['orders.count'], dimensions: ['orders.status'] },
  cancelled_orders: { measures: ['orders.cancelled_count'] },
  top_status: { measures: ['orders.count'], dimensions: ['orders.status'], order: [['orders.count', 'desc']], limit: 2 },
};
const tree = (orders = ORDERS) => ({ ...DEMO_MODEL, 'model/cubes/orders.yml': orders, 'agents/eval_questions/main.yml': QUESTIONS });

async function seeded(f: EmulatorFixture): Promise<void> {
  for (const [name, orders] of [
    ['evals-prod', ORDERS],
    // The PR: the measure the agent answers with now counts every order that is not cancelled.
    ['evals-pr', ORDERS.replace("status = 'cancelled'", "status <> 'cancelled'")],
  ] as const) {
    await f.admin.branches.create({ deploymentId: 1, body: { name, from: 'main' } });
    await uploadTree(f.admin, 1, name, tree(orders));
  }
  await control(f.em, 'evals/answers', { answers: ANSWERS });
}

/** The emulator's manual clock as the wait's clock: each poll moves it, so no verdict waits on the wall clock. */
function emulatorClock(f: EmulatorFixture): EvalClock & { slept: number } {
  const c = {
    slept: 0,
    now: () => f.em.clock.now(),
    sleep: (ms: number) => {
      c.slept += ms;
      f.em.clock.advance(ms);
      return Promise.resolve();
    },
  };
  return c;
}

const ctx = (f: EmulatorFixture): OpContext => ({ client: f.admin, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false });
const run = (f: EmulatorFixture, timeoutMs = 30 * 60_000, clock = emulatorClock(f)) =>
  evalDelta(ctx(f), { previewBranch: 'evals-pr', productionBranch: 'evals-prod', timeoutMs, failOnRegression: true, clock });

function ran(d: EvalDelta): Extract<EvalDelta, { state: 'ran' }> {
  if (d.state !== 'ran') throw new Error(`expected a run, got ${JSON.stringify(d)}`);
  return d;
}

let fx: EmulatorFixture;
beforeAll(async () => {
  fx = await emulatorFixture();
  await seeded(fx);
}, 120_000);
afterAll(() => fx.close());

describe('the eval delta', () => {
  it('a PR changing a measure’s SQL turns a passing question into a failing one, named with its reason', async () => {
    const d = ran(await run(fx));
    expect(d.compared).toBe(true);
    expect(d.production).toMatchObject({ compared: true, passed: 2, total: 3 });
    expect(d.preview).toMatchObject({ compared: true, passed: 1, total: 3 });
    expect(d.newlyFailing).toEqual([{ label: 'cancelled_orders', production: 'pass', preview: 'fail', reason: 'Value mismatch' }]);
    expect(d.newlyPassing).toEqual([]);
    expect(evalsFail(d)).toBe(true);
    expect(evalsFail({ ...d, failOnRegression: false })).toBe(false);
  }, 60_000);

  it('follows endCursor over small pages (evaluation-results-paged)', async () => {
    const f = await emulatorFixture({ profiles: ['evaluation-results-paged'] });
    try {
      await seeded(f);
      await uploadTree(f.admin, 1, 'evals-prod', { ...tree(), 'agents/eval_questions/more.yml': MORE });
      const d = ran(await run(f));
      // 9 results in pages of 5 (the extra questions have no recorded answer): the second page is read only by following endCursor.
      expect(d.production).toMatchObject({ compared: true, passed: 2, total: 9 });
      expect(d.newlyFailing.map((c) => c.label)).toEqual(['cancelled_orders']);
    } finally {
      await f.close();
    }
  }, 120_000);
});

const MORE = `eval_questions:
${[1, 2, 3, 4, 5, 6].map((n) => `  - name: extra_${n}\n    question: Extra question ${n}?\n    sql: SELECT MEASURE(count) FROM orders\n`).join('')}`;

describe('fail closed', () => {
  it('no-evaluations: one line, never a failure', async () => {
    const f = await emulatorFixture({ profiles: ['no-evaluations'] });
    try {
      const d = await run(f);
      expect(d).toEqual({ state: 'absent', line: NO_EVALUATIONS });
      expect(evalsFail(d)).toBe(false);
      expect(evalsGreen(d)).toBe(true);
    } finally {
      await f.close();
    }
  }, 60_000);

  it('evaluation-incomplete: a page with hasNextPage and no cursor is not compared, never a pass', async () => {
    const f = await emulatorFixture({ profiles: ['evaluation-incomplete'] });
    try {
      await seeded(f);
      const d = ran(await run(f));
      expect(d.compared).toBe(false);
      for (const side of [d.production, d.preview]) {
        expect(side).toMatchObject({ compared: false, reason: expect.stringContaining('incomplete results page') });
      }
      expect(d.newlyFailing).toEqual([]);
      expect(evalsGreen(d)).toBe(false);
      expect(evalsFail(d)).toBe(true);
    } finally {
      await f.close();
    }
  }, 120_000);

  it('evaluation-never-finishes: not compared once evals-timeout has passed on the emulator’s clock', async () => {
    const f = await emulatorFixture({ profiles: ['evaluation-never-finishes'] });
    try {
      await seeded(f);
      const clock = emulatorClock(f);
      const before = f.em.clock.now();
      const d = ran(await run(f, 10 * 60_000, clock));
      expect(d.compared).toBe(false);
      expect(d.preview).toMatchObject({ compared: false, reason: expect.stringContaining('still running after 10 min') });
      // The wait ended at the timeout on the emulator's clock: not before, and not one poll after.
      expect(f.em.clock.now() - before).toBeGreaterThanOrEqual(10 * 60_000);
      expect(f.em.clock.now() - before).toBeLessThan(10 * 60_000 + 2 * 5_000);
      expect(evalsGreen(d)).toBe(false);
      expect(evalsGreen({ ...d, failOnRegression: false })).toBe(false);
    } finally {
      await f.close();
    }
  }, 120_000);
});
