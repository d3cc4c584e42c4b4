/**
 * Where a run's results go: the PR comment (one update of the whole view) and the job summary (one
 * heading per step). Comment trouble is a warning, never a failure of the step.
 */
import type { Ledger } from '../github/comment.js';
import { nextView, type PreviewState, type PreviewView, type ViewError } from '../github/preview-view.js';
import type { ImpactView } from '../github/render-impact.js';
import type { NumbersView } from '../github/render-numbers.js';
import { renderPreview } from '../github/render-preview.js';
import type { ActionRun } from './action-run.js';
import { plural } from '../report/plural.js';
import { errorNotes, type ModelError } from '../operations/validate.js';

/** A change to the view; the state is derived from the steps when not given. */
export type ViewUpdate = Partial<Omit<PreviewView, 'state'>> & { state?: PreviewState };

/** The errors as the comment lists them: the root causes, each with the lines shown under it. */
export function viewErrors(errors: ModelError[]): ViewError[] {
  return errors.map((e) => {
    const notes = errorNotes(e);
    return { ...(e.file ? { file: e.file } : {}), ...(e.line ? { line: e.line } : {}), message: e.message, ...(notes.length ? { notes } : {}) };
  });
}

/** The state a view's steps add up to: a failure, errors, a valid model, else still going. */
export function derivedState(v: Omit<PreviewView, 'state'>): PreviewState {
  if (v.failure) return 'failed';
  if (v.validation) return v.validation.valid ? 'ready' : 'invalid';
  if (v.impact) return 'ready';
  return 'updating';
}

/** The platform's page for a deployment's branch (the form the vendor's docs give: `/d/<id>/schema?branch=`). */
export function platformPageUrl(apiUrl: string, deploymentId: number, branch: string): string {
  const base = new URL(apiUrl);
  return `${base.origin}${base.pathname.replace(/\/+$/, '')}/d/${deploymentId}/schema?branch=${encodeURIComponent(branch)}`;
}

export interface PublishOptions {
  /** Every error of the run (the ledger keeps the first ones). */
  errors?: ViewError[];
  /** Write the job summary too (once per step, at its end). */
  summary?: boolean;
  /** The whole impact of the run, for the job summary (the ledger keeps the first rows). */
  impact?: ImpactView;
  /** The whole data diff of the run, for the job summary. */
  numbers?: NumbersView;
}

/** Merge `update` into this run's view, write the comment, and (by default) the job summary. */
export async function publish(x: ActionRun, update: ViewUpdate, ledger: Partial<Ledger> = {}, options: PublishOptions = {}): Promise<void> {
  const pr = x.run.pr;
  const runId = Number(x.run.runId ?? 0);
  const thread = pr && x.github && !x.settings.dryRun ? await x.thread() : undefined;
  const current = thread?.ledger?.view;
  const branch = update.branch ?? ledger.branch ?? current?.branch;
  const common: Partial<PreviewView> = {
    ...(x.run.runUrl ? { runUrl: x.run.runUrl } : {}),
    ...(x.run.repoUrl ? { repoUrl: x.run.repoUrl } : {}),
    ...(branch ? { branch, previewUrl: platformPageUrl(x.settings.connection.apiUrl, x.settings.deploymentId, branch) } : {}),
  };
  const merged = nextView(current, { headSha: pr?.headSha ?? current?.headSha ?? '', runId }, { ...common, ...update, state: update.state ?? 'updating' });
  const view: PreviewView = update.state ? merged : { ...merged, state: derivedState(merged) };
  if (options.summary !== false)
    x.reporter.summary(
      renderPreview(
        { ...view, updatedAt: new Date().toISOString() },
        {
          target: 'summary',
          ...(options.errors ? { errors: options.errors } : {}),
          ...(options.impact ? { impact: options.impact } : {}),
          ...(options.numbers ? { numbers: options.numbers } : {}),
        },
      ),
    );
  if (!thread || !pr) return;
  try {
    const result = await thread.write({
      headSha: pr.headSha,
      runId,
      ...(x.run.runUrl ? { runUrl: x.run.runUrl } : {}),
      update: (state) => ({ ledger: { ...state?.ledger, ...ledger, view }, ...(options.errors ? { errors: options.errors } : {}) }),
    });
    if (result.reason === 'stale') x.reporter.notice('a newer commit of this pull request owns the comment: not overwriting it');
    if (result.duplicates.length) x.reporter.warning(`found ${plural(result.duplicates.length, 'extra datamodel-ci comment')}; updated the oldest`);
  } catch (e) {
    x.reporter.warning(`could not update the pull request comment: ${e instanceof Error ? e.message : String(e)}`);
  }
}
