/** Pull requests and their issue comments: state, answers, and the refs they give names to. */
import { BASE_SHA, changeOf, diffEntry, shaOf, type FileChange } from './commits.js';
import type { Json, JsonObject } from './description.js';
import { json } from '../https-server.js';
import { pageOf } from './paging.js';
import { notFound, type Route } from './service.js';
import { BOT_LOGIN, timestamp } from './shapes.js';

/** GitHub's limit on a comment body. */
export const MAX_COMMENT_BODY = 65_536;

/** GitHub lists at most this many files of a pull request. */
export const MAX_PULL_FILES = 3000;

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
  /** The commit the merge made on the base branch (a merge queue's merge group head), once merged. */
  mergeCommitSha: string | null;
  /** What the pull request changes against its base (`pulls/list-files`). */
  files: FileChange[];
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
  /** Files it changes: paths (as `modified`) or changes; default none. */
  files?: (string | FileChange)[];
  /** `owner/repo`; default the stand-in's repository. */
  repository?: string;
}

/** What the pulls learn from the repository's history. */
export interface PullLinks {
  /** A branch's tip once it has moved (a merge); the pulls answer BASE_SHA before. */
  tip: (fullName: string, branch: string) => string | undefined;
}

interface RepoState {
  pulls: Map<number, StandinPull>;
  comments: StandinComment[];
}

export interface Pulls {
  route: Route;
  /** A repository some pull or comment was added to. */
  hasRepo: (fullName: string) => boolean;
  /** The commit `ref` names: a PR's head branch (not a fork's), a base branch, `refs/pull/N/head`, a full or abbreviated SHA. */
  resolveRef: (fullName: string, ref: string) => string | undefined;
  /** Open pulls of the repository itself whose head is `sha`, as `pull-request-minimal` (GitHub leaves out forks). */
  minimalAt: (fullName: string, sha: string, base: string) => JsonObject[];
  addPull: (pull: NewPull) => StandinPull;
  setHead: (pr: number, sha: string, repository?: string) => void;
  setFiles: (pr: number, files: (string | FileChange)[], repository?: string) => void;
  /** Close it; a merge records `mergeCommitSha` (default a made-up one). */
  closePull: (pr: number, merged: boolean, repository?: string, mergeCommitSha?: string) => void;
  /** A pull's state (a copy), or undefined. */
  pull: (pr: number, repository?: string) => StandinPull | undefined;
  /** Every pull of the repository (copies). */
  all: (fullName: string) => StandinPull[];
  addComment: (pr: number, body: string, user?: string, repository?: string) => StandinComment;
  comments: (pr: number, repository?: string) => StandinComment[];
}

const copy = (p: StandinPull): StandinPull => ({ ...p, files: p.files.map((f) => ({ ...f })) });

export function createPulls(defaultRepo: string, links: PullLinks): Pulls {
  const repos = new Map<string, RepoState>();
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

  const repoJson = (base: string, owner: string, repo: string, fork: boolean): JsonObject => ({
    id: 1296269,
    name: repo,
    full_name: `${owner}/${repo}`,
    private: false,
    owner: { login: owner, id: 1, type: 'User' },
    html_url: `https://github.com/${owner}/${repo}`,
    url: `${base}/repos/${owner}/${repo}`,
    fork,
  });
  const userJson = (login: string): JsonObject => ({
    login,
    id: login === BOT_LOGIN ? 41898282 : 100 + login.length,
    type: login.endsWith('[bot]') ? 'Bot' : 'User',
    html_url: `https://github.com/${login}`,
  });
  const pullJson = (base: string, fullName: string, p: StandinPull): JsonObject => {
    const [owner = '', repo = ''] = fullName.split('/');
    const headOwner = p.fork ? p.user : owner;
    const baseSha = links.tip(fullName, p.baseRef) ?? BASE_SHA;
    return {
      url: `${base}/repos/${fullName}/pulls/${p.number}`,
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
      head: { label: `${headOwner}:${p.headRef}`, ref: p.headRef, sha: p.headSha, user: userJson(headOwner), repo: repoJson(base, headOwner, repo, p.fork) },
      base: { label: `${owner}:${p.baseRef}`, ref: p.baseRef, sha: baseSha, user: userJson(owner), repo: repoJson(base, owner, repo, false) },
      merged: p.merged,
      merge_commit_sha: p.mergeCommitSha,
      changed_files: p.files.length,
    };
  };
  const commentJson = (base: string, fullName: string, c: StandinComment): JsonObject => ({
    id: c.id,
    node_id: `IC_${c.id}`,
    url: `${base}/repos/${fullName}/issues/comments/${c.id}`,
    html_url: `https://github.com/${fullName}/pull/${c.issueNumber}#issuecomment-${c.id}`,
    issue_url: `${base}/repos/${fullName}/issues/${c.issueNumber}`,
    body: c.body,
    user: userJson(c.user),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    author_association: c.user.endsWith('[bot]') ? 'NONE' : 'CONTRIBUTOR',
  });

  const route: Route = ({ req, res, operationId, params: p, fullName, caller, base }) => {
    const state = repos.get(fullName.toLowerCase());
    const body = req.json as { body?: string } | undefined;
    const page = (items: Json[]): void => {
      const { items: slice, headers } = pageOf(req, base, items);
      json(res, 200, slice, headers);
    };
    switch (operationId) {
      case 'pulls/get': {
        const pull = state?.pulls.get(Number(p.pull_number));
        if (!pull) notFound(res);
        else json(res, 200, pullJson(base, fullName, pull));
        return true;
      }
      case 'pulls/list-files': {
        const pull = state?.pulls.get(Number(p.pull_number));
        if (!pull) return (notFound(res), true);
        page(pull.files.slice(0, MAX_PULL_FILES).map((f) => diffEntry(base, fullName, pull.headSha, f)));
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
        page(list.map((x) => pullJson(base, fullName, x)));
        return true;
      }
      case 'issues/list-comments': {
        const n = Number(p.issue_number);
        if (!state?.pulls.has(n)) return (notFound(res), true);
        const since = req.query.get('since');
        const list = state.comments.filter((c) => c.issueNumber === n && (!since || c.updatedAt >= since));
        page(list.map((c) => commentJson(base, fullName, c)));
        return true;
      }
      case 'issues/create-comment': {
        const n = Number(p.issue_number);
        if (!state?.pulls.has(n)) return (notFound(res), true);
        const now = timestamp();
        const c: StandinComment = { id: nextCommentId++, issueNumber: n, body: body?.body ?? '', user: caller.login, createdAt: now, updatedAt: now };
        state.comments.push(c);
        json(res, 201, commentJson(base, fullName, c), { location: `${base}/repos/${fullName}/issues/comments/${c.id}` });
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
        json(res, 200, commentJson(base, fullName, c));
        return true;
      }
      default:
        return false;
    }
  };

  return {
    route,
    hasRepo: (fullName) => repos.has(fullName.toLowerCase()),
    resolveRef(fullName, ref) {
      const pulls = [...(repos.get(fullName.toLowerCase())?.pulls.values() ?? [])];
      const pr = /^refs\/pull\/(\d+)\/head$/.exec(ref);
      if (pr) return pulls.find((x) => x.number === Number(pr[1]))?.headSha;
      if (/^[0-9a-f]{40}$/i.test(ref)) return ref.toLowerCase();
      if (/^[0-9a-f]{7,39}$/i.test(ref)) return pulls.map((x) => x.headSha).find((sha) => sha.startsWith(ref.toLowerCase()));
      const branch = ref.replace(/^(?:refs\/)?heads\//, '');
      const head = pulls.filter((x) => !x.fork && x.headRef === branch).sort((a, b) => b.number - a.number)[0];
      if (head) return head.headSha;
      return pulls.some((x) => x.baseRef === branch) ? (links.tip(fullName, branch) ?? BASE_SHA) : undefined;
    },
    minimalAt(fullName, sha, base) {
      const [, repo = ''] = fullName.split('/');
      const repoRef = { id: 1296269, url: `${base}/repos/${fullName}`, name: repo };
      return [...(repos.get(fullName.toLowerCase())?.pulls.values() ?? [])]
        .filter((x) => x.state === 'open' && !x.fork && x.headSha === sha)
        .map((x) => ({
          id: 279147437 + x.number,
          number: x.number,
          url: `${base}/repos/${fullName}/pulls/${x.number}`,
          head: { ref: x.headRef, sha: x.headSha, repo: repoRef },
          base: { ref: x.baseRef, sha: links.tip(fullName, x.baseRef) ?? BASE_SHA, repo: repoRef },
        }));
    },
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
        mergeCommitSha: null,
        files: (spec.files ?? []).map(changeOf),
      };
      repoState(spec.repository ?? defaultRepo).pulls.set(pull.number, pull);
      return copy(pull);
    },
    setFiles(pr, files, repository) {
      pullOf(pr, repository).files = files.map(changeOf);
    },
    all: (fullName) => [...(repos.get(fullName.toLowerCase())?.pulls.values() ?? [])].map(copy),
    pull(pr, repository = defaultRepo) {
      const found = repos.get(repository.toLowerCase())?.pulls.get(pr);
      return found ? copy(found) : undefined;
    },
    setHead(pr, sha, repository) {
      const pull = pullOf(pr, repository);
      pull.headSha = sha;
      pull.updatedAt = timestamp();
    },
    closePull(pr, merged, repository, mergeCommitSha) {
      const pull = pullOf(pr, repository);
      const now = timestamp();
      pull.state = 'closed';
      pull.merged = merged;
      pull.closedAt = now;
      pull.mergedAt = merged ? now : null;
      pull.mergeCommitSha = merged ? (mergeCommitSha ?? shaOf(`merge ${pull.number} ${pull.headSha}`)) : null;
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
      return repoState(repository)
        .comments.filter((c) => c.issueNumber === pr)
        .map((c) => ({ ...c }));
    },
  };
}
