/**
 * `GitHubApi` over Octokit (the core and the two plugins `@actions/github` assembles), for github.com and
 * GHES, with an optional extra trusted CA. Not `@actions/github` itself: importing it parses
 * GITHUB_EVENT_PATH at once and a malformed file crashed the bundle before the toolkit could name it.
 */
import { Octokit as OctokitCore } from '@octokit/core';
import { paginateRest } from '@octokit/plugin-paginate-rest';
import { restEndpointMethods } from '@octokit/plugin-rest-endpoint-methods';
import { EnvHttpProxyAgent, fetch as undiciFetch, type Dispatcher } from 'undici';
import { InputError, messageOf } from '../client/errors.js';
import { loadCa, trustedContext } from '../client/trust.js';
import { GitHubRefused, type ChangedFiles, type CheckRunOutput, type GitHubApi, type IssueComment, type IssueInfo, type PullRequestInfo } from './types.js';

export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';

/** The most files GitHub lists for a pull request, and for a compare (docs of `pulls/list-files`, `repos/compare-commits`). */
export const MAX_PULL_FILES = 3000;
export const MAX_COMPARE_FILES = 300;

/** Changed paths, a rename's old name too (the folder it left is touched as well). */
function changedPaths(files: { filename: string; previous_filename?: string }[], max: number): ChangedFiles {
  const paths = files.flatMap((f) => (f.previous_filename ? [f.filename, f.previous_filename] : [f.filename]));
  return { files: paths, count: files.length, complete: files.length < max };
}

export interface GitHubApiOptions {
  /** GITHUB_TOKEN, an app installation token or a PAT. */
  token: string;
  /** `owner/repo`. */
  repository: string;
  /** REST root (GHES: `https://HOST/api/v3`); default GITHUB_API_URL, then `https://api.github.com`. */
  apiUrl?: string;
  /** Extra trusted CA, PEM text or the path of a PEM file: trusted in addition to the public roots. */
  ca?: string;
  userAgent?: string;
  /** Transport override (tests); by default a proxy-aware undici agent. */
  dispatcher?: Dispatcher;
}

const GitHubOctokit = OctokitCore.plugin(restEndpointMethods, paginateRest);
type Octokit = InstanceType<typeof GitHubOctokit>;

/** Split `owner/repo`, quoting the bad value. */
export function parseRepository(repository: string): { owner: string; repo: string } {
  const m = /^([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)\/([A-Za-z0-9._-]+)$/.exec(repository.trim());
  if (!m || m[2] === '.' || m[2] === '..') throw new InputError('repository', repository, '`owner/repo`');
  return { owner: m[1] as string, repo: m[2] as string };
}

/** Build the transport: undici honouring HTTP(S)_PROXY/NO_PROXY like the default `@actions/github` one. */
function makeDispatcher(ca: string | undefined): Dispatcher {
  if (ca === undefined) return new EnvHttpProxyAgent();
  // One TLS context for every connection (`ca` would build one from ~150 certificates per connection).
  const tls = { secureContext: trustedContext(loadCa(ca, 'github-ca')) };
  // `connect` is used for direct connections, `requestTls` for the tunnel through a proxy.
  return new EnvHttpProxyAgent({ connect: tls, requestTls: tls });
}

function status(error: unknown): number | undefined {
  const s = (error as { status?: unknown } | null)?.status;
  return typeof s === 'number' ? s : undefined;
}

interface RawPull {
  number: number;
  state: string;
  merged?: boolean | null;
  merged_at?: string | null;
  head: { sha: string; ref: string; repo: { full_name: string } | null };
  base: { ref: string; repo: { full_name: string } };
  title: string;
  closed_at: string | null;
  updated_at: string;
  html_url: string;
}

interface RawComment {
  id: number;
  body?: string;
  html_url: string;
  user: { login: string } | null;
}

/** Map a REST pull request; a deleted head repository counts as a fork (it was not the base). */
export function toPullRequestInfo(p: RawPull): PullRequestInfo {
  return {
    number: p.number,
    state: p.state === 'closed' ? 'closed' : 'open',
    merged: p.merged ?? Boolean(p.merged_at),
    headSha: p.head.sha,
    headRef: p.head.ref,
    baseRef: p.base.ref,
    title: p.title,
    fork: p.head.repo === null || p.head.repo.full_name.toLowerCase() !== p.base.repo.full_name.toLowerCase(),
    closedAt: p.closed_at,
    updatedAt: p.updated_at,
    htmlUrl: p.html_url,
  };
}

interface RawIssue {
  number: number;
  title: string;
  body?: string | null;
  state: string;
  user: { login: string } | null;
  labels: (string | { name?: string })[];
  html_url: string;
  created_at: string;
}

export function toIssueInfo(i: RawIssue): IssueInfo {
  return {
    number: i.number,
    title: i.title,
    body: i.body ?? '',
    state: i.state === 'closed' ? 'closed' : 'open',
    author: i.user?.login ?? '',
    labels: i.labels.map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter(Boolean),
    htmlUrl: i.html_url,
    createdAt: i.created_at,
  };
}

export function toIssueComment(c: RawComment): IssueComment {
  return { id: c.id, body: c.body ?? '', htmlUrl: c.html_url, author: c.user?.login ?? '' };
}

/** A check run's output as GitHub's REST API spells it. */
function checkOutput(o: CheckRunOutput) {
  return {
    title: o.title,
    summary: o.summary,
    annotations: o.annotations.map((a) => ({
      path: a.path,
      start_line: a.startLine,
      end_line: a.endLine,
      // GitHub takes columns only for an annotation on one line.
      ...(a.startColumn !== undefined && a.startLine === a.endLine ? { start_column: a.startColumn, end_column: a.startColumn } : {}),
      annotation_level: a.level,
      message: a.message,
      ...(a.title ? { title: a.title } : {}),
    })),
  };
}

/** The port's one reading of a refusal: a 403 from any call becomes a GitHubRefused (same message). */
function withRefusals(api: GitHubApi): GitHubApi {
  const out: Record<string, unknown> = {};
  for (const [name, call] of Object.entries(api) as [string, (...args: unknown[]) => Promise<unknown>][]) {
    out[name] = async (...args: unknown[]) => {
      try {
        return await call(...args);
      } catch (e) {
        if (status(e) === 403) throw new GitHubRefused(messageOf(e), { cause: e });
        throw e;
      }
    };
  }
  return out as unknown as GitHubApi;
}

/** A `GitHubApi` for one repository. */
export function createGitHubApi(options: GitHubApiOptions): GitHubApi {
  const { owner, repo } = parseRepository(options.repository);
  const baseUrl = (options.apiUrl || process.env.GITHUB_API_URL || DEFAULT_GITHUB_API_URL).replace(/\/+$/, '');
  if (!/^https?:\/\//i.test(baseUrl)) throw new InputError('github-api-url', baseUrl, 'an http(s) URL');
  const dispatcher = options.dispatcher ?? makeDispatcher(options.ca);
  const octokit: Octokit = new GitHubOctokit({
    auth: options.token,
    baseUrl,
    ...(options.userAgent ? { userAgent: options.userAgent } : {}),
    request: {
      fetch: (url: string | URL, init?: Parameters<typeof undiciFetch>[1]) => undiciFetch(url, { ...init, dispatcher }),
    },
  });

  return withRefusals({
    async login() {
      // GraphQL's viewer answers for every kind of token (an installation token cannot read GET /user).
      try {
        const r = await octokit.graphql<{ viewer: { login: string } }>('query { viewer { login } }');
        if (r.viewer.login) return r.viewer.login;
      } catch {
        // GHES without GraphQL, or a proxy in the way: ask REST.
      }
      try {
        return (await octokit.rest.users.getAuthenticated()).data.login;
      } catch {
        return undefined;
      }
    },
    async getPull(number) {
      try {
        const { data } = await octokit.rest.pulls.get({ owner, repo, pull_number: number });
        return toPullRequestInfo(data);
      } catch (error) {
        if (status(error) === 404) return undefined;
        throw error;
      }
    },
    async listComments(number) {
      const data = await octokit.paginate(octokit.rest.issues.listComments, {
        owner,
        repo,
        issue_number: number,
        per_page: 100,
      });
      return data.map((c) => toIssueComment(c as RawComment));
    },
    async createComment(number, body) {
      const { data } = await octokit.rest.issues.createComment({ owner, repo, issue_number: number, body });
      return toIssueComment(data);
    },
    async updateComment(commentId, body) {
      const { data } = await octokit.rest.issues.updateComment({ owner, repo, comment_id: commentId, body });
      return toIssueComment(data);
    },
    async createCheckRun(input) {
      const { data } = await octokit.rest.checks.create({
        owner,
        repo,
        name: input.name,
        head_sha: input.headSha,
        status: 'completed',
        conclusion: input.conclusion,
        ...(input.detailsUrl ? { details_url: input.detailsUrl } : {}),
        output: checkOutput(input.output),
      });
      return { id: data.id, htmlUrl: data.html_url ?? '' };
    },
    async addCheckRunAnnotations(id, output) {
      await octokit.rest.checks.update({ owner, repo, check_run_id: id, output: checkOutput(output) });
    },
    async createDeployment(input) {
      const { data } = await octokit.rest.repos.createDeployment({
        owner,
        repo,
        ref: input.ref,
        environment: input.environment,
        description: input.description,
        auto_merge: false,
        required_contexts: [],
        transient_environment: !input.production,
        production_environment: !!input.production,
        ...(input.payload ? { payload: input.payload } : {}),
      });
      if (!('id' in data)) throw new Error(`GitHub did not create the deployment: ${JSON.stringify(data).slice(0, 200)}`);
      return data.id;
    },
    async createDeploymentStatus(id, input) {
      await octokit.rest.repos.createDeploymentStatus({
        owner,
        repo,
        deployment_id: id,
        state: input.state,
        ...(input.environmentUrl ? { environment_url: input.environmentUrl } : {}),
        ...(input.logUrl ? { log_url: input.logUrl } : {}),
        ...(input.description ? { description: input.description.slice(0, 140) } : {}),
        ...(input.state === 'success' ? { auto_inactive: true } : {}),
      });
    },
    async latestDeployment(environment) {
      const { data } = await octokit.rest.repos.listDeployments({ owner, repo, environment, per_page: 1 });
      const d = data[0];
      return d && { id: d.id, ref: d.ref, sha: d.sha, payload: d.payload, createdAt: d.created_at };
    },
    async listDeployments(environment) {
      const data = await octokit.paginate(octokit.rest.repos.listDeployments, { owner, repo, environment, per_page: 100 });
      return data.map((d) => d.id);
    },
    async listPullFiles(number) {
      const data = await octokit.paginate(octokit.rest.pulls.listFiles, { owner, repo, pull_number: number, per_page: 100 });
      return changedPaths(data, MAX_PULL_FILES);
    },
    async compareFiles(base, head) {
      // The files come whole on the first page; one commit a page keeps the answer small.
      const { data } = await octokit.rest.repos.compareCommitsWithBasehead({ owner, repo, basehead: `${base}...${head}`, per_page: 1 });
      return changedPaths(data.files ?? [], MAX_COMPARE_FILES);
    },
    async listIssues(filter) {
      const data = await octokit.paginate(octokit.rest.issues.listForRepo, {
        owner,
        repo,
        state: 'all',
        ...(filter.label ? { labels: filter.label } : {}),
        ...(filter.creator ? { creator: filter.creator } : {}),
        per_page: 100,
      });
      return data.filter((i) => !i.pull_request).map((i) => toIssueInfo(i as RawIssue));
    },
    async createIssue(input) {
      const { data } = await octokit.rest.issues.create({ owner, repo, title: input.title, body: input.body, labels: input.labels });
      return toIssueInfo(data);
    },
    async updateIssue(number, input) {
      const { data } = await octokit.rest.issues.update({
        owner,
        repo,
        issue_number: number,
        ...(input.title !== undefined ? { title: input.title } : {}),
        ...(input.body !== undefined ? { body: input.body } : {}),
        ...(input.state ? { state: input.state, state_reason: input.state === 'closed' ? 'completed' : 'reopened' } : {}),
        ...(input.labels ? { labels: input.labels } : {}),
      });
      return toIssueInfo(data);
    },
    async hasCommit(sha) {
      try {
        await octokit.rest.repos.getCommit({ owner, repo, ref: sha, per_page: 1 });
        return true;
      } catch (error) {
        if (status(error) === 404 || status(error) === 422) return false;
        throw error;
      }
    },
    async listCheckRuns(sha, name) {
      const { data } = await octokit.rest.checks.listForRef({ owner, repo, ref: sha, check_name: name, filter: 'latest', per_page: 100 });
      return data.check_runs.map((r) => ({ name: r.name, status: r.status, conclusion: r.conclusion, app: r.app?.slug ?? '' }));
    },
  });
}
