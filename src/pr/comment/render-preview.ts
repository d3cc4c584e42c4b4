/**
 * The PR comment and the job summary, rendered from the preview's view: the state first (in the heading),
 * then the verdict in one line, and on a red comment its errors (grouped by file, links to their lines at
 * the head commit) or its failure before anything else; then the steps (folded when all are green), the
 * sections (semantic layer, who can see what, numbers, cost) and the links a person opens. The comment
 * shows the first errors and rows; the job summary shows them all. A comment too long for GitHub is
 * rendered with `detail: 'headlines'`: each section in its one line.
 */
import { renderImpact, type ImpactView } from './render-impact.js';
import { renderNumbers, type NumbersView } from './render-numbers.js';
import { renderAccess, type AccessView } from './render-access.js';
import { costHeadline, renderCost, type CostView } from './render-cost.js';
import { DEFAULT_COMMENT_ERRORS, errorBlock, files } from './render-errors.js';
import { renderProof } from './render-proof.js';
import { renderAgents, type AgentsView } from './render-agents.js';
import { renderEvals, type EvalsView } from './render-evals.js';
import { verdict } from './render-verdict.js';
import { code, codeLink, cut, link, text } from './markdown.js';
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
  /** The whole check of the `agents/` folder (the view keeps only the first findings). */
  agents?: AgentsView;
  /** The whole eval delta (the view keeps only the first questions of each list). */
  evals?: EvalsView;
  /** `headlines`: each section in its one line, the steps in one line (a comment that would not fit GitHub's limit otherwise). */
  detail?: 'full' | 'headlines';
  /** Show the commit, run and update time (the several models' comment shows them once, at its end). */
  trail?: boolean;
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

/** One step's row: its name, whether it went well, and what it says. */
interface StepRow {
  step: string;
  ok: boolean;
  result: string;
}

/** The steps that ran. */
function stepRows(v: PreviewView): StepRow[] {
  const rows: StepRow[] = [];
  if (v.upload) {
    const u = v.upload;
    rows.push({
      step: 'Upload',
      ok: true,
      result: `✅ ${plural(u.sent, 'file')} sent, ${u.deleted} deleted, ${u.unchanged} unchanged${u.via === 'dev-mode' ? ' (through dev mode)' : ''}`,
    });
  }
  if (v.validation) {
    const c = v.validation;
    rows.push(
      c.valid
        ? { step: 'Validation', ok: true, result: `✅ valid${c.cubes !== undefined ? `: ${plural(c.cubes, 'cube or view', 'cubes and views')}` : ''}` }
        : { step: 'Validation', ok: false, result: `❌ ${plural(c.errorCount, 'error')}` },
    );
  }
  if (v.staging) {
    const s = v.staging;
    const smoke = s.smoke ? `; ${plural(s.smoke.cubes, 'cube or view', 'cubes and views')} in \`/meta\`, ${plural(s.smoke.rows, 'row')} from \`/load\`` : '';
    // A model with errors does not build: the environment runs, but not this commit's model.
    const invalid = v.validation?.valid === false;
    rows.push(
      s.enabled && invalid
        ? { step: 'Staging', ok: false, result: "⚠️ on, but not serving this commit's model (it has errors)" }
        : { step: 'Staging', ok: s.enabled, result: `${mark(s.enabled)} ${s.enabled ? 'running' : 'not enabled'}${smoke}` },
    );
  }
  if (v.failure) rows.push({ step: text(v.failure.step), ok: false, result: '❌ failed' });
  if (v.dbt) {
    const ok = v.dbt.status === 'COMPLETED';
    rows.push({ step: 'dbt sync', ok, result: `${mark(ok)} ${text(v.dbt.status)} (${code(v.dbt.syncJobId, { cell: true })})` });
  }
  return rows;
}

/** The steps as a table, folded under one line when every step went well (one line only, in `headlines`). */
function steps(v: PreviewView, detail: RenderOptions['detail']): string[] {
  const rows = stepRows(v);
  if (!rows.length) return [];
  const green = rows.every((r) => r.ok);
  const line = rows.map((r) => `${r.ok ? '✅' : r.result.startsWith('⚠️') ? '⚠️' : '❌'} ${r.step}`).join(' · ');
  if (detail === 'headlines') return [`Steps: ${line}`];
  const table = ['| Step | Result |', '|---|---|', ...rows.map((r) => `| ${r.step} | ${r.result} |`)];
  return green ? [`<details><summary>Steps: ${line}</summary>`, '', ...table, '', '</details>'] : table;
}

function when(iso: string | undefined): string {
  return iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : '';
}

/** The links a person opens: the preview, its API address, then (`trail`) the commit, the run. */
function links(v: PreviewView, trail = true): string[] {
  const out: string[] = [];
  const place: string[] = [];
  if (v.previewUrl && v.branch) place.push(`**Preview:** ${codeLink(v.branch, v.previewUrl)} on the platform`);
  if (v.restUrl) place.push(`**REST API:** ${code(v.restUrl)}`);
  if (place.length) out.push(place.join(' · '));
  if (trail) out.push(trailLine(v));
  return out;
}

/** The commit, the run and the time of the last write, in one line. */
export function trailLine(v: PreviewView): string {
  const trail: string[] = [];
  trail.push(`**Commit:** ${v.repoUrl ? codeLink(v.headSha.slice(0, 7), `${v.repoUrl}/commit/${v.headSha}`) : code(v.headSha.slice(0, 7))}`);
  if (v.runUrl) trail.push(`**Run:** ${v.runId ? `[\\#${v.runId}](${v.runUrl})` : link('this run', v.runUrl)}`);
  if (v.updatedAt) trail.push(`**Updated:** ${when(v.updatedAt)}`);
  return trail.join(' · ');
}

/** The one-line story of a closed PR, or of a failure (`short`: its message cut shorter). */
function lead(v: PreviewView, short = false): string[] {
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
    const hint = v.failure.hint ? ['', `**Hint:** ${text(cut(v.failure.hint, short ? 200 : 600))}`] : [];
    return [`**${text(v.failure.step)} failed:** ${text(cut(v.failure.message, short ? 300 : 1000))}`, ...hint, ...pendingLine(v)];
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
  const headlines = options.detail === 'headlines';
  const line = verdict(v);
  const parts: string[][] = [[heading(v, v.validation?.errorCount ?? errors.length, files(errors))], line ? [line] : [], lead(v, headlines)];
  // A red comment leads with its errors: nothing it shows above them may read as green.
  if (v.state === 'invalid' && errors.length) {
    const limit = options.target === 'comment' ? (options.commentErrors ?? DEFAULT_COMMENT_ERRORS) : Number.POSITIVE_INFINITY;
    parts.push(errorBlock(v, errors, options.target, limit));
  }
  // What production serves after the merge, against the validated model.
  if (v.merge?.proof) parts.push(renderProof(v.merge.proof));
  if (v.state === 'merged' && v.queue)
    parts.push([`✅ Validated in the merge queue at ${code(v.queue.sha.slice(0, 7))}: the merge commit's model compiled on the platform.`]);
  const open = !closed && v.state !== 'updating';
  if (open) parts.push(steps(v, options.detail));
  if (open) parts.push(...sections(v, options));
  const trail = options.trail !== false;
  parts.push(closed ? links({ ...v, previewUrl: undefined, restUrl: undefined }, trail) : links(v, trail));
  return (
    parts
      .filter((p) => p.length)
      .map((p) => p.join('\n'))
      .join('\n\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim() + '\n'
  );
}

/** The sections of an open preview: each whole, or (`headlines`) each in its first line. */
function sections(v: PreviewView, options: RenderOptions): string[][] {
  const runUrl = v.runUrl ? { runUrl: v.runUrl } : {};
  const rows = options.commentImpactRows !== undefined ? { rows: options.commentImpactRows } : {};
  const out: string[][] = [];
  if (v.impact) out.push(renderImpact(v.impact, { target: options.target, ...rows, ...runUrl }, options.impact));
  if (v.access) out.push(renderAccess(v.access, { target: options.target, ...runUrl }, options.access));
  if (v.numbers) out.push(renderNumbers(v.numbers, { target: options.target, ...runUrl }, options.numbers));
  const links = v.repoUrl ? { repoUrl: v.repoUrl, headSha: v.headSha } : {};
  if (v.agents) out.push(renderAgents(v.agents, { target: options.target, ...links }, options.agents));
  if (v.evals) out.push(renderEvals(options.target === 'summary' && options.evals ? options.evals : v.evals, options.target));
  const cost = options.cost ?? v.cost;
  if (options.detail === 'headlines') {
    const head = out.map((p) => p.slice(0, 1)).filter((p) => p.length);
    const c = costHeadline(cost);
    return c ? [...head, [c]] : head;
  }
  out.push(renderCost(cost, { target: options.target }));
  return out;
}
