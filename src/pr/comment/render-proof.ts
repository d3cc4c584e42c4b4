/**
 * The proof after a merge in the comment's merged state and the job summary (issue 37): "production = the
 * validated model" with the commit, or the files and members that differ, or why it is not proven. File
 * paths, member names and the reason come from outside: shown as code or escaped text, cut.
 */
import type { FileChange } from '../../operations/production-state.js';
import type { MemberChange } from '../../impact/layer-digest.js';
import type { ProductionProof } from '../../operations/validation-record.js';
import { plural } from '../../report/plural.js';
import { code, cut, text } from './markdown.js';

/** What the comment keeps of a proof: its lists capped (the totals say how many), names and the reason cut. */
export interface ProofView {
  status: ProductionProof['status'];
  commit?: string;
  reason?: string;
  files: FileChange[];
  members: Pick<MemberChange, 'member' | 'change'>[];
  /** How many files and members differ, when the lists were capped. */
  totals?: { files: number; members: number };
}

/** Files and members the ledger keeps and the comment names (the job log and `--json` have them all). */
export const PROOF_ROWS = 10;

const STATUSES: readonly ProductionProof['status'][] = ['proven', 'differs', 'not-proven'];

const CHANGES = ['added', 'removed', 'changed'] as const;
const isChange = (c: unknown): c is FileChange['change'] => (CHANGES as readonly unknown[]).includes(c);
const count = (n: unknown) => (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined);

/** The view of a proof (or of a view read back from a ledger: outside text, its ill-typed rows dropped), its lists capped. */
export function proofView(p: {
  status: unknown;
  commit?: unknown;
  reason?: unknown;
  files: unknown;
  members: unknown;
  totals?: unknown;
}): ProofView | undefined {
  const status = STATUSES.find((s) => s === p.status);
  if (!status || !Array.isArray(p.files) || !Array.isArray(p.members)) return undefined;
  const rows = (xs: unknown[], key: 'path' | 'member') =>
    xs.filter(
      (x): x is Record<string, unknown> =>
        !!x && typeof x === 'object' && typeof (x as Record<string, unknown>)[key] === 'string' && isChange((x as Record<string, unknown>).change),
    );
  const allFiles = rows(p.files, 'path');
  const allMembers = rows(p.members, 'member');
  const files = allFiles.slice(0, PROOF_ROWS).map((f) => ({ path: cut(f.path as string, 200), change: f.change as FileChange['change'] }));
  const members = allMembers.slice(0, PROOF_ROWS).map((m) => ({ member: cut(m.member as string, 160), change: m.change as FileChange['change'] }));
  const given = (p.totals ?? {}) as { files?: unknown; members?: unknown };
  const totals = { files: count(given.files) ?? allFiles.length, members: count(given.members) ?? allMembers.length };
  const capped = totals.files > files.length || totals.members > members.length;
  return {
    status,
    ...(typeof p.commit === 'string' && /^[0-9a-f]{7,64}$/i.test(p.commit) ? { commit: p.commit } : {}),
    ...(typeof p.reason === 'string' && p.reason ? { reason: cut(p.reason, 600) } : {}),
    files,
    members,
    ...(capped ? { totals } : {}),
  };
}

const more = (shown: number, total: number | undefined) => (total !== undefined && total > shown ? `, and ${total - shown} more` : '');

/** The proof's lines under the merged state's lead. */
export function renderProof(p: ProofView): string[] {
  const at = p.commit ? ` (commit ${code(p.commit.slice(0, 7))})` : '';
  if (p.status === 'proven')
    return [`✅ **Production = the validated model**${at}: a build newer than the merge serves the same files and the same semantic layer.`];
  if (p.status === 'not-proven')
    return [
      `⚠️ **Production is not proven** to be the validated model${at}: ${text(p.reason ?? 'no reason given')}${/[.!?]$/.test(p.reason ?? '') ? '' : '.'}`,
    ];
  const lines = [`❌ **Production differs from the validated model**${at}: ${text(p.reason ?? 'see the job log')}${/[.!?]$/.test(p.reason ?? '') ? '' : '.'}`];
  if (p.files.length || p.members.length) lines.push('', 'What production has relative to it:');
  if (p.files.length)
    lines.push(
      `- ${plural(p.totals?.files ?? p.files.length, 'file')}: ${p.files.map((f) => `${code(f.path)} ${f.change}`).join(', ')}${more(p.files.length, p.totals?.files)}`,
    );
  if (p.members.length)
    lines.push(
      `- ${plural(p.totals?.members ?? p.members.length, 'member')}: ${p.members.map((m) => `${code(m.member)} ${m.change}`).join(', ')}${more(p.members.length, p.totals?.members)}`,
    );
  lines.push('', 'Nothing was merged or uploaded again to fix it: check production on the platform, or revert to the validated model (docs/production.md).');
  return lines;
}
