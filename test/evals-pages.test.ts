/**
 * The eval delta's fail-closed page rules, each against a real HTTPS server answering one way the emulator's
 * profiles do not: items not a list, hasNextPage missing or not a boolean, a cursor that does not move; and
 * the matching of questions by name, else by their text (pure).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformClient } from '../src/client/client.js';
import { deltaOf, questionOf, type EvalSide } from '../src/operations/evals/delta.js';
import { evalDelta } from '../src/operations/evals/run.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { json, startTestServer, type TestServer } from './support/https-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const PASS = { questionName: 'q1', questionTextSnapshot: 'Q one?', verdict: 'PASS', scoreReason: null };

/** A tenant whose spec lists evaluations, whose runs complete at once, and whose results pages are `page(after)` (its runs list `list(after)`). */
async function deltaWith(page: (after: string | null) => unknown, o: { list?: (after: string | null) => unknown; starts?: string[] } = {}) {
  server.handle((q, r) => {
    if (q.path === '/api/v1/spec') return json(r, 200, { openapi: '3.1.0', paths: { '/api/v1/deployments/{deploymentId}/evaluations': {} } });
    if (q.method === 'GET' && q.path.endsWith('/evaluations') && o.list) return json(r, 200, o.list(q.query.get('after')));
    if (q.method === 'POST') {
      o.starts?.push(q.path);
      return json(r, 200, { id: 7, status: 'running' });
    }
    if (q.path.endsWith('/results')) return json(r, 200, page(q.query.get('after')));
    return json(r, 200, { id: '7', status: 'Completed', unknownField: { kept: true } });
  });
  const client = new PlatformClient({ baseUrl: server.baseUrl, apiKey: 'test-key-123456', ca: server.ca });
  try {
    const d = await evalDelta(
      { client, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false },
      {
        previewBranch: 'pr',
        productionBranch: 'main',
        timeoutMs: 60_000,
        failOnRegression: false,
        clock: { now: () => 0, sleep: () => Promise.resolve() },
        ...(o.list ? { production: 'last-complete' as const } : {}),
      },
    );
    if (d.state !== 'ran') throw new Error('expected a run');
    return d;
  } finally {
    await client.close();
  }
}

describe('results pages, fail closed', () => {
  it('a whole page (any-case verdict, an integer id read as text) is compared', async () => {
    const d = await deltaWith(() => ({ items: [PASS], pageInfo: { hasNextPage: false } }));
    expect(d.production).toMatchObject({ compared: true, runId: '7', passed: 1, total: 1 });
  });

  it.each([
    ['items is not a list', { items: { q1: PASS }, pageInfo: { hasNextPage: false } }, 'items is not a list'],
    ['hasNextPage missing', { items: [PASS], pageInfo: {} }, 'hasNextPage missing or not a boolean'],
    ['hasNextPage a string', { items: [PASS], pageInfo: { hasNextPage: 'false' } }, 'hasNextPage missing or not a boolean'],
    ['no pageInfo', { items: [PASS] }, 'hasNextPage missing or not a boolean'],
    ['hasNextPage with an empty cursor', { items: [PASS], pageInfo: { hasNextPage: true, endCursor: '' } }, 'no cursor to follow'],
    ['no results', { items: [], pageInfo: { hasNextPage: false } }, 'graded no question'],
  ])('%s: not compared', async (_name, body, says) => {
    const d = await deltaWith(() => body);
    expect(d.compared).toBe(false);
    expect(d.production).toMatchObject({ compared: false, reason: expect.stringContaining(says) });
  });

  it('a cursor that does not move is not followed forever', async () => {
    const d = await deltaWith(() => ({ items: [{ ...PASS, questionName: `q${Math.random()}` }], pageInfo: { hasNextPage: true, endCursor: 'c1' } }));
    expect(d.production).toMatchObject({ compared: false, reason: expect.stringContaining('no cursor to follow') });
  });
});

describe('the runs list (evals-production: last-complete), fail closed', () => {
  const done = { id: 5, status: 'completed', branchName: 'main', agentName: 'auto', createdAt: '2026-12-01T10:00:00Z' };
  const whole = () => ({ items: [PASS], pageInfo: { hasNextPage: false } });

  it('a run on the second page is reused: the cursor is followed, no run started on production', async () => {
    const starts: string[] = [];
    const list = (after: string | null) =>
      after === 'p2'
        ? { items: [done], pageInfo: { hasNextPage: false } }
        : { items: [{ ...done, id: 6, status: 'failed' }], pageInfo: { hasNextPage: true, endCursor: 'p2' } };
    const d = await deltaWith(whole, { list, starts });
    expect(d.production).toMatchObject({ compared: true, runId: '5', reused: { runId: '5' } });
    expect(starts).toHaveLength(1);
  });

  it.each([
    [
      'hasNextPage with no cursor',
      { items: [done], pageInfo: { hasNextPage: true } },
      'the list of runs has an incomplete page (hasNextPage with no cursor to follow)',
    ],
    ['items not a list', { items: null, pageInfo: { hasNextPage: false } }, 'the list of runs has a page whose items is not a list'],
    ['no pageInfo', { items: [done] }, 'hasNextPage missing or not a boolean'],
  ])('%s: nothing is reused; a run is started and the line says why', async (_name, body, says) => {
    const starts: string[] = [];
    const d = await deltaWith(whole, { list: () => body, starts });
    expect(d.production.reused).toBeUndefined();
    expect(d.reuseLine).toContain(says);
    expect(starts).toHaveLength(2);
  });
});

describe('matching', () => {
  const side = (items: unknown[]): EvalSide => {
    const questions = items.map((i) => questionOf(i)!);
    return { compared: true, branch: 'x', runId: '1', passed: questions.filter((q) => q.passed).length, total: questions.length, questions };
  };

  it('by name, else by question text; a new question is neither newly failing nor passing, but only asked here', () => {
    const prod = side([PASS, { questionTextSnapshot: 'No name?', verdict: 'fail', scoreReason: 'Row count mismatch' }]);
    const pr = side([
      { ...PASS, questionTextSnapshot: 'Q one, reworded?', verdict: 'fail', scoreReason: 'Value mismatch' },
      { questionTextSnapshot: 'No name?', verdict: 'pass' },
      { questionName: 'new', verdict: 'fail' },
    ]);
    expect(deltaOf(prod, pr)).toEqual({
      newlyFailing: [{ label: 'q1', production: 'pass', preview: 'fail', reason: 'Value mismatch' }],
      newlyPassing: [{ label: 'No name?', production: 'fail', preview: 'pass', reason: 'Row count mismatch' }],
      flaky: [],
      stillFailing: [],
      added: [{ label: 'new', production: 'not asked', preview: 'fail' }],
    });
  });

  it('a question failing on both sides is named with the reason here, never as newly failing', () => {
    const fail = (reason: string) => ({ questionName: 'stale', verdict: 'error', scoreReason: reason });
    const d = deltaOf(side([PASS, fail('Ground truth not found')]), side([PASS, { ...fail('Agent error'), verdict: 'fail' }]));
    expect(d.newlyFailing).toEqual([]);
    expect(d.stillFailing).toEqual([{ label: 'stale', production: 'error', preview: 'fail', reason: 'Agent error' }]);
  });
});
