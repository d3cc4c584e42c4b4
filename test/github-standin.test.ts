/**
 * The GitHub stand-in's check runs and deployments, driven through Octokit as the product drives GitHub;
 * every answer is held to GitHub's documented response schema.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGitHubStandin, type GitHubStandin } from '../packages/emulator/src/github/standin.js';
import { refusal, standinOctokit, type Octokit } from './support/github-standin.js';

const owner = 'Codertocat';
const repo = 'Hello-World';
const head = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';
const older = 'a'.repeat(40);

let standin: GitHubStandin;
let octokit: Octokit;
const mismatches: string[] = [];

beforeAll(async () => {
  standin = await startGitHubStandin({ repository: `${owner}/${repo}` });
  standin.addPull({ number: 2, headSha: head, headRef: 'changes', baseRef: 'master' });
  octokit = standinOctokit(standin, mismatches);
});

afterEach(() => {
  expect(mismatches).toEqual([]);
  expect(standin.violations).toEqual([]);
});

afterAll(() => standin.close());

/** `count` annotations on lines from `from`. */
function annotations(count: number, from = 1) {
  return Array.from({ length: count }, (_, i) => ({
    path: 'models/orders.yml',
    start_line: from + i,
    end_line: from + i,
    annotation_level: 'warning' as const,
    message: `issue ${from + i}`,
  }));
}

describe('check runs', () => {
  it('creates a run on the PR head, answers it shaped like GitHub, and keeps it', async () => {
    const { data, status } = await octokit.rest.checks.create({
      owner,
      repo,
      name: 'datamodel-ci / validate',
      head_sha: head,
      status: 'in_progress',
      external_id: 'dep-1',
      output: { title: 'Validating', summary: 'Started', annotations: annotations(2) },
    });
    expect(status).toBe(201);
    expect(data).toMatchObject({
      name: 'datamodel-ci / validate',
      head_sha: head,
      status: 'in_progress',
      conclusion: null,
      completed_at: null,
      external_id: 'dep-1',
      app: { slug: 'github-actions', id: 15368 },
      output: { title: 'Validating', summary: 'Started', text: null, annotations_count: 2 },
      pull_requests: [{ number: 2, head: { sha: head, ref: 'changes' }, base: { ref: 'master' } }],
    });
    expect(data.id).toBeGreaterThan(2 ** 32);
    expect(standin.checkRuns()).toEqual([
      expect.objectContaining({
        id: data.id,
        status: 'in_progress',
        app: 'github-actions',
        annotations: [expect.objectContaining({ path: 'models/orders.yml', startLine: 1, level: 'warning', message: 'issue 1' }), expect.anything()],
      }),
    ]);
  });

  it('appends 50 annotations per update, completes the run and lists every annotation', async () => {
    const [run] = standin.checkRuns();
    await octokit.rest.checks.update({ owner, repo, check_run_id: run!.id, output: { summary: 'Half way', annotations: annotations(50, 3) } });
    const { data } = await octokit.rest.checks.update({
      owner,
      repo,
      check_run_id: run!.id,
      conclusion: 'failure',
      output: { summary: '102 problems', text: 'details', annotations: annotations(50, 53) },
    });
    expect(data).toMatchObject({
      status: 'completed',
      conclusion: 'failure',
      output: { title: 'Validating', summary: '102 problems', text: 'details', annotations_count: 102 },
    });
    expect(data.completed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const stored = standin.checkRuns()[0]!;
    expect(stored.annotations.map((a) => a.startLine)).toEqual(Array.from({ length: 102 }, (_, i) => i + 1));
    const listed = await octokit.paginate(octokit.rest.checks.listAnnotations, { owner, repo, check_run_id: run!.id, per_page: 40 });
    expect(listed).toHaveLength(102);
    expect(listed[101]).toMatchObject({ start_line: 102, blob_href: `https://github.com/${owner}/${repo}/blob/${head}/models/orders.yml` });
  });

  it('refuses more than 50 annotations in one request with 422, as GitHub does, and keeps nothing of it', async () => {
    const create = await refusal(
      octokit.rest.checks.create({ owner, repo, name: 'too many', head_sha: head, output: { title: 't', summary: 's', annotations: annotations(51) } }),
    );
    expect(create).toMatchObject({ status: 422, message: 'Invalid request.\n\nNo more than 50 items are allowed; 51 were supplied.' });
    const id = standin.checkRuns()[0]!.id;
    const update = await refusal(octokit.rest.checks.update({ owner, repo, check_run_id: id, output: { summary: 's', annotations: annotations(120) } }));
    expect(update).toMatchObject({ status: 422, message: 'Invalid request.\n\nNo more than 50 items are allowed; 120 were supplied.' });
    expect(standin.checkRuns().map((r) => [r.name, r.annotations.length])).toEqual([['datamodel-ci / validate', 102]]);
    expect(standin.violations.map((v) => v.operationId)).toEqual(['checks/create', 'checks/update']);
    expect(standin.violations[0]!.errors.join()).toMatch(/more than 50 items/);
    standin.violations.length = 0;
  });

  it('refuses a completed run without a conclusion', async () => {
    const answer = await refusal(octokit.rest.checks.create({ owner, repo, name: 'x', head_sha: head, status: 'completed' }));
    expect(answer.status).toBe(422);
    expect(standin.violations.map((v) => v.errors.join())).toEqual([expect.stringContaining('conclusion is required')]);
    standin.violations.length = 0;
  });

  it('lists the runs of a ref by SHA or branch, latest per name unless filter=all, filtered by name and status', async () => {
    const { data: rerun } = await octokit.rest.checks.create({ owner, repo, name: 'datamodel-ci / validate', head_sha: head, conclusion: 'success' });
    await octokit.rest.checks.create({ owner, repo, name: 'datamodel-ci / preview', head_sha: head, status: 'queued' });
    await octokit.rest.checks.create({ owner, repo, name: 'datamodel-ci / validate', head_sha: older, conclusion: 'success' });

    const bySha = await octokit.rest.checks.listForRef({ owner, repo, ref: head });
    expect(bySha.data.total_count).toBe(2);
    expect(bySha.data.check_runs.map((r) => r.name).sort()).toEqual(['datamodel-ci / preview', 'datamodel-ci / validate']);
    const byBranch = await octokit.rest.checks.listForRef({ owner, repo, ref: 'changes', check_name: 'datamodel-ci / validate' });
    expect(byBranch.data.check_runs.map((r) => r.id)).toEqual([rerun.id]);
    const all = await octokit.rest.checks.listForRef({ owner, repo, ref: head, check_name: 'datamodel-ci / validate', filter: 'all' });
    expect(all.data.total_count).toBe(2);
    const queued = await octokit.rest.checks.listForRef({ owner, repo, ref: head, status: 'queued' });
    expect(queued.data.check_runs.map((r) => r.name)).toEqual(['datamodel-ci / preview']);
    const paged = await octokit.rest.checks.listForRef({ owner, repo, ref: head, filter: 'all', per_page: 1, page: 2 });
    expect(paged.data).toMatchObject({ total_count: 3, check_runs: [expect.anything()] });
    expect(paged.headers.link).toContain('rel="next"');
    expect(await refusal(octokit.rest.checks.listForRef({ owner, repo, ref: 'no-such-branch' }))).toMatchObject({
      status: 422,
      message: 'No commit found for SHA: no-such-branch',
    });
  });

  it('lets only the app that created a run update it, and answers 404 for a run that does not exist', async () => {
    const other = standin.addCheckRun({ name: 'ci / build', headSha: head, status: 'in_progress', app: 'circleci-checks' });
    expect(await refusal(octokit.rest.checks.update({ owner, repo, check_run_id: other.id, conclusion: 'success' }))).toMatchObject({
      status: 403,
      message: expect.stringMatching(/^Invalid app_id `\d+` - check run can only be modified by the GitHub App that created it\.$/),
    });
    expect(standin.checkRuns().find((r) => r.id === other.id)?.status).toBe('in_progress');
    expect((await refusal(octokit.rest.checks.get({ owner, repo, check_run_id: 1 }))).status).toBe(404);
    expect((await octokit.rest.checks.get({ owner, repo, check_run_id: other.id })).data.app?.slug).toBe('circleci-checks');
  });
});

describe('deployments', () => {
  const sha = '1'.repeat(40);
  beforeAll(() => {
    standin.addPull({ number: 7, headSha: sha, headRef: 'feature/orders', baseRef: 'main' });
  });

  it('creates a transient deployment of the PR head with every field GitHub takes, and keeps it', async () => {
    const { data, status } = await octokit.rest.repos.createDeployment({
      owner,
      repo,
      ref: 'feature/orders',
      environment: 'datamodel/pr-7',
      auto_merge: false,
      required_contexts: [],
      transient_environment: true,
      production_environment: false,
      description: 'Preview of PR #7',
      payload: { deploymentId: 'dep-1', devBranch: 'pr-7' },
    });
    expect(status).toBe(201);
    if (!('id' in data)) throw new Error('expected a deployment');
    expect(data).toMatchObject({
      sha,
      ref: 'feature/orders',
      task: 'deploy',
      environment: 'datamodel/pr-7',
      original_environment: 'datamodel/pr-7',
      transient_environment: true,
      production_environment: false,
      description: 'Preview of PR #7',
      payload: { deploymentId: 'dep-1', devBranch: 'pr-7' },
      creator: { login: 'github-actions[bot]', type: 'Bot' },
      performed_via_github_app: { slug: 'github-actions' },
    });
    expect(standin.deployments()).toEqual([
      expect.objectContaining({ id: data.id, sha, autoMerge: false, requiredContexts: [], environment: 'datamodel/pr-7', statuses: [] }),
    ]);
  });

  it('records statuses, log_url standing in for target_url, and lists them newest first', async () => {
    const [deployment] = standin.deployments();
    const id = deployment!.id;
    await octokit.rest.repos.createDeploymentStatus({ owner, repo, deployment_id: id, state: 'in_progress', log_url: 'https://github.com/run/1' });
    const { data, headers } = await octokit.rest.repos.createDeploymentStatus({
      owner,
      repo,
      deployment_id: id,
      state: 'success',
      environment_url: 'https://app.example/pr-7',
      log_url: 'https://github.com/run/1',
      description: 'Preview ready',
    });
    expect(data).toMatchObject({
      state: 'success',
      environment: 'datamodel/pr-7',
      environment_url: 'https://app.example/pr-7',
      target_url: 'https://github.com/run/1',
    });
    expect(headers.location).toBe(`${standin.url}/repos/${owner}/${repo}/deployments/${id}/statuses/${data.id}`);
    const listed = await octokit.rest.repos.listDeploymentStatuses({ owner, repo, deployment_id: id });
    expect(listed.data.map((s) => s.state)).toEqual(['success', 'in_progress']);
    expect(standin.deployments()[0]!.statuses.map((s) => [s.state, s.environmentUrl, s.creator])).toEqual([
      ['in_progress', '', 'github-actions[bot]'],
      ['success', 'https://app.example/pr-7', 'github-actions[bot]'],
    ]);
    expect((await refusal(octokit.rest.repos.listDeploymentStatuses({ owner, repo, deployment_id: 1 }))).status).toBe(404);
  });

  it('marks earlier live non-transient deployments of the environment inactive on a new success, unless auto_inactive is false', async () => {
    const deploy = async (transient: boolean) => {
      const { data } = await octokit.rest.repos.createDeployment({
        owner,
        repo,
        ref: sha,
        environment: 'staging',
        required_contexts: [],
        transient_environment: transient,
      });
      if (!('id' in data)) throw new Error('expected a deployment');
      await octokit.rest.repos.createDeploymentStatus({ owner, repo, deployment_id: data.id, state: 'success', auto_inactive: false });
      return data.id;
    };
    const [kept, transient, latest] = [await deploy(false), await deploy(true), await deploy(false)];
    const state = (id: number) =>
      standin
        .deployments()
        .find((d) => d.id === id)
        ?.statuses.at(-1)?.state;
    expect([state(kept), state(transient), state(latest)]).toEqual(['success', 'success', 'success']);
    await octokit.rest.repos.createDeploymentStatus({ owner, repo, deployment_id: latest, state: 'success', environment_url: 'https://staging.example' });
    expect([state(kept), state(transient), state(latest)]).toEqual(['inactive', 'success', 'success']);
    expect((await octokit.rest.repos.getDeployment({ owner, repo, deployment_id: kept })).data.environment).toBe('staging');
    expect((await octokit.rest.repos.listDeploymentStatuses({ owner, repo, deployment_id: kept })).data[0]).toMatchObject({ state: 'inactive' });
  });

  it('lists deployments newest first, filtered by environment, ref and sha', async () => {
    await octokit.rest.repos.createDeployment({ owner, repo, ref: 'changes', environment: 'datamodel/pr-2', required_contexts: [] });
    const all = await octokit.rest.repos.listDeployments({ owner, repo });
    expect(all.data.map((d) => d.environment)).toEqual(['datamodel/pr-2', 'staging', 'staging', 'staging', 'datamodel/pr-7']);
    expect((await octokit.rest.repos.listDeployments({ owner, repo, environment: 'staging' })).data).toHaveLength(3);
    expect((await octokit.rest.repos.listDeployments({ owner, repo, ref: 'feature/orders' })).data).toHaveLength(1);
    expect((await octokit.rest.repos.listDeployments({ owner, repo, sha })).data).toHaveLength(4);
    expect((await octokit.rest.repos.listDeployments({ owner, repo, sha: head })).data.map((d) => d.ref)).toEqual(['changes']);
  });

  it('refuses with 409 while a context on the commit is not green, unless required_contexts leaves it out', async () => {
    const blocked = '2'.repeat(40);
    standin.addPull({ number: 8, headSha: blocked, headRef: 'blocked' });
    standin.addCheckRun({ name: 'ci / test', headSha: blocked, status: 'in_progress', app: 'ci-app' });
    const conflict = await refusal(octokit.rest.repos.createDeployment({ owner, repo, ref: 'blocked', environment: 'datamodel/pr-8' }));
    expect(conflict).toMatchObject({ status: 409, message: 'Conflict: Commit status checks failed for blocked.' });
    const named = await refusal(octokit.rest.repos.createDeployment({ owner, repo, ref: blocked, required_contexts: ['ci / test'] }));
    expect(named.status).toBe(409);
    const bypass = await octokit.rest.repos.createDeployment({ owner, repo, ref: 'blocked', environment: 'datamodel/pr-8', required_contexts: [] });
    expect(bypass.status).toBe(201);
    standin.addCheckRun({ name: 'ci / test', headSha: blocked, conclusion: 'success', app: 'ci-app' });
    expect((await octokit.rest.repos.createDeployment({ owner, repo, ref: 'blocked', environment: 'datamodel/pr-8' })).status).toBe(201);
  });

  it('answers 422 for a ref that names nothing, and for a status description over 140 characters', async () => {
    expect(await refusal(octokit.rest.repos.createDeployment({ owner, repo, ref: 'nope', required_contexts: [] }))).toMatchObject({
      status: 422,
      message: 'No ref found for: nope',
    });
    const id = standin.deployments()[0]!.id;
    const long = await refusal(octokit.rest.repos.createDeploymentStatus({ owner, repo, deployment_id: id, state: 'failure', description: 'x'.repeat(141) }));
    expect(long.status).toBe(422);
    expect(standin.violations.map((v) => v.errors.join())).toEqual([expect.stringContaining('maximum is 140')]);
    standin.violations.length = 0;
  });
});
