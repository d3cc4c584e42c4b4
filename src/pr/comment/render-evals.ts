/**
 * The "Agent evals" section of the PR comment and the job summary: accuracy `passed/total` on production and
 * on the pull request, the questions that newly fail and newly pass with the platform's verdict reasons, or
 * why a side was not compared (never a pass). A tenant without evaluations gets one line.
 */
import { accuracyOf, evalsFail, type EvalChange, type EvalDelta, type EvalSide } from '../../operations/evals/delta.js';
import { plural } from '../../report/plural.js';
import { code, cut, text } from './markdown.js';

export interface EvalSideView {
  branch: string;
  /** `passed/total`, or absent when not compared. */
  accuracy?: string;
  /** Why the side was not compared. */
  reason?: string;
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
      /** `fail-on-eval-regression` was set, and whether the evals fail the step. */
      gated: boolean;
      fails: boolean;
    };

/** Questions of each list the comment keeps. */
export const VIEW_EVAL_CHANGES = 20;

const sideView = (s: EvalSide): EvalSideView => (s.compared ? { branch: s.branch, accuracy: accuracyOf(s) } : { branch: s.branch, reason: s.reason });

export function evalsView(d: EvalDelta): EvalsView {
  if (d.state === 'absent') return d;
  return {
    state: 'ran',
    production: sideView(d.production),
    preview: sideView(d.preview),
    compared: d.compared,
    newlyFailing: d.newlyFailing,
    newlyPassing: d.newlyPassing,
    gated: d.failOnRegression,
    fails: evalsFail(d),
  };
}

/** The view as the comment keeps it: the first questions, outside text cut short. */
export function keptEvalsView(v: EvalsView): EvalsView {
  if (v.state === 'absent') return { ...v, line: cut(v.line, 300) };
  const keep = (xs: EvalChange[]) =>
    xs.slice(0, VIEW_EVAL_CHANGES).map((c) => ({ ...c, label: cut(c.label, 200), ...(c.reason ? { reason: cut(c.reason, 300) } : {}) }));
  const side = (s: EvalSideView) => ({ ...s, branch: cut(s.branch, 200), ...(s.reason ? { reason: cut(s.reason, 500) } : {}) });
  return { ...v, production: side(v.production), preview: side(v.preview), newlyFailing: keep(v.newlyFailing), newlyPassing: keep(v.newlyPassing) };
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
  return `**Agent evals** (production ${acc(v.production)}, this pull request ${acc(v.preview)}): ${verdict}`;
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
  if (!v.compared) out.push('');
  const rows = target === 'comment' ? 10 : Infinity;
  if (v.newlyFailing.length) out.push('Newly failing:', '', ...v.newlyFailing.slice(0, rows).map((c) => changeLine(c, true)), '');
  if (v.newlyPassing.length) out.push('Newly passing:', '', ...v.newlyPassing.slice(0, rows).map((c) => changeLine(c, false)), '');
  const more = Math.max(0, v.newlyFailing.length - rows) + Math.max(0, v.newlyPassing.length - rows);
  if (more > 0) out.push(`…and ${plural(more, 'more question')}: the job summary lists them.`, '');
  if (!v.gated && (v.newlyFailing.length || !v.compared)) out.push('Advisory: `fail-on-eval-regression` is off.', '');
  return out;
}
