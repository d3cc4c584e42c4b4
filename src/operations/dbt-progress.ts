/** How a dbt sync's wait reads its progress: when to poll next, and its log printed by phase. */
import type { DbtSyncLogEntry } from '@datamodel-ci/platform-api';
import type { Reporter } from '../report/reporter.js';

/**
 * The next wait, within [minMs, maxMs]. `percent` is whole (rounded down), so after `elapsedMs` the run
 * ends between `elapsedMs * 100 / (percent + 1)` (earliest) and `elapsedMs * 100 / percent` (latest).
 * The next poll is at the latest end (plus `minMs / 2`), but never more than `stepMs` after the
 * earliest: a run that ends anywhere in between is noticed within `stepMs` (default 2 x `minMs`),
 * and a long run is polled about once per `maxMs` until its end comes near.
 */
export function nextPollDelay(elapsedMs: number, percent: number, minMs: number, maxMs: number, stepMs = 2 * minMs): number {
  const clamp = (ms: number) => Math.ceil(Math.min(maxMs, Math.max(minMs, ms)));
  // Below 1 %, the run lasts more than 100 x what has elapsed.
  if (percent <= 0) return clamp(elapsedMs * 99);
  if (percent >= 100) return minMs;
  const earliest = Math.max(0, (elapsedMs * 100) / (percent + 1) - elapsedMs);
  const latest = (elapsedMs * 100) / percent - elapsedMs;
  return clamp(Math.min(earliest + stepMs, latest + minMs / 2));
}

/** Print log lines grouped by phase, each group titled with the phase's duration. */
export function printPhases(lines: DbtSyncLogEntry[], reporter: Reporter): void {
  const groups: { phase: string; duration: number | null | undefined; lines: DbtSyncLogEntry[] }[] = [];
  for (const line of lines) {
    const phase = line.phase ?? 'sync';
    const last = groups.at(-1);
    if (last && last.phase === phase) {
      last.lines.push(line);
      last.duration = line.durationMs ?? last.duration;
    } else groups.push({ phase, duration: line.durationMs, lines: [line] });
  }
  for (const g of groups) {
    const secs = g.duration != null ? ` (${(g.duration / 1000).toFixed(1)} s)` : '';
    reporter.info(`── ${g.phase}${secs}`);
    for (const l of g.lines) {
      const text = `   ${l.timestamp} ${l.message}`;
      if (l.level === 'error') reporter.error(l.message, { title: `dbt ${g.phase}` });
      else reporter.info(text);
    }
  }
}
