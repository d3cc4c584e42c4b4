/**
 * The eval delta's platform side (issue 40): whether the tenant has evaluations, a run on the PR's shared
 * branch and one on the deploy branch, a bounded wait on the client's clock, and every results page read to
 * the end. Each rule fails closed, as the vendor's CLI does (`rust/cube-cli/src/commands/evals.rs`): only
 * `completed` and `failed` end a wait, a run not done within the timeout is "not compared", a page that is
 * not a whole page (items not a list, hasNextPage missing, not a boolean, or true with no cursor to follow)
 * is "not compared", and zero results is never a pass.
 */
import { messageOf, NotFoundError } from '../../client/errors.js';
import { sleep } from '../../client/retry.js';
import { DEFAULTS } from '../../defaults.js';
import type { OpContext } from '../context.js';
import { deltaOf, questionOf, type EvalDelta, type EvalQuestion, type EvalSide } from './delta.js';

/** The clock the wait polls on: the process's by default; a test gives the emulator's. */
export interface EvalClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const SYSTEM_CLOCK: EvalClock = { now: () => Date.now(), sleep };

export interface EvalDeltaOptions {
  /** The PR's shared branch. */
  previewBranch: string;
  /** The deploy branch (production). */
  productionBranch: string;
  /** The agent the runs ask for (input `evals-agent`); the platform's default when absent. */
  agent?: string;
  timeoutMs: number;
  failOnRegression: boolean;
  clock?: EvalClock;
}

export const NO_EVALUATIONS = 'this tenant has no evaluations; the eval delta was skipped';

const EVALUATIONS_PATH = /^\/api\/v1\/deployments\/\{[^}]+\}\/evaluations\/?$/;

/** Whether the tenant's own spec lists the evaluation endpoints; undefined when the spec cannot be read (the first call then says). */
async function specListsEvaluations(ctx: OpContext): Promise<boolean | undefined> {
  try {
    const spec = await ctx.client.app.spec({ signal: ctx.signal });
    return Object.keys(spec.paths ?? {}).some((p) => EVALUATIONS_PATH.test(p));
  } catch (e) {
    if (ctx.signal?.aborted) throw e;
    return undefined;
  }
}

class NotCompared extends Error {}

async function startRun(ctx: OpContext, branch: string, agent: string | undefined): Promise<string> {
  const run = await ctx.client.evaluations.start(
    { deploymentId: ctx.deploymentId, body: { branchName: branch, ...(agent ? { agentName: agent } : {}) } },
    { signal: ctx.signal },
  );
  return run.id;
}

/** Wait until the run is `completed` (or `failed`: not compared), on the clock, at most `timeoutMs` from `start`. */
async function waitRun(ctx: OpContext, runId: string, start: number, timeoutMs: number, clock: EvalClock): Promise<void> {
  for (;;) {
    const run = await ctx.client.evaluations.get({ deploymentId: ctx.deploymentId, evaluationId: runId }, { signal: ctx.signal });
    const status = (run.status ?? '').toLowerCase();
    if (status === 'completed') return;
    if (status === 'failed') throw new NotCompared(`run ${runId} failed${run.error ? `: ${run.error}` : ''}`);
    const left = start + timeoutMs - clock.now();
    if (left <= 0) {
      throw new NotCompared(`run ${runId} was still ${status || 'without a status'} after ${Math.round(timeoutMs / 60_000)} min (evals-timeout)`);
    }
    await clock.sleep(Math.min(DEFAULTS.evalsPollMs, left), ctx.signal);
  }
}

/** Every result of a finished run, in the tenant's own page size, following `endCursor`; a page that is not whole makes the side not compared. */
export async function readResults(ctx: OpContext, runId: string): Promise<EvalQuestion[]> {
  const out: EvalQuestion[] = [];
  let after: string | undefined;
  for (let n = 0; n < DEFAULTS.evalsMaxPages; n += 1) {
    const page = await ctx.client.evaluations.results(
      { deploymentId: ctx.deploymentId, evaluationId: runId, query: after ? { after } : {} },
      { signal: ctx.signal },
    );
    if (!Array.isArray(page.items)) throw new NotCompared(`run ${runId}: a results page whose items is not a list`);
    for (const item of page.items) {
      const q = questionOf(item);
      if (!q) throw new NotCompared(`run ${runId}: a result naming no question`);
      out.push(q);
    }
    const info = page.pageInfo as Record<string, unknown> | null | undefined;
    const more = info && typeof info === 'object' ? info.hasNextPage : undefined;
    if (typeof more !== 'boolean') throw new NotCompared(`run ${runId}: an incomplete results page (hasNextPage missing or not a boolean)`);
    if (!more) return out;
    const cursor = info?.endCursor;
    if (typeof cursor !== 'string' || cursor === '' || cursor === after) {
      throw new NotCompared(`run ${runId}: an incomplete results page (hasNextPage with no cursor to follow)`);
    }
    after = cursor;
  }
  throw new NotCompared(`run ${runId}: more than ${DEFAULTS.evalsMaxPages} results pages`);
}

async function sideOf(ctx: OpContext, branch: string, runId: string, start: number, o: EvalDeltaOptions, clock: EvalClock): Promise<EvalSide> {
  try {
    await waitRun(ctx, runId, start, o.timeoutMs, clock);
    const questions = await readResults(ctx, runId);
    if (questions.length === 0) return { compared: false, branch, runId, reason: `run ${runId} graded no question (zero results is never a pass)` };
    const keys = new Set(questions.map((q) => q.key));
    if (keys.size !== questions.length) return { compared: false, branch, runId, reason: `run ${runId} graded a question twice` };
    return { compared: true, branch, runId, passed: questions.filter((q) => q.passed).length, total: questions.length, questions };
  } catch (e) {
    if (ctx.signal?.aborted) throw e;
    return { compared: false, branch, runId, reason: e instanceof NotCompared ? e.message : `run ${runId}: ${messageOf(e)}` };
  }
}

/** Run the evals on both sides and compare them; one line when the tenant has no evaluations. */
export async function evalDelta(ctx: OpContext, o: EvalDeltaOptions): Promise<EvalDelta> {
  const clock = o.clock ?? SYSTEM_CLOCK;
  const listed = await specListsEvaluations(ctx);
  if (listed === false) return { state: 'absent', line: NO_EVALUATIONS };
  const started: Array<{ branch: string; runId?: string; reason?: string }> = [];
  for (const branch of [o.productionBranch, o.previewBranch]) {
    try {
      started.push({ branch, runId: await startRun(ctx, branch, o.agent) });
    } catch (e) {
      if (ctx.signal?.aborted) throw e;
      // A 404 on the first start, where the spec did not say, is the tenant without evaluations.
      if (e instanceof NotFoundError && listed === undefined && started.length === 0) return { state: 'absent', line: NO_EVALUATIONS };
      started.push({ branch, reason: `the run on ${branch} did not start: ${messageOf(e)}` });
    }
  }
  const start = clock.now();
  ctx.reporter.info(`evals: runs ${started.map((s) => `${s.branch}=${s.runId ?? 'none'}`).join(', ')}; waiting up to ${Math.round(o.timeoutMs / 60_000)} min`);
  const sides = await Promise.all(
    started.map((s) =>
      s.runId ? sideOf(ctx, s.branch, s.runId, start, o, clock) : Promise.resolve<EvalSide>({ compared: false, branch: s.branch, reason: s.reason as string }),
    ),
  );
  const [production, preview] = sides as [EvalSide, EvalSide];
  return {
    state: 'ran',
    production,
    preview,
    compared: production.compared && preview.compared,
    ...deltaOf(production, preview),
    failOnRegression: o.failOnRegression,
  };
}
