/**
 * The "Agent evals" section of the PR comment and the job summary: accuracy `passed/total` on production and
 * on the pull request, the questions that newly fail and newly pass with the platform's verdict reasons, the
 * flaky ones (a verdict that differs between the runs of one side: a warning, never a regression), which
 * production run was reused, or why a side was not compared (never a pass). A tenant without evaluations
 * gets one line.
 */
import { accuracyOf, evalsFail, type EvalChange, type EvalDelta, type EvalFlaky, type EvalSide, type ReusedRun } from '../../operations/evals/delta.js';
import { plural } from '../../report/plural.js';
import { code, cut, text } from './markdown.js';

export interface EvalSideView {
  branch: string;
  /** `passed/total`, or absent when not compared. */
  accuracy?: string;
  /** Why the side was not compared. */
  reason?: string;
  /** Production's last complete run, reused. */
  reused?: ReusedRun;
  /** Runs of the side, when more than one. */
  runs?: number;
}

export type EvalsView =
  | { state: 'absent'; line: string }
  | {
      state: 'ran';
      production: EvalSideView;
      preview: EvalSideView;
      compared: boolean;
      newlyFailing: EvalChange[];
      newlyPassing: EvalChange[];
      /** Questions whose verdict differs between the runs of one side (a warning). */
      flaky?: EvalFlaky[];
      /** Questions failing on both sides, and questions only the pull request asks. */
      stillFailing?: EvalChange[];
      added?: EvalChange[];
      /** Why production's last complete run was not reused. */
      reuseLine?: string;
      /** `fail-on-eval-regression` was set, and whether the evals fail the step. */
      gated: boolean;
      fails: boolean;
    };

/** Questions of each list the comment keeps. */
export const VIEW_EVAL_CHANGES = 20;

const sideView = (s: EvalSide): EvalSideView => ({
  branch: s.branch,
  ...(s.compared ? { accuracy: accuracyOf(s) } : { reason: s.reason }),
  ...(s.reused ? { reused: s.reused } : {}),
  ...(s.runIds && s.runIds.length > 1 ? { runs: s.runIds.length } : {}),
});

export function evalsView(d: EvalDelta): EvalsView {
  if (d.state === 'absent') return d;
  return {
    state: 'ran',
    production: sideView(d.production),
    preview: sideView(d.preview),
    compared: d.compared,
    newlyFailing: d.newlyFailing,
    newlyPassing: d.newlyPassing,
    ...(d.flaky?.length ? { flaky: d.flaky } : {}),
    ...(d.stillFailing?.length ? { stillFailing: d.stillFailing } : {}),
    ...(d.added?.length ? { added: d.added } : {}),
    ...(d.reuseLine ? { reuseLine: d.reuseLine } : {}),
    gated: d.failOnRegression,
    fails: evalsFail(d),
  };
}

/** The view as the comment keeps it: the first questions, outside text cut short. */
export function keptEvalsView(v: EvalsView): EvalsView {
  if (v.state === 'absent') return { ...v, line: cut(v.line, 300) };
  const keep = (xs: EvalChange[]) =>
    xs.slice(0, VIEW_EVAL_CHANGES).map((c) => ({ ...c, label: cut(c.label, 200), ...(c.reason ? { reason: cut(c.reason, 300) } : {}) }));
  const side = (s: EvalSideView) => ({
    ...s,
    branch: cut(s.branch, 200),
    ...(s.reason ? { reason: cut(s.reason, 500) } : {}),
    ...(s.reused ? { reused: { ...s.reused, runId: cut(s.reused.runId, 60), createdAt: cut(s.reused.createdAt, 60) } } : {}),
  });
  const verdicts = (xs: string[]) => xs.slice(0, 5).map((x) => cut(x, 30));
  return {
    ...v,
    production: side(v.production),
    preview: side(v.preview),
    newlyFailing: keep(v.newlyFailing),
    newlyPassing: keep(v.newlyPassing),
    ...(v.stillFailing ? { stillFailing: keep(v.stillFailing) } : {}),
    ...(v.added ? { added: keep(v.added) } : {}),
    ...(v.flaky
      ? {
          flaky: v.flaky
            .slice(0, VIEW_EVAL_CHANGES)
            .map((f) => ({ label: cut(f.label, 200), production: verdicts(f.production), preview: verdicts(f.preview) })),
        }
      : {}),
    ...(v.reuseLine ? { reuseLine: cut(v.reuseLine, 500) } : {}),
  };
}

/** The section's first line. */
export function evalsHeadline(v: EvalsView): string {
  if (v.state === 'absent') return `**Agent evals**: ${text(v.line)}`;
  const acc = (s: EvalSideView) => (s.accuracy ? code(s.accuracy) : 'not compared');
  const verdict = !v.compared
    ? `${v.fails ? '❌' : '⚠️'} not compared: never a pass`
    : v.newlyFailing.length
      ? `${v.fails ? '❌' : '⚠️'} ${plural(v.newlyFailing.length, 'question')} newly failing`
      : '✅ no question newly failing';
  const flaky = v.flaky?.length ? `; ⚠️ ${plural(v.flaky.length, 'flaky question')}` : '';
  return `**Agent evals** (production ${acc(v.production)}, this pull request ${acc(v.preview)}): ${verdict}${flaky}`;
}

/** Which run production's side is: the reused one with its date, or why none was reused. */
function runLines(v: Extract<EvalsView, { state: 'ran' }>): string[] {
  const out: string[] = [];
  const r = v.production.reused;
  if (r)
    out.push(
      `- production (${code(v.production.branch)}): its last complete run ${code(r.runId)}, created ${code(r.createdAt)}${r.completedAt ? `, completed ${code(r.completedAt)}` : ''}, reused`,
    );
  if (v.reuseLine) out.push(`- ${text(v.reuseLine)}`);
  const runs = Math.max(v.production.runs ?? 1, v.preview.runs ?? 1);
  if (runs > 1) out.push(`- ${runs} runs per side${r ? ' (production: the one reused)' : ''}: a question passes only when it passed in every run of its side`);
  return out;
}

function flakyLine(f: EvalFlaky): string {
  const side = (xs: string[]) => (xs.length ? xs.map((x) => code(x)).join(', ') : 'not asked');
  return `- ⚠️ ${code(f.label)} (production: ${side(f.production)}; here: ${side(f.preview)})`;
}

function changeLine(c: EvalChange, failing: boolean): string {
  const why = c.reason ? `: ${text(c.reason)}` : '';
  return `- ${failing ? '❌' : '✅'} ${code(c.label)} (${code(c.production)} on production, ${code(c.preview)} here)${why}`;
}

export function renderEvals(v: EvalsView, target: 'comment' | 'summary'): string[] {
  const out = [evalsHeadline(v), ''];
  if (v.state === 'absent') return out;
  for (const [name, s] of [
    ['production', v.production],
    ['this pull request', v.preview],
  ] as const) {
    if (s.reason) out.push(`- ${name} (${code(s.branch)}) not compared: ${text(s.reason)}`);
  }
  const runs = runLines(v);
  if (runs.length) out.push(...runs);
  if (!v.compared || runs.length) out.push('');
  const rows = target === 'comment' ? 10 : Infinity;
  if (v.newlyFailing.length) out.push('Newly failing:', '', ...v.newlyFailing.slice(0, rows).map((c) => changeLine(c, true)), '');
  if (v.newlyPassing.length) out.push('Newly passing:', '', ...v.newlyPassing.slice(0, rows).map((c) => changeLine(c, false)), '');
  const flaky = v.flaky ?? [];
  if (flaky.length)
    out.push(
      'Flaky (the verdict differs between the runs of one side; never counted as newly failing or passing, counted as failed in accuracy):',
      '',
      ...flaky.slice(0, rows).map(flakyLine),
      '',
    );
  const still = v.stillFailing ?? [];
  const added = v.added ?? [];
  const brief = (c: EvalChange) => `${code(c.label)} (${code(c.preview)}${c.reason ? `: ${text(c.reason)}` : ''})`;
  if (still.length) out.push(`Failing on production too (not this change's doing): ${still.slice(0, rows).map(brief).join('; ')}`, '');
  if (added.length) out.push(`Only asked here (production does not ask them): ${added.slice(0, rows).map(brief).join('; ')}`, '');
  const more = [v.newlyFailing, v.newlyPassing, flaky, still, added].reduce((n, xs) => n + Math.max(0, xs.length - rows), 0);
  if (more > 0) out.push(`…and ${plural(more, 'more question')}: the job summary lists them.`, '');
  if (!v.gated && (v.newlyFailing.length || !v.compared)) out.push('Advisory: `fail-on-eval-regression` is off.', '');
  return out;
}
