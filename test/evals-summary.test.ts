/**
 * The job summary's Agent evals section is whole: the comment's view keeps the first questions of each
 * list (and the comment shows fewer), the summary lists every question that newly fails or passes.
 */
import { describe, expect, it } from 'vitest';
import { renderPreview } from '../src/pr/comment/render-preview.js';
import { evalsView, VIEW_EVAL_CHANGES } from '../src/pr/comment/render-evals.js';
import { nextView } from '../src/pr/comment/view.js';
import type { EvalDelta } from '../src/operations/evals/delta.js';

const failing = Array.from({ length: VIEW_EVAL_CHANGES + 5 }, (_, i) => ({
  label: `question_${i}`,
  production: 'pass',
  preview: 'fail',
  reason: 'Value mismatch',
}));
const delta: EvalDelta = {
  state: 'ran',
  production: { compared: true, branch: 'main', runId: '1', passed: failing.length, total: failing.length, questions: [] },
  preview: { compared: true, branch: 'preview-pr-1', runId: '2', passed: 0, total: failing.length, questions: [] },
  compared: true,
  newlyFailing: failing,
  newlyPassing: [],
  failOnRegression: false,
};

describe('the Agent evals section of the job summary', () => {
  it('lists every newly failing question; the comment the first ten, its view the first twenty', () => {
    const full = evalsView(delta);
    const v = nextView(undefined, { headSha: 'a'.repeat(40), runId: 1 }, { state: 'ready', evals: full });
    const rows = (md: string) => md.match(/^- ❌ `question_/gm)?.length ?? 0;
    expect(rows(renderPreview(v, { target: 'comment' }))).toBe(10);
    expect(rows(renderPreview(v, { target: 'summary' }))).toBe(VIEW_EVAL_CHANGES);
    const summary = renderPreview(v, { target: 'summary', evals: full });
    expect(rows(summary)).toBe(failing.length);
    expect(summary).toContain(`\`question_${failing.length - 1}\``);
  });
});
