/**
 * Where a run's results go: the PR comment (one update of the whole view) and the job summary (one
 * heading per step). Comment trouble is a warning, never a failure of the step.
 */
import { messageOf } from '../client/errors.js';
import { factsPatch, type Ledger } from './comment/ledger.js';
import { nextView, type PreviewState, type PreviewView, type ViewError } from './comment/view.js';
import { keepRunView, readRunView } from './comment/view-store.js';
import type { ImpactView } from './comment/render-impact.js';
import type { NumbersView } from './comment/render-numbers.js';
import type { AccessView } from './comment/render-access.js';
import type { AgentsView } from './comment/render-agents.js';
import type { EvalsView } from './comment/render-evals.js';
import type { CostView } from './comment/render-cost.js';
import { PREVIEW_TITLE, renderPreview } from './comment/render-preview.js';
import { code } from './comment/markdown.js';
import type { PullRequestSide } from './pull-request.js';
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
  /** Every error of the run (the view keeps the first ones). */
  errors?: ViewError[];
  /** Write the job summary too (once per step, at its end). */
  summary?: boolean;
  /** The whole impact of the run, for the job summary (the view keeps the first rows). */
  impact?: ImpactView;
  /** The whole data diff of the run, for the job summary. */
  numbers?: NumbersView;
  /** The whole access review of the run, for the job summary. */
  access?: AccessView;
  /** The whole Cost section of the run, for the job summary. */
  cost?: CostView;
  /** The whole check of the `agents/` folder, for the job summary. */
  agents?: AgentsView;
  /** The whole eval delta (every question newly failing or passing), for the job summary. */
  evals?: EvalsView;
}

/** With several models, each model's job summary is headed by its folder and deployment (one model: as is). */
function sectionTitled(side: PullRequestSide, markdown: string): string {
  const label = side.settings.label;
  if (!label) return markdown;
  const [first = '', ...rest] = markdown.split('\n');
  return [first.replace(PREVIEW_TITLE, `${code(`${label}/`)} (deployment ${side.settings.deploymentId})`), ...rest].join('\n');
}

/**
 * The view a write of `update` leaves: the run's links (its run, the repository, the branch's page on the
 * platform) and `update` merged into the comment's `current` view, its state derived from the steps
 * unless `update` gives one. What `publish` writes, and what `plan --format markdown` renders.
 */
export function viewAfter(
  side: Pick<PullRequestSide, 'event' | 'settings'>,
  current: PreviewView | undefined,
  update: ViewUpdate,
  ledgerBranch: string | undefined,
  headSha: string,
): PreviewView {
  const { event, settings } = side;
  const branch = update.branch ?? ledgerBranch ?? current?.branch;
  const common: Partial<PreviewView> = {
    ...(event.runUrl ? { runUrl: event.runUrl } : {}),
    ...(event.repoUrl ? { repoUrl: event.repoUrl } : {}),
    ...(branch ? { branch, previewUrl: platformPageUrl(settings.apiUrl, settings.deploymentId, branch) } : {}),
  };
  const merged = nextView(current, { headSha, runId: Number(event.runId ?? 0) }, { ...common, ...update, state: update.state ?? 'updating' });
  return update.state ? merged : { ...merged, state: derivedState(merged) };
}

/** Merge `update` into this run's view, write the comment, and (by default) the job summary. */
export async function publish(side: PullRequestSide, update: ViewUpdate, ledger: Partial<Ledger> = {}, options: PublishOptions = {}): Promise<void> {
  const { event, reporter, settings } = side;
  const pr = event.pr;
  const runId = Number(event.runId ?? 0);
  const thread = pr && side.github && !settings.dryRun ? await side.thread() : undefined;
  const run = { headSha: pr?.headSha ?? '', runId };
  const key = pr ? { deploymentId: settings.deploymentId, pr: pr.number, ...(settings.label ? { label: settings.label } : {}) } : undefined;
  // This run's view so far: this process's last write, else what an earlier step of the job left (the ledger keeps none).
  const current = thread?.ledger?.view ?? (key && thread ? readRunView(key, run) : undefined);
  const view = viewAfter(side, current, update, ledger.branch, pr?.headSha ?? current?.headSha ?? '');
  if (key && thread) keepRunView(key, view);
  if (options.summary !== false)
    reporter.summary(
      sectionTitled(
        side,
        renderPreview(
          { ...view, updatedAt: new Date().toISOString() },
          {
            target: 'summary',
            ...(options.errors ? { errors: options.errors } : {}),
            ...(options.impact ? { impact: options.impact } : {}),
            ...(options.numbers ? { numbers: options.numbers } : {}),
            ...(options.access ? { access: options.access } : {}),
            ...(options.cost ? { cost: options.cost } : {}),
            ...(options.agents ? { agents: options.agents } : {}),
            ...(options.evals ? { evals: options.evals } : {}),
          },
        ),
      ),
    );
  if (!thread || !pr) return;
  // What this run's ledger holds now (what it made, turned on, landed, validated, or deleted) goes back into the comment.
  const facts = await side.ledgerNow();
  try {
    const result = await thread.write({
      headSha: pr.headSha,
      runId,
      ...(event.runUrl ? { runUrl: event.runUrl } : {}),
      update: (state) => ({
        ledger: { ...state?.ledger, ...ledger, ...(facts ? factsPatch(facts) : {}), view },
        ...(options.errors ? { errors: options.errors } : {}),
      }),
    });
    if (result.reason === 'stale') reporter.notice('a newer commit of this pull request owns the comment: not overwriting it');
    if (result.duplicates.length) reporter.warning(`found ${plural(result.duplicates.length, 'extra datamodel-ci comment')}; updated the oldest`);
  } catch (e) {
    reporter.warning(`could not update the pull request comment: ${messageOf(e)}`);
  }
}
