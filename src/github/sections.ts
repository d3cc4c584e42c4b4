/**
 * The markdown of each action's section of the PR comment (and job summary). Every string that came
 * from outside (file names, platform messages, branch names, URLs) goes through escape.ts.
 */
import { codeSpan, escapeMarkdown, truncate } from './escape.js';
import type { ModelError } from '../workflows/validate.js';

const MAX_ROWS = 50;
const code = (s: string) => codeSpan(truncate(s, 200));
const text = (s: string) => escapeMarkdown(truncate(s, 500));

export function previewSection(input: { branch: string; devBranch?: string; headSha: string; created: boolean }): string {
  const lines = [
    `**Shared branch** ${code(input.branch)}${input.created ? ' (created)' : ''} · head ${code(input.headSha.slice(0, 7))}`,
  ];
  if (input.devBranch) lines.push(`Dev branch ${code(input.devBranch)}`);
  return lines.join('\n\n');
}

export function uploadSection(input: { uploaded: number; deleted: number; unchanged: number; sent: string[]; removed: string[] }): string {
  const head = `**Upload**: ${input.uploaded} file(s) sent, ${input.deleted} deleted, ${input.unchanged} unchanged.`;
  const rows = [...input.sent.map((p) => `| sent | ${code(p)} |`), ...input.removed.map((p) => `| deleted | ${code(p)} |`)];
  if (rows.length === 0) return head;
  const shown = rows.slice(0, MAX_ROWS);
  const more = rows.length > MAX_ROWS ? `\n\n… and ${rows.length - MAX_ROWS} more.` : '';
  return `${head}\n\n<details><summary>Files</summary>\n\n| | File |\n|---|---|\n${shown.join('\n')}${more}\n\n</details>`;
}

export function validateSection(input: { branch: string; valid: boolean; errors: ModelError[] }): string {
  if (input.valid) return `**Validation**: ✅ valid (${code(input.branch)})`;
  const rows = input.errors
    .slice(0, MAX_ROWS)
    .map((e) => `| ${e.file ? code(e.file) : ''} | ${e.line ?? ''} | ${text(e.message)} |`);
  const more = input.errors.length > MAX_ROWS ? `\n\n… and ${input.errors.length - MAX_ROWS} more (see the job annotations).` : '';
  return `**Validation**: ❌ invalid: ${input.errors.length} error(s) on ${code(input.branch)}\n\n| File | Line | Message |\n|---|---|---|\n${rows.join('\n')}${more}`;
}

export function stagingSection(input: { stagingUrl?: string; smoke?: { cubes: number; rows: number } }): string {
  if (!input.stagingUrl) return '**Staging**: not enabled';
  const smoke = input.smoke ? `\n\nSmoke test: ${input.smoke.cubes} cubes and views in \`/meta\`, ${input.smoke.rows} row(s) from \`/load\`.` : '';
  return `**Staging**: ${code(input.stagingUrl)}${smoke}`;
}

export function mergeSection(input: { branch: string; merged: boolean; branchDeleted: boolean; deployBranch: string; deployMode: string; productionUpdated: boolean }): string {
  if (!input.merged) return `**Merge**: ${code(input.branch)} was not merged`;
  const head = `**Merged** ${code(input.branch)} into ${code(input.deployBranch)}${input.branchDeleted ? ' (branch deleted)' : ''}.`;
  if (input.deployMode !== 'cli') return head;
  return input.productionUpdated
    ? `${head} This deployment deploys with the CLI: the merged model was uploaded to ${code(input.deployBranch)}, which rebuilt production.`
    : `${head} ⚠️ Production was **not** rebuilt: this deployment deploys with the CLI (\`deployMode: cli\`), so a merge only updates ${code(input.deployBranch)}. Set \`deploy-on-merge: true\` to upload the merged model to production.`;
}

export function cleanupSection(input: { deleted: string[]; alreadyGone: string[]; merged: boolean }): string {
  const parts = [`**${input.merged ? 'Merged and cleaned up' : 'Closed: cleaned up'}**.`];
  if (input.deleted.length) parts.push(`Deleted ${input.deleted.map(code).join(', ')}.`);
  if (input.alreadyGone.length) parts.push(`Already gone: ${input.alreadyGone.map(code).join(', ')}.`);
  return parts.join(' ');
}

export function errorSection(step: string, message: string): string {
  return `**${escapeMarkdown(step)}** failed: ${text(message)}`;
}

export function sweepTable(rows: { branch: string; pr: number; state: string; action: string; reason: string }[]): string {
  if (rows.length === 0) return 'No preview branches found.';
  return [
    '| Branch | PR | State | Action | Why |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${code(r.branch)} | #${r.pr} | ${text(r.state)} | ${text(r.action)} | ${text(r.reason)} |`),
  ].join('\n');
}
