/**
 * The harms issue 36 found, each shown impossible through the real commands against the emulator and the
 * GitHub stand-in: a branch someone else made is never taken for created (a create answered 5xx), the
 * sweep deletes only what a ledger of this repository says a run created (two repositories previewing
 * into one deployment), an `exclude`d folder the platform writes is never pruned (from the preview or,
 * through the merge, from production), `merge-to-default` keeps a branch no run made and merges without
 * a checkout only what a run validated, and a reviewer's dev-mode fork survives the close.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformClient } from '../src/client/index.js';
import { composeComment, parseComment } from '../src/pr/comment/ledger.js';
import { shownComment } from './support/shown-comment.js';
import { control } from './support/emulator.js';
import { cube, sha1, startLifecycle, type Lifecycle, type Run } from './support/lifecycle.js';

const head = (pr: number, v: string) => `${pr}${v}`.padEnd(40, '0');
const text = (r: Run) => r.lines.join('\n');
const GENERATED = 'model/generated/platform_written.yml';
const GENERATED_CUBE = cube('platform_written', 1);

describe('one door: no irreversible step on a guess', () => {
  let lc: Lifecycle;
  let admin: PlatformClient;
  beforeAll(async () => {
    lc = await startLifecycle();
    admin = new PlatformClient({ baseUrl: lc.em.baseUrl, apiKey: lc.em.credentials.admin, ca: lc.em.ca });
  });
  afterAll(async () => {
    await admin.close();
    await lc.close();
  });
  const d = () => lc.em.state.deployments[0]!;

  it('a create answered 5xx on a name someone else made is not "created": the close leaves that branch (branch: staging)', async () => {
    await admin.branches.create({ deploymentId: 1, body: { name: 'staging', from: 'main' } });
    // A tenant that answers a create of an existing name with a server error (the old checked write took the
    // branch listed afterwards for its own create).
    lc.em.faults.plan({ kind: '5xx', method: 'POST', path: /\/deployments\/1\/branches$/ });
    lc.gh.addPull({ number: 61, headSha: head(61, 'a'), headRef: 'feature-61' });
    lc.checkout({ 'model/cubes/sixty_one.yml': cube('sixty_one', 1) });
    const env = { DATAMODEL_CI_BRANCH: 'staging' };
    const opened = await lc.run(61, 'opened', { headSha: head(61, 'a'), env });
    expect(opened.code, text(opened)).toBe(0);
    expect(parseComment(lc.gh.comments(61).at(-1)!.body).ledger?.created).toBeUndefined();
    lc.gh.closePull(61, false);
    const closed = await lc.run(61, 'closed', { headSha: head(61, 'a'), env });
    expect(closed.code, text(closed)).toBe(0);
    expect(text(closed)).toContain('staging left as it is: no run of this pull request created it');
    expect(d().branches.staging).toBeDefined();
    // The branch list was read first: the create was never sent, so its fault is still waiting (used up here).
    const probe = await admin.branches.create({ deploymentId: 1, body: { name: 'probe-61', from: 'main' } }).catch((e: Error) => e);
    expect(probe).toBeInstanceOf(Error);
  }, 60_000);

  it("the sweep of another repository previewing into the same deployment leaves this repository's live preview", async () => {
    lc.gh.addPull({ number: 62, headSha: head(62, 'a'), headRef: 'feature-62' });
    lc.checkout({ 'model/cubes/sixty_two.yml': cube('sixty_two', 1) });
    const opened = await lc.run(62, 'opened', { headSha: head(62, 'a') });
    expect(opened.code, text(opened)).toBe(0);
    expect(d().branches['preview-pr-62']?.staging).toBe(true);
    // The other repository has its own #62, closed, whose comment names the same branch name (it previewed
    // into this deployment once): a name, but no ledger saying a run of it created this branch.
    const other = 'another-org/another-repo';
    lc.gh.addPull({ number: 62, headSha: head(62, 'b'), headRef: 'theirs', repository: other });
    lc.gh.closePull(62, true, other);
    lc.gh.addComment(62, composeComment({ deploymentId: '1', ledger: { deploymentId: '1', branch: 'preview-pr-62' } }), 'github-actions[bot]', other);
    // And no #63 at all, though a branch of that name exists (a third repository's preview).
    await admin.branches.create({ deploymentId: 1, body: { name: 'preview-pr-63', from: 'main' } });
    const swept = await lc.run(62, 'closed', {
      command: 'cleanup-branch',
      env: { DATAMODEL_CI_MODE: 'sweep', DATAMODEL_CI_MIN_AGE: '0s', GITHUB_REPOSITORY: other },
    });
    expect(swept.code, text(swept)).toBe(0);
    expect(d().branches['preview-pr-62']?.staging).toBe(true);
    expect(d().branches['preview-pr-63']).toBeDefined();
    expect(text(swept)).toMatch(/0 of \d+ preview branch\(es\) deleted/);
  }, 60_000);

  it('files an `exclude` leaves out (a folder the platform writes) stay on the preview branch and, through the merge, on production', async () => {
    // The platform wrote a cube under model/generated/ on the deploy branch (the repository does not hold it).
    const fork = (await admin.branches.startDevMode({ deploymentId: 1, body: { branchName: 'main' } })).branchName!;
    await admin.dataModel.updateFiles({ deploymentId: 1, body: { branchName: fork, files: [{ path: GENERATED, content: GENERATED_CUBE }] } });
    await admin.branches.commit({ deploymentId: 1, body: { branchName: fork, message: 'the platform writes' } });
    await admin.branches.merge({ deploymentId: 1, body: { branchName: fork } });
    expect(lc.main()[GENERATED]).toBe(sha1(GENERATED_CUBE));
    lc.gh.addPull({ number: 64, headSha: head(64, 'a'), headRef: 'feature-64' });
    lc.checkout({ 'model/cubes/sixty_four.yml': cube('sixty_four', 1) });
    const env = { DATAMODEL_CI_EXCLUDE: 'model/generated/**' };
    const opened = await lc.run(64, 'opened', { headSha: head(64, 'a'), env });
    expect(opened.code, text(opened)).toBe(0);
    expect(d().branches['preview-pr-64']!.head[GENERATED]).toBeDefined();
    lc.gh.closePull(64, true);
    const merged = await lc.run(64, 'closed', { headSha: head(64, 'a'), merged: true, mergeCommitSha: head(64, 'm'), env });
    expect(merged.code, text(merged)).toBe(0);
    expect(lc.main()[GENERATED]).toBe(sha1(GENERATED_CUBE));
    expect(lc.main()['model/cubes/sixty_four.yml']).toBe(sha1(cube('sixty_four', 1)));
  }, 60_000);

  it('merge-to-default keeps a branch no run created (keep-branch: false), and without a checkout merges only what a run validated', async () => {
    await admin.branches.create({ deploymentId: 1, body: { name: 'promote', from: 'main' } });
    lc.gh.addPull({ number: 65, headSha: head(65, 'a'), headRef: 'feature-65' });
    lc.checkout({});
    const promote = { DATAMODEL_CI_BRANCH: 'promote' };
    const kept = await lc.run(65, 'closed', { command: 'merge-to-default', headSha: head(65, 'a'), env: promote });
    expect(kept.code, text(kept)).toBe(0);
    expect(text(kept)).toContain('promote is kept after the merge: no run of this pull request created it');
    expect(d().branches.promote).toBeDefined();
    // No checkout (model-dir missing) and no validation on record: nothing is merged.
    const before = d().branches.main!.commits;
    const blind = await lc.run(65, 'closed', {
      command: 'merge-to-default',
      headSha: head(65, 'a'),
      env: { ...promote, DATAMODEL_CI_MODEL_DIR: `${lc.work}/no-checkout-here` },
    });
    expect(blind.code, text(blind)).toBe(1);
    expect(text(blind)).toMatch(/not merging promote into main: there is no checkout .*no run of this pull request validated it/);
    expect(d().branches.main!.commits).toBe(before);
  }, 60_000);

  it("a reviewer's dev-mode session on the pull request's branch survives the close; the run's own fork does not", async () => {
    lc.gh.addPull({ number: 66, headSha: head(66, 'a'), headRef: 'feature-66' });
    lc.checkout({ 'model/cubes/sixty_six.yml': cube('sixty_six', 1) });
    const opened = await lc.run(66, 'opened', { headSha: head(66, 'a'), env: { DATAMODEL_CI_UPLOAD_VIA: 'dev-mode' } });
    expect(opened.code, text(opened)).toBe(0);
    // A reviewer opens the preview in dev mode (another credential: a person's session on a fork of it), on a
    // tenant whose branch list shows every credential's forks.
    await control(lc.em, 'profiles', { profiles: ['dev-branches-listed-for-all'] });
    const reviewer = new PlatformClient({ baseUrl: lc.em.baseUrl, apiKey: lc.em.credentials.member, ca: lc.em.ca });
    try {
      const theirs = (await reviewer.branches.startDevMode({ deploymentId: 1, body: { branchName: 'preview-pr-66' } })).branchName!;
      lc.gh.closePull(66, false);
      const closed = await lc.run(66, 'closed', { headSha: head(66, 'a') });
      expect(closed.code, text(closed)).toBe(0);
      expect(d().branches[theirs], theirs).toBeDefined();
      expect(text(closed), text(closed)).toContain(`left alone (dev-mode sessions no run of this pull request opened): ${theirs}`);
    } finally {
      await reviewer.close();
      await control(lc.em, 'profiles', { profiles: [] });
    }
  }, 60_000);
});

describe("a repository-fed branch that GitHub's push synced before the run", () => {
  it('its broken push is never declared valid on the old build: the mark is the build a run of this PR accepted, not one read after the push', async () => {
    const lc = await startLifecycle({
      emulator: { profiles: ['github-connected', 'push-syncs-added-branches', 'lasthash-at-commit'], clock: { mode: 'manual' }, buildMs: 60_000, warmupMs: 0 },
    });
    const d = () => lc.em.state.deployments[0]!;
    const headRef = 'feature/fed-71';
    const files = (model: string) => ({
      ...Object.fromEntries(Object.entries(d().branches.main!.head).map(([p, b64]) => [p, Buffer.from(b64, 'base64').toString('utf8')])),
      'model/cubes/fed.yml': model,
    });
    /** Advance the emulated clock (the build's time) only once the run has read the build status `reads` times. */
    const ticking = (reads: number) => {
      const from = lc.em.counts.buildStatus ?? 0;
      const t = setInterval(() => {
        if ((lc.em.counts.buildStatus ?? 0) - from >= reads) lc.em.clock.advance(5_000);
      }, 5);
      return () => clearInterval(t);
    };
    try {
      lc.gh.addPull({ number: 71, headSha: head(71, 'a'), headRef });
      lc.checkout({ 'model/cubes/fed.yml': cube('fed', 1) });
      await control(lc.em, 'repository/push', { deploymentId: 1, branch: headRef, files: files(cube('fed', 1)), sha: head(71, 'a') });
      let stop = ticking(0);
      const opened = await lc.run(71, 'opened', { headSha: head(71, 'a'), headRef }).finally(stop);
      expect(opened.code, text(opened)).toBe(0);
      // A broken push: GitHub's webhook syncs the added branch and its build starts before the run pulls it;
      // the status answers `built` with the pushed commit while the old model still serves (lasthash-at-commit).
      const broken = cube('fed', 2).replace('type: count', 'type: cnt');
      lc.gh.setHead(71, head(71, 'b'));
      lc.checkout({ 'model/cubes/fed.yml': broken });
      await control(lc.em, 'repository/push', { deploymentId: 1, branch: headRef, files: files(broken), sha: head(71, 'b') });
      stop = ticking(3);
      const pushed = await lc.run(71, 'synchronize', { headSha: head(71, 'b'), headRef }).finally(stop);
      expect(pushed.code, text(pushed)).toBe(1);
      expect(shownComment(lc.gh.comments(71).at(-1)!.body).state).toBe('invalid');
    } finally {
      await lc.close();
    }
  }, 120_000);
});
