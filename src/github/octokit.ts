/** `GitHubApi` over Octokit (`@actions/github`), for github.com and GHES, with an optional extra trusted CA. */
import { getOctokit } from '@actions/github';
import { EnvHttpProxyAgent, fetch as undiciFetch, type Dispatcher } from 'undici';
import { InputError } from '../client/errors.js';
import { loadCa, trustStore } from '../client/trust.js';
import type { GitHubApi, IssueComment, PullRequestInfo } from './types.js';

export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';

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

type Octokit = ReturnType<typeof getOctokit>;

/** Split `owner/repo`, quoting the bad value. */
export function parseRepository(repository: string): { owner: string; repo: string } {
  const m = /^([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)\/([A-Za-z0-9._-]+)$/.exec(repository.trim());
  if (!m || m[2] === '.' || m[2] === '..') throw new InputError('repository', repository, '`owner/repo`');
  return { owner: m[1] as string, repo: m[2] as string };
}

/** Build the transport: undici honouring HTTP(S)_PROXY/NO_PROXY like the default `@actions/github` one. */
function makeDispatcher(ca: string | undefined): Dispatcher {
  if (ca === undefined) return new EnvHttpProxyAgent();
  const tls = { ca: trustStore(loadCa(ca, 'github-ca')) };
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

export function toIssueComment(c: RawComment): IssueComment {
  return { id: c.id, body: c.body ?? '', htmlUrl: c.html_url, author: c.user?.login ?? '' };
}

/** A `GitHubApi` for one repository. */
export function createGitHubApi(options: GitHubApiOptions): GitHubApi {
  const { owner, repo } = parseRepository(options.repository);
  const baseUrl = (options.apiUrl || process.env.GITHUB_API_URL || DEFAULT_GITHUB_API_URL).replace(/\/+$/, '');
  if (!/^https?:\/\//i.test(baseUrl)) throw new InputError('github-api-url', baseUrl, 'an http(s) URL');
  const dispatcher = options.dispatcher ?? makeDispatcher(options.ca);
  const octokit: Octokit = getOctokit(options.token, {
    baseUrl,
    ...(options.userAgent ? { userAgent: options.userAgent } : {}),
    request: {
      fetch: (url: string | URL, init?: Parameters<typeof undiciFetch>[1]) => undiciFetch(url, { ...init, dispatcher }),
    },
  });

  return {
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
  };
}
