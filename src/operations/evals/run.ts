/**
 * The eval delta's platform side (issue 40): whether the tenant has evaluations, runs on the PR's shared
 * branch and on the deploy branch (or production's last complete run, ./production-run.ts), a bounded wait on the client's clock, and every results page read to
 * the end. Each rule fails closed, as the vendor's CLI does (`rust/cube-cli/src/commands/evals.rs`): only
 * `completed` and `failed` end a wait, a run not done within the timeout is "not compared", a page that is
 * not a whole page (items not a list, hasNextPage missing, not a boolean, or true with no cursor to follow)
 * is "not compared", and zero results is never a pass.
 */
import { messageOf, NotFoundError } from '../../client/errors.js';
import { sleep } from '../../client/retry.js';
import { DEFAULTS } from '../../defaults.js';
import { plural } from '../../report/plural.js';
import type { OpContext } from '../context.js';
import { deltaOf, mergeRuns, questionOf, type EvalDelta, type EvalQuestion, type EvalSide, type ReusedRun } from './delta.js';
import { lastCompleteRun, wholeList } from './production-run.js';

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
  /** `run` (default): a new run on production; `last-complete`: production's last complete run when one is shown (input `evals-production`). */
  production?: 'run' | 'last-complete';
  /** Runs per side (input `evals-runs`, default 1); a reused production run is its side's one run. */
  runs?: number;
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
  const items = await wholeList(
    (after) => ctx.client.evaluations.results({ deploymentId: ctx.deploymentId, evaluationId: runId, query: after ? { after } : {} }, { signal: ctx.signal }),
    'results page',
  );
  if (typeof items === 'string') throw new NotCompared(`run ${runId}: ${items}`);
  return items.map((item) => {
    const q = questionOf(item);
    if (!q) throw new NotCompared(`run ${runId}: a result naming no question`);
    return q;
  });
}

/** One run's graded questions: waited on first unless it is a reused run already complete. */
async function runQuestions(ctx: OpContext, runId: string, wait: boolean, start: number, o: EvalDeltaOptions, clock: EvalClock): Promise<EvalQuestion[]> {
  if (wait) await waitRun(ctx, runId, start, o.timeoutMs, clock);
  const questions = await readResults(ctx, runId);
  if (questions.length === 0) throw new NotCompared(`run ${runId} graded no question (zero results is never a pass)`);
  if (new Set(questions.map((q) => q.key)).size !== questions.length) throw new NotCompared(`run ${runId} graded a question twice`);
  return questions;
}

/** What one side runs: the runs started, production's reused run, or why none started. */
interface SidePlan {
  branch: string;
  runIds: string[];
  reused?: ReusedRun;
  reason?: string;
}

async function sideOf(ctx: OpContext, s: SidePlan, start: number, o: EvalDeltaOptions, clock: EvalClock): Promise<EvalSide> {
  const ids = s.reused ? [s.reused.runId, ...s.runIds] : s.runIds;
  const base = { branch: s.branch, ...(ids.length > 1 ? { runIds: ids } : {}), ...(s.reused ? { reused: s.reused } : {}) };
  const first = ids[0];
  if (s.reason || first === undefined) return { compared: false, ...base, ...(first ? { runId: first } : {}), reason: s.reason ?? 'no run' };
  // Every run settles before the side is judged: none is left polling behind a failed one.
  const settled = await Promise.allSettled(ids.map((id) => runQuestions(ctx, id, id !== s.reused?.runId, start, o, clock)));
  if (ctx.signal?.aborted) throw ctx.signal.reason;
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    const e: unknown = failed.reason;
    return { compared: false, ...base, runId: first, reason: e instanceof NotCompared ? e.message : `run ${first}: ${messageOf(e)}` };
  }
  const merged = mergeRuns(settled.map((r) => (r as PromiseFulfilledResult<EvalQuestion[]>).value));
  if (typeof merged === 'string') return { compared: false, ...base, runId: first, reason: `runs ${ids.join(', ')}: ${merged}` };
  return { compared: true, ...base, runId: first, passed: merged.filter((q) => q.passed).length, total: merged.length, questions: merged };
}

/** Run the evals on both sides (or reuse production's last complete run) and compare them; one line when the tenant has no evaluations. */
export async function evalDelta(ctx: OpContext, o: EvalDeltaOptions): Promise<EvalDelta> {
  const clock = o.clock ?? SYSTEM_CLOCK;
  const listed = await specListsEvaluations(ctx);
  if (listed === false) return { state: 'absent', line: NO_EVALUATIONS };
  const runs = o.runs ?? 1;
  const production: SidePlan = { branch: o.productionBranch, runIds: [] };
  let reuseLine: string | undefined;
  if (o.production === 'last-complete') {
    const last = await lastCompleteRun(ctx, { branch: o.productionBranch, ...(o.agent ? { agent: o.agent } : {}) });
    if ('run' in last) production.reused = last.run;
    else reuseLine = `production's last complete run was not reused (${last.none}): a run was started`;
  }
  const plans: SidePlan[] = [production, { branch: o.previewBranch, runIds: [] }];
  let startedAny = false;
  for (const plan of plans) {
    // A reused production run counts as the side's one run: none is started beside it.
    for (let i = plan.reused ? runs : 0; i < runs && !plan.reason; i += 1) {
      try {
        plan.runIds.push(await startRun(ctx, plan.branch, o.agent));
        startedAny = true;
      } catch (e) {
        if (ctx.signal?.aborted) throw e;
        // A 404 on the first start, where the spec did not say, is the tenant without evaluations.
        if (e instanceof NotFoundError && listed === undefined && !startedAny) return { state: 'absent', line: NO_EVALUATIONS };
        plan.reason = `the run on ${plan.branch} did not start: ${messageOf(e)}`;
      }
    }
  }
  const start = clock.now();
  const shown = (p: SidePlan) => (p.reused ? `${p.reused.runId} (reused)` : p.runIds.join('+') || 'none');
  ctx.reporter.info(`evals: runs ${plans.map((p) => `${p.branch}=${shown(p)}`).join(', ')}; waiting up to ${Math.round(o.timeoutMs / 60_000)} min`);
  if (reuseLine) ctx.reporter.info(`evals: ${reuseLine}`);
  const [prod, preview] = (await Promise.all(plans.map((p) => sideOf(ctx, p, start, o, clock)))) as [EvalSide, EvalSide];
  const delta = deltaOf(prod, preview);
  // Flaky questions are a warning, never a regression (fail-on-eval-regression reads newlyFailing only).
  if (delta.flaky.length)
    ctx.reporter.warning(
      `evals: ${plural(delta.flaky.length, 'flaky question')}, the verdict differing between runs: ${delta.flaky.map((f) => f.label).join(', ')}`,
    );
  return {
    state: 'ran',
    production: prod,
    preview,
    compared: prod.compared && preview.compared,
    ...delta,
    ...(reuseLine ? { reuseLine } : {}),
    failOnRegression: o.failOnRegression,
  };
}

/** The delta of runs never started (the branch's model could not be read): both sides not compared, never a pass; the gate fails on it. */
export function evalsNotStarted(o: Pick<EvalDeltaOptions, 'previewBranch' | 'productionBranch' | 'failOnRegression'>, why: string): EvalDelta {
  const reason = `the eval runs were not started: ${why}`;
  return {
    state: 'ran',
    production: { compared: false, branch: o.productionBranch, reason },
    preview: { compared: false, branch: o.previewBranch, reason },
    compared: false,
    newlyFailing: [],
    newlyPassing: [],
    failOnRegression: o.failOnRegression,
  };
}
