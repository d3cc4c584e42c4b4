/**
 * The eval delta's pure parts for issue 40's last two asks: merging the runs of one side (a question passes
 * only when it passed in every run; flaky when it passed in some), the delta that never counts a flaky
 * question as moved, the choice of production's run to reuse, and how the comment and `plan` show both.
 */
import { describe, expect, it } from 'vitest';
import { deltaOf, evalsFail, mergeRuns, questionOf, type EvalDelta, type EvalQuestion, type EvalSide } from '../src/operations/evals/delta.js';
import { pageProblem, pickProductionRun } from '../src/operations/evals/production-run.js';
import { evalsView, keptEvalsView, renderEvals } from '../src/pr/comment/render-evals.js';
import { evalsText } from '../src/pr/review-text.js';

const q = (name: string, verdict: string, scoreReason?: string): EvalQuestion => questionOf({ questionName: name, verdict, scoreReason })!;

function side(branch: string, runs: EvalQuestion[][]): EvalSide {
  const questions = mergeRuns(runs);
  if (typeof questions === 'string') throw new Error(questions);
  const runIds = runs.map((_, i) => `${branch}-${i + 1}`);
  return { compared: true, branch, runId: runIds[0]!, runIds, passed: questions.filter((x) => x.passed).length, total: questions.length, questions };
}

describe('mergeRuns', () => {
  it('one run is itself', () => {
    const run = [q('a', 'pass'), q('b', 'fail')];
    expect(mergeRuns([run])).toBe(run);
  });

  it('passes only when every run passed; flaky when some did; a never-passing question is not flaky', () => {
    const merged = mergeRuns([
      [q('a', 'pass'), q('b', 'pass'), q('c', 'fail', 'Value mismatch')],
      [q('a', 'pass'), q('b', 'fail', 'Row count mismatch'), q('c', 'error', 'Agent error')],
    ]) as EvalQuestion[];
    expect(merged.map((x) => [x.label, x.passed, x.flaky, x.verdicts])).toEqual([
      ['a', true, false, ['pass', 'pass']],
      ['b', false, true, ['pass', 'fail']],
      ['c', false, false, ['fail', 'error']],
    ]);
    // The reason shown is the first failing run's.
    expect(merged[1]).toMatchObject({ verdict: 'fail', reason: 'Row count mismatch' });
  });

  it('runs that graded different questions are refused', () => {
    expect(mergeRuns([[q('a', 'pass')], [q('b', 'pass')]])).toContain('different questions');
    expect(mergeRuns([[q('a', 'pass')], [q('a', 'pass'), q('b', 'pass')]])).toContain('different questions');
    expect(mergeRuns([])).toBe('no run');
  });
});

describe('deltaOf with flaky questions', () => {
  const prod = side('main', [
    [q('stable_break', 'pass'), q('flaky_here', 'pass'), q('flaky_there', 'pass'), q('fixed', 'fail', 'Value mismatch'), q('gone', 'pass')],
    [q('stable_break', 'pass'), q('flaky_here', 'pass'), q('flaky_there', 'fail'), q('fixed', 'fail'), q('gone', 'fail')],
  ]);
  const pr = side('pr', [
    [q('stable_break', 'fail', 'Value mismatch'), q('flaky_here', 'pass'), q('flaky_there', 'fail'), q('fixed', 'pass')],
    [q('stable_break', 'fail'), q('flaky_here', 'fail'), q('flaky_there', 'fail'), q('fixed', 'pass')],
  ]);

  it('a flaky question on either side is listed apart with each run’s verdict, never newly failing or passing', () => {
    const d = deltaOf(prod, pr);
    expect(d.newlyFailing).toEqual([{ label: 'stable_break', production: 'pass', preview: 'fail', reason: 'Value mismatch' }]);
    expect(d.newlyPassing).toEqual([{ label: 'fixed', production: 'fail', preview: 'pass', reason: 'Value mismatch' }]);
    expect(d.flaky).toEqual([
      { label: 'flaky_here', production: ['pass', 'pass'], preview: ['pass', 'fail'] },
      { label: 'flaky_there', production: ['pass', 'fail'], preview: ['fail', 'fail'] },
      { label: 'gone', production: ['pass', 'fail'], preview: [] },
    ]);
  });

  it('accuracy counts a flaky question failed on its side', () => {
    expect(prod).toMatchObject({ passed: 2, total: 5 });
    expect(pr).toMatchObject({ passed: 1, total: 4 });
  });

  it('fail-on-eval-regression reads stable regressions only', () => {
    const only = (p: EvalSide, r: EvalSide): Extract<EvalDelta, { state: 'ran' }> => ({
      state: 'ran',
      production: p,
      preview: r,
      compared: true,
      ...deltaOf(p, r),
      failOnRegression: true,
    });
    const flakyOnly = only(side('main', [[q('x', 'pass')], [q('x', 'pass')]]), side('pr', [[q('x', 'pass')], [q('x', 'fail')]]));
    expect(flakyOnly.newlyFailing).toEqual([]);
    expect(flakyOnly.flaky).toHaveLength(1);
    expect(evalsFail(flakyOnly)).toBe(false);
    expect(evalsFail(only(prod, pr))).toBe(true);
  });
});

describe('pickProductionRun', () => {
  const run = (id: number, over: Record<string, unknown> = {}) => ({
    id,
    status: 'completed',
    branchName: 'main',
    agentName: 'auto',
    questionFile: null,
    createdAt: `2026-12-0${id}T10:00:00.000Z`,
    ...over,
  });

  it('the newest completed run on the deploy branch of the agent asked, over the whole question set, by createdAt whatever the list order', () => {
    const runs = [
      run(1),
      run(5, { status: 'failed' }),
      run(6, { status: 'running' }),
      run(4, { branchName: 'preview-pr-7' }),
      run(3, { agentName: 'sales' }),
      run(7, { questionFile: 'eval_questions/revenue.yml' }),
      run(2, { status: 'COMPLETED', agentName: 'AUTO', completedAt: '2026-12-02T10:05:00.000Z' }),
    ];
    expect(pickProductionRun(runs, { branch: 'main' })).toEqual({
      run: { runId: '2', createdAt: '2026-12-02T10:00:00.000Z', completedAt: '2026-12-02T10:05:00.000Z' },
    });
    expect(pickProductionRun(runs, { branch: 'main', agent: 'sales' })).toEqual({ run: { runId: '3', createdAt: '2026-12-03T10:00:00.000Z' } });
  });

  it('fails closed: a record without its branch is never production’s; a candidate without a date stops reuse', () => {
    expect(pickProductionRun([run(1, { branchName: undefined })], { branch: 'main' })).toEqual({
      none: "no completed run of the default agent (auto) on main over the whole question set (1 completed run does not say its branch, so none is shown to be production's)",
    });
    expect(pickProductionRun([run(1), run(2, { createdAt: null })], { branch: 'main' })).toEqual({
      none: 'a completed run on main carries no creation date: which is newest is not known',
    });
    expect(pickProductionRun([run(1, { createdAt: 'yesterday' })], { branch: 'main' })).toMatchObject({ none: expect.stringContaining('no creation date') });
    expect(pickProductionRun([null, 'x', { status: 'completed' }], { branch: 'main' })).toMatchObject({ none: expect.stringContaining('no completed run') });
  });

  it('the list pages with the results’ rules', () => {
    expect(pageProblem({ items: [], pageInfo: { hasNextPage: false } }, undefined)).toBeUndefined();
    expect(pageProblem({ items: [], pageInfo: { hasNextPage: true, endCursor: '5' } }, undefined)).toBeUndefined();
    expect(pageProblem({ items: {}, pageInfo: { hasNextPage: false } }, undefined)).toContain('items is not a list');
    expect(pageProblem({ items: [] }, undefined)).toContain('hasNextPage missing');
    expect(pageProblem({ items: [], pageInfo: { hasNextPage: 'false' } }, undefined)).toContain('not a boolean');
    expect(pageProblem({ items: [], pageInfo: { hasNextPage: true, endCursor: '5' } }, '5')).toContain('no cursor to follow');
    expect(pageProblem({ items: [], pageInfo: { hasNextPage: true, endCursor: null } }, undefined)).toContain('no cursor to follow');
  });
});

describe('shown', () => {
  const prod: EvalSide = { ...side('main', [[q('a', 'pass'), q('b', 'pass')]]), reused: { runId: '1001', createdAt: '2026-12-01T10:00:00.000Z' } };
  const pr = side('preview-pr-7', [
    [q('a', 'pass'), q('b', 'pass')],
    [q('a', 'fail'), q('b', 'pass')],
  ]);
  const d: EvalDelta = { state: 'ran', production: prod, preview: pr, compared: true, ...deltaOf(prod, pr), failOnRegression: true };

  it('the comment says which run was reused, the runs per side, and the flaky group as a warning', () => {
    const lines = renderEvals(keptEvalsView(evalsView(d)), 'comment');
    expect(lines[0]).toBe('**Agent evals** (production `2/2`, this pull request `1/2`): ✅ no question newly failing; ⚠️ 1 flaky question');
    expect(lines).toContain('- production (`main`): its last complete run `1001`, created `2026-12-01T10:00:00.000Z`, reused');
    expect(lines).toContain('- 2 runs per side (production: the one reused): a question passes only when it passed in every run of its side');
    expect(lines).toContain('- ⚠️ `a` (production: `pass`; here: `pass`, `fail`)');
  });

  it('a run started because none was reused says why', () => {
    const started: EvalDelta = {
      ...d,
      production: { ...prod, reused: undefined } as EvalSide,
      reuseLine: 'production’s last complete run was not reused (x): a run was started',
    };
    expect(renderEvals(evalsView(started), 'comment').filter((l) => l.startsWith('- production’s last complete run was not reused'))).toHaveLength(1);
  });

  it('plan prints both', () => {
    const out = evalsText(evalsView(d));
    expect(out[0]).toBe('Agent evals: production (main) 2/2; this change (preview-pr-7) 1/2 over 2 runs');
    expect(out).toContain('  flaky a: production pass; this change pass, fail');
    expect(out).toContain('  production: its last complete run 1001 (created 2026-12-01T10:00:00.000Z), reused');
  });

  it('questions failing on both sides and questions only asked here: named with their verdicts, outside text escaped', () => {
    const both: EvalDelta = {
      ...d,
      stillFailing: [{ label: 'stale_*q*', production: 'error', preview: 'error', reason: 'Ground truth not found' }],
      added: [{ label: 'fresh', production: 'not asked', preview: 'fail', reason: 'Value mismatch' }],
    };
    const lines = renderEvals(keptEvalsView(evalsView(both)), 'comment');
    expect(lines).toContain("Failing on production too (not this change's doing): `stale_*q*` (`error`: Ground truth not found)");
    expect(lines).toContain('Only asked here (production does not ask them): `fresh` (`fail`: Value mismatch)');
    const out = evalsText(evalsView(both));
    expect(out).toContain('  failing on both stale_*q*: error -> error: Ground truth not found');
    expect(out).toContain('  only asked here fresh: fail: Value mismatch');
  });
});
