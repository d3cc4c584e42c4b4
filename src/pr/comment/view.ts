/**
 * What the PR comment says, as data: written by the steps of one workflow run, rendered whole each time
 * (src/pr/comment/render-preview.ts). The comment's ledger does not keep it: a run renders its own (the
 * steps of one job hand it on in RUNNER_TEMP, view-store.ts). A run never shows another run's results:
 * the first write of a run starts from an empty view.
 */
import type { ImpactContentRow, ImpactView } from './render-impact.js';
import type { AccessView } from './render-access.js';
import type { NumbersView } from './render-numbers.js';
import type { CostView } from './render-cost.js';
import { keptAgentsView, type AgentsView } from './render-agents.js';
import { keptEvalsView, type EvalsView } from './render-evals.js';
import { proofView, type ProofView } from './render-proof.js';
import { viewRollups } from './render-rollups.js';

import { maskSecretLooking } from '../../client/redact.js';
import type { ProbeSide } from '../../impact/access/types.js';

/** The state the heading leads with. */
export type PreviewState = 'updating' | 'ready' | 'invalid' | 'failed' | 'merged' | 'closed' | 'skipped';

export interface ViewError {
  /** Repository path. */
  file?: string;
  line?: number;
  message: string;
  /** Lines shown under the error: what the model files add, the files its echoes are on. */
  notes?: string[];
}

export interface PreviewView {
  state: PreviewState;
  /** Head commit the run worked on. */
  headSha: string;
  runId?: number;
  runUrl?: string;
  /** ISO time of the last write. */
  updatedAt?: string;
  /** `https://github.com/owner/repo` (links to files and commits). */
  repoUrl?: string;
  branch?: string;
  deployBranch?: string;
  /** The platform's page for the deployment and branch. */
  previewUrl?: string;
  /** The staging environment's REST API address. */
  restUrl?: string;
  upload?: { sent: number; deleted: number; unchanged: number; via?: string };
  validation?: { valid: boolean; cubes?: number; errorCount: number; errors: ViewError[] };
  staging?: { enabled: boolean; smoke?: { cubes: number; rows: number } };
  /**
   * The close of a merged PR. On a deployment fed from a repository: `repository`, and the commit
   * production was seen built at (`builtAt`), or why that could not be checked (`unchecked`). `proof`:
   * what production serves after the merge against the validated model.
   */
  merge?: { deployMode: string; productionUpdated: boolean; repository?: string; builtAt?: string; unchecked?: string; proof?: ProofView };
  /** `stagingOff`: the repository's head branch whose staging environment was turned off (it stays). */
  cleanup?: { deleted: string[]; stagingOff?: string };
  dbt?: { syncJobId: string; branch: string; status: string };
  /** What the pull request changes in the semantic layer, and the content it breaks. */
  impact?: ImpactView;
  /** How the numbers of the key queries moved (the data diff), or why they were not compared. */
  numbers?: NumbersView;
  /** Who can see what, per persona (the access review and its probes). */
  access?: AccessView;
  /** What the merge costs beyond the diff (the Cube version skew). */
  cost?: CostView;
  /** The offline check of the `agents/` folder (absent when the folder does not exist). */
  agents?: AgentsView;
  /** The agents' eval delta (`evals: on`), or the one line of a tenant without evaluations. */
  evals?: EvalsView;
  /** What failed, when the run failed on the platform (or its input was refused), with the fix the terminal shows. */
  failure?: { step: string; message: string; hint?: string };
  /** Branches a failed close left on the platform (a rerun or the sweep removes them). */
  pending?: string[];
  /** Why nothing ran (a fork's or Dependabot's PR, no API key). */
  skipped?: string;
  /** The heading's few words for it: `fork PR`, `Dependabot PR`, `no API key`. */
  skippedAs?: string;
  /** The merge commit a merge queue validated (its `datamodel-ci / validation` check passed), once merged. */
  queue?: { sha: string };
}

// Outside text kept in the view is also masked where it looks like a credential.
const short = (s: string, max: number) => maskSecretLooking(s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** A probe's side with its messages kept short. */
const shortSide = (s: ProbeSide): ProbeSide => ({
  ...s,
  ...(s.refused !== undefined ? { refused: short(s.refused, 80) } : {}),
  ...(s.error !== undefined ? { error: short(s.error, 80) } : {}),
  ...(s.skipped !== undefined ? { skipped: short(s.skipped, 80) } : {}),
});

/** How many errors the view keeps (the comment shows fewer; the job summary has them all). */
export const VIEW_ERRORS = 20;
/** Rows of each impact table the view keeps (the job summary has them all). */
export const VIEW_IMPACT_ROWS = 20;
/** Key queries, and rows of each, the view keeps of the data diff (the job summary has all that were kept). */
export const VIEW_NUMBERS_QUERIES = 12;
export const VIEW_NUMBERS_ROWS = 5;
/** Access changes, probes and saved items the view keeps (the job summary has them all): the comment stays well under its limit. */
export const VIEW_ACCESS_ROWS = 20;
export const VIEW_ACCESS_PROBES = 10;
const VIEW_ACCESS_LOST = 5;

/**
 * The view after this run's update: a write from another run (or another head) starts from scratch, so
 * the comment never mixes two runs; steps of the same run add to what the earlier steps wrote.
 */
export function nextView(
  current: PreviewView | undefined,
  run: { headSha: string; runId: number },
  update: Partial<PreviewView> & { state: PreviewState },
): PreviewView {
  const ended = (s: PreviewState | undefined) => s === 'merged' || s === 'closed';
  // A new run, a run that starts over ("updating"), or the first word of a close: nothing earlier stays.
  const fresh =
    !current || current.headSha !== run.headSha || current.runId !== run.runId || update.state === 'updating' || (ended(update.state) && !ended(current.state));
  const base: PreviewView = fresh ? { state: update.state, headSha: run.headSha, runId: run.runId } : current;
  const next: PreviewView = { ...base, ...update, headSha: run.headSha, runId: run.runId };
  // The view is what the comment shows: its outside texts are kept short (the job summary has them whole).
  if (next.validation)
    next.validation = {
      ...next.validation,
      errors: next.validation.errors
        .slice(0, VIEW_ERRORS)
        .map((e) => ({ ...e, message: short(e.message, 500), ...(e.notes ? { notes: e.notes.slice(0, 3).map((n) => short(n, 300)) } : {}) })),
    };
  if (next.impact) {
    const i = next.impact;
    const rows = <T>(xs: T[]) => xs.slice(0, VIEW_IMPACT_ROWS);
    const content = (a: ImpactContentRow): ImpactContentRow => ({
      ...a,
      name: short(a.name, 200),
      uses: a.uses.slice(0, 7).map((u) => ({ ...u, place: short(u.place, 120) })),
    });
    next.impact = {
      ...i,
      breaking: rows(i.breaking).map((r) => ({ ...r, what: short(r.what, 300) })),
      ...(i.values ? { values: rows(i.values).map((r) => ({ ...r, what: short(r.what, 300) })) } : {}),
      ...(i.moved ? { moved: { total: i.moved.total, members: i.moved.members.slice(0, 10) } } : {}),
      other: rows(i.other).map((r) => ({ ...r, what: short(r.what, 300) })),
      affected: rows(i.affected).map(content),
      ...(i.moving ? { moving: rows(i.moving).map(content) } : {}),
      notices: i.notices.slice(0, 5).map((n) => short(n, 500)),
      ...(i.unavailable ? { unavailable: short(i.unavailable, 600) } : {}),
      ...(i.narrower
        ? {
            narrower: {
              total: i.narrower.total,
              members: i.narrower.members.slice(0, 5).map((m) => ({ ...m, member: short(m.member, 120) })),
              why: i.narrower.why.slice(0, 3).map((w) => short(w, 300)),
            },
          }
        : {}),
    };
  }
  if (next.numbers) {
    const n = next.numbers;
    next.numbers = {
      ...n,
      ...(n.notRun ? { notRun: short(n.notRun, 400) } : {}),
      queries: n.queries.slice(0, VIEW_NUMBERS_QUERIES).map((q) => ({
        ...q,
        name: short(q.name, 120),
        ...(q.why ? { why: short(q.why, 120) } : {}),
        ...(q.failed ? { failed: { ...q.failed, message: short(q.failed.message, 300) } } : {}),
        ...(q.largest?.key ? { largest: { ...q.largest, key: short(q.largest.key, 100) } } : {}),
        ...(q.top ? { top: q.top.slice(0, VIEW_NUMBERS_ROWS).map((r) => ({ ...r, key: short(r.key, 100) })) } : {}),
        ...(q.addedKeys ? { addedKeys: q.addedKeys.slice(0, VIEW_NUMBERS_ROWS).map((k) => short(k, 100)) } : {}),
        ...(q.removedKeys ? { removedKeys: q.removedKeys.slice(0, VIEW_NUMBERS_ROWS).map((k) => short(k, 100)) } : {}),
        ...(q.wouldBuild ? { wouldBuild: q.wouldBuild.slice(0, 3).map((b) => ({ ...b, rollup: short(b.rollup, 120) })) } : {}),
      })),
    };
  }
  if (next.access) {
    const a = next.access;
    next.access = {
      ...a,
      personas: a.personas.slice(0, 20).map((p) => short(p, 60)),
      policyTargets: a.policyTargets.slice(0, 10).map((t) => short(t, 100)),
      changes: a.changes
        .slice(0, VIEW_ACCESS_ROWS)
        .map((c) => ({ ...c, persona: short(c.persona, 60), target: short(c.target, 100), detail: short(c.detail, 160) })),
      lost: a.lost.slice(0, VIEW_ACCESS_LOST).map((l) => ({
        ...l,
        persona: short(l.persona, 60),
        name: short(l.name, 100),
        members: l.members.slice(0, 3).map((m) => short(m, 100)),
      })),
      // What a probe would build is the Cost section's line, not the access section's.
      probes: a.probes.slice(0, VIEW_ACCESS_PROBES).map(({ wouldBuild: _builds, ...p }) => ({
        ...p,
        persona: short(p.persona, 60),
        target: short(p.target, 100),
        counted: short(p.counted, 100),
        production: shortSide(p.production),
        preview: shortSide(p.preview),
      })),
      notices: a.notices.slice(0, 2).map((n) => short(n, 200)),
      ...(a.newGuarded
        ? { newGuarded: a.newGuarded.slice(0, 5).map((g) => ({ target: short(g.target, 100), seenBy: g.seenBy.slice(0, 10).map((p) => short(p, 60)) })) }
        : {}),
      ...(a.probesNotRun?.why ? { probesNotRun: { ...a.probesNotRun, why: short(a.probesNotRun.why, 200) } } : {}),
      ...(a.groupsUnreached
        ? { groupsUnreached: { sides: a.groupsUnreached.sides.slice(0, 2).map((x) => short(x, 20)), remedy: short(a.groupsUnreached.remedy, 400) } }
        : {}),
    };
  }
  if (next.cost?.versions) {
    const v = next.cost.versions;
    next.cost = {
      ...next.cost,
      versions: {
        ...v,
        refused: v.refused.slice(0, VIEW_IMPACT_ROWS),
        ...(v.notKnown ? { notKnown: v.notKnown.slice(0, VIEW_IMPACT_ROWS) } : {}),
        ...(v.notKnownWhy ? { notKnownWhy: short(v.notKnownWhy, 500) } : {}),
        ...(v.unchecked ? { unchecked: short(v.unchecked, 500) } : {}),
      },
    };
  }
  if (next.agents) next.agents = keptAgentsView(next.agents);
  if (next.evals) next.evals = keptEvalsView(next.evals);
  if (next.cost?.rollups) next.cost = { ...next.cost, rollups: viewRollups(next.cost.rollups) };
  if (next.merge?.proof) {
    const proof = proofView(next.merge.proof);
    next.merge = { ...next.merge, ...(proof ? { proof: { ...proof, ...(proof.reason ? { reason: short(proof.reason, 600) } : {}) } } : { proof: undefined }) };
  }
  if (next.failure)
    next.failure = { ...next.failure, message: short(next.failure.message, 2000), ...(next.failure.hint ? { hint: short(next.failure.hint, 1000) } : {}) };
  if (next.skipped) next.skipped = short(next.skipped, 1000);
  if (next.pending) next.pending = next.pending.slice(0, 10).map((b) => short(b, 200));
  return next;
}

/** Read a view back (the file an earlier step of the job left), keeping only well-typed fields (anything else reads as no view). */
export function viewOf(raw: unknown): PreviewView | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const v = raw as Partial<PreviewView>;
  const states: PreviewState[] = ['updating', 'ready', 'invalid', 'failed', 'merged', 'closed', 'skipped'];
  if (!states.includes(v.state as PreviewState) || typeof v.headSha !== 'string') return undefined;
  if (v.queue !== undefined && !/^[0-9a-f]{7,64}$/i.test(String((v.queue as { sha?: unknown } | null)?.sha))) return viewOf({ ...v, queue: undefined });
  if (v.merge?.proof !== undefined && !proofView(v.merge.proof)) return viewOf({ ...v, merge: { ...v.merge, proof: undefined } });
  if (v.pending !== undefined && !(Array.isArray(v.pending) && v.pending.every((b) => typeof b === 'string')))
    return { ...v, pending: undefined } as PreviewView;
  return v as PreviewView;
}
