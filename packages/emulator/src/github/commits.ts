/**
 * The repository's history as far as the stand-in needs it: commits with the files each one changed
 * (against its first parent), branch tips, and `compare/BASE...HEAD` over them.
 */
import { createHash } from 'node:crypto';
import type { JsonObject } from './description.js';
import { json } from '../https-server.js';
import { notFound, type Route } from './service.js';
import { simpleUser, timestamp } from './shapes.js';

/** The base branch's commit until something moves it (what every pull answers as `base.sha`). */
export const BASE_SHA = '0'.repeat(40);

/** GitHub's `compare` lists at most this many changed files, whatever the page. */
export const MAX_COMPARE_FILES = 300;

export type FileStatus = 'added' | 'removed' | 'modified' | 'renamed';

/** One file a commit or a pull request changed. */
export interface FileChange {
  filename: string;
  status: FileStatus;
  /** The old name of a renamed file. */
  previousFilename?: string;
}

export interface StandinCommit {
  sha: string;
  /** First parent first; none for a root commit. */
  parents: string[];
  message: string;
  /** What it changed against its first parent. */
  files: FileChange[];
  createdAt: string;
}

export interface NewCommit {
  sha: string;
  /** Default: the tip of `branch` when given, else none. */
  parent?: string;
  /** Paths (as `modified`) or changes. */
  files?: (string | FileChange)[];
  message?: string;
  /** Move this branch's tip to the new commit. */
  branch?: string;
  /** `owner/repo`; default the stand-in's repository. */
  repository?: string;
}

export interface CommitLinks {
  /** The commit any ref names (branches, queue refs, PR refs, SHAs), from every part of the stand-in. */
  resolveRef: (fullName: string, ref: string) => string | undefined;
}

export interface Commits {
  route: Route;
  hasRepo: (fullName: string) => boolean;
  addCommit: (commit: NewCommit) => StandinCommit;
  /** A branch's tip, once a commit was added to it or it was moved; undefined for one never seen. */
  tip: (fullName: string, branch: string) => string | undefined;
  setTip: (fullName: string, branch: string, sha: string) => void;
  commit: (fullName: string, sha: string) => StandinCommit | undefined;
}

/** `a/b.yml` or a change, as a change. */
export const changeOf = (f: string | FileChange): FileChange => (typeof f === 'string' ? { filename: f, status: 'modified' } : { ...f });

/** A stable made-up SHA for a text (new commits the stand-in makes itself, such as merge groups). */
export function shaOf(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** GitHub's `diff-entry` of one changed file at `head`. */
export function diffEntry(base: string, fullName: string, head: string, f: FileChange): JsonObject {
  const blob = shaOf(`${head}:${f.filename}`);
  const path = f.filename.split('/').map(encodeURIComponent).join('/');
  return {
    sha: blob,
    filename: f.filename,
    status: f.status,
    additions: f.status === 'removed' ? 0 : 1,
    deletions: f.status === 'added' ? 0 : 1,
    changes: f.status === 'added' || f.status === 'removed' ? 1 : 2,
    blob_url: `https://github.com/${fullName}/blob/${head}/${path}`,
    raw_url: `https://github.com/${fullName}/raw/${head}/${path}`,
    contents_url: `${base}/repos/${fullName}/contents/${path}?ref=${head}`,
    ...(f.previousFilename ? { previous_filename: f.previousFilename } : {}),
  };
}

interface RepoHistory {
  commits: Map<string, StandinCommit>;
  tips: Map<string, string>;
}

export function createCommits(defaultRepo: string, links: CommitLinks): Commits {
  const repos = new Map<string, RepoHistory>();
  const history = (fullName: string): RepoHistory => {
    const key = fullName.toLowerCase();
    let h = repos.get(key);
    if (!h) repos.set(key, (h = { commits: new Map(), tips: new Map() }));
    return h;
  };

  const commitJson = (base: string, fullName: string, c: StandinCommit): JsonObject => ({
    url: `${base}/repos/${fullName}/commits/${c.sha}`,
    sha: c.sha,
    node_id: `C_kwDO${c.sha.slice(0, 12)}`,
    html_url: `https://github.com/${fullName}/commit/${c.sha}`,
    comments_url: `${base}/repos/${fullName}/commits/${c.sha}/comments`,
    commit: {
      url: `${base}/repos/${fullName}/git/commits/${c.sha}`,
      author: { name: 'The Octocat', email: 'octocat@github.com', date: c.createdAt },
      committer: { name: 'GitHub', email: 'noreply@github.com', date: c.createdAt },
      message: c.message,
      comment_count: 0,
      tree: { sha: shaOf(`tree ${c.sha}`), url: `${base}/repos/${fullName}/git/trees/${shaOf(`tree ${c.sha}`)}` },
    },
    author: simpleUser(base, 'octocat'),
    committer: simpleUser(base, 'web-flow'),
    parents: c.parents.map((p) => ({ sha: p, url: `${base}/repos/${fullName}/commits/${p}`, html_url: `https://github.com/${fullName}/commit/${p}` })),
  });
  /** The commits after `baseSha` up to `headSha` along first parents, oldest first; undefined when base is not on that line. */
  const between = (h: RepoHistory, baseSha: string, headSha: string): StandinCommit[] | undefined => {
    const out: StandinCommit[] = [];
    let at: string | undefined = headSha;
    while (at && at !== baseSha) {
      const c = h.commits.get(at);
      if (!c) return undefined;
      out.unshift(c);
      at = c.parents[0];
    }
    return at === baseSha ? out : undefined;
  };

  /** A commit by its SHA, or a prefix of 7 characters or more that names one commit (as GitHub resolves them). */
  const bySha = (h: RepoHistory, ref: string): StandinCommit | undefined => {
    const want = ref.toLowerCase();
    if (!/^[0-9a-f]{7,40}$/.test(want)) return undefined;
    const hits = [...h.commits.values()].filter((c) => c.sha.startsWith(want));
    return hits.length === 1 ? hits[0] : undefined;
  };

  /** `GET /repos/{owner}/{repo}/commits/{ref}`: one commit with its files; 422 for a SHA the repository does not have. */
  const getCommit: Route = ({ res, params, fullName, base }) => {
    const h = repos.get(fullName.toLowerCase());
    const ref = params.ref ?? '';
    const resolved = links.resolveRef(fullName, ref);
    const c = h && ((resolved ? h.commits.get(resolved) : undefined) ?? bySha(h, ref));
    if (!c) {
      json(res, 422, {
        message: `No commit found for SHA: ${ref}`,
        documentation_url: 'https://docs.github.com/rest/commits/commits#get-a-commit',
        status: '422',
      });
      return true;
    }
    const files = c.files.map((f) => diffEntry(base, fullName, c.sha, f));
    const additions = files.reduce((n, f) => n + (f.additions as number), 0);
    const deletions = files.reduce((n, f) => n + (f.deletions as number), 0);
    json(res, 200, { ...commitJson(base, fullName, c), stats: { total: additions + deletions, additions, deletions }, files });
    return true;
  };

  const route: Route = (r) => {
    const { res, operationId, params, fullName, base } = r;
    if (operationId === 'repos/get-commit') return getCommit(r);
    if (operationId !== 'repos/compare-commits-with-basehead') return false;
    const m = /^(.+?)\.\.\.(.+)$/.exec(params.basehead ?? '');
    const baseSha = m ? links.resolveRef(fullName, m[1] as string) : undefined;
    const headSha = m ? links.resolveRef(fullName, m[2] as string) : undefined;
    const h = repos.get(fullName.toLowerCase());
    if (!m || !baseSha || !headSha || !h) return (notFound(res), true);
    const list = between(h, baseSha, headSha);
    if (!list) {
      json(res, 404, {
        message: `No common ancestor between ${m[1]} and ${m[2]}.`,
        documentation_url: 'https://docs.github.com/rest/commits/commits#compare-two-commits',
        status: '404',
      });
      return true;
    }
    // Every change of the range, the last one of each path winning; GitHub stops listing files at 300.
    const files = new Map<string, FileChange>();
    for (const c of list) for (const f of c.files) files.set(f.filename, f);
    const baseCommit = h.commits.get(baseSha) ?? { sha: baseSha, parents: [], message: 'base', files: [], createdAt: timestamp() };
    const compareUrl = `https://github.com/${fullName}/compare/${m[1]}...${m[2]}`;
    json(res, 200, {
      url: `${base}/repos/${fullName}/compare/${m[1]}...${m[2]}`,
      html_url: compareUrl,
      permalink_url: `https://github.com/${fullName}/compare/${baseSha.slice(0, 7)}...${headSha.slice(0, 7)}`,
      diff_url: `${compareUrl}.diff`,
      patch_url: `${compareUrl}.patch`,
      base_commit: commitJson(base, fullName, baseCommit),
      merge_base_commit: commitJson(base, fullName, baseCommit),
      status: list.length ? 'ahead' : 'identical',
      ahead_by: list.length,
      behind_by: 0,
      total_commits: list.length,
      commits: list.map((c) => commitJson(base, fullName, c)),
      files: [...files.values()].slice(0, MAX_COMPARE_FILES).map((f) => diffEntry(base, fullName, headSha, f)),
    });
    return true;
  };

  return {
    route,
    hasRepo: (fullName) => repos.has(fullName.toLowerCase()),
    addCommit(spec) {
      const fullName = spec.repository ?? defaultRepo;
      const h = history(fullName);
      const parent = spec.parent ?? (spec.branch ? (h.tips.get(spec.branch) ?? BASE_SHA) : undefined);
      const commit: StandinCommit = {
        sha: spec.sha.toLowerCase(),
        parents: parent ? [parent.toLowerCase()] : [],
        message: spec.message ?? `Commit ${spec.sha.slice(0, 7)}`,
        files: (spec.files ?? []).map(changeOf),
        createdAt: timestamp(),
      };
      h.commits.set(commit.sha, commit);
      if (spec.branch) h.tips.set(spec.branch, commit.sha);
      return { ...commit, files: commit.files.map((f) => ({ ...f })) };
    },
    tip: (fullName, branch) => repos.get(fullName.toLowerCase())?.tips.get(branch),
    setTip: (fullName, branch, sha) => void history(fullName).tips.set(branch, sha.toLowerCase()),
    commit: (fullName, sha) => repos.get(fullName.toLowerCase())?.commits.get(sha.toLowerCase()),
  };
}
