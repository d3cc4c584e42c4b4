/**
 * dbt sync runs progress on the emulator's clock: a run is a plan of phases from its start time, and
 * its status, logs and result are read off that plan at "now". No timers: a test advances the clock.
 */
import type { DbtPhasePlan, DbtRunRec } from './models.js';

export const DBT_PHASES: DbtPhasePlan[] = [
  { phase: 'clone', durationMs: 4_000 },
  { phase: 'deps', durationMs: 8_000 },
  { phase: 'parse', durationMs: 15_000 },
  { phase: 'generate', durationMs: 12_000 },
  { phase: 'commit', durationMs: 3_000 },
];

export function dbtPlan(): DbtPhasePlan[] {
  return DBT_PHASES.map((p) => ({ ...p }));
}

/**
 * The ref's part of a sync branch name, as the vendor measured it: letters, digits, `_`, `.` and `-`
 * kept (case too), `/`, space and `~` turned into `-`, anything else dropped, cut at 40 characters.
 */
export function refSegment(ref: string): string {
  return ref
    .replace(/[/ ~]/g, '-')
    .replace(/[^A-Za-z0-9_.-]/g, '')
    .slice(0, 40);
}

/** `dbt-sync/<ref segment>-<YYYYMMDDhhmmss>-<8 hex>`: the branch a sync of `ref` started at `atMs` creates. */
export function dbtBranchName(ref: string, atMs: number, hex8: string): string {
  const stamp = new Date(atMs).toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return `dbt-sync/${refSegment(ref)}-${stamp}-${hex8}`;
}

export type RunStatus = 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';

export interface PhaseView {
  phase: string;
  startedOffsetMs: number;
  durationMs: number;
  outcome: 'succeeded' | 'failed' | 'cancelled' | 'running';
}

export interface RunView {
  status: RunStatus;
  /** The phase running now, or the last one reached. */
  stage: string;
  percentComplete: number;
  phases: PhaseView[];
  /** ms since epoch when the run ended. */
  endedAt?: number;
  error?: string;
  failedPhase?: string;
}

/** The state of a run at `now`. */
export function viewRun(run: DbtRunRec, now: number): RunView {
  const total = run.plan.reduce((a, p) => a + p.durationMs, 0);
  // A failing run stops halfway through its failing phase.
  let stopAt = run.startedAt + total;
  let failOffset: number | undefined;
  if (run.failure) {
    let off = 0;
    for (const p of run.plan) {
      if (p.phase === run.failure.phase) {
        failOffset = off + Math.floor(p.durationMs / 2);
        break;
      }
      off += p.durationMs;
    }
    failOffset ??= 0;
    stopAt = run.startedAt + failOffset;
  }
  const cancelled = run.cancelledAt !== undefined && run.cancelledAt < stopAt;
  const end = cancelled ? (run.cancelledAt as number) : stopAt;
  const at = Math.min(now, end);
  const elapsed = Math.max(0, at - run.startedAt);
  const phases: PhaseView[] = [];
  let off = 0;
  let stage = run.plan[0]?.phase ?? 'queued';
  for (const p of run.plan) {
    if (elapsed < off || (elapsed === off && off > 0 && elapsed < total)) break;
    const inPhase = Math.min(p.durationMs, elapsed - off);
    const finished = elapsed >= off + p.durationMs;
    let outcome: PhaseView['outcome'] = finished ? 'succeeded' : 'running';
    if (!finished && now >= end) outcome = cancelled ? 'cancelled' : run.failure ? 'failed' : 'succeeded';
    phases.push({ phase: p.phase, startedOffsetMs: off, durationMs: inPhase, outcome });
    stage = p.phase;
    off += p.durationMs;
    if (!finished) break;
  }
  const percentComplete = Math.min(100, Math.floor((elapsed / total) * 100));
  if (now < end) return { status: 'RUNNING', stage, percentComplete, phases };
  if (cancelled) return { status: 'CANCELLED', stage, percentComplete, phases, endedAt: end, error: 'sync cancelled by request' };
  if (run.failure) {
    return { status: 'FAILED', stage, percentComplete, phases, endedAt: end, error: run.failure.message, failedPhase: run.failure.phase };
  }
  return { status: 'COMPLETED', stage: 'done', percentComplete: 100, phases, endedAt: end };
}

/** Log lines of a run so far: each carries its phase and the phase's duration. */
export function runLogs(run: DbtRunRec, now: number) {
  const view = viewRun(run, now);
  const lines: { timestamp: string; level: string; stream: string; message: string; phase: string | null; durationMs: number | null }[] = [];
  const ts = (ms: number) => new Date(ms).toISOString();
  for (const p of view.phases) {
    const start = run.startedAt + p.startedOffsetMs;
    lines.push({ timestamp: ts(start), level: 'info', stream: 'stdout', message: `${p.phase}: started`, phase: p.phase, durationMs: p.durationMs });
    const detail: Record<string, string> = {
      clone: `cloning dbt project at ref ${run.ref}`,
      deps: 'installing packages: dbt-labs/dbt_utils 1.1.1',
      parse: 'parsed 12 models, 4 sources, 31 macros',
      generate: `writing ${Object.keys(run.generated).length || 3} cube files`,
      commit: `committing generated models to branch ${run.branchName}`,
    };
    if (p.durationMs > 0) {
      lines.push({ timestamp: ts(start + 1), level: 'info', stream: 'stdout', message: detail[p.phase] ?? p.phase, phase: p.phase, durationMs: p.durationMs });
    }
    if (p.outcome === 'succeeded') {
      lines.push({
        timestamp: ts(start + p.durationMs),
        level: 'info',
        stream: 'stdout',
        message: `${p.phase}: finished in ${(p.durationMs / 1000).toFixed(1)}s`,
        phase: p.phase,
        durationMs: p.durationMs,
      });
    } else if (p.outcome === 'failed') {
      lines.push({
        timestamp: ts(start + p.durationMs),
        level: 'error',
        stream: 'stderr',
        message: `${p.phase}: ${view.error ?? 'failed'}`,
        phase: p.phase,
        durationMs: p.durationMs,
      });
    } else if (p.outcome === 'cancelled') {
      lines.push({
        timestamp: ts(start + p.durationMs),
        level: 'warn',
        stream: 'stderr',
        message: `${p.phase}: cancelled`,
        phase: p.phase,
        durationMs: p.durationMs,
      });
    }
  }
  return lines;
}

/** The cube files a sync generates (valid YAML the compiler accepts). */
export function generatedModels(run: { ref: string }): Record<string, string> {
  const models = ['stg_orders', 'stg_payments', 'fct_revenue'];
  const out: Record<string, string> = {};
  for (const m of models) {
    out[`model/dbt/${m}.yml`] = `# generated by dbt sync from ref ${run.ref}
cubes:
  - name: ${m}
    sql_table: analytics.${m}
    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
`;
  }
  return out;
}
