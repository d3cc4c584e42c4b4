/**
 * The eval delta's arithmetic (no I/O): accuracy `passed/total` per side, the questions whose verdict
 * moved between production and the pull request, matched by question name or else question text, and the
 * questions whose verdict differs between the runs of one side (flaky: never counted as moved).
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
  /** Each run's verdict, in run order, when the side has more than one run (`evals-runs`). */
  verdicts?: string[];
  /** It passed in some runs of the side and not in others. */
  flaky?: boolean;
}

/** Production's last complete run, reused instead of a new one (`evals-production: last-complete`). */
export interface ReusedRun {
  runId: string;
  /** When the run was created, as the platform said it. */
  createdAt: string;
  completedAt?: string;
}

/** A side read to the end, or why it was not compared (never a pass). */
export type EvalSide =
  | {
      compared: true;
      branch: string;
      /** The side's first run. */
      runId: string;
      /** Every run of the side, in order (one unless `evals-runs` asks more). */
      runIds?: string[];
      /** The side is production's last complete run, not a new one. */
      reused?: ReusedRun;
      /** Questions that passed in every run of the side. */
      passed: number;
      total: number;
      questions: EvalQuestion[];
    }
  | { compared: false; branch: string; runId?: string; runIds?: string[]; reused?: ReusedRun; reason: string };

/** A question whose verdict moved. */
export interface EvalChange {
  label: string;
  production: string;
  preview: string;
  /** The verdict reason on the side where it fails (the PR's for a new failure, production's for a new pass). */
  reason?: string;
}

/** A question whose verdict differs between the runs of one side: each run's verdict on each side. */
export interface EvalFlaky {
  label: string;
  production: string[];
  preview: string[];
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
      /** Questions flaky on either side (never in newlyFailing or newlyPassing); absent before `evals-runs`. */
      flaky?: EvalFlaky[];
      /** Questions that fail on both sides (not this change's doing), with the PR's reason. */
      stillFailing?: EvalChange[];
      /** Questions only the pull request asks (production: `not asked`), with their verdict here. */
      added?: EvalChange[];
      /** Why production's last complete run was not reused and a run was started (`evals-production: last-complete`). */
      reuseLine?: string;
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

/**
 * The questions of one side's runs as one list: a question passes only when it passed in every run (fail
 * closed), and is flaky when it passed in some and not in others. A string when the runs did not grade the
 * same questions (the side is then not compared).
 */
export function mergeRuns(runs: EvalQuestion[][]): EvalQuestion[] | string {
  const [first, ...rest] = runs;
  if (!first) return 'no run';
  if (rest.length === 0) return first;
  const others = rest.map((r) => new Map(r.map((q) => [q.key, q])));
  if (rest.some((r) => r.length !== first.length)) return 'the runs graded different questions';
  const out: EvalQuestion[] = [];
  for (const q of first) {
    const all = [q];
    for (const m of others) {
      const o = m.get(q.key);
      if (!o) return `the runs graded different questions (${q.label} is not in every run)`;
      all.push(o);
    }
    const passes = all.filter((x) => x.passed).length;
    // The reason shown is the first not-passing run's.
    const failing = all.find((x) => !x.passed);
    const reason = failing?.reason;
    out.push({
      key: q.key,
      label: q.label,
      verdict: (failing ?? q).verdict,
      passed: passes === all.length,
      ...(reason ? { reason } : {}),
      verdicts: all.map((x) => x.verdict),
      flaky: passes > 0 && passes < all.length,
    });
  }
  return out;
}

const verdictsOf = (q: EvalQuestion) => q.verdicts ?? [q.verdict];

/** The questions that newly fail and newly pass, and the flaky ones (in neither); empty unless both sides were read to the end. */
export function deltaOf(
  production: EvalSide,
  preview: EvalSide,
): { newlyFailing: EvalChange[]; newlyPassing: EvalChange[]; flaky: EvalFlaky[]; stillFailing: EvalChange[]; added: EvalChange[] } {
  if (!production.compared || !preview.compared) return { newlyFailing: [], newlyPassing: [], flaky: [], stillFailing: [], added: [] };
  const before = new Map(production.questions.map((q) => [q.key, q]));
  const newlyFailing: EvalChange[] = [];
  const newlyPassing: EvalChange[] = [];
  const flaky: EvalFlaky[] = [];
  const stillFailing: EvalChange[] = [];
  const added: EvalChange[] = [];
  const reason = (q: EvalQuestion) => (q.reason ? { reason: q.reason } : {});
  for (const q of preview.questions) {
    const p = before.get(q.key);
    if (q.flaky || p?.flaky) {
      flaky.push({ label: q.label, production: p ? verdictsOf(p) : [], preview: verdictsOf(q) });
      continue;
    }
    if (!p) added.push({ label: q.label, production: 'not asked', preview: q.verdict, ...reason(q) });
    else if (!p.passed && !q.passed) stillFailing.push({ label: q.label, production: p.verdict, preview: q.verdict, ...reason(q) });
    if (!p || p.passed === q.passed) continue;
    if (p.passed) newlyFailing.push({ label: q.label, production: p.verdict, preview: q.verdict, ...(q.reason ? { reason: q.reason } : {}) });
    else newlyPassing.push({ label: q.label, production: p.verdict, preview: q.verdict, ...(p.reason ? { reason: p.reason } : {}) });
  }
  // A question flaky on production that the pull request no longer asks is listed too.
  const asked = new Set(preview.questions.map((q) => q.key));
  for (const p of production.questions) if (p.flaky && !asked.has(p.key)) flaky.push({ label: p.label, production: verdictsOf(p), preview: [] });
  return { newlyFailing, newlyPassing, flaky, stillFailing, added };
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
