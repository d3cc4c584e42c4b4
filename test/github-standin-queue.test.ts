/**
 * The GitHub stand-in's merge queue and history, driven through Octokit: merge groups stacked on the base
 * branch and on each other, their temporary refs, check runs on a commit no pull request has, the files a
 * pull request or a range of commits changed, and branch protection's reading of required checks. Every
 * answer is held to GitHub's documented response schema.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGitHubStandin, type GitHubStandin } from '../packages/emulator/src/github/standin.js';
import { workflowTriggers } from './harness/runner.js';
import { refusal, standinOctokit, type Octokit } from './support/github-standin.js';
import { mergeGroupEvent, pullRequestEvent } from './support/payloads.js';

const owner = 'Codertocat';
const repo = 'Hello-World';
const CHECK = 'datamodel-ci / validation';
const sha = (n: number) => String(n).repeat(40).slice(0, 40);

let standin: GitHubStandin;
let octokit: Octokit;
const mismatches: string[] = [];

beforeAll(async () => {
  standin = await startGitHubStandin({ repository: `${owner}/${repo}` });
  standin.addPull({ number: 11, headSha: sha(1), headRef: 'rename-count', files: ['analytics/model/cubes/orders.yml'] });
  standin.addPull({
    number: 12,
    headSha: sha(2),
    headRef: 'orders-view',
    files: [{ filename: 'analytics/model/views/orders_view.yml', status: 'added' }, 'README.md'],
  });
  octokit = standinOctokit(standin, mismatches);
});
afterEach(() => {
  expect(mismatches).toEqual([]);
  expect(standin.violations).toEqual([]);
});
afterAll(() => standin.close());

describe('the files a change touches', () => {
  it("lists a pull request's files as GitHub's diff entries, paged", async () => {
    const files = await octokit.paginate(octokit.rest.pulls.listFiles, { owner, repo, pull_number: 12, per_page: 1 });
    expect(files.map((f) => [f.filename, f.status])).toEqual([
      ['analytics/model/views/orders_view.yml', 'added'],
      ['README.md', 'modified'],
    ]);
    standin.setFiles(12, ['analytics/model/views/orders_view.yml', 'finance/cube.js']);
    const { data } = await octokit.rest.pulls.listFiles({ owner, repo, pull_number: 12 });
    expect(data.map((f) => f.filename)).toEqual(['analytics/model/views/orders_view.yml', 'finance/cube.js']);
    expect((await octokit.rest.pulls.get({ owner, repo, pull_number: 12 })).data.changed_files).toBe(2);
    expect((await refusal(octokit.rest.pulls.listFiles({ owner, repo, pull_number: 99 }))).status).toBe(404);
  });

  it('compares two commits along the first parents: every file of the range once, its last change winning', async () => {
    standin.addCommit({ sha: sha(5), branch: 'main', files: ['a.yml'] });
    standin.addCommit({ sha: sha(6), branch: 'main', files: [{ filename: 'b.yml', status: 'added' }, 'a.yml'] });
    const { data } = await octokit.rest.repos.compareCommitsWithBasehead({ owner, repo, basehead: `${'0'.repeat(40)}...main` });
    expect(data).toMatchObject({ status: 'ahead', ahead_by: 2, total_commits: 2 });
    expect(data.commits.map((c) => c.sha)).toEqual([sha(5), sha(6)]);
    expect(data.files?.map((f) => [f.filename, f.status])).toEqual([
      ['a.yml', 'modified'],
      ['b.yml', 'added'],
    ]);
    expect((await octokit.rest.repos.compareCommitsWithBasehead({ owner, repo, basehead: `${sha(5)}...${sha(6)}` })).data.files?.length).toBe(2);
    expect(await refusal(octokit.rest.repos.compareCommitsWithBasehead({ owner, repo, basehead: `${sha(6)}...${sha(5)}` }))).toMatchObject({
      status: 404,
      message: expect.stringContaining('No common ancestor'),
    });
  });
});

describe('the merge queue', () => {
  it("stacks each group on the base branch's tip and on the groups ahead, under a gh-readonly-queue ref", async () => {
    const first = standin.enqueue(11);
    const second = standin.enqueue(12);
    expect(first).toMatchObject({ baseSha: sha(6), baseRef: 'refs/heads/main', headRef: `refs/heads/gh-readonly-queue/main/pr-11-${sha(1)}`, state: 'queued' });
    expect(second.baseSha).toBe(first.headSha);
    expect(second.headSha).toMatch(/^[0-9a-f]{40}$/);
    // The group's range holds only its own pull request's change.
    const { data } = await octokit.rest.repos.compareCommitsWithBasehead({ owner, repo, basehead: `${second.baseSha}...${second.headSha}` });
    expect(data.files?.map((f) => f.filename)).toEqual(['analytics/model/views/orders_view.yml', 'finance/cube.js']);
    const ref = second.headRef.replace('refs/heads/', '');
    const listed = await octokit.rest.checks.listForRef({ owner, repo, ref });
    expect(listed.data.total_count).toBe(0);
  });

  it('takes a check run on a group commit that no pull request has, and lists it by the queue ref', async () => {
    const [, second] = standin.mergeGroups();
    const { data } = await octokit.rest.checks.create({ owner, repo, name: CHECK, head_sha: second!.headSha, status: 'in_progress' });
    expect(data.pull_requests).toEqual([]);
    const byRef = await octokit.rest.checks.listForRef({ owner, repo, ref: second!.headRef.replace('refs/heads/', '') });
    expect(byRef.data.check_runs.map((r) => r.id)).toEqual([data.id]);
  });

  it('reads required checks as branch protection does: success, neutral and skipped pass; a missing or running one waits', async () => {
    const [first, second] = standin.mergeGroups();
    expect(standin.verdict(first!.headSha, [CHECK])).toEqual({ result: 'pending', checks: [{ name: CHECK, state: 'missing', conclusion: null }] });
    expect(standin.verdict(second!.headSha, [CHECK]).result).toBe('pending');
    for (const conclusion of ['neutral', 'skipped', 'success'] as const) {
      await octokit.rest.checks.create({ owner, repo, name: CHECK, head_sha: first!.headSha, conclusion });
      expect(standin.verdict(first!.headSha, [CHECK]).result).toBe('pass');
    }
    await octokit.rest.checks.create({ owner, repo, name: CHECK, head_sha: second!.headSha, conclusion: 'failure' });
    expect(standin.verdict(second!.headSha, [CHECK])).toEqual({ result: 'fail', checks: [{ name: CHECK, state: 'completed', conclusion: 'failure' }] });
    expect(standin.verdict(second!.headSha, [CHECK, 'ci / build']).result).toBe('fail');
  });

  it('merges the first group: the base branch moves to its commit and the pull request closes with it as merge commit', async () => {
    const [first, second] = standin.mergeGroups();
    expect(() => standin.finishGroup(second!.headSha, 'merged')).toThrow(/not first/);
    standin.finishGroup(first!.headSha, 'merged');
    expect(standin.pull(11)).toMatchObject({ state: 'closed', merged: true, mergeCommitSha: first!.headSha });
    const pull = await octokit.rest.pulls.get({ owner, repo, pull_number: 11 });
    expect(pull.data).toMatchObject({ merged: true, merge_commit_sha: first!.headSha, base: { sha: first!.headSha } });
    // The merged group's branch is gone; the next one's is still there.
    expect((await refusal(octokit.rest.checks.listForRef({ owner, repo, ref: first!.headRef.replace('refs/heads/', '') }))).status).toBe(422);
    expect((await octokit.rest.checks.listForRef({ owner, repo, ref: second!.headRef.replace('refs/heads/', '') })).data.total_count).toBe(1);
  });

  it('a failed group leaves the queue with the groups behind it; a pull request queued again stacks on the new tip', () => {
    const second = standin.mergeGroups()[1]!;
    standin.addPull({ number: 13, headSha: sha(3), headRef: 'more' });
    const third = standin.enqueue(13);
    expect(third.baseSha).toBe(second.headSha);
    expect(standin.finishGroup(second.headSha, 'dequeued').map((g) => [g.pr, g.state])).toEqual([
      [12, 'dequeued'],
      [13, 'invalidated'],
    ]);
    expect(standin.pull(12)).toMatchObject({ state: 'open', merged: false });
    const again = standin.enqueue(13);
    expect(again.baseSha).toBe(standin.mergeGroups()[0]!.headSha);
  });
});

describe('merge_group payloads and the workflows that run for them', () => {
  it('builds a checks_requested payload from the published example, with the group fields', () => {
    const group = standin.mergeGroups().at(-1)!;
    const event = mergeGroupEvent(group, pullRequestEvent('opened').repository);
    expect(event).toMatchObject({
      action: 'checks_requested',
      merge_group: {
        head_sha: group.headSha,
        head_ref: group.headRef,
        base_sha: group.baseSha,
        base_ref: 'refs/heads/main',
        head_commit: { id: group.headSha },
      },
      repository: { full_name: 'Codertocat/Hello-World' },
    });
  });

  it('reads on: as GitHub does: the event, its types, and the base branch of a group', () => {
    const event = mergeGroupEvent(standin.mergeGroups().at(-1)!);
    const wf = (on: string) => `on:\n${on}\njobs: {}\n`;
    expect(workflowTriggers(wf('  pull_request:'), 'merge_group', event)).toMatchObject({ runs: false, reason: expect.stringContaining('does not listen') });
    expect(workflowTriggers(wf('  merge_group:\n    types: [checks_requested]'), 'merge_group', event).runs).toBe(true);
    expect(workflowTriggers(wf('  merge_group:\n    branches: [release/*]'), 'merge_group', event).runs).toBe(false);
    expect(workflowTriggers(wf('  pull_request:'), 'pull_request', pullRequestEvent('closed')).runs).toBe(false);
    expect(workflowTriggers(wf('  pull_request:\n    types: [closed]'), 'pull_request', pullRequestEvent('closed')).runs).toBe(true);
    expect(() => workflowTriggers(wf('  pull_request:\n    paths: [analytics/**]'), 'pull_request', pullRequestEvent('opened'))).toThrow(/changed files/);
    expect(workflowTriggers(wf('  pull_request:\n    paths: [analytics/**]'), 'pull_request', pullRequestEvent('opened'), ['finance/cube.js']).runs).toBe(
      false,
    );
  });
});
