/**
 * The drift watch's result in words: the markdown of its GitHub issue and job summary (outside text
 * inert: file and member names in code spans, platform messages escaped), the log lines of a terminal,
 * the step's outputs and the `--json` document's `result`.
 */
import type { DriftReport, DriftStatus } from '../operations/drift.js';
import type { FileChange } from '../operations/production-state.js';
import type { MemberChange } from '../impact/layer-digest.js';
import { code, link, text } from './comment/markdown.js';

/** Rows of each table at most (the issue body stays far under GitHub's 65,536 characters). */
export const MAX_ROWS = 50;

/** What the rendering needs beside the report. */
export interface DriftContext {
  deploymentId: number;
  modelDir: string;
  /** ISO time of this check. */
  checkedAt: string;
  /** ISO time the watch first saw production differ (the issue remembers it). */
  since?: string;
  runUrl?: string;
  /** Why no validation record was compared (none written yet, GitHub not reachable, …). */
  recordNote?: string;
}

export const HEADLINE: Record<DriftStatus, string> = {
  drift: '⚠️ Production differs from the model in git',
  'in-sync': '✅ Production matches the model in git',
  'not-proven': '❔ Production not proven equal to the model in git',
};

const short = (sha: string) => (/^[0-9a-f]{12,}$/i.test(sha) ? sha.slice(0, 7) : sha);
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

function table(head: [string, string], rows: { name: string; change: string }[]): string[] {
  const shown = rows.slice(0, MAX_ROWS).map((r) => `| ${code(r.name, { cell: true })} | ${text(r.change).replace(/\|/g, '\\|')} |`);
  const more = rows.length > MAX_ROWS ? [``, `…and ${rows.length - MAX_ROWS} more (\`datamodel-ci drift --json\` lists them all).`] : [];
  return [`| ${head[0]} | ${head[1]} |`, '|---|---|', ...shown, ...more];
}

const fileRows = (files: readonly FileChange[]) => files.map((f) => ({ name: f.path, change: f.change }));
const memberRows = (members: readonly MemberChange[]) => members.map((m) => ({ name: m.member, change: m.detail ? `${m.change}: ${m.detail}` : m.change }));

/** Production's build in one line. */
function buildLine(r: DriftReport): string | undefined {
  const b = r.build;
  if (!b) return undefined;
  const parts = [
    b.jobId ? `job ${text(b.jobId)}` : '',
    b.updatedAt ? `at ${text(b.updatedAt)}` : '',
    b.lastHash ? `serving ${code(short(b.lastHash))}` : '',
    b.filesHash ? `the branch at ${code(short(b.filesHash))}` : '',
  ].filter(Boolean);
  return `Production's build: ${code(b.status)}${parts.length ? ` (${parts.join(', ')})` : ''}${b.errorText ? `: ${text(b.errorText)}` : ''}.`;
}

function recordLines(r: DriftReport, ctx: DriftContext): string[] {
  const rec = r.record;
  if (!rec) return ctx.recordNote ? ['#### The last validated record', '', text(ctx.recordNote)] : [];
  const files = rec.files.length ? `production differs from it in ${plural(rec.files.length, 'file')}` : 'production holds its files';
  const layer = {
    same: "production's layer digest is the validated one",
    differs: "production's layer digest is not the validated one",
    'not-recorded': 'the record kept no layer digest',
    'not-read': "production's layer was not read",
  }[rec.layer];
  const out = ['#### The last validated record', '', `Commit ${code(short(rec.commit))}, validated ${text(rec.validatedAt)}: ${files}; ${layer}.`];
  if (rec.files.length) out.push('', ...table(['File', 'Production, against the record'], fileRows(rec.files)));
  return out;
}

/** The issue's (and the job summary's) markdown for a report; the issue's hidden marker is not part of it. */
export function renderDrift(r: DriftReport, ctx: DriftContext, target: 'issue' | 'summary'): string {
  const b = r.deployBranch;
  const facts = [
    `Deployment **${ctx.deploymentId}**`,
    `deploy branch ${code(b.name)} (deploy mode ${code(b.deployMode)}${b.repository ? `, built from ${code(b.repository)}` : ''})`,
    `checked ${text(ctx.checkedAt)}`,
    ...(ctx.since && r.status !== 'in-sync' ? [`differs since ${text(ctx.since)}`] : []),
    ...(ctx.runUrl ? [link('run', ctx.runUrl)] : []),
  ];
  const out = [`### ${HEADLINE[r.status]}`, '', facts.join(' · ')];
  if (r.reason) out.push('', `**Not proven:** ${text(r.reason)}`);
  if (r.cause) out.push('', `**Likely cause** (read from ${text(r.cause.evidence)}): ${text(r.cause.text)}`);
  if (r.files.length)
    out.push('', `#### Files: what production has relative to ${code(ctx.modelDir)}`, '', ...table(['File', 'Production'], fileRows(r.files)));
  if (r.members.length) {
    out.push(
      '',
      "#### Members: production's /meta (the whole layer) against the members the files declare public",
      '',
      ...table(['Member', 'Production'], memberRows(r.members)),
    );
  }
  if (b.files?.length) {
    out.push(
      '',
      `#### ${code(b.name)} on the platform (CLI mode: not what production runs) against ${code(ctx.modelDir)}`,
      '',
      ...table(['File', 'The branch'], fileRows(b.files)),
    );
  }
  const rec = recordLines(r, ctx);
  if (rec.length) out.push('', ...rec);
  const build = buildLine(r);
  if (build) out.push('', build);
  if (r.notes.length) out.push('', ...r.notes.map((n) => `- ${text(n)}`));
  if (target === 'issue') {
    out.push(
      '',
      '---',
      "_Kept by datamodel-ci's drift watch (`datamodel-ci drift`): updated in place by each run, closed when production matches the model in git again._",
    );
  }
  return out.join('\n');
}

/** The report in a few log lines (a terminal, the Actions log). */
export function driftLines(r: DriftReport, modelDir: string): string[] {
  const out = [`${HEADLINE[r.status]} (deploy branch ${r.deployBranch.name}, deploy mode ${r.deployBranch.deployMode})`];
  if (r.reason) out.push(`not proven: ${r.reason}`);
  for (const f of r.files.slice(0, MAX_ROWS)) out.push(`file ${f.path}: production has it ${f.change} (against ${modelDir})`);
  for (const m of r.members.slice(0, MAX_ROWS)) out.push(`member ${m.member}: ${m.change}${m.detail ? ` (${m.detail})` : ''}`);
  for (const f of (r.deployBranch.files ?? []).slice(0, MAX_ROWS)) out.push(`file ${f.path} on ${r.deployBranch.name}: ${f.change} (not deployed)`);
  if (r.record)
    out.push(
      `last validated record: commit ${short(r.record.commit)}; production differs from it in ${plural(r.record.files.length, 'file')}; layer ${r.record.layer}`,
    );
  if (r.cause) out.push(`${r.cause.text} (read from ${r.cause.evidence})`);
  return out;
}

/** The `--json` document's `result`: the contract's fields first (status, files, members, reason), then the evidence. */
export function driftJson(r: DriftReport, ctx: DriftContext, issue?: { number: number; url: string; action: string }): Record<string, unknown> {
  return {
    status: r.status,
    files: r.files.map((f) => ({ path: f.path, change: f.change })),
    members: r.members.map((m) => ({ member: m.member, change: m.change, ...(m.detail ? { detail: m.detail } : {}) })),
    ...(r.reason ? { reason: r.reason } : {}),
    ...(r.cause ? { likelyCause: r.cause } : {}),
    deploymentId: ctx.deploymentId,
    deployBranch: r.deployBranch,
    ...(r.build ? { build: r.build } : {}),
    ...(r.record ? { record: r.record } : ctx.recordNote ? { record: { note: ctx.recordNote } } : {}),
    ...(r.notes.length ? { notes: r.notes } : {}),
    checkedAt: ctx.checkedAt,
    ...(issue ? { issue } : {}),
  };
}
