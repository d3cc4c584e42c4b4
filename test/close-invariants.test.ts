/**
 * The close of a merged PR never leaves production wrong (issue 15, invariant 1): the shared branch is
 * made to hold the PR's merge commit before it is merged, a merge that cannot be prepared touches
 * nothing and says so, a rerun repairs, and the deploy branch is checked after. Real `pr` runs against
 * the emulator and the GitHub stand-in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseComment } from '../src/pr/comment/ledger.js';
import { cube, sha1, startLifecycle, type Lifecycle } from './support/lifecycle.js';

let lc: Lifecycle;
beforeAll(async () => {
  lc = await startLifecycle();
});
afterAll(() => lc.close());

const head = (pr: number, v: string) => `${pr}${v}`.padEnd(40, '0');
const ledgerOf = (pr: number) => parseComment(lc.gh.comments(pr).at(-1)!.body).ledger;
/** The comment's heading: the state a reader sees (the ledger keeps the facts, not the view). */
const headingOf = (pr: number) =>
  lc.gh
    .comments(pr)
    .at(-1)!
    .body.split('\n')
    .find((l) => l.startsWith('### '));
const bodyOf = (pr: number) => lc.gh.comments(pr).at(-1)!.body;
const branches = () => lc.em.state.deployments[0]!.branches;

describe('merging on close', () => {
  it('merges what was merged on GitHub even when the shared branch holds an older run’s upload', async () => {
    lc.gh.addPull({ number: 1, headSha: head(1, 'a'), headRef: 'one' });
    lc.checkout({ 'model/cubes/one.yml': cube('one', 1) });
    expect((await lc.run(1, 'opened', { headSha: head(1, 'a') })).code).toBe(0);
    // A push whose preview run never finished: the shared branch still holds version 1.
    lc.checkout({ 'model/cubes/one.yml': cube('one', 2) });
    lc.gh.setHead(1, head(1, 'b'));
    lc.gh.closePull(1, true);
    const r = await lc.run(1, 'closed', { headSha: head(1, 'b'), merged: true });
    expect(r.code, r.lines.join('\n')).toBe(0);
    expect(lc.main()['model/cubes/one.yml']).toBe(sha1(cube('one', 2)));
    expect(r.lines.join('\n')).toMatch(/preview-pr-1 does not hold this PR's merge commit \(differs in: model\/cubes\/one\.yml\)/);
    // The merge commit's model was never validated (the preview of its push never ran): production is not proven, and the close says why.
    expect(r.lines.join('\n')).toMatch(
      /production is not proven to be the validated model \(commit 1a00000\): the merge commit's model is not the one validated/,
    );
    expect(r.lines).toContain('production-proof=not-proven');
    expect(branches()['preview-pr-1']).toBeUndefined();
  }, 60_000);

  it('a rerun of that close is a clean no-op (the branch is gone, production holds the merge)', async () => {
    const before = lc.main();
    const r = await lc.run(1, 'closed', { headSha: head(1, 'b'), merged: true });
    expect(r.code, r.lines.join('\n')).toBe(0);
    expect(r.lines.join('\n')).toMatch(/preview-pr-1 is gone and main already holds this PR's merge commit/);
    expect(lc.main()).toEqual(before);
    expect(headingOf(1)).toBe('### 🔀 Data-model preview · merged into `main`');
  }, 60_000);

  it('closing a merged PR that never had a preview merges nothing and says so', async () => {
    const before = lc.main();
    lc.gh.addPull({ number: 2, headSha: head(2, 'a'), headRef: 'two' });
    lc.gh.closePull(2, true);
    lc.checkout({ 'model/cubes/two.yml': cube('two', 1) });
    const r = await lc.run(2, 'closed', { headSha: head(2, 'a'), merged: true });
    expect(r.code, r.lines.join('\n')).toBe(0);
    expect(r.lines.join('\n')).toMatch(/preview-pr-2 does not exist .*production was not touched/);
    expect(lc.main()).toEqual(before);
  }, 60_000);

  it('refuses to merge when the branch cannot be made to hold the merge commit: production untouched, the ledger lists what is left, a rerun merges', async () => {
    lc.gh.addPull({ number: 3, headSha: head(3, 'a'), headRef: 'three' });
    lc.checkout({ 'model/cubes/three.yml': cube('three', 1) });
    expect((await lc.run(3, 'opened', { headSha: head(3, 'a') })).code).toBe(0);
    lc.checkout({ 'model/cubes/three.yml': cube('three', 2) });
    lc.gh.setHead(3, head(3, 'b'));
    lc.gh.closePull(3, true);
    const before = lc.main();
    // The tenant starts refusing uploads to shared branches, and upload-via is direct: the branch cannot be brought up to date.
    lc.em.controls.behaviour = { ...lc.em.controls.behaviour, directUploads: false };
    const failed = await lc.run(3, 'closed', { headSha: head(3, 'b'), merged: true, env: { DATAMODEL_CI_UPLOAD_VIA: 'direct' } });
    lc.em.controls.behaviour = { ...lc.em.controls.behaviour, directUploads: true };
    expect(failed.code).toBe(1);
    const text = failed.lines.join('\n');
    expect(text).toMatch(/not merging preview-pr-3 into main: .*Production was not touched; rerun this job to merge/);
    expect(lc.main()).toEqual(before);
    expect(branches()['preview-pr-3']).toBeDefined();
    expect(headingOf(3)).toBe('### ❌ Data-model preview · failed');
    expect(lc.gh.comments(3).at(-1)!.body).toMatch(/Still on the platform: `preview-pr-3`\. Rerunning this job removes them/);

    const rerun = await lc.run(3, 'closed', { headSha: head(3, 'b'), merged: true });
    expect(rerun.code, rerun.lines.join('\n')).toBe(0);
    expect(lc.main()['model/cubes/three.yml']).toBe(sha1(cube('three', 2)));
    expect(branches()['preview-pr-3']).toBeUndefined();
    expect(headingOf(3)).toBe('### 🔀 Data-model preview · merged into `main`');
    expect(bodyOf(3)).not.toContain('Still on the platform');
  }, 90_000);

  it('the merged close brings the branch up to date the way the preview uploads: through dev mode on a tenant that refuses direct uploads', async () => {
    lc.gh.addPull({ number: 6, headSha: head(6, 'a'), headRef: 'six' });
    lc.checkout({ 'model/cubes/six.yml': cube('six', 1) });
    expect((await lc.run(6, 'opened', { headSha: head(6, 'a') })).code).toBe(0);
    lc.checkout({ 'model/cubes/six.yml': cube('six', 2) });
    lc.gh.setHead(6, head(6, 'b'));
    lc.gh.closePull(6, true);
    lc.em.controls.behaviour = { ...lc.em.controls.behaviour, directUploads: false };
    try {
      const r = await lc.run(6, 'closed', { headSha: head(6, 'b'), merged: true });
      expect(r.code, r.lines.join('\n')).toBe(0);
      expect(r.lines.join('\n')).toMatch(/uploading through dev mode instead/);
    } finally {
      lc.em.controls.behaviour = { ...lc.em.controls.behaviour, directUploads: true };
    }
    expect(lc.main()['model/cubes/six.yml']).toBe(sha1(cube('six', 2)));
    expect(Object.values(branches()).filter((b) => b.kind === 'dev' || b.name === 'preview-pr-6')).toEqual([]);
  }, 90_000);

  it('a failed preview is repaired by rerunning the same event: branch, comment and outputs as a clean run leaves them', async () => {
    // Both runs compare with production: the merge of the test before must have finished building first.
    const main = branches().main!;
    while (main.runtime.builds.some((b) => b.endsAt > lc.em.clock.now())) await new Promise((r) => setTimeout(r, 50));
    lc.gh.addPull({ number: 4, headSha: head(4, 'a'), headRef: 'four' });
    lc.checkout({ 'model/cubes/four.yml': cube('four', 1) });
    const env = { DATAMODEL_CI_UPLOAD_VIA: 'direct' };
    lc.em.controls.behaviour = { ...lc.em.controls.behaviour, directUploads: false };
    const failed = await lc.run(4, 'opened', { headSha: head(4, 'a'), env });
    lc.em.controls.behaviour = { ...lc.em.controls.behaviour, directUploads: true };
    expect(failed.code).toBe(1);
    expect(headingOf(4)).toBe('### ❌ Data-model preview · failed');

    const rerun = await lc.run(4, 'opened', { headSha: head(4, 'a'), env });
    expect(rerun.code, rerun.lines.join('\n')).toBe(0);
    // What a clean run of another PR leaves, for comparison.
    lc.gh.addPull({ number: 5, headSha: head(5, 'a'), headRef: 'five' });
    const clean = await lc.run(5, 'opened', { headSha: head(5, 'a'), env });
    const outputs = (r: { lines: string[] }) =>
      Object.fromEntries(r.lines.filter((l) => /^[a-z-]+=/.test(l)).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    // What names the PR's own branch differs by design: the branch, its staging address and environment, the change-set file.
    const norm = (o: Record<string, string>) => ({
      ...o,
      branch: undefined,
      'staging-url': o['staging-url'] ? 'set' : '',
      'environment-id': undefined,
      'change-set-file': o['change-set-file'] ? 'set' : '',
    });
    expect(norm(outputs(rerun))).toEqual(norm(outputs(clean)));
    expect(outputs(rerun)).toMatchObject({ status: 'valid', valid: 'true', branch: 'preview-pr-4' });
    expect(outputs(rerun)['change-set-file']).toMatch(/preview-pr-4\.json$/);
    expect(Object.keys(branches()['preview-pr-4']!.head)).toContain('model/cubes/four.yml');
    expect(lc.gh.comments(4)).toHaveLength(1);
    expect(headingOf(4)).toBe('### ✅ Data-model preview · ready');
    expect(ledgerOf(4)?.headSha).toBe(head(4, 'a'));
    expect(bodyOf(4)).not.toContain('failed:**');
  }, 90_000);
});
