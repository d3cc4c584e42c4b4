/**
 * Two pull requests merged one after the other, their closes run in the other order (issue 37): GitHub
 * merges A then B, B's close runs first and puts A and B on production, then A's close proves production
 * against A's merge commit. Production holds B's file too: that is B's merge, not drift. A's merge adds
 * nothing main lacks, so no build follows it: A's close says "not proven" and why, and does not fail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cube, startLifecycle, type Lifecycle, type Run } from './support/lifecycle.js';

let lc: Lifecycle;
beforeAll(async () => {
  lc = await startLifecycle();
});
afterAll(() => lc.close());

const head = (pr: number) => `${pr}ad`.padEnd(40, '0');
const merge = (pr: number) => `${pr}fe`.padEnd(40, '0');
const text = (r: Run) => r.lines.join('\n');
const doc = (r: Run) => JSON.parse(r.lines.find((l) => l.startsWith('{"command"'))!) as { outputs: Record<string, string>; result?: Record<string, any> };

async function open(pr: number, files: Record<string, string>) {
  lc.gh.addPull({ number: pr, headSha: head(pr), headRef: `feature-${pr}` });
  lc.checkout(files);
  const r = await lc.run(pr, 'opened', { headSha: head(pr) });
  expect(r.code, text(r)).toBe(0);
}

async function closeMerged(pr: number, files: Record<string, string>) {
  lc.gh.closePull(pr, true);
  lc.checkout(files);
  return lc.run(pr, 'closed', { headSha: head(pr), merged: true, mergeCommitSha: merge(pr), argv: ['--json'] });
}

describe("the proof when a later pull request's close ran first", () => {
  it('production holding the later merge is "not proven", with why, and the close succeeds', async () => {
    const a = { 'model/cubes/a81.yml': cube('a81', 1) };
    const b = { 'model/cubes/b82.yml': cube('b82', 1) };
    await open(81, a);
    await open(82, b);
    // GitHub merges A, then B on top of it: the base branch's head is B's merge commit.
    lc.gh.addCommit({ sha: merge(81), branch: 'master', files: Object.keys(a), message: 'Merge pull request #81' });
    lc.gh.addCommit({ sha: merge(82), branch: 'master', files: Object.keys(b), message: 'Merge pull request #82' });
    // B's close runs first: its merge commit holds A and B.
    const closedB = await closeMerged(82, { ...a, ...b });
    expect(closedB.code, text(closedB)).toBe(0);
    // A's close: its merge commit holds A only; production holds B's file as well.
    const closedA = await closeMerged(81, a);
    expect(closedA.code, text(closedA)).toBe(0);
    const proof = doc(closedA).result!.proof;
    // The merge of A's branch adds nothing main lacks, so no build follows it: not proven, and B's file is no drift.
    expect(proof).toMatchObject({ status: 'not-proven', files: [], members: [] });
    expect(proof.reason).toMatch(/the merge changed nothing on main/);
    expect(text(closedA)).not.toMatch(/^error/m);
    expect(doc(closedA).outputs['production-proof']).toBe('not-proven');
  }, 120_000);
});
