/**
 * The proof after a merge in the comment, and the record in the ledger, as pure logic (issue 37): each
 * verdict rendered as GitHub renders it, file and member names from outside inert, the lists capped with
 * the totals said; a proof or record read back from a ledger keeps only well-typed fields; the lean record
 * carries no per-file hashes and becomes whole again only from files with its digest.
 */
import { describe, expect, it } from 'vitest';
import { composeComment, parseComment } from '../src/pr/comment/ledger.js';
import { renderPreview } from '../src/pr/comment/render-preview.js';
import { PROOF_ROWS, proofView } from '../src/pr/comment/render-proof.js';
import { nextView, viewOf, type PreviewView } from '../src/pr/comment/view.js';
import { leanRecord, makeRecord, readLeanRecord, wholeRecord } from '../src/operations/validation-record.js';
import { selectAll } from 'hast-util-select';
import type { FileChange } from '../src/operations/production-state.js';
import { renderGfm } from './support/gfm.js';

const SHA = '4f1c2d3e5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d';
const merged: PreviewView = {
  state: 'merged',
  headSha: SHA,
  runId: 7,
  branch: 'preview-pr-11',
  deployBranch: 'main',
  merge: { deployMode: 'git', productionUpdated: true },
};
const render = (proof: Parameters<typeof proofView>[0]) => {
  const view = nextView(undefined, { headSha: SHA, runId: 7 }, { ...merged, merge: { ...merged.merge!, proof: proofView(proof)! } });
  const md = renderPreview(view, { target: 'comment' });
  return { md, html: renderGfm(md), view };
};

describe('the proof in the merged state', () => {
  it('proven: one line with the commit', () => {
    const { html } = render({ status: 'proven', commit: SHA, files: [], members: [], reason: 'a build newer than the merge' });
    expect(html.text).toContain('✅ Production = the validated model (commit 4f1c2d3)');
    expect(html.headings[0]!.text).toBe('🔀 Data-model preview · merged into main');
  });

  it('not proven: the reason, escaped', () => {
    const { html } = render({ status: 'not-proven', files: [], members: [], reason: 'no build of main within 2 s <img src=x onerror=alert(1)>' });
    expect(html.text).toContain('⚠️ Production is not proven to be the validated model: no build of main within 2 s <img src=x onerror=alert(1)>');
    expect(selectAll('img', html.tree)).toEqual([]);
  });

  it('differs: the files and members production has relative to the validated model, names inert, the lists capped with the totals', () => {
    const files: FileChange[] = Array.from({ length: PROOF_ROWS + 3 }, (_, i) => ({ path: `model/cubes/c${i}.yml`, change: 'changed' }));
    files[0] = { path: 'model/cubes/`evil`<b>x</b>.yml', change: 'added' };
    const { html, view } = render({
      status: 'differs',
      commit: SHA,
      files,
      members: [{ member: 'orders.count', change: 'removed' }],
      reason: 'its build failed',
    });
    expect(html.text).toContain('❌ Production differs from the validated model (commit 4f1c2d3): its build failed.');
    expect(html.text).toContain('13 files:');
    expect(html.text).toContain('and 3 more');
    expect(html.text).toContain('orders.count removed');
    expect(html.codes).toContain('model/cubes/`evil`<b>x</b>.yml');
    expect(selectAll('b', html.tree)).toEqual([]);
    // The ledger keeps the capped lists and the totals.
    expect(view.merge!.proof!.files).toHaveLength(PROOF_ROWS);
    expect(view.merge!.proof!.totals).toEqual({ files: PROOF_ROWS + 3, members: 1 });
  });

  it('a proof read back from a ledger keeps its well-typed rows only; an unknown status is no proof', () => {
    const kept = proofView({
      status: 'differs',
      files: [{ path: 'a.yml', change: 'added' }, null, { path: 3, change: 'added' }, { path: 'b', change: 'gone' }],
      members: 'x',
    });
    expect(kept).toBeUndefined();
    expect(proofView({ status: 'differs', files: [{ path: 'a.yml', change: 'added' }, null, { path: 'b', change: 'gone' }], members: [] })?.files).toEqual([
      { path: 'a.yml', change: 'added' },
    ]);
    expect(viewOf({ ...merged, merge: { ...merged.merge, proof: { status: 'maybe', files: [], members: [] } } })?.merge?.proof).toBeUndefined();
  });
});

describe('the validation record in the ledger', () => {
  const record = makeRecord({
    deploymentId: 1,
    branch: 'preview-pr-11',
    commit: SHA,
    files: { 'model/cubes/orders.yml': { hash: '1'.repeat(40) }, 'cube.js': { hash: '2'.repeat(40) } },
    status: { buildJobId: 9, updatedAt: '2026-12-06T10:00:00.000Z' },
    layer: { digest: 'd'.repeat(40), members: 12 },
  });

  it('is kept without the per-file hashes, read back whole in its other fields, and made whole again only from files with its digest', () => {
    const lean = leanRecord(record);
    expect(lean).not.toHaveProperty('files');
    expect(lean.fileCount).toBe(2);
    const body = composeComment({ deploymentId: '1', ledger: { deploymentId: '1', record: lean } });
    const back = parseComment(body).ledger!.record!;
    expect(back).toEqual(lean);
    expect(wholeRecord(back, { 'model/cubes/orders.yml': { hash: '1'.repeat(40) }, 'cube.js': { hash: '2'.repeat(40) } })).toEqual(record);
    expect(wholeRecord(back, { 'model/cubes/orders.yml': { hash: '3'.repeat(40) }, 'cube.js': { hash: '2'.repeat(40) } })).toBeUndefined();
  });

  it('a malformed record in a ledger is dropped', () => {
    expect(readLeanRecord({ ...leanRecord(record), fileCount: 'two' })).toBeUndefined();
    expect(readLeanRecord({ ...leanRecord(record), commit: '' })).toBeUndefined();
    expect(readLeanRecord([])).toBeUndefined();
  });
});
