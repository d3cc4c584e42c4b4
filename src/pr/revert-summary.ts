/** The revert's job summary: what was restored, what production held, what the layer changes, the merge and the proof. Outside text inert. */
import type { RevertResult } from '../operations/revert.js';
import { code, text } from './comment/markdown.js';

const STATUS: Record<RevertResult['status'], string> = {
  'dry-run': 'dry run: nothing written',
  'in-sync': 'production already holds this model: nothing to revert',
  'served-differs': 'production holds these files but serves another semantic layer: nothing a merge can change (rebuild it on the platform)',
  validated: 'validated, not merged (confirm is off)',
  invalid: 'refused: the model does not compile on the platform',
  merged: 'merged into production',
  failed: 'failed',
};

const PROOF = { proven: '✅ proven: production = the restored model', differs: '❌ production differs', 'not-proven': '⚠️ not proven' } as const;

/** At most this many rows of each list in the summary (the JSON output has them all). */
const ROWS = 50;

function table(head: string, rows: string[][]): string[] {
  if (!rows.length) return [];
  const shown = rows.slice(0, ROWS).map((r) => `| ${r.join(' | ')} |`);
  const more = rows.length > ROWS ? [`\n… and ${rows.length - ROWS} more`] : [];
  return [
    '',
    head,
    `|${head
      .split('|')
      .slice(1, -1)
      .map(() => '---')
      .join('|')}|`,
    ...shown,
    ...more,
  ];
}

export function revertSummary(r: RevertResult): string {
  const lines = [
    `### datamodel-ci: revert to ${code(r.commit.slice(0, 7))}`,
    '',
    `**${text(STATUS[r.status])}**${r.failure ? `: ${text(r.failure)}` : ''}`,
    '',
    `Branch ${code(r.branch)} → ${code(r.deployBranch)}${r.validation ? ` · ${r.validation.valid ? 'valid' : `${r.validation.errors.length} validation error(s)`}` : ''}`,
  ];
  lines.push(
    ...table(
      '| File | On production before the revert |',
      r.before.map((f) => [code(f.path, { cell: true }), text(f.change)]),
    ),
  );
  if (r.served)
    lines.push(
      ...table(
        '| Member | What production serves |',
        r.served.map((m) => [code(m.member, { cell: true }), text(`${m.change}${m.detail ? `: ${m.detail}` : ''}`)]),
      ),
    );
  if (r.members)
    lines.push(
      ...(r.members.length
        ? table(
            '| Member | What the revert does to it |',
            r.members.map((m) => [
              code(m.member, { cell: true }),
              text(m.change === 'added' ? 'restored' : m.change === 'removed' ? 'taken away' : `changed: ${m.detail ?? ''}`),
            ]),
          )
        : ['', 'The semantic layer: the same members as production.']),
    );
  else if (r.membersProblem) lines.push('', `The semantic layers were not compared: ${text(r.membersProblem)}`);
  if (r.proof) {
    lines.push('', `**${PROOF[r.proof.status]}**${r.proof.reason ? `: ${text(r.proof.reason)}` : ''}`);
    lines.push(
      ...table('| Differs after the merge | How |', [
        ...r.proof.files.map((f) => [code(f.path, { cell: true }), text(f.change)]),
        ...r.proof.members.map((m) => [code(m.member, { cell: true }), text(`${m.change}${m.detail ? `: ${m.detail}` : ''}`)]),
      ]),
    );
  }
  if (r.cleanup?.left.length) lines.push('', `Left on the platform (delete by hand): ${r.cleanup.left.map((b) => code(b)).join(', ')}`);
  return lines.join('\n');
}
