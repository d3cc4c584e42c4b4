/**
 * Who may do what at the GitHub stand-in: GITHUB_TOKEN's permissions (as a workflow grants them), a fork's
 * read-only token, personal access tokens and other apps' installation tokens, and `GET /user`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createGitHubApi } from '../src/github/octokit.js';
import { BOT_LOGIN, startGitHubStandin, type GitHubStandin, type StandinOptions } from '../packages/emulator/src/github/standin.js';
import { refusal, standinOctokit } from './support/github-standin.js';

const owner = 'Codertocat';
const repo = 'Hello-World';
const head = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';
const NOT_ACCESSIBLE = 'Resource not accessible by integration';

let standin: GitHubStandin | undefined;
const mismatches: string[] = [];

async function start(options: StandinOptions = {}): Promise<GitHubStandin> {
  standin = await startGitHubStandin({ repository: `${owner}/${repo}`, ...options });
  standin.addPull({ number: 2, headSha: head, headRef: 'changes', baseRef: 'master' });
  return standin;
}

afterEach(async () => {
  expect(mismatches).toEqual([]);
  expect(standin?.violations).toEqual([]);
  await standin?.close();
  standin = undefined;
});

const checkRun = { owner, repo, name: 'datamodel-ci', head_sha: head, status: 'in_progress' as const };
const deployment = { owner, repo, ref: head, environment: 'datamodel/pr-2', required_contexts: [] };

describe('GITHUB_TOKEN permissions', () => {
  it('grants everything by default, as before', async () => {
    const s = await start();
    const octokit = standinOctokit(s, mismatches);
    expect((await octokit.rest.checks.create(checkRun)).status).toBe(201);
    expect((await octokit.rest.repos.createDeployment(deployment)).status).toBe(201);
    expect((await octokit.rest.issues.createComment({ owner, repo, issue_number: 2, body: 'hi' })).status).toBe(201);
  });

  it('answers 403 "Resource not accessible by integration" for a write the workflow did not grant, naming the permission', async () => {
    const s = await start({ permissions: { 'pull-requests': 'write', contents: 'read' } });
    const octokit = standinOctokit(s, mismatches);
    const checks = await refusal(octokit.rest.checks.create(checkRun));
    expect(checks).toMatchObject({ status: 403, message: NOT_ACCESSIBLE, headers: { 'x-accepted-github-permissions': 'checks=write' } });
    const deploy = await refusal(octokit.rest.repos.createDeployment(deployment));
    expect(deploy).toMatchObject({ status: 403, message: NOT_ACCESSIBLE, headers: { 'x-accepted-github-permissions': 'deployments=write' } });
    expect(s.checkRuns()).toEqual([]);
    expect(s.deployments()).toEqual([]);
    // pull-requests: write is enough for a comment on a PR; reads of a public repository need nothing.
    expect((await octokit.rest.issues.createComment({ owner, repo, issue_number: 2, body: 'hi' })).status).toBe(201);
    expect((await octokit.rest.checks.listForRef({ owner, repo, ref: head })).data.total_count).toBe(0);
    expect((await octokit.rest.repos.listDeployments({ owner, repo })).data).toEqual([]);
  });

  it('grants each write on its own: checks and deployments, but no comments', async () => {
    const s = await start({ permissions: { checks: 'write', deployments: 'write', 'pull-requests': 'read' } });
    const octokit = standinOctokit(s, mismatches);
    expect((await octokit.rest.checks.create(checkRun)).status).toBe(201);
    const { data } = await octokit.rest.repos.createDeployment(deployment);
    if (!('id' in data)) throw new Error('expected a deployment');
    expect((await octokit.rest.repos.createDeploymentStatus({ owner, repo, deployment_id: data.id, state: 'success' })).status).toBe(201);
    const comment = await refusal(octokit.rest.issues.createComment({ owner, repo, issue_number: 2, body: 'hi' }));
    expect(comment).toMatchObject({ status: 403, message: NOT_ACCESSIBLE, headers: { 'x-accepted-github-permissions': 'issues=write; pull_requests=write' } });
    expect(s.comments(2)).toEqual([]);
  });

  it('takes new permissions at any time: read-all refuses every write, comments included', async () => {
    const s = await start();
    const api = createGitHubApi({ token: 'ghs_test', repository: `${owner}/${repo}`, apiUrl: s.url, ca: s.ca });
    const comment = await api.createComment(2, 'first');
    s.setPermissions('read-all');
    await expect(api.createComment(2, 'second')).rejects.toMatchObject({ status: 403, message: expect.stringContaining(NOT_ACCESSIBLE) });
    await expect(api.updateComment(comment.id, 'changed')).rejects.toMatchObject({ status: 403 });
    expect(await api.listComments(2)).toEqual([expect.objectContaining({ body: 'first', author: BOT_LOGIN })]);
    s.setPermissions('write-all');
    await api.updateComment(comment.id, 'changed');
    expect(s.comments(2).map((c) => c.body)).toEqual(['changed']);
  });

  it("gives a fork PR's read-only token 403 on every write while the repository's own token still writes", async () => {
    const s = await start();
    s.addToken('ghs_fork', { permissions: 'read-all' });
    const fork = standinOctokit(s, mismatches, 'ghs_fork');
    const own = standinOctokit(s, mismatches, 'ghs_own');
    for (const call of [
      fork.rest.issues.createComment({ owner, repo, issue_number: 2, body: 'hi' }),
      fork.rest.checks.create(checkRun),
      fork.rest.repos.createDeployment(deployment),
    ]) {
      expect(await refusal(call)).toMatchObject({ status: 403, message: NOT_ACCESSIBLE });
    }
    expect((await fork.rest.pulls.get({ owner, repo, pull_number: 2 })).data.head.sha).toBe(head);
    expect((await own.rest.issues.createComment({ owner, repo, issue_number: 2, body: 'hi' })).status).toBe(201);
    s.setPermissions({ 'pull-requests': 'write' }, 'ghs_fork');
    expect((await fork.rest.issues.createComment({ owner, repo, issue_number: 2, body: 'now' })).status).toBe(201);
  });

  it('refuses a read-only token with 403 before it looks at the body, and still records the malformed request', async () => {
    const s = await start({ permissions: 'read-all' });
    const octokit = standinOctokit(s, mismatches);
    const answer = await refusal(octokit.rest.issues.createComment({ owner, repo, issue_number: 2, body: 'x'.repeat(70_000) }));
    expect(answer.status).toBe(403);
    expect(s.violations.map((v) => v.operationId)).toEqual(['issues/create-comment']);
    s.violations.length = 0;
  });
});

describe('identities', () => {
  it('refuses GET /user to GITHUB_TOKEN (an installation token) with 403', async () => {
    const s = await start();
    const answer = await refusal(standinOctokit(s, mismatches).rest.users.getAuthenticated());
    expect(answer).toMatchObject({ status: 403, message: NOT_ACCESSIBLE });
  });

  it('answers GET /user for a personal access token with its login, and writes as that login', async () => {
    const s = await start();
    s.addToken('ghp_alice', { kind: 'pat', login: 'alice' });
    const octokit = standinOctokit(s, mismatches, 'ghp_alice');
    const { data: me } = await octokit.rest.users.getAuthenticated();
    expect(me).toMatchObject({ login: 'alice', type: 'User' });

    const api = createGitHubApi({ token: 'ghp_alice', repository: `${owner}/${repo}`, apiUrl: s.url, ca: s.ca });
    const created = await api.createComment(2, 'from alice');
    expect(created.author).toBe('alice');
    expect((await api.listComments(2)).filter((c) => c.author === me.login).map((c) => c.body)).toEqual(['from alice']);
    expect(s.comments(2)).toEqual([expect.objectContaining({ user: 'alice', body: 'from alice' })]);

    const { data } = await octokit.rest.repos.createDeployment(deployment);
    expect(data).toMatchObject({ creator: { login: 'alice' }, performed_via_github_app: null });
    expect(s.deployments()[0]).toMatchObject({ creator: 'alice', app: null });
  });

  it('refuses the Checks API to a personal access token: only GitHub Apps may write check runs', async () => {
    const s = await start();
    s.addToken('ghp_alice', { kind: 'pat', login: 'alice' });
    const answer = await refusal(standinOctokit(s, mismatches, 'ghp_alice').rest.checks.create(checkRun));
    expect(answer).toMatchObject({ status: 403, message: 'You must authenticate via a GitHub App.' });
  });

  it("files another app's check runs under that app, which GITHUB_TOKEN may then not update", async () => {
    const s = await start();
    s.addToken('ghs_app', { login: 'datamodel-ci[bot]' });
    const app = standinOctokit(s, mismatches, 'ghs_app');
    const { data } = await app.rest.checks.create(checkRun);
    expect(data.app).toMatchObject({ slug: 'datamodel-ci' });
    expect((await app.rest.issues.createComment({ owner, repo, issue_number: 2, body: 'hi' })).data.user?.login).toBe('datamodel-ci[bot]');
    const answer = await refusal(standinOctokit(s, mismatches).rest.checks.update({ owner, repo, check_run_id: data.id, conclusion: 'success' }));
    expect(answer.status).toBe(403);
    expect((await app.rest.checks.update({ owner, repo, check_run_id: data.id, conclusion: 'success' })).data.conclusion).toBe('success');
    expect(s.checkRuns()).toEqual([expect.objectContaining({ app: 'datamodel-ci', status: 'completed', conclusion: 'success' })]);
  });
});
