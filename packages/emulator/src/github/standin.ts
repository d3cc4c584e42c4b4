/**
 * A small stateful GitHub REST stand-in: pulls and issue comments over real HTTPS, every request checked
 * against GitHub's published REST description (operation, path/query parameters, JSON body).
 */
import type { ServerResponse } from 'node:http';
import { githubDescription, type Json, type JsonObject } from './description.js';
import { json, startTestServer, type RecordedRequest } from './https-server.js';

export const BOT_LOGIN = 'github-actions[bot]';
/** GitHub's limit on a comment body. */
const MAX_COMMENT_BODY = 65_536;

export interface StandinPull {
  number: number;
  state: 'open' | 'closed';
  merged: boolean;
  headSha: string;
  headRef: string;
  baseRef: string;
  title: string;
  /** Login of the author (also the owner of the head repository of a fork). */
  user: string;
  /** The head branch lives in a fork. */
  fork: boolean;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  mergedAt: string | null;
}

export interface StandinComment {
  id: number;
  issueNumber: number;
  body: string;
  user: string;
  createdAt: string;
  updatedAt: string;
}

export interface NewPull {
  number: number;
  headSha: string;
  headRef: string;
  baseRef?: string;
  title?: string;
  user?: string;
  fork?: boolean;
  /** `owner/repo`; default the stand-in's repository. */
  repository?: string;
}

export interface Violation {
  method: string;
  url: string;
  operationId?: string;
  errors: string[];
}

export interface GitHubStandin {
  /** API root to give Octokit as `baseUrl`. */
  url: string;
  /** PEM of the CA that signed the server certificate. */
  ca: string;
  /** Default `owner/repo`. */
  repository: string;
  requests: RecordedRequest[];
  /** Requests GitHub would have rejected; tests assert it stays empty. */
  violations: Violation[];
  addPull(pull: NewPull): StandinPull;
  setHead(pr: number, sha: string, repository?: string): void;
  closePull(pr: number, merged: boolean, repository?: string): void;
  /** Add a comment as someone (default a human), e.g. to fill pages. */
  addComment(pr: number, body: string, user?: string, repository?: string): StandinComment;
  /** The PR's comments, oldest first (copies). */
  comments(pr: number, repository?: string): StandinComment[];
  close(): Promise<void>;
}

interface RepoState {
  pulls: Map<number, StandinPull>;
  comments: StandinComment[];
}

function timestamp(date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function notFound(res: ServerResponse): void {
  json(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });
}

/** Start the stand-in (one HTTPS server on 127.0.0.1, port 0). */
export async function startGitHubStandin(options: { repository?: string } = {}): Promise<GitHubStandin> {
  const description = githubDescription();
  const defaultRepo = options.repository ?? 'Codertocat/Hello-World';
  const repos = new Map<string, RepoState>();
  const violations: Violation[] = [];
  let nextCommentId = 1_000_000;

  const repoState = (fullName: string): RepoState => {
    const key = fullName.toLowerCase();
    let state = repos.get(key);
    if (!state) {
      state = { pulls: new Map(), comments: [] };
      repos.set(key, state);
    }
    return state;
  };
  const pullOf = (pr: number, repository = defaultRepo): StandinPull => {
    const pull = repoState(repository).pulls.get(pr);
    if (!pull) throw new Error(`stand-in: no pull #${pr} in ${repository}`);
    return pull;
  };

  // Called by the handlers only, so once the server below is up.
  const base = (): string => server.baseUrl;
  const repoJson = (owner: string, repo: string, fork: boolean): JsonObject => ({
    id: 1296269,
    name: repo,
    full_name: `${owner}/${repo}`,
    private: false,
    owner: { login: owner, id: 1, type: 'User' },
    html_url: `https://github.com/${owner}/${repo}`,
    url: `${base()}/repos/${owner}/${repo}`,
    fork,
  });
  const userJson = (login: string): JsonObject => ({
    login,
    id: login === BOT_LOGIN ? 41898282 : 100 + login.length,
    type: login.endsWith('[bot]') ? 'Bot' : 'User',
    html_url: `https://github.com/${login}`,
  });
  const pullJson = (fullName: string, p: StandinPull): JsonObject => {
    const [owner = '', repo = ''] = fullName.split('/');
    const headOwner = p.fork ? p.user : owner;
    return {
      url: `${base()}/repos/${fullName}/pulls/${p.number}`,
      id: 279147437 + p.number,
      html_url: `https://github.com/${fullName}/pull/${p.number}`,
      number: p.number,
      state: p.state,
      locked: false,
      title: p.title,
      user: userJson(p.user),
      body: null,
      created_at: p.createdAt,
      updated_at: p.updatedAt,
      closed_at: p.closedAt,
      merged_at: p.mergedAt,
      draft: false,
      head: { label: `${headOwner}:${p.headRef}`, ref: p.headRef, sha: p.headSha, user: userJson(headOwner), repo: repoJson(headOwner, repo, p.fork) },
      base: { label: `${owner}:${p.baseRef}`, ref: p.baseRef, sha: '0'.repeat(40), user: userJson(owner), repo: repoJson(owner, repo, false) },
      merged: p.merged,
    };
  };
  const commentJson = (fullName: string, c: StandinComment): JsonObject => ({
    id: c.id,
    node_id: `IC_${c.id}`,
    url: `${base()}/repos/${fullName}/issues/comments/${c.id}`,
    html_url: `https://github.com/${fullName}/pull/${c.issueNumber}#issuecomment-${c.id}`,
    issue_url: `${base()}/repos/${fullName}/issues/${c.issueNumber}`,
    body: c.body,
    user: userJson(c.user),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    author_association: c.user.endsWith('[bot]') ? 'NONE' : 'CONTRIBUTOR',
  });

  /** Answer one page of `items`, with GitHub's `Link` header. */
  const page = (req: RecordedRequest, res: ServerResponse, items: Json[]): void => {
    const perPage = Math.min(100, Math.max(1, Number(req.query.get('per_page')) || 30));
    const number = Math.max(1, Number(req.query.get('page')) || 1);
    const last = Math.max(1, Math.ceil(items.length / perPage));
    const link = (p: number): string => {
      const u = new URL(req.url, base());
      u.searchParams.set('per_page', String(perPage));
      u.searchParams.set('page', String(p));
      return u.href;
    };
    const rels: string[] = [];
    if (number < last) rels.push(`<${link(number + 1)}>; rel="next"`, `<${link(last)}>; rel="last"`);
    if (number > 1) rels.push(`<${link(number - 1)}>; rel="prev"`, `<${link(1)}>; rel="first"`);
    json(res, 200, items.slice((number - 1) * perPage, number * perPage), rels.length ? { link: rels.join(', ') } : {});
  };

  const route = (req: RecordedRequest, res: ServerResponse, operationId: string, p: Record<string, string>): boolean => {
    const fullName = `${p.owner}/${p.repo}`;
    const state = repos.get(fullName.toLowerCase());
    const body = req.json as { body?: string } | undefined;
    switch (operationId) {
      case 'pulls/get': {
        const pull = state?.pulls.get(Number(p.pull_number));
        if (!pull) notFound(res);
        else json(res, 200, pullJson(fullName, pull));
        return true;
      }
      case 'pulls/list': {
        if (!state) return (notFound(res), true);
        const wanted = req.query.get('state') ?? 'open';
        const head = req.query.get('head');
        const baseRef = req.query.get('base');
        const list = [...state.pulls.values()]
          .filter((x) => wanted === 'all' || x.state === wanted)
          .filter((x) => !head || `${x.fork ? x.user : p.owner}:${x.headRef}`.toLowerCase() === head.toLowerCase())
          .filter((x) => !baseRef || x.baseRef === baseRef)
          .sort((a, b) => (req.query.get('direction') === 'asc' ? a.number - b.number : b.number - a.number));
        page(req, res, list.map((x) => pullJson(fullName, x)));
        return true;
      }
      case 'issues/list-comments': {
        const n = Number(p.issue_number);
        if (!state?.pulls.has(n)) return (notFound(res), true);
        const since = req.query.get('since');
        const list = state.comments.filter((c) => c.issueNumber === n && (!since || c.updatedAt >= since));
        page(req, res, list.map((c) => commentJson(fullName, c)));
        return true;
      }
      case 'issues/create-comment': {
        const n = Number(p.issue_number);
        if (!state?.pulls.has(n)) return (notFound(res), true);
        const now = timestamp();
        const c: StandinComment = { id: nextCommentId++, issueNumber: n, body: body?.body ?? '', user: BOT_LOGIN, createdAt: now, updatedAt: now };
        state.comments.push(c);
        json(res, 201, commentJson(fullName, c), { location: `${base()}/repos/${fullName}/issues/comments/${c.id}` });
        return true;
      }
      case 'issues/get-comment':
      case 'issues/update-comment': {
        const c = state?.comments.find((x) => x.id === Number(p.comment_id));
        if (!c) return (notFound(res), true);
        if (operationId === 'issues/update-comment') {
          c.body = body?.body ?? '';
          c.updatedAt = timestamp();
        }
        json(res, 200, commentJson(fullName, c));
        return true;
      }
      default:
        return false;
    }
  };

  const reject = (req: RecordedRequest, res: ServerResponse, status: number, errors: string[], operationId?: string): void => {
    violations.push({ method: req.method, url: req.url, ...(operationId ? { operationId } : {}), errors });
    json(res, status, {
      message: status === 422 ? 'Validation Failed' : 'Not Found',
      errors: errors.map((message) => ({ resource: operationId ?? 'request', code: 'invalid', message })),
      documentation_url: 'https://docs.github.com/rest',
      status: String(status),
    });
  };

  const server = await startTestServer((req, res) => {
    const { operation, errors } = description.check(req);
    if (!operation) return reject(req, res, 404, errors);
    // Not in the description, but enforced by GitHub: "Body is too long (maximum is 65536 characters)".
    const text = (req.json as { body?: unknown } | undefined)?.body;
    if (typeof text === 'string' && text.length > MAX_COMMENT_BODY) errors.push(`body is too long (maximum is ${MAX_COMMENT_BODY} characters)`);
    if (errors.length) return reject(req, res, 422, errors, operation.operationId);
    const found = description.find(req.method, req.path);
    if (!found || !route(req, res, operation.operationId, found.path)) {
      reject(req, res, 501, [`${operation.operationId} is not implemented by the stand-in`], operation.operationId);
    }
  });

  return {
    url: server.baseUrl,
    ca: server.ca,
    repository: defaultRepo,
    requests: server.requests,
    violations,
    addPull(spec) {
      const now = timestamp();
      const pull: StandinPull = {
        number: spec.number,
        state: 'open',
        merged: false,
        headSha: spec.headSha,
        headRef: spec.headRef,
        baseRef: spec.baseRef ?? 'main',
        title: spec.title ?? `Pull request #${spec.number}`,
        user: spec.user ?? 'octocat',
        fork: spec.fork ?? false,
        createdAt: now,
        updatedAt: now,
        closedAt: null,
        mergedAt: null,
      };
      repoState(spec.repository ?? defaultRepo).pulls.set(pull.number, pull);
      return { ...pull };
    },
    setHead(pr, sha, repository) {
      const pull = pullOf(pr, repository);
      pull.headSha = sha;
      pull.updatedAt = timestamp();
    },
    closePull(pr, merged, repository) {
      const pull = pullOf(pr, repository);
      const now = timestamp();
      pull.state = 'closed';
      pull.merged = merged;
      pull.closedAt = now;
      pull.mergedAt = merged ? now : null;
      pull.updatedAt = now;
    },
    addComment(pr, body, user = 'octocat', repository = defaultRepo) {
      pullOf(pr, repository);
      const now = timestamp();
      const c: StandinComment = { id: nextCommentId++, issueNumber: pr, body, user, createdAt: now, updatedAt: now };
      repoState(repository).comments.push(c);
      return { ...c };
    },
    comments(pr, repository = defaultRepo) {
      return repoState(repository).comments.filter((c) => c.issueNumber === pr).map((c) => ({ ...c }));
    },
    close: () => server.close(),
  };
}

