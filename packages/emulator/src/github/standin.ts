/**
 * A small stateful GitHub REST stand-in over real HTTPS: pulls and issue comments, issues, check runs,
 * deployments and the caller's identity. Every request is checked against GitHub's published REST description
 * (operation, path/query parameters, JSON body) and against the token's permissions.
 */
import type { ServerResponse } from 'node:http';
import { checkRunMessage, checkRunRules, createChecks, type NewCheckRun, type StandinCheckRun } from './checks.js';
import { createCommits, type FileChange, type NewCommit, type StandinCommit } from './commits.js';
import { createDeployments, deploymentRules, type StandinDeployment } from './deployments.js';
import { createIssues, type StandinIssue } from './issues.js';
import { githubDescription, type Json } from './description.js';
import { json, startTestServer, type RecordedRequest } from '../https-server.js';
import { createPulls, MAX_COMMENT_BODY, type NewPull, type StandinComment, type StandinPull } from './pulls.js';
import { createQueue, type EnqueueOptions, type MergeGroup, type Verdict } from './queue.js';
import type { Exchange } from './service.js';
import { publicUser } from './shapes.js';
import { createTokens, type Permissions, type TokenSpec } from './tokens.js';

export { BOT_LOGIN } from './shapes.js';
export type { NewPull, StandinComment, StandinPull } from './pulls.js';
export type { FileChange, FileStatus, NewCommit, StandinCommit } from './commits.js';
export type { EnqueueOptions, GroupState, MergeGroup, RequiredCheck, Verdict } from './queue.js';
export type { CheckConclusion, CheckStatus, NewCheckRun, StandinAnnotation, StandinCheckRun } from './checks.js';
export type { DeploymentState, StandinDeployment, StandinDeploymentStatus } from './deployments.js';
export type { StandinIssue } from './issues.js';
export type { Access, Permissions, Scope, TokenSpec } from './tokens.js';

export interface Violation {
  method: string;
  url: string;
  operationId?: string;
  errors: string[];
}

export interface StandinOptions {
  /** Default `owner/repo`. */
  repository?: string;
  /** GITHUB_TOKEN's permissions, as a workflow's `permissions:` gives them; default `write-all`. */
  permissions?: Permissions;
  /**
   * Drop the labels a token without `contents: write` sets on an issue, in silence: GitHub's description
   * says it does so for users without push access, and says nothing of an app token's `issues: write`.
   */
  labelsNeedPush?: boolean;
}

export interface GitHubStandin {
  /** API root to give Octokit as `baseUrl`. */
  url: string;
  /** PEM of the CA that signed the server certificate. */
  ca: string;
  /** Default `owner/repo`. */
  repository: string;
  requests: RecordedRequest[];
  /** Requests GitHub would have rejected as malformed; tests assert it stays empty. */
  violations: Violation[];
  addPull(pull: NewPull): StandinPull;
  setHead(pr: number, sha: string, repository?: string): void;
  /** What the pull request changes (`pulls/list-files`): paths (as `modified`) or changes. */
  setFiles(pr: number, files: (string | FileChange)[], repository?: string): void;
  /** Close a pull; a merge records a merge commit (`merge_commit_sha`). */
  closePull(pr: number, merged: boolean, repository?: string): void;
  /** A pull's state (a copy), or undefined. */
  pull(pr: number, repository?: string): StandinPull | undefined;
  /** Add a commit (its parent, the files it changed), optionally moving a branch to it. */
  addCommit(commit: NewCommit): StandinCommit;
  /** Queue a pull request: a merge group on top of the base branch and every group ahead (GitHub's merge queue). */
  enqueue(pr: number, options?: EnqueueOptions): MergeGroup;
  /** End a merge group: `merged` moves the base branch and merges the pull; `dequeued` also invalidates the groups behind it. */
  finishGroup(headSha: string, reason: 'merged' | 'dequeued', repository?: string): MergeGroup[];
  /** Every merge group of the repository, oldest first (copies). */
  mergeGroups(repository?: string): MergeGroup[];
  /** What branch protection makes of `required` check names on a commit (success, neutral and skipped pass). */
  verdict(sha: string, required: string[], repository?: string): Verdict;
  /** Add a comment as someone (default a human), e.g. to fill pages. */
  addComment(pr: number, body: string, user?: string, repository?: string): StandinComment;
  /** The PR's comments, oldest first (copies). */
  comments(pr: number, repository?: string): StandinComment[];
  /** Register a token: a PAT (`{ kind: 'pat', login }`) or another installation token. Unknown tokens act as GITHUB_TOKEN. */
  addToken(token: string, spec: TokenSpec): void;
  /** Change a registered token's permissions, or (no token) GITHUB_TOKEN's. */
  setPermissions(permissions: Permissions, token?: string): void;
  /** Add a check run made by someone else (another workflow or app), e.g. a CI job still running. */
  addCheckRun(run: NewCheckRun): StandinCheckRun;
  /** The repository's check runs, oldest first, with every annotation (copies). */
  checkRuns(repository?: string): StandinCheckRun[];
  /** The repository's deployments, oldest first, each with its statuses oldest first (copies). */
  deployments(repository?: string): StandinDeployment[];
  /** The repository's issues, oldest first (copies; pull requests not among them). */
  issues(repository?: string): StandinIssue[];
  /** Add an issue as someone (default a human). */
  addIssue(issue: { title: string; body?: string; labels?: string[]; user?: string; repository?: string }): StandinIssue;
  close(): Promise<void>;
}

/** Rules GitHub enforces that its description does not state. */
function extraRules(operationId: string, body: unknown): string[] {
  const errors = [...checkRunRules(operationId, body), ...deploymentRules(operationId, body)];
  // GitHub: "Body is too long (maximum is 65536 characters)".
  const text = (body as { body?: unknown } | undefined)?.body;
  if (typeof text === 'string' && text.length > MAX_COMMENT_BODY) errors.push(`body is too long (maximum is ${MAX_COMMENT_BODY} characters)`);
  return errors;
}

/** Start the stand-in (one HTTPS server on 127.0.0.1, port 0). */
export async function startGitHubStandin(options: StandinOptions = {}): Promise<GitHubStandin> {
  const description = githubDescription();
  const defaultRepo = options.repository ?? 'Codertocat/Hello-World';
  const violations: Violation[] = [];
  const tokens = createTokens(options.permissions ?? 'write-all');
  const knownRepo = (fullName: string): boolean =>
    fullName.toLowerCase() === defaultRepo.toLowerCase() ||
    pulls.hasRepo(fullName) ||
    checks.hasRepo(fullName) ||
    deployments.hasRepo(fullName) ||
    issues.hasRepo(fullName) ||
    commits.hasRepo(fullName);
  // A ref names a queued merge group's branch, a branch that has moved, or what the pulls know.
  const resolveRef = (fullName: string, ref: string): string | undefined =>
    queue.resolveRef(fullName, ref) ?? commits.tip(fullName, ref.replace(/^(?:refs\/)?heads\//, '')) ?? pulls.resolveRef(fullName, ref);
  const commits = createCommits(defaultRepo, { resolveRef: (fullName, ref) => resolveRef(fullName, ref) });
  const pulls = createPulls(defaultRepo, { tip: commits.tip });
  const checks = createChecks(defaultRepo, { knownRepo, resolveRef, minimalAt: pulls.minimalAt });
  const deployments = createDeployments(defaultRepo, { knownRepo, resolveRef, contexts: checks.contexts });
  const queue = createQueue(defaultRepo, { pulls, commits, latestRuns: checks.latestRuns });
  const issues = createIssues(defaultRepo, { pulls: pulls.all, labelsNeedPush: () => options.labelsNeedPush === true });
  const routes = [pulls.route, checks.route, deployments.route, commits.route, issues.route];

  const record = (req: RecordedRequest, errors: string[], operationId?: string): void => {
    violations.push({ method: req.method, url: req.url, ...(operationId ? { operationId } : {}), errors });
  };
  const refuse = (req: RecordedRequest, res: ServerResponse, status: number, errors: string[], operationId?: string): void => {
    // The Checks API words its 422s its own way ("Invalid request.") and lists no errors.
    const checksWording = status === 422 && operationId ? checkRunMessage(operationId, req.json, errors) : undefined;
    const message = checksWording ?? (status === 422 ? 'Validation Failed' : 'Not Found');
    const body: Record<string, Json> = { message };
    if (checksWording === undefined) {
      body.errors = errors.map((m) => ({ resource: operationId ?? 'request', code: 'invalid', message: m }));
    }
    json(res, status, { ...body, documentation_url: 'https://docs.github.com/rest', status: String(status) });
  };

  const server = await startTestServer((req, res) => {
    // GraphQL is not in the REST description: the one query the toolkit asks, who the token is.
    if (req.method === 'POST' && /\/graphql$/.test(req.path)) {
      const raw = (req.json as { query?: unknown } | undefined)?.query;
      const query = typeof raw === 'string' ? raw : '';
      if (/^\s*(query\s*)?\{\s*viewer\s*\{\s*login\s*\}\s*\}\s*$/.test(query)) return json(res, 200, { data: { viewer: { login: tokens.caller(req).login } } });
      record(req, [`graphql: the stand-in answers only { viewer { login } }, got ${query.slice(0, 80)}`]);
      return json(res, 200, { errors: [{ message: 'the stand-in answers only { viewer { login } }' }] });
    }
    const { operation, errors } = description.check(req);
    if (!operation) {
      record(req, errors);
      return refuse(req, res, 404, errors);
    }
    const operationId = operation.operationId;
    errors.push(...extraRules(operationId, req.json));
    if (errors.length) record(req, errors, operationId);
    // GitHub refuses a token before it looks at the body: a read-only token gets 403 whatever it sent.
    const caller = tokens.caller(req);
    if (tokens.refuse(res, operationId, caller)) return;
    if (errors.length) return refuse(req, res, 422, errors, operationId);
    const found = description.find(req.method, req.path);
    if (!found) return refuse(req, res, 404, [`${req.method} ${req.path}: no such operation`]);
    const p = found.path;
    const exchange: Exchange = {
      req,
      res,
      operationId,
      params: p,
      fullName: `${p.owner}/${p.repo}`,
      caller,
      base: server.baseUrl,
    };
    if (operationId === 'users/get-authenticated') return json(res, 200, publicUser(server.baseUrl, caller.login));
    if (routes.some((route) => route(exchange))) return;
    record(req, [`${operationId} is not implemented by the stand-in`], operationId);
    refuse(req, res, 501, [`${operationId} is not implemented by the stand-in`], operationId);
  });

  return {
    url: server.baseUrl,
    ca: server.ca,
    repository: defaultRepo,
    requests: server.requests,
    violations,
    addPull: pulls.addPull,
    setHead: pulls.setHead,
    setFiles: pulls.setFiles,
    closePull: (pr, merged, repository) => pulls.closePull(pr, merged, repository),
    pull: pulls.pull,
    addCommit: commits.addCommit,
    enqueue: queue.enqueue,
    finishGroup: queue.finish,
    mergeGroups: queue.groups,
    verdict: queue.verdict,
    addComment: pulls.addComment,
    comments: pulls.comments,
    addToken: (token, spec) => tokens.add(token, spec),
    setPermissions: (permissions, token) => tokens.setPermissions(permissions, token),
    addCheckRun: checks.addCheckRun,
    checkRuns: checks.checkRuns,
    deployments: deployments.deployments,
    issues: issues.issues,
    addIssue: issues.addIssue,
    close: () => server.close(),
  };
}
