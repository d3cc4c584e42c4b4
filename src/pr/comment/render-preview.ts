/**
 * The PR comment and the job summary, rendered from the preview's view: the state first (in the heading),
 * then one small table of the steps, the links a person opens, and the errors grouped by file as links
 * to their lines at the head commit. The comment shows the first errors; the job summary shows them all.
 */
import { hint } from './error-hints.js';
import { renderImpact, type ImpactView } from './render-impact.js';
import { renderNumbers, type NumbersView } from './render-numbers.js';
import { renderAccess, type AccessView } from './render-access.js';
import { renderCost, type CostView } from './render-cost.js';
import { renderProof } from './render-proof.js';
import { code, codeLink, cut, link, pathInUrl, text } from './markdown.js';
import type { PreviewView, ViewError } from './view.js';
import { plural } from '../../report/plural.js';

export const PREVIEW_TITLE = 'Data-model preview';

export interface RenderOptions {
  /** `comment`: the first errors, the rest collapsed and counted; `summary`: every error. */
  target: 'comment' | 'summary';
  /** Every error of the run (the view keeps only the first ones). */
  errors?: ViewError[];
  /** Errors shown in a comment before the rest is left to the job summary. */
  commentErrors?: number;
  /** The whole impact of the run (the view keeps only the first rows). */
  impact?: ImpactView;
  /** Rows of each impact table shown in a comment. */
  commentImpactRows?: number;
  /** The whole data diff of the run (the view keeps only the first queries and rows). */
  numbers?: NumbersView;
  /** The whole access review of the run (the view keeps only the first rows). */
  access?: AccessView;
  /** The whole Cost section of the run (the view keeps only the first rows). */
  cost?: CostView;
}

/** Errors of one file shown before the rest of the file's list is collapsed. */
const OPEN_PER_FILE = 5;
const DEFAULT_COMMENT_ERRORS = 15;

function files(errors: ViewError[]): number {
  return new Set(errors.map((e) => e.file ?? '')).size;
}

function heading(v: PreviewView, errorTotal: number, fileTotal: number): string {
  const sha = code(v.headSha.slice(0, 7));
  switch (v.state) {
    case 'updating':
      return `### ⏳ ${PREVIEW_TITLE} · updating for ${sha}`;
    case 'ready':
      return `### ✅ ${PREVIEW_TITLE} · ready`;
    case 'invalid':
      return `### ❌ ${PREVIEW_TITLE} · ${plural(errorTotal, 'error')} in ${plural(fileTotal, 'file')}`;
    case 'failed':
      return `### ❌ ${PREVIEW_TITLE} · failed`;
    case 'merged':
      return `### 🔀 ${PREVIEW_TITLE} · merged into ${code(v.deployBranch ?? 'the deploy branch')}`;
    case 'closed':
      return `### ${PREVIEW_TITLE} · closed`;
    case 'skipped':
      return `### ⏭️ ${PREVIEW_TITLE} · skipped: ${text(v.skippedAs ?? 'fork PR')}`;
  }
}

function mark(ok: boolean): string {
  return ok ? '✅' : '❌';
}

/** The steps that ran, one row each. */
function steps(v: PreviewView): string[] {
  const rows: string[] = [];
  if (v.upload) {
    const u = v.upload;
    rows.push(
      `| Upload | ✅ ${plural(u.sent, 'file')} sent, ${u.deleted} deleted, ${u.unchanged} unchanged${u.via === 'dev-mode' ? ' (through dev mode)' : ''} |`,
    );
  }
  if (v.validation) {
    const c = v.validation;
    rows.push(
      c.valid
        ? `| Validation | ✅ valid${c.cubes !== undefined ? `: ${plural(c.cubes, 'cube or view', 'cubes and views')}` : ''} |`
        : `| Validation | ❌ ${plural(c.errorCount, 'error')} |`,
    );
  }
  if (v.staging) {
    const s = v.staging;
    const smoke = s.smoke ? `; ${plural(s.smoke.cubes, 'cube or view', 'cubes and views')} in \`/meta\`, ${plural(s.smoke.rows, 'row')} from \`/load\`` : '';
    rows.push(`| Staging | ${mark(s.enabled)} ${s.enabled ? 'running' : 'not enabled'}${smoke} |`);
  }
  if (v.failure) rows.push(`| ${text(v.failure.step)} | ❌ failed |`);
  if (v.dbt) rows.push(`| dbt sync | ${mark(v.dbt.status === 'COMPLETED')} ${text(v.dbt.status)} (${code(v.dbt.syncJobId, { cell: true })}) |`);
  return rows.length ? ['| Step | Result |', '|---|---|', ...rows] : [];
}

function when(iso: string | undefined): string {
  return iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : '';
}

/** The links a person opens: the preview, its API address, the commit, the run. */
function links(v: PreviewView): string[] {
  const out: string[] = [];
  const place: string[] = [];
  if (v.previewUrl && v.branch) place.push(`**Preview:** ${codeLink(v.branch, v.previewUrl)} on the platform`);
  if (v.restUrl) place.push(`**REST API:** ${code(v.restUrl)}`);
  if (place.length) out.push(place.join(' · '));
  const trail: string[] = [];
  trail.push(`**Commit:** ${v.repoUrl ? codeLink(v.headSha.slice(0, 7), `${v.repoUrl}/commit/${v.headSha}`) : code(v.headSha.slice(0, 7))}`);
  if (v.runUrl) trail.push(`**Run:** ${v.runId ? `[\\#${v.runId}](${v.runUrl})` : link('this run', v.runUrl)}`);
  if (v.updatedAt) trail.push(`**Updated:** ${when(v.updatedAt)}`);
  out.push(trail.join(' · '));
  return out;
}

/** A path GitHub can link at a commit: relative to the repository, not a runner's absolute path. */
const linkable = (v: PreviewView, file: string | undefined): file is string => !!file && !!v.repoUrl && !/^(?:\/|[A-Za-z]:[\\/])/.test(file);

function errorLine(v: PreviewView, e: ViewError): string {
  const h = hint(e.message);
  const message = cut(h.message, 600);
  const shown = text(message) + (h.given ? `, not ${code(h.given)}` : '');
  const said = shown + (h.suggestion ? `${!h.given && /[.!?]$/.test(message) ? '' : '.'} Did you mean ${code(h.suggestion)}?` : '');
  // What the model files add and the files the error's echoes are on: one line each, under it.
  const under = (e.notes ?? []).map((n) => `\n  - ${text(cut(n, 300))}`).join('');
  if (linkable(v, e.file) && e.line) return `- ${link(`line ${e.line}`, `${v.repoUrl}/blob/${v.headSha}/${pathInUrl(e.file)}#L${e.line}`)}: ${said}${under}`;
  if (e.line) return `- line ${e.line}: ${said}${under}`;
  return `- ${said}${under}`;
}

/** The errors grouped by file, in the order they came. */
function errorBlock(v: PreviewView, errors: ViewError[], options: RenderOptions): string[] {
  const limit = options.target === 'comment' ? (options.commentErrors ?? DEFAULT_COMMENT_ERRORS) : Number.POSITIVE_INFINITY;
  const groups = new Map<string, ViewError[]>();
  for (const e of errors) {
    const key = e.file ?? '';
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  const out: string[] = ['**Errors**', ''];
  let shown = 0;
  for (const [file, list] of groups) {
    if (shown >= limit) break;
    const title = file ? (linkable(v, file) ? codeLink(file, `${v.repoUrl}/blob/${v.headSha}/${pathInUrl(file)}`) : code(file)) : 'No file named';
    out.push(`${title} · ${plural(list.length, 'error')}`, '');
    const take = list.slice(0, Math.max(0, limit - shown));
    const open = options.target === 'comment' ? take.slice(0, OPEN_PER_FILE) : take;
    const folded = options.target === 'comment' ? take.slice(OPEN_PER_FILE) : [];
    out.push(...open.map((e) => errorLine(v, e)), '');
    if (folded.length) {
      out.push(
        `<details><summary>${plural(folded.length, 'more error')} in this file</summary>`,
        '',
        ...folded.map((e) => errorLine(v, e)),
        '',
        '</details>',
        '',
      );
    }
    shown += take.length;
  }
  const total = v.validation?.errorCount ?? errors.length;
  if (shown < total) {
    const rest = `${plural(total - shown, 'more error')} ${total - shown === 1 ? 'is' : 'are'} listed in the job summary`;
    out.push(v.runUrl ? `… ${link(rest, v.runUrl)}.` : `… ${rest}.`, '');
  }
  return out;
}

/** The one-line story of a closed PR, or of a failure. */
function lead(v: PreviewView): string[] {
  const branch = v.branch ? code(v.branch) : 'the shared branch';
  if (v.merge?.repository || v.cleanup?.stagingOff) return fedLead(v, branch);
  if (v.state === 'merged') {
    const deploy = code(v.deployBranch ?? 'the deploy branch');
    const production =
      v.merge?.deployMode === 'cli'
        ? v.merge.productionUpdated
          ? ` The merged model was uploaded to ${deploy}, which rebuilt production (CLI deploy mode).`
          : ` ⚠️ Production was **not** rebuilt: this deployment deploys with the CLI, so a merge only updates ${deploy}; set \`deploy-on-merge: true\` to upload the merged model.`
        : '';
    return [`${branch} was merged into ${deploy}, and the preview's branches were deleted.${production}`];
  }
  if (v.state === 'closed') return [`Closed without merging: the preview's branches were deleted (${branch}).`];
  if (v.state === 'skipped') return [text(v.skipped ?? 'Nothing was validated.')];
  if (v.state === 'updating') return [`A run started for this commit; this comment is rewritten when it ends.`];
  if (v.failure) {
    // The fix the terminal and the log show under the failure, under it here too.
    const hint = v.failure.hint ? ['', `**Hint:** ${text(cut(v.failure.hint, 600))}`] : [];
    return [`**${text(v.failure.step)} failed:** ${text(cut(v.failure.message, 1000))}`, ...hint, ...pendingLine(v)];
  }
  return [];
}

/** The close on a deployment fed from a connected repository: nothing merged here, production checked. */
function fedLead(v: PreviewView, branch: string): string[] {
  const off = v.cleanup?.stagingOff ? ` The staging environment of ${code(v.cleanup.stagingOff)} was turned off.` : '';
  if (v.state !== 'merged') return [`Closed without merging.${off}`];
  const deploy = code(v.deployBranch ?? 'the deploy branch');
  const m = v.merge;
  const repo = text(m?.repository ?? 'the connected repository');
  const seen = m?.unchecked
    ? ` ⚠️ Whether production built the merge commit could not be checked: ${text(cut(m.unchecked, 300))}.`
    : m?.builtAt
      ? m.productionUpdated
        ? ` Production is built at the merge commit ${code(m.builtAt.slice(0, 12))}.`
        : ` Production is built at ${code(m.builtAt.slice(0, 12))}, not the merge commit (a later push?).`
      : ' Production is built; the platform does not say at which commit.';
  return [`${branch} was merged on GitHub into ${deploy}; production is fed from ${repo}, so nothing was merged on the platform.${seen}${off}`];
}

/** What a failed close left on the platform, and what removes it. */
function pendingLine(v: PreviewView): string[] {
  if (!v.pending?.length) return [];
  return ['', `Still on the platform: ${v.pending.map((b) => code(b)).join(', ')}. Rerunning this job removes them (so does the sweep of \`cleanup-branch\`).`];
}

/** The comment (or job summary) of a view: no run of blank lines, one heading. */
export function renderPreview(v: PreviewView, options: RenderOptions): string {
  const errors = options.errors ?? v.validation?.errors ?? [];
  const closed = v.state === 'merged' || v.state === 'closed' || v.state === 'skipped';
  const parts: string[][] = [[heading(v, v.validation?.errorCount ?? errors.length, files(errors))], lead(v)];
  // What production serves after the merge, against the validated model.
  if (v.merge?.proof) parts.push(renderProof(v.merge.proof));
  if (v.state === 'merged' && v.queue)
    parts.push([`✅ Validated in the merge queue at ${code(v.queue.sha.slice(0, 7))}: the merge commit's model compiled on the platform.`]);
  if (!closed && v.state !== 'updating') parts.push(steps(v));
  if (!closed && v.state !== 'updating' && v.impact) {
    parts.push(
      renderImpact(
        v.impact,
        {
          target: options.target,
          ...(options.commentImpactRows !== undefined ? { rows: options.commentImpactRows } : {}),
          ...(v.runUrl ? { runUrl: v.runUrl } : {}),
        },
        options.impact,
      ),
    );
  }
  if (!closed && v.state !== 'updating' && v.access) {
    parts.push(renderAccess(v.access, { target: options.target, ...(v.runUrl ? { runUrl: v.runUrl } : {}) }, options.access));
  }
  if (!closed && v.state !== 'updating' && v.numbers) {
    parts.push(renderNumbers(v.numbers, { target: options.target, ...(v.runUrl ? { runUrl: v.runUrl } : {}) }, options.numbers));
  }
  if (!closed && v.state !== 'updating') parts.push(renderCost(options.cost ?? v.cost, { target: options.target }));
  parts.push(closed ? links({ ...v, previewUrl: undefined, restUrl: undefined }) : links(v));
  if (v.state === 'invalid' && errors.length) parts.push(errorBlock(v, errors, options));
  return (
    parts
      .filter((p) => p.length)
      .map((p) => p.join('\n'))
      .join('\n\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim() + '\n'
  );
}
