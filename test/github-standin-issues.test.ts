/**
 * The GitHub stand-in's issues (what the drift watch keeps), driven through Octokit as the product drives
 * GitHub; every request checked against GitHub's REST description and every answer against its schema:
 * create, read, update (body, state, labels), and the listing's filters (state, labels, creator), pull
 * requests listed among issues as GitHub does; the token's permissions; labels dropped for a token
 * without push access when the stand-in is told GitHub does that.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createGitHubApi } from '../src/github/octokit.js';
import { BOT_LOGIN, startGitHubStandin, type GitHubStandin, type StandinOptions } from '../packages/emulator/src/github/standin.js';
import { refusal, standinOctokit } from './support/github-standin.js';

const owner = 'Codertocat';
const repo = 'Hello-World';
let standin: GitHubStandin | undefined;
const mismatches: string[] = [];

async function start(options: StandinOptions = {}): Promise<GitHubStandin> {
  standin = await startGitHubStandin({ repository: `${owner}/${repo}`, ...options });
  standin.addPull({ number: 2, headSha: 'e'.repeat(40), headRef: 'changes', baseRef: 'main', user: 'octocat' });
  return standin;
}

afterEach(async () => {
  expect(mismatches).toEqual([]);
  expect(standin?.violations).toEqual([]);
  await standin?.close();
  standin = undefined;
});

describe('issues', () => {
  it('creates an issue after the pull requests’ numbers, reads it back, rewrites it, closes and reopens it', async () => {
    const s = await start();
    const octokit = standinOctokit(s, mismatches);
    const created = await octokit.rest.issues.create({ owner, repo, title: 'Production differs', body: 'first', labels: ['datamodel-ci-drift'] });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ number: 3, state: 'open', title: 'Production differs', body: 'first', user: { login: BOT_LOGIN } });
    expect(created.data.labels.map((l) => (typeof l === 'string' ? l : l.name))).toEqual(['datamodel-ci-drift']);
    const updated = await octokit.rest.issues.update({ owner, repo, issue_number: 3, body: 'second' });
    expect(updated.data).toMatchObject({ number: 3, state: 'open', body: 'second' });
    const closed = await octokit.rest.issues.update({ owner, repo, issue_number: 3, state: 'closed', state_reason: 'completed' });
    expect(closed.data).toMatchObject({ state: 'closed', state_reason: 'completed' });
    expect(closed.data.closed_at).not.toBeNull();
    const reopened = await octokit.rest.issues.update({ owner, repo, issue_number: 3, state: 'open', state_reason: 'reopened' });
    expect(reopened.data).toMatchObject({ state: 'open', state_reason: 'reopened', closed_at: null });
    expect((await octokit.rest.issues.get({ owner, repo, issue_number: 3 })).data.body).toBe('second');
    expect((await refusal(octokit.rest.issues.get({ owner, repo, issue_number: 99 }))).status).toBe(404);
    expect(s.issues()).toEqual([expect.objectContaining({ number: 3, body: 'second', state: 'open', labels: ['datamodel-ci-drift'] })]);
  });

  it('lists by state, label and creator, newest first, pull requests among them marked as such', async () => {
    const s = await start();
    const octokit = standinOctokit(s, mismatches);
    s.addIssue({ title: 'a person’s', labels: ['datamodel-ci-drift'], user: 'mallory' });
    const ours = await octokit.rest.issues.create({ owner, repo, title: 'ours', body: 'x', labels: ['datamodel-ci-drift'] });
    await octokit.rest.issues.create({ owner, repo, title: 'unlabelled', body: 'y' });
    await octokit.rest.issues.update({ owner, repo, issue_number: ours.data.number, state: 'closed' });
    const open = await octokit.rest.issues.listForRepo({ owner, repo });
    expect(open.data.map((i) => [i.number, !!i.pull_request])).toEqual([
      [5, false],
      [3, false],
      [2, true],
    ]);
    const labelled = await octokit.rest.issues.listForRepo({ owner, repo, state: 'all', labels: 'datamodel-ci-drift' });
    expect(labelled.data.map((i) => i.number)).toEqual([4, 3]);
    const mine = await octokit.rest.issues.listForRepo({ owner, repo, state: 'all', creator: BOT_LOGIN, direction: 'asc' });
    expect(mine.data.map((i) => i.number)).toEqual([4, 5]);
    // The product's port leaves pull requests out and pages through everything.
    const api = createGitHubApi({ token: 'ghs_x', repository: `${owner}/${repo}`, apiUrl: s.url, ca: s.ca });
    expect((await api.listIssues({ creator: 'octocat' })).map((i) => i.number)).toEqual([]);
    expect((await api.listIssues({ label: 'datamodel-ci-drift' })).map((i) => [i.number, i.author, i.state])).toEqual([
      [4, BOT_LOGIN, 'closed'],
      [3, 'mallory', 'open'],
    ]);
  });
});

describe('who may write issues', () => {
  it('needs issues: write (403 naming it otherwise); a read-all token still lists', async () => {
    const s = await start({ permissions: { contents: 'read', 'pull-requests': 'write' } });
    const octokit = standinOctokit(s, mismatches);
    const refused = await refusal(octokit.rest.issues.create({ owner, repo, title: 't', body: 'b' }));
    expect(refused).toMatchObject({
      status: 403,
      message: 'Resource not accessible by integration',
      headers: { 'x-accepted-github-permissions': 'issues=write' },
    });
    expect(s.issues()).toEqual([]);
    s.setPermissions({ issues: 'write', contents: 'read' });
    expect((await octokit.rest.issues.create({ owner, repo, title: 't', body: 'b', labels: ['l'] })).data.labels).toHaveLength(1);
    s.setPermissions('read-all');
    expect((await octokit.rest.issues.listForRepo({ owner, repo })).data.length).toBe(2);
    expect((await refusal(octokit.rest.issues.update({ owner, repo, issue_number: 3, body: 'c' }))).status).toBe(403);
  });

  it('with labelsNeedPush, drops the labels a token without contents: write sets, in silence, on create and on update', async () => {
    const s = await start({ labelsNeedPush: true, permissions: { issues: 'write', contents: 'read' } });
    const octokit = standinOctokit(s, mismatches);
    const created = await octokit.rest.issues.create({ owner, repo, title: 't', body: 'b', labels: ['datamodel-ci-drift'] });
    expect(created.status).toBe(201);
    expect(created.data.labels).toEqual([]);
    await octokit.rest.issues.update({ owner, repo, issue_number: created.data.number, labels: ['datamodel-ci-drift'] });
    expect(s.issues()[0]!.labels).toEqual([]);
    s.setPermissions({ issues: 'write', contents: 'write' });
    await octokit.rest.issues.update({ owner, repo, issue_number: created.data.number, labels: ['datamodel-ci-drift'] });
    expect(s.issues()[0]!.labels).toEqual(['datamodel-ci-drift']);
  });
});
