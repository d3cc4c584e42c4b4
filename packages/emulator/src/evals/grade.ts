/**
 * The grading rule of the vendor's evals page (docs-mintlify/admin/ai/evals.mdx), on two result sets:
 * sort-invariant, numbers compared to 4 significant figures, column-name-agnostic (each ground-truth
 * column matched by some agent column by its values), extra agent columns ignored, no row-count gate of
 * its own (a count differs, the sets differ). Pure: tables in, verdict and score reason out.
 */

/** A result set: its rows, each a list of column values (names play no part). */
export type Table = readonly (readonly unknown[])[];

export type Grade =
  | { verdict: 'pass'; score: 1 }
  | { verdict: 'fail'; score: 0; reason: 'Row count mismatch' | 'Unexpected rows' | 'Missing columns' | 'Value mismatch'; analysis: string };

/** One value as compared: a number (or numeric text) to 4 significant figures, null as null, anything else as text. */
export function canonical(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(v) ? Number(v) : Number.NaN;
  if (Number.isFinite(n)) return `n:${Number(n.toPrecision(4))}`;
  return `s:${typeof v === 'string' ? v : JSON.stringify(v)}`;
}

const sortedKey = (values: string[]) => [...values].sort().join('\u0000');

/** The rows of `table` projected on `cols`, as one sorted multiset key. */
function rowsKey(table: string[][], cols: number[]): string {
  return sortedKey(table.map((r) => cols.map((c) => r[c]).join('\u0001')));
}

/** Assign each ground-truth column a distinct agent column so the projected row multisets are equal. */
function assign(truth: string[][], agent: string[][], candidates: number[][], width: number): boolean {
  const target = rowsKey(truth, [...Array(width).keys()]);
  const chosen: number[] = [];
  const walk = (i: number): boolean => {
    if (i === width) return rowsKey(agent, chosen) === target;
    for (const c of candidates[i] ?? []) {
      if (chosen.includes(c)) continue;
      chosen.push(c);
      if (walk(i + 1)) return true;
      chosen.pop();
    }
    return false;
  };
  return walk(0);
}

export function gradeResults(truthRows: Table, agentRows: Table): Grade {
  const truth = truthRows.map((r) => r.map(canonical));
  const agent = agentRows.map((r) => r.map(canonical));
  if (agent.length < truth.length) {
    return {
      verdict: 'fail',
      score: 0,
      reason: 'Row count mismatch',
      analysis: `The agent returned ${agent.length} rows, but the ground truth has ${truth.length} rows.`,
    };
  }
  if (agent.length > truth.length) {
    return {
      verdict: 'fail',
      score: 0,
      reason: 'Unexpected rows',
      analysis: `The agent returned ${agent.length} rows, but the ground truth has ${truth.length} rows.`,
    };
  }
  const width = truth[0]?.length ?? 0;
  const agentWidth = agent[0]?.length ?? 0;
  const column = (t: string[][], c: number) => sortedKey(t.map((r) => r[c] as string));
  // An agent column can stand for a ground-truth column only when it holds the same values (any order).
  const candidates = [...Array(width).keys()].map((i) => [...Array(agentWidth).keys()].filter((c) => column(agent, c) === column(truth, i)));
  const unmatched = candidates.findIndex((c) => c.length === 0);
  if (unmatched >= 0) {
    const reason = agentWidth < width ? 'Missing columns' : 'Value mismatch';
    const analysis =
      reason === 'Missing columns'
        ? `The agent returned ${agentWidth} columns, but the ground truth has ${width}.`
        : `No column of the agent's result holds the values of ground-truth column ${unmatched + 1}.`;
    return { verdict: 'fail', score: 0, reason, analysis };
  }
  if (truth.length === 0 || assign(truth, agent, candidates, width)) return { verdict: 'pass', score: 1 };
  return {
    verdict: 'fail',
    score: 0,
    reason: 'Value mismatch',
    analysis: "Every ground-truth column has a match, but the agent's rows pair the values differently.",
  };
}
