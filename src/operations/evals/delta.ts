/**
 * The eval delta's arithmetic (no I/O): accuracy `passed/total` per side, and the questions whose verdict
 * moved between production and the pull request, matched by question name or else question text.
 */

/** One graded question of a run, as the toolkit reads it. */
export interface EvalQuestion {
  /** The key questions are matched by: `name:` + questionName, else `text:` + the question's text. */
  key: string;
  /** What the question is shown as: its name, else its text. */
  label: string;
  verdict: string;
  passed: boolean;
  /** The platform's reason for the verdict (`scoreReason`), when it gave one. */
  reason?: string;
}

/** A side read to the end, or why it was not compared (never a pass). */
export type EvalSide =
  | { compared: true; branch: string; runId: string; passed: number; total: number; questions: EvalQuestion[] }
  | { compared: false; branch: string; runId?: string; reason: string };

/** A question whose verdict moved. */
export interface EvalChange {
  label: string;
  production: string;
  preview: string;
  /** The verdict reason on the side where it fails (the PR's for a new failure, production's for a new pass). */
  reason?: string;
}

export type EvalDelta =
  /** Not asked (`evals: off`), or the tenant has no evaluations: one line, never a failure. */
  | { state: 'absent'; line: string }
  | {
      state: 'ran';
      preview: EvalSide;
      production: EvalSide;
      /** Both sides read to the end. */
      compared: boolean;
      newlyFailing: EvalChange[];
      newlyPassing: EvalChange[];
      /** `fail-on-eval-regression` was set. */
      failOnRegression: boolean;
    };

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v : typeof v === 'number' ? String(v) : undefined;
}

/** One results item as a question; undefined for an item naming no question (it cannot be matched). */
export function questionOf(item: unknown): EvalQuestion | undefined {
  if (!item || typeof item !== 'object') return undefined;
  const r = item as Record<string, unknown>;
  const name = text(r.questionName);
  const question = text(r.questionTextSnapshot) ?? text(r.question);
  if (!name && !question) return undefined;
  const verdict = (text(r.verdict) ?? 'unknown').toLowerCase();
  const reason = text(r.scoreReason);
  return {
    key: name ? `name:${name}` : `text:${question}`,
    label: name ?? (question as string),
    verdict,
    passed: verdict === 'pass',
    ...(reason ? { reason } : {}),
  };
}

/** `p/t` of a side, or the reason it was not compared. */
export function accuracyOf(side: EvalSide): string {
  return side.compared ? `${side.passed}/${side.total}` : 'not compared';
}

/** The questions that newly fail and newly pass; empty unless both sides were read to the end. */
export function deltaOf(production: EvalSide, preview: EvalSide): { newlyFailing: EvalChange[]; newlyPassing: EvalChange[] } {
  if (!production.compared || !preview.compared) return { newlyFailing: [], newlyPassing: [] };
  const before = new Map(production.questions.map((q) => [q.key, q]));
  const newlyFailing: EvalChange[] = [];
  const newlyPassing: EvalChange[] = [];
  for (const q of preview.questions) {
    const p = before.get(q.key);
    if (!p || p.passed === q.passed) continue;
    if (p.passed) newlyFailing.push({ label: q.label, production: p.verdict, preview: q.verdict, ...(q.reason ? { reason: q.reason } : {}) });
    else newlyPassing.push({ label: q.label, production: p.verdict, preview: q.verdict, ...(p.reason ? { reason: p.reason } : {}) });
  }
  return { newlyFailing, newlyPassing };
}

/** Whether the delta fails the check: a newly failing question under `fail-on-eval-regression`, or a side not compared when asked to gate. */
export function evalsFail(delta: EvalDelta): boolean {
  if (delta.state !== 'ran' || !delta.failOnRegression) return false;
  return !delta.compared || delta.newlyFailing.length > 0;
}

/** Whether the check may be green on the evals' account: never when the runs did not complete. */
export function evalsGreen(delta: EvalDelta): boolean {
  return delta.state === 'absent' || (delta.compared && !evalsFail(delta));
}
