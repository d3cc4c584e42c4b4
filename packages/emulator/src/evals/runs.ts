/**
 * An evaluation run: every eval question of the branch answered by the fixture agent (the REST query
 * recorded for it, `POST /_emulator/evals/answers`), its ground truth run, both on the branch's compiled
 * model and the deployment's data, graded (./grade.ts). The work is done at the start; the run reads as
 * running until `EVAL_MS_PER_QUESTION` per question has passed on the emulator's clock.
 */
import type { Clock } from '../clock.js';
import type { DeploymentRec } from '../deployments/models.js';
import type { Engine } from '../engine/index.js';
import { visibleCubes, type MetaCube } from '../engine/meta.js';
import { normalizeQuery } from '../engine/query.js';
import { buildSql } from '../engine/sql.js';
import type { CubeCompilers } from '../engine/vendor.js';
import { gradeResults, type Table } from './grade.js';
import { cubeQueryOf } from './ground-truth.js';
import { readCertifiedQueries, readQuestions, type EvalQuestion } from './questions.js';

/** Emulated time one question takes. */
export const EVAL_MS_PER_QUESTION = 3_000;

export type Verdict = 'pass' | 'fail' | 'review' | 'error';

/** One result as the results endpoint answers it (field names: docs/emulator.md). */
export interface EvalResultRec {
  id: number;
  questionName: string;
  questionTextSnapshot: string;
  verdict: Verdict;
  score: number;
  scoreReason: string | null;
  failureAnalysis: string | null;
  agentSql: string | null;
  groundTruthSql: string | null;
}

export interface EvalRunRec {
  /** An integer: the vendor's CLI parses the started run's `id` as one (evals.rs). */
  id: number;
  deploymentId: number;
  branchName: string;
  agentName: string;
  questionFile: string | null;
  createdAt: number;
  /** When the run reads as finished (never, for profile `evaluation-never-finishes`: the clock's max). */
  finishAt: number;
  /** Set when the run as a whole failed (the branch's model does not compile). */
  error: string | null;
  results: EvalResultRec[];
}

export interface EvalEnv {
  clock: Clock;
  engine: Engine;
  /** The fixture agent's recorded answers: REST queries keyed by question text or name. */
  answers: Record<string, unknown>;
}

/** Run a REST query on the branch's model and the deployment's data: its SQL and its rows. */
async function runQuery(env: EvalEnv, d: DeploymentRec, compilers: CubeCompilers, query: unknown): Promise<{ sql: string; rows: Table }> {
  const q = normalizeQuery(query, env.clock.now());
  const built = buildSql(compilers, q, {}, true);
  const db = await env.engine.database(d.id);
  const result = await db.query(built.sql[0], built.sql[1]);
  return { sql: built.sql[0], rows: result.rows.map((r) => Object.values(r)) };
}

/** An error's text: an Error's message, or the gateway's `{ error }` of an ApiError's body. */
function message(e: unknown): string {
  const body = (e as { body?: { error?: unknown } } | null)?.body?.error;
  if (typeof body === 'string') return body;
  return e instanceof Error ? e.message : JSON.stringify(e);
}

async function gradeOne(
  env: EvalEnv,
  d: DeploymentRec,
  compilers: CubeCompilers,
  cubes: MetaCube[],
  certified: Map<string, string>,
  q: EvalQuestion,
  wrong: boolean,
) {
  const base = { questionName: q.name, questionTextSnapshot: q.question, agentSql: null, groundTruthSql: null, failureAnalysis: null };
  const verdict = (v: Verdict, scoreReason: string | null, extra: Partial<EvalResultRec> = {}) => ({
    ...base,
    verdict: v,
    score: v === 'pass' ? 1 : 0,
    scoreReason,
    ...extra,
  });
  const truthSql = q.sql ?? (q.certifiedQuery !== undefined ? certified.get(`${q.space}/${q.certifiedQuery}`) : undefined);
  if (q.certifiedQuery !== undefined && truthSql === undefined) {
    return verdict('error', 'Ground truth not found', { failureAnalysis: `certified query ${JSON.stringify(q.certifiedQuery)} not found in space ${q.space}` });
  }
  const answer = env.answers[q.question] ?? env.answers[q.name];
  let agent: { sql: string; rows: Table } | undefined;
  if (answer !== undefined && answer !== null) {
    try {
      agent = await runQuery(env, d, compilers, answer);
    } catch (e) {
      return verdict('error', 'Agent error', { failureAnalysis: `the agent's query failed: ${message(e)}`, groundTruthSql: truthSql ?? null });
    }
  }
  const agentSql = agent?.sql ?? null;
  if (truthSql === undefined) return verdict('review', null, { agentSql, failureAnalysis: 'the question has no ground truth: compare by hand' });
  let truth: Table;
  try {
    truth = (await runQuery(env, d, compilers, cubeQueryOf(truthSql, cubes))).rows;
  } catch (e) {
    return verdict('error', 'Ground truth query failed', { agentSql, groundTruthSql: truthSql, failureAnalysis: `the ground truth failed: ${message(e)}` });
  }
  if (!agent) return verdict('review', null, { groundTruthSql: truthSql, failureAnalysis: 'the agent ran no query: compare by hand' });
  // Profile evaluation-flaky: this turn the agent answers with no rows (a wrong answer the grader judges).
  const g = gradeResults(truth, wrong ? [] : agent.rows);
  return g.verdict === 'pass'
    ? verdict('pass', null, { agentSql, groundTruthSql: truthSql })
    : verdict('fail', g.reason, { agentSql, groundTruthSql: truthSql, failureAnalysis: g.analysis });
}

export async function startRun(
  env: EvalEnv,
  d: DeploymentRec,
  body: { branchName: string; agentName?: string | undefined; questionFile?: string | undefined },
  neverFinishes: boolean,
  id: number,
  /** Profile evaluation-flaky, on this run: the first question with a recorded answer is answered wrong. */
  flakyTurn = false,
): Promise<EvalRunRec> {
  const b = d.branches[body.branchName];
  const now = env.clock.now();
  const run: EvalRunRec = {
    id,
    deploymentId: d.id,
    branchName: body.branchName,
    agentName: body.agentName ?? 'auto',
    questionFile: body.questionFile ?? null,
    createdAt: now,
    finishAt: now,
    error: null,
    results: [],
  };
  const files = b?.files ?? {};
  const questions = readQuestions(files).filter((q) => !body.questionFile || q.file === body.questionFile || q.file.endsWith(`/${body.questionFile}`));
  const compiled = await env.engine.compile(files);
  if (!compiled.compilers) run.error = `the branch's model does not compile: ${compiled.failure ?? 'compile errors'}`;
  else {
    const cubes = visibleCubes(compiled.compilers);
    const certified = readCertifiedQueries(files);
    const flaky = flakyTurn ? questions.find((q) => (env.answers[q.question] ?? env.answers[q.name]) != null) : undefined;
    for (const [i, q] of questions.entries()) {
      run.results.push({ id: run.id * 1000 + i + 1, ...(await gradeOne(env, d, compiled.compilers, cubes, certified, q, q === flaky)) });
    }
  }
  run.finishAt = neverFinishes ? Number.MAX_SAFE_INTEGER : now + EVAL_MS_PER_QUESTION * Math.max(1, questions.length);
  return run;
}

/** The run as the status endpoint answers it: lower-case status, accuracy once finished. */
export function runView(run: EvalRunRec, now: number) {
  const done = now >= run.finishAt;
  const status = !done ? 'running' : run.error ? 'failed' : 'completed';
  const passed = run.results.filter((r) => r.verdict === 'pass').length;
  return {
    id: run.id,
    deploymentId: run.deploymentId,
    status,
    branchName: run.branchName,
    agentName: run.agentName,
    questionFile: run.questionFile,
    createdAt: new Date(run.createdAt).toISOString(),
    updatedAt: new Date(Math.min(now, run.finishAt)).toISOString(),
    completedAt: done ? new Date(run.finishAt).toISOString() : null,
    totalQuestions: done ? run.results.length : null,
    passedQuestions: done ? passed : null,
    accuracy: done && !run.error && run.results.length ? passed / run.results.length : null,
    error: done ? run.error : null,
  };
}
