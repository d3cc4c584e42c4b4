/**
 * The pull request's side of a preview: the platform's one outcome turned, through each step's
 * presenter, into the outputs, the comment's view and the failure; then the writes (check run, comment,
 * GitHub deployment), which depend on nothing of each other and go out together.
 */
import { presentRollups, withRollups } from './present-rollups.js';
import { messageOf } from '../client/errors.js';
import type { PreviewOutcome } from '../operations/preview-types.js';
import { leanRecord } from '../operations/validation-record.js';
import { hintFor } from '../report/hints.js';
import { annotate, writeFacetChecks } from './check-run.js';
import { facetChecks, type FacetSettings } from './facet-checks.js';
import type { Ledger } from './comment/ledger.js';
import type { ImpactView } from './comment/render-impact.js';
import type { NumbersView } from './comment/render-numbers.js';
import type { AccessView } from './comment/render-access.js';
import type { CostView } from './comment/render-cost.js';
import type { AgentsView } from './comment/render-agents.js';
import type { EvalsView } from './comment/render-evals.js';
import { presentAgents, presentEvals } from './present-agents.js';
import type { PreviewView, ViewError } from './comment/view.js';
import { deployPreview } from './deployment.js';
import { presentStaging, presentUpload, presentValidation, presentVersions, type Outputs } from './presenters.js';
import { platformPageUrl, publish } from './publish.js';
import type { PullRequestSide } from './pull-request.js';
import { presentChangeSet, presentDataDiff, recordChangeSet, type RecordsFolder } from './records.js';

/** A failure as the comment shows it: the step, the message, and the hint the terminal prints under it. */
export function failureOf(step: string, cause: unknown, apiUrl: string, message = messageOf(cause)): NonNullable<PreviewView['failure']> {
  const hint = hintFor(cause, apiUrl);
  return { step, message, ...(hint ? { hint } : {}) };
}

export interface PreviewSettings {
  deploymentId: number;
  apiUrl: string;
  deployBranch: string;
  dryRun: boolean;
  failOnInvalid: boolean;
  failOnBreaking: boolean;
  failOnDataChange: boolean;
  failOnExposure?: boolean;
  failOnRollupLoss?: boolean;
  failOnVersionSkew: boolean;
  /** Where the change-set and data-diff files go. */
  records: RecordsFolder;
}

/** What the run shows of a preview. */
export interface PreviewShown {
  outputs: Outputs;
  view: Partial<PreviewView>;
  ledger: Partial<Ledger>;
  /** Why the step fails (the platform's failure first, then what an input asks for). */
  failure?: string;
  /** Every error of the validation, the whole impact and data diff: for the job summary. */
  errors: ViewError[];
  impact?: ImpactView;
  numbers?: NumbersView;
  access?: AccessView;
  /** The whole Cost section (the Cube version skew). */
  cost?: CostView;
  /** The whole check of the `agents/` folder. */
  agents?: AgentsView;
  /** The whole eval delta (the view keeps the first questions). */
  evals?: EvalsView;
  /** The change set, for `--json`'s `result`. */
  result?: unknown;
}

/** The outcome as outputs, view and failure (and the change set and data diff written to their files). */
export function presentPreview(o: PreviewOutcome, s: PreviewSettings): PreviewShown {
  const outputs: Outputs = {};
  const view: Partial<PreviewView> = { branch: o.branch, deployBranch: s.deployBranch };
  // The evidence cleanup acts on (the branch a run made, the staging a run turned on) is the run's ledger's: publish writes it.
  const shown: PreviewShown = { outputs, view, ledger: { branch: o.branch, state: 'open' }, errors: [] };
  if (o.upload) {
    const p = presentUpload(o.upload);
    Object.assign(outputs, p.outputs);
    Object.assign(view, p.view);
  }
  if (o.stale) return { ...shown, outputs: { ...outputs, skipped: 'true', status: 'stale' } };
  if (s.dryRun) return { ...shown, outputs: { ...outputs, status: 'dry-run' } };
  const failures: (string | undefined)[] = [o.failure];
  if (o.validation) {
    const p = presentValidation(o.validation, s.failOnInvalid);
    Object.assign(outputs, p.outputs, { status: p.status });
    Object.assign(view, p.view);
    shown.errors = p.errors;
    failures.push(p.failure);
  }
  const agents = o.agents ? presentAgents(o.agents, s.failOnInvalid) : undefined;
  if (agents) {
    view.agents = shown.agents = agents.view;
    Object.assign(outputs, agents.outputs);
    // Its errors fail the step as the model's do (fail-on-invalid): the agents break on merge.
    failures.push(agents.failure);
  }
  const evals = o.evals ? presentEvals(o.evals) : undefined;
  if (evals) {
    view.evals = shown.evals = evals.view;
    Object.assign(outputs, evals.outputs);
    failures.push(evals.failure);
  }
  if (o.staging) {
    const p = presentStaging(o.staging);
    Object.assign(outputs, p.outputs);
    Object.assign(view, p.view);
    Object.assign(shown.ledger, p.ledger);
  }
  if (o.impact) {
    const p = presentChangeSet(s.records, s.deploymentId, o.impact, s.failOnBreaking, s.failOnExposure);
    Object.assign(outputs, p.outputs);
    Object.assign(view, p.view);
    shown.impact = p.impact;
    if (p.access) shown.access = p.access;
    shown.result = p.changeSet;
    failures.push(p.failure);
    if (o.numbers) {
      const n = presentDataDiff(s.records, s.deploymentId, o.numbers, o.impact, s.failOnDataChange);
      Object.assign(outputs, n.outputs);
      Object.assign(view, n.view);
      if (n.numbers) shown.numbers = n.numbers;
      failures.push(n.failure);
    }
    const c = presentRollups(o.rollups, o.impact.head, !!o.impact.rollupsInModel, !!s.failOnRollupLoss);
    Object.assign(outputs, c.outputs);
    if (c.part) view.cost = shown.cost = withRollups(view.cost, c.part);
    if (c.json) shown.result = { ...p.changeSet, ...c.json };
    failures.push(c.failure);
  }
  if (o.impact && o.versions) {
    const v = presentVersions(o.versions, s.failOnVersionSkew);
    Object.assign(outputs, v.outputs);
    view.cost = shown.cost = withRollups(v.view.cost, view.cost?.rollups);
    if (shown.result !== undefined) shown.result = { ...(shown.result as object), versions: v.json };
    failures.push(v.failure);
  }
  // The eval delta whole (every question of both sides) in `--json` and the change-set file.
  if (evals?.json) shown.result = { ...(shown.result ?? {}), evals: evals.json };
  // The agents folder's check: its findings by file and line, what removals break, and which model was used.
  if (agents) shown.result = { ...(shown.result ?? {}), agents: agents.json };
  // The validation record: lean in the comment's ledger (the close carries it to the merge), whole in the change-set file and `--json`.
  if (o.record) {
    shown.ledger.record = leanRecord(o.record);
    shown.result = { ...(shown.result ?? {}), record: o.record };
  }
  // The change-set file, written again with the versions, rollups and record the result gained.
  if (o.impact && shown.result !== undefined) recordChangeSet(s.records, shown.result as Parameters<typeof recordChangeSet>[1]);
  if (o.failure) {
    view.failure = failureOf('Preview', o.failureCause ?? new Error(o.failure), s.apiUrl, o.failure);
    outputs.status = 'failed';
  }
  const failure = failures.find((f) => f !== undefined);
  return failure ? { ...shown, failure } : shown;
}

/** Why the impact did not run, for the facet checks: the model invalid, or the step that failed. */
const impactNotRun = (o: PreviewOutcome): string | undefined =>
  o.impact ? undefined : o.failure ? `the preview failed (${o.failure})` : o.validation && !o.validation.valid ? 'the model is invalid' : undefined;

/** The check runs, the comment and the GitHub deployment, written together; the first failure is thrown once all are done. */
export async function writePreview(
  side: PullRequestSide,
  o: PreviewOutcome,
  shown: PreviewShown,
  environmentPrefix: string | undefined,
  facets?: FacetSettings,
): Promise<void> {
  const writes: Promise<unknown>[] = [];
  if (o.validation) writes.push(annotate(side, o.validation.errors, o.validation, undefined, o.agents));
  if (facets) {
    const notRun = impactNotRun(o);
    const { impact, numbers, rollups, versions, evals } = o;
    writes.push(writeFacetChecks(side, facetChecks({ impact, numbers, rollups, versions, evals, ...(notRun ? { notRun } : {}) }, facets)));
  }
  const { errors, impact, numbers, access, cost, agents, evals } = shown;
  writes.push(
    publish(side, shown.view, shown.ledger, {
      errors,
      ...(impact ? { impact } : {}),
      ...(numbers ? { numbers } : {}),
      ...(access ? { access } : {}),
      ...(cost ? { cost } : {}),
      ...(agents ? { agents } : {}),
      ...(evals ? { evals } : {}),
    }),
  );
  const stagingUrl = o.staging?.stagingUrl;
  if (stagingUrl && !o.failure)
    writes.push(deployPreview(side, environmentPrefix, platformPageUrl(side.settings.apiUrl, side.settings.deploymentId, o.branch)));
  const settled = await Promise.allSettled(writes);
  const rejected = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (rejected) throw rejected.reason;
}

/** A model the pull request does not touch: its section says why in a line, and shows no preview. */
export async function markUntouched(side: PullRequestSide, why: string): Promise<void> {
  const thread = await side.thread();
  const headSha = side.headSha;
  if (!thread || !headSha || side.settings.dryRun) return;
  const runUrl = side.event.runUrl;
  await thread.write({
    headSha,
    runId: Number(side.event.runId ?? 0),
    ...(runUrl ? { runUrl } : {}),
    update: () => ({ ledger: { state: 'untouched', untouched: why } }),
  });
}
