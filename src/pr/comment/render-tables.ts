/** Small job-summary tables of the steps that are not part of a PR's preview: the sweep and a dbt sync. */
import { code, text } from './markdown.js';

export function sweepTable(rows: { branch: string; pr: number; state: string; action: string; reason: string }[]): string {
  if (rows.length === 0) return 'No preview branches found.';
  return [
    '| Branch | PR | State | Action | Why |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${code(r.branch, { cell: true })} | #${r.pr} | ${text(r.state)} | ${text(r.action)} | ${text(r.reason)} |`),
  ].join('\n');
}

export function dbtTable(r: { syncJobId: string; branch: string; status: string; polls: number }): string {
  return [
    '| Run | Branch | Status | Polls |',
    '|---|---|---|---|',
    `| ${code(r.syncJobId, { cell: true })} | ${code(r.branch, { cell: true })} | ${text(r.status)} | ${r.polls} |`,
  ].join('\n');
}
