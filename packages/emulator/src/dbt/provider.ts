/**
 * dbt sync (spec 4.12, section 3): runs on the clock, cancel, history, logs (paged), result. A run
 * is invisible (404) for a while after its start; an older deployment ignores `ref`.
 */
import { randomBytes } from 'node:crypto';
import { checkBranchName, makeBranch } from '../build/branches.js';
import { filesOf } from '../build/trees.js';
import { HttpError, requireDeployment, type Ctx, type HandlerTable } from '../context.js';
import type { DeploymentRec } from '../deployments/models.js';
import { cursorPaginate, type CursorQuery } from '../paging.js';
import type { DbtRunRec } from './models.js';
import { dbtBranchName, dbtPlan, generatedModels, runLogs, viewRun } from './runs.js';

/** Refs the emulated dbt project has: branches and tags. Others fail in the clone phase. */
const DBT_PROJECT_REFS = ['main', 'develop', 'release', 'v1.0.0', 'v1.1.0', 'v2.0.0'];

/** Create the branch of generated models once a run has completed (read lazily at observation). */
function materialize(ctx: Ctx, d: DeploymentRec, run: DbtRunRec): void {
  if (run.materialized) return;
  const view = viewRun(run, ctx.clock.now());
  if (view.status !== 'COMPLETED') return;
  run.materialized = true;
  if (d.branches[run.branchName]) return;
  const main = d.branches[d.deployBranch];
  if (!main) return;
  const b = makeBranch(d, run.branchName, main, 'shared', new Date(view.endedAt ?? ctx.clock.now()).toISOString());
  b.files = { ...b.files, ...filesOf(run.generated) };
  b.head = { ...b.files };
  b.commits += 1;
  b.lastHash = `${run.syncJobId.replace(/[^0-9a-f]/g, '').padEnd(8, '0')}${'0'.repeat(32)}`.slice(0, 40);
}

/** The run the path names; `readable`: not yet visible counts as not found. */
function findRun(ctx: Ctx, readable = false): { d: DeploymentRec; run: DbtRunRec } {
  const d = requireDeployment(ctx);
  const id = ctx.params.syncJobId as string;
  const run = d.dbtRuns.find((r) => r.syncJobId === id);
  const hidden = readable && run?.visibleAt !== undefined && ctx.clock.now() < run.visibleAt;
  if (!run || hidden) throw new HttpError(404, `dbt sync ${JSON.stringify(id)} not found in deployment ${d.id}`);
  materialize(ctx, d, run);
  return { d, run };
}

function runRecord(run: DbtRunRec, now: number) {
  const v = viewRun(run, now);
  return {
    syncJobId: run.syncJobId,
    deploymentId: run.deploymentId,
    status: v.status,
    trigger: run.trigger,
    source: run.source,
    branchName: run.branchName,
    startedAt: new Date(run.startedAt).toISOString(),
    completedAt: v.endedAt !== undefined ? new Date(v.endedAt).toISOString() : null,
    durationMs: v.endedAt !== undefined ? v.endedAt - run.startedAt : null,
    errorMessage: v.error ?? null,
    failedPhase: v.failedPhase ?? null,
    gitRef: run.ref,
    lastStage: v.stage,
    phases: v.phases,
    stats: v.status === 'COMPLETED' ? { cubeCount: Object.keys(run.generated).length, models: 12, sources: 4, macros: 31, dbtVersion: '1.8.4' } : null,
    triggerContext: null,
    userId: run.userId,
  };
}

export const dbtHandlers: HandlerTable = {
  startDbtSync(ctx) {
    const d = requireDeployment(ctx);
    const body = (ctx.body ?? {}) as { branchName?: string | null; ref?: string | null; source?: string | null };
    const saved = d.dbtSavedRef ?? 'main';
    // Measured by the vendor: an older deployment silently drops `ref` and syncs its saved branch.
    const ref = d.olderDeployment ? saved : (body.ref ?? saved);
    if (/^[0-9a-f]{7,40}$/i.test(ref)) {
      throw new HttpError(400, `body.ref: got ${JSON.stringify(ref)}, expected a branch or tag name, not a commit SHA`);
    }
    if (body.branchName) checkBranchName(body.branchName, 'body.branchName');
    const branchName = body.branchName ?? dbtBranchName(ref, ctx.clock.now(), randomBytes(4).toString('hex'));
    if (d.branches[branchName] || d.dbtRuns.some((r) => r.branchName === branchName && !viewRun(r, ctx.clock.now()).error)) {
      throw new HttpError(409, `body.branchName: branch ${JSON.stringify(branchName)} already exists; each sync creates a new branch`);
    }
    const run: DbtRunRec = {
      syncJobId: `sync-${randomBytes(6).toString('hex')}`,
      workflowId: `wf-${randomBytes(6).toString('hex')}`,
      deploymentId: d.id,
      branchName,
      ref,
      source: body.source ?? 'git',
      trigger: 'api',
      userId: ctx.principal.user.id,
      startedAt: ctx.clock.now(),
      visibleAt: ctx.clock.now() + ctx.controls.behaviour.dbtInvisibleMs,
      plan: ctx.controls.dbtPhases?.map((p) => ({ ...p })) ?? dbtPlan(),
      generated: {},
    };
    run.generated = generatedModels(run);
    if (!DBT_PROJECT_REFS.includes(ref)) run.failure = { phase: 'clone', message: `ref ${JSON.stringify(ref)} not found in the dbt project` };
    if (ctx.controls.failNextDbtSync) {
      run.failure = ctx.controls.failNextDbtSync;
      delete ctx.controls.failNextDbtSync;
    }
    d.dbtRuns.push(run);
    return { branchName: run.branchName, syncJobId: run.syncJobId, workflowId: run.workflowId };
  },

  listDbtSyncs(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as CursorQuery & { status?: string; trigger?: string };
    const now = ctx.clock.now();
    for (const r of d.dbtRuns) materialize(ctx, d, r);
    const rows = [...d.dbtRuns]
      .sort((a, b) => b.startedAt - a.startedAt)
      .map((r) => runRecord(r, now))
      .filter((r) => (!q.status || r.status === q.status) && (!q.trigger || r.trigger === q.trigger));
    return cursorPaginate(rows, { first: Math.min(q.first ?? 100, 100), after: q.after });
  },

  getDbtSyncStatus(ctx) {
    const { run } = findRun(ctx, true);
    const v = viewRun(run, ctx.clock.now());
    // Section 3: a cancelled run reports as a failure whose reason says cancelled.
    const status = v.status === 'CANCELLED' ? 'FAILED' : v.status;
    const messages: Record<string, string> = {
      RUNNING: `${v.stage} in progress`,
      COMPLETED: 'sync completed',
      FAILED: v.error ?? 'failed',
    };
    return {
      syncJobId: run.syncJobId,
      status,
      progress: { stage: v.stage, percentComplete: v.percentComplete, message: messages[status] ?? null },
      updatedAt: new Date(Math.min(ctx.clock.now(), v.endedAt ?? Number.POSITIVE_INFINITY)).toISOString(),
      error: v.status === 'CANCELLED' ? 'sync cancelled by request' : (v.error ?? null),
    };
  },

  getDbtSyncResult(ctx) {
    const { run } = findRun(ctx, true);
    const v = viewRun(run, ctx.clock.now());
    if (v.status !== 'COMPLETED') throw new HttpError(409, `dbt sync ${run.syncJobId} has no result: it is ${v.status}`);
    return {
      syncJobId: run.syncJobId,
      generatedFiles: Object.keys(run.generated).map((path) => ({ path })),
      manifestStats: { models: 12, sources: 4, macros: 31 },
      cubeCount: Object.keys(run.generated).length,
      completedAt: new Date(v.endedAt as number).toISOString(),
      durationMs: (v.endedAt as number) - run.startedAt,
    };
  },

  getDbtSyncLogs(ctx) {
    const { run } = findRun(ctx, true);
    // The contract declares no paging here; the vendor's CLI pages with `first`/`after` all the same.
    return cursorPaginate(runLogs(run, ctx.clock.now()), ctx.query as CursorQuery);
  },

  getDbtSyncGeneratedFiles(ctx) {
    const { run } = findRun(ctx);
    const v = viewRun(run, ctx.clock.now());
    if (v.status !== 'COMPLETED') throw new HttpError(409, `dbt sync ${run.syncJobId} has generated nothing yet: it is ${v.status}`);
    const files = Object.entries(run.generated).map(([path, content]) => ({ path, content }));
    const q = ctx.query as CursorQuery;
    const page = cursorPaginate(files, q);
    return { items: page.items, pageInfo: page.pageInfo };
  },

  cancelDbtSync(ctx) {
    const { run } = findRun(ctx);
    const v = viewRun(run, ctx.clock.now());
    if (v.status !== 'RUNNING') throw new HttpError(409, `dbt sync ${run.syncJobId} is ${v.status}: only a running sync can be cancelled`);
    run.cancelledAt = ctx.clock.now();
    return { message: `dbt sync ${run.syncJobId} cancelled` };
  },
};
