/** The part of GitHub's REST API the toolkit uses, so the code can be tested against a stand-in. */

export interface PullRequestInfo {
  number: number;
  state: 'open' | 'closed';
  merged: boolean;
  /** Current head commit of the PR. */
  headSha: string;
  headRef: string;
  baseRef: string;
  title: string;
  /** The head repository is a fork of the base repository. */
  fork: boolean;
  closedAt: string | null;
  updatedAt: string;
  htmlUrl: string;
}

export interface IssueComment {
  id: number;
  body: string;
  htmlUrl: string;
  /** Login of the author (the bot for our own comments). */
  author: string;
}

/** One annotation of a check run (GitHub takes 50 per request). */
export interface CheckAnnotation {
  path: string;
  startLine: number;
  endLine: number;
  startColumn?: number;
  level: 'failure' | 'warning' | 'notice';
  message: string;
  title?: string;
}

export interface CheckRunOutput {
  title: string;
  summary: string;
  annotations: CheckAnnotation[];
}

/** The files a change touches, and whether GitHub listed them all (it stops at 3000 for a pull request, 300 for a compare). */
export interface ChangedFiles {
  /** Paths relative to the repository; a rename gives both its old and its new path. */
  files: string[];
  /** Files as GitHub counts them (a rename once). */
  count: number;
  complete: boolean;
}

/** A check run on a commit, as the toolkit reads one back. */
export interface CheckRunInfo {
  name: string;
  status: string;
  conclusion: string | null;
  /** Slug of the app that made it (`github-actions` for GITHUB_TOKEN). */
  app: string;
}

/** An issue as the toolkit reads one back (a pull request, which GitHub lists among issues, never is one). */
export interface IssueInfo {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  /** Login of the author. */
  author: string;
  labels: string[];
  htmlUrl: string;
  createdAt: string;
}

export interface GitHubApi {
  /**
   * The login the token acts as (`github-actions[bot]`, an app's `<slug>[bot]`, a PAT's user), or
   * undefined when GitHub does not say: our comments are the ones it wrote.
   */
  login?(): Promise<string | undefined>;
  /** The PR, or undefined when GitHub answers 404. */
  getPull(number: number): Promise<PullRequestInfo | undefined>;
  /** Every comment of the PR's conversation, across all pages. */
  listComments(number: number): Promise<IssueComment[]>;
  createComment(number: number, body: string): Promise<IssueComment>;
  updateComment(commentId: number, body: string): Promise<IssueComment>;
  /** A completed check run on `headSha` with its first annotations (at most 50); returns its id and page. */
  createCheckRun(input: {
    name: string;
    headSha: string;
    conclusion: 'success' | 'failure' | 'neutral';
    output: CheckRunOutput;
    detailsUrl?: string;
  }): Promise<{ id: number; htmlUrl: string }>;
  /** Append annotations (at most 50) to a check run. */
  addCheckRunAnnotations(id: number, output: CheckRunOutput): Promise<void>;
  /**
   * A deployment of `ref` to an environment; returns its id. A preview's is transient; `production` marks a
   * production environment, and `payload` (JSON) is kept with it for a later job to read.
   */
  createDeployment(input: { ref: string; environment: string; description: string; payload?: Record<string, unknown>; production?: boolean }): Promise<number>;
  /** The newest deployment to `environment` (GitHub lists them newest first), with its payload; undefined when there is none. */
  latestDeployment(environment: string): Promise<{ id: number; ref: string; sha: string; payload: unknown; createdAt: string } | undefined>;
  createDeploymentStatus(
    id: number,
    input: { state: 'success' | 'inactive' | 'failure' | 'in_progress'; environmentUrl?: string; logUrl?: string; description?: string },
  ): Promise<void>;
  /** Ids of the deployments to `environment`. */
  listDeployments(environment: string): Promise<number[]>;
  /** The files a pull request changes against its base. */
  listPullFiles(number: number): Promise<ChangedFiles>;
  /** The files changed from `base` to `head` (the commits `git log base..head` lists). */
  compareFiles(base: string, head: string): Promise<ChangedFiles>;
  /** The latest check run of each name on `sha` named `name`. */
  listCheckRuns(sha: string, name: string): Promise<CheckRunInfo[]>;
  /** The repository's issues (pull requests left out) matching a label or a creator, open and closed, every page; newest first. */
  listIssues(filter: { label?: string; creator?: string }): Promise<IssueInfo[]>;
  createIssue(input: { title: string; body: string; labels: string[] }): Promise<IssueInfo>;
  /** Rewrite an issue's title and body; `state` opens or closes it; `labels` replaces its labels. */
  updateIssue(number: number, input: { title?: string; body?: string; state?: 'open' | 'closed'; labels?: string[] }): Promise<IssueInfo>;
  /** The repository has the commit (a SHA, or a prefix of 7 characters or more): GitHub answers 404 or 422 when not. */
  hasCommit(sha: string): Promise<boolean>;
}

/** GitHub's 403: the token may not do this (the job lacks a permission). Whoever writes decides whether the step goes on. */
export class GitHubRefused extends Error {
  readonly status = 403;
}
