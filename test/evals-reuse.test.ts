/**
 * The eval delta's last two asks against the emulator over HTTPS (issue 40): production's last complete run
 * reused (`evals-production: last-complete`) and flaky questions (`evals-runs`). Every run finishes on the
 * emulator's manual clock, moved by the wait's own sleeps or by the test (no wall-clock margin).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL } from '../packages/emulator/src/seed/demo-model.js';
import type { OpContext } from '../src/operations/context.js';
import { evalsFail, type EvalDelta } from '../src/operations/evals/delta.js';
import { evalDelta, type EvalClock, type EvalDeltaOptions } from '../src/operations/evals/run.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { control, emulatorFixture, uploadTree, type EmulatorFixture } from './support/emulator.js';
import { EVALS_ORDERS as ORDERS, EVALS_QUESTIONS as QUESTIONS, EVALS_ANSWERS as ANSWERS } from './support/evals-fixtures.js';

const tree = (orders = ORDERS) => ({ ...DEMO_MODEL, 'model/cubes/orders.yml': orders, 'agents/eval_questions/main.yml': QUESTIONS });
/** The PR: the measure the agent answers with now counts every order that is not cancelled. */
const PR_ORDERS = ORDERS.replace("status = 'cancelled'", "status <> 'cancelled'");
const BROKEN = ORDERS.replace('type: count', 'type: cnt');

function emulatorClock(f: EmulatorFixture): EvalClock {
  return {
    now: () => f.em.clock.now(),
    sleep: (ms: number) => {
      f.em.clock.advance(ms);
      return Promise.resolve();
    },
  };
}

const reporter = () => new MemoryReporter();
async function delta(f: EmulatorFixture, o: Partial<EvalDeltaOptions> & { productionBranch: string }, r = reporter()) {
  const ctx: OpContext = { client: f.admin, deploymentId: 1, reporter: r, dryRun: false };
  const d: EvalDelta = await evalDelta(ctx, { previewBranch: 'evals-pr', timeoutMs: 30 * 60_000, failOnRegression: true, clock: emulatorClock(f), ...o });
  if (d.state !== 'ran') throw new Error(`expected a run, got ${JSON.stringify(d)}`);
  return d;
}

async function branch(f: EmulatorFixture, name: string, orders = ORDERS) {
  await f.admin.branches.create({ deploymentId: 1, body: { name, from: 'main' } });
  await uploadTree(f.admin, 1, name, tree(orders));
}

/** Start a run as someone on the platform would, and let the clock pass so that it ends. */
async function runOn(f: EmulatorFixture, branchName: string, agentName?: string): Promise<string> {
  const run = await f.admin.evaluations.start({ deploymentId: 1, body: { branchName, ...(agentName ? { agentName } : {}) } });
  f.em.clock.advance(10 * 60_000);
  return run.id;
}

const listIds = async (f: EmulatorFixture) =>
  ((await f.admin.evaluations.list({ deploymentId: 1, query: { first: 100 } })).items as Array<{ id: unknown }>).map((r) => String(r.id));

let fx: EmulatorFixture;
/** Production's runs, oldest first: the one reuse must pick, then three newer ones it must not. */
let oldest: string;
let other: string;
let sales: string;
beforeAll(async () => {
  fx = await emulatorFixture();
  await branch(fx, 'evals-prod');
  await branch(fx, 'evals-pr', PR_ORDERS);
  await branch(fx, 'evals-other');
  await branch(fx, 'evals-fresh');
  await control(fx.em, 'evals/answers', { answers: ANSWERS });
  oldest = await runOn(fx, 'evals-prod');
  other = await runOn(fx, 'evals-other');
  sales = await runOn(fx, 'evals-prod', 'sales_agent');
  // A newer run on production that failed: its model did not compile then.
  await uploadTree(fx.admin, 1, 'evals-prod', tree(BROKEN));
  await runOn(fx, 'evals-prod');
  await uploadTree(fx.admin, 1, 'evals-prod', tree());
}, 180_000);
afterAll(() => fx.close());

describe('evals-production: last-complete', () => {
  it('reuses the newest completed run of the default agent on the deploy branch, not a newer failed one, another branch’s or another agent’s', async () => {
    const before = await listIds(fx);
    const d = await delta(fx, { productionBranch: 'evals-prod', production: 'last-complete' });
    expect(d.production).toMatchObject({ compared: true, runId: oldest, reused: { runId: oldest, createdAt: expect.any(String) }, passed: 2, total: 2 });
    expect(d.reuseLine).toBeUndefined();
    expect(d.newlyFailing.map((c) => c.label)).toEqual(['cancelled_orders']);
    // Only the PR's run was started.
    const started = (await listIds(fx)).filter((id) => !before.includes(id));
    expect(started).toEqual([d.preview.runId]);
  }, 120_000);

  it('with evals-agent, reuses that agent’s run', async () => {
    const d = await delta(fx, { productionBranch: 'evals-prod', production: 'last-complete', agent: 'sales_agent' });
    expect(d.production).toMatchObject({ compared: true, runId: sales, reused: { runId: sales } });
  }, 120_000);

  it('no completed run on the deploy branch: starts one, and says so in one line', async () => {
    const before = await listIds(fx);
    const r = reporter();
    const d = await delta(fx, { productionBranch: 'evals-fresh', production: 'last-complete' }, r);
    expect(d.production.reused).toBeUndefined();
    expect(d.reuseLine).toBe(
      "production's last complete run was not reused (no completed run of the default agent (auto) on evals-fresh over the whole question set): a run was started",
    );
    expect(d.production).toMatchObject({ compared: true, passed: 2, total: 2 });
    expect((await listIds(fx)).filter((id) => !before.includes(id))).toHaveLength(2);
    expect(r.lines.map((l) => l.message).join('\n')).toContain("production's last complete run was not reused");
  }, 120_000);

  for (const [profile, why] of [
    ['evaluation-list-without-branch', 'do not say their branch, so none is shown to be production'],
    ['evaluation-list-undated', 'completed runs on evals-prod carry no creation date: which is newest is not known'],
  ] as const) {
    it(`${profile}: a run not shown to be production's newest is not reused; one is started`, async () => {
      await control(fx.em, 'profiles', { profiles: [profile] });
      try {
        const listed = (await fx.admin.evaluations.list({ deploymentId: 1, query: {} })).items as Array<Record<string, unknown>>;
        expect(listed.length).toBeGreaterThan(0);
        for (const r of listed) expect(profile === 'evaluation-list-undated' ? r.createdAt : r.branchName).toBeUndefined();
        const d = await delta(fx, { productionBranch: 'evals-prod', production: 'last-complete' });
        expect(d.production.reused).toBeUndefined();
        expect(d.production.runId).not.toBe(oldest);
        expect(d.reuseLine).toContain(why);
      } finally {
        await control(fx.em, 'profiles', { profiles: [] });
      }
    }, 120_000);
  }

  it('evaluation-results-paged: the runs list is read page by page by its cursor', async () => {
    await control(fx.em, 'profiles', { profiles: ['evaluation-results-paged'] });
    try {
      const first = await fx.admin.evaluations.list({ deploymentId: 1, query: {} });
      expect(first.pageInfo).toMatchObject({ hasNextPage: true });
      // The run to reuse is among the oldest: not on the first page.
      expect((first.items as Array<{ id: unknown }>).map((r) => String(r.id))).not.toContain(other);
      const d = await delta(fx, { productionBranch: 'evals-other', production: 'last-complete' });
      expect(d.production.reused?.runId).toBe(other);
      expect(d.reuseLine).toBeUndefined();
    } finally {
      await control(fx.em, 'profiles', { profiles: [] });
    }
  }, 120_000);
});

describe('evals-runs: flaky questions (evaluation-flaky)', () => {
  it('a question whose verdict differs between two runs of a side is flaky: not a regression, no failure, and failed in accuracy', async () => {
    await control(fx.em, 'profiles', { profiles: ['evaluation-flaky'] });
    try {
      await branch(fx, 'flaky-prod');
      await branch(fx, 'flaky-pr');
      const d = await delta(fx, { productionBranch: 'flaky-prod', previewBranch: 'flaky-pr', runs: 2 });
      expect(d.compared).toBe(true);
      expect(d.production.runIds).toHaveLength(2);
      // orders_by_status passed in one run and not the other on each side: never a pass.
      expect(d.production).toMatchObject({ passed: 1, total: 2 });
      expect(d.preview).toMatchObject({ passed: 1, total: 2 });
      expect(d.flaky).toEqual([{ label: 'orders_by_status', production: ['pass', 'fail'], preview: ['pass', 'fail'] }]);
      expect(d.newlyFailing).toEqual([]);
      expect(d.newlyPassing).toEqual([]);
      expect(d.failOnRegression).toBe(true);
      expect(evalsFail(d)).toBe(false);
    } finally {
      await control(fx.em, 'profiles', { profiles: [] });
    }
  }, 180_000);

  it('with one run per side the same profile shows no flaky question (the default is one run)', async () => {
    await control(fx.em, 'profiles', { profiles: ['evaluation-flaky'] });
    try {
      await branch(fx, 'flaky-one');
      // flaky-one's first run: the agent answers right.
      const d = await delta(fx, { productionBranch: 'flaky-one', previewBranch: 'evals-pr' });
      expect(d.flaky).toEqual([]);
      expect(d.production).toMatchObject({ passed: 2, total: 2 });
    } finally {
      await control(fx.em, 'profiles', { profiles: [] });
    }
  }, 120_000);
});
