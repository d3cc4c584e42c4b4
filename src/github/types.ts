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

export interface GitHubApi {
  /** The PR, or undefined when GitHub answers 404. */
  getPull(number: number): Promise<PullRequestInfo | undefined>;
  /** Every comment of the PR's conversation, across all pages. */
  listComments(number: number): Promise<IssueComment[]>;
  createComment(number: number, body: string): Promise<IssueComment>;
  updateComment(commentId: number, body: string): Promise<IssueComment>;
}
