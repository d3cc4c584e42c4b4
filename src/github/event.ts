/** The GitHub event that started the run, and the names the toolkit derives from it. */
import { readFileSync } from 'node:fs';
import { InputError } from '../client/errors.js';

export interface PullRequestEvent {
  action: string;
  number: number;
  headSha: string;
  headRef: string;
  baseRef: string;
  /** The base branch's commit the event names (`base.sha`): the key-queries file as production's side has it is read there. */
  baseSha?: string;
  title: string;
  merged: boolean;
  /** The merge commit GitHub made (`merge_commit_sha`), once merged. */
  mergeCommitSha?: string;
  /** The head repository is not the base repository (a fork): secrets are not available. */
  fork: boolean;
  htmlUrl: string;
  /** How many files the pull request changes, as the event says (`changed_files`); a file list is whole only when it has as many. */
  changedFiles?: number;
  /** Who opened it (`user.login`), e.g. `dependabot[bot]`. */
  author?: string;
}

/** A merge queue's group (a `merge_group` event): the commit to check, on top of `baseSha`. */
export interface MergeGroupEvent {
  /** The group's commit: the pull request's change on the base branch and every group ahead. */
  headSha: string;
  /** `refs/heads/gh-readonly-queue/<base>/pr-<n>-<sha>`. */
  headRef: string;
  /** Its parent: the base branch's tip or the head of the group ahead. */
  baseSha: string;
  /** `refs/heads/<base>`. */
  baseRef: string;
  /** The pull request the group was made for, read from `headRef`. */
  pr: number;
}

export interface RunContext {
  eventName: string | undefined;
  /** The PR of a pull_request / pull_request_target event. */
  pr: PullRequestEvent | undefined;
  /** The merge group of a merge_group event. */
  group?: MergeGroupEvent;
  repository: string | undefined;
  /** The commit the workflow runs on (`GITHUB_SHA`), when known. */
  sha?: string;
  runId: string | undefined;
  runUrl: string | undefined;
  apiUrl: string;
  /** `https://github.com/owner/repo` (GHES: its own host), when the repository is known. */
  repoUrl: string | undefined;
  /** The event's repository is public (anyone may read its pull requests); unknown counts as public. */
  repositoryPublic: boolean;
  /**
   * Dependabot started the run (`github.actor`, else the pull request's author): GitHub then gives it a
   * read-only token and no Actions secrets, only Dependabot's, also when someone else re-runs it.
   */
  dependabot: boolean;
}

/** The account Dependabot acts as. */
export const DEPENDABOT = 'dependabot[bot]';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined);

/** Read the PR out of a pull_request payload; anything malformed is an InputError naming the field. */
export function pullRequestFromPayload(payload: unknown, source = 'event payload'): PullRequestEvent {
  const p = obj(payload);
  const pr = obj(p?.pull_request);
  if (!p || !pr) throw new InputError(`${source}.pull_request`, p ? p.pull_request : payload, 'a pull_request object');
  const number = pr.number ?? p.number;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 1) {
    throw new InputError(`${source}.pull_request.number`, number, 'a positive integer');
  }
  const head = obj(pr.head);
  const base = obj(pr.base);
  const headSha = head?.sha;
  if (typeof headSha !== 'string' || !/^[0-9a-f]{7,64}$/i.test(headSha)) {
    throw new InputError(`${source}.pull_request.head.sha`, headSha, 'a commit SHA');
  }
  const headRepo = obj(head?.repo);
  const baseRepo = obj(base?.repo);
  const fork = !headRepo || (typeof headRepo.full_name === 'string' && typeof baseRepo?.full_name === 'string' && headRepo.full_name !== baseRepo.full_name);
  return {
    action: typeof p.action === 'string' ? p.action : '',
    number,
    headSha,
    headRef: typeof head?.ref === 'string' ? head.ref : '',
    baseRef: typeof base?.ref === 'string' ? base.ref : '',
    ...(typeof base?.sha === 'string' && /^[0-9a-f]{7,64}$/i.test(base.sha) ? { baseSha: base.sha } : {}),
    title: typeof pr.title === 'string' ? pr.title : '',
    merged: pr.merged === true,
    ...(typeof pr.merge_commit_sha === 'string' && /^[0-9a-f]{7,64}$/i.test(pr.merge_commit_sha) ? { mergeCommitSha: pr.merge_commit_sha } : {}),
    fork,
    htmlUrl: typeof pr.html_url === 'string' ? pr.html_url : '',
    ...(typeof pr.changed_files === 'number' && Number.isInteger(pr.changed_files) && pr.changed_files >= 0 ? { changedFiles: pr.changed_files } : {}),
    ...(typeof obj(pr.user)?.login === 'string' ? { author: obj(pr.user)!.login as string } : {}),
  };
}

const SHA = /^[0-9a-f]{40}$/i;
/** GitHub's queue branches: `gh-readonly-queue/<base branch>/pr-<number>-<sha>`. */
const QUEUE_REF = /^(?:refs\/heads\/)?gh-readonly-queue\/.+\/pr-([1-9]\d*)-[0-9a-f]{40}$/i;

/** Read the group out of a merge_group payload; anything malformed is an InputError naming the field. */
export function mergeGroupFromPayload(payload: unknown, source = 'event payload'): MergeGroupEvent {
  const group = obj(obj(payload)?.merge_group);
  if (!group) throw new InputError(`${source}.merge_group`, obj(payload)?.merge_group, 'a merge_group object');
  const field = (name: string, ok: (v: string) => boolean, expected: string): string => {
    const v = group[name];
    if (typeof v !== 'string' || !ok(v)) throw new InputError(`${source}.merge_group.${name}`, v, expected);
    return v;
  };
  const headRef = field('head_ref', (v) => QUEUE_REF.test(v), 'a merge queue ref, refs/heads/gh-readonly-queue/<base>/pr-<number>-<sha>');
  return {
    headSha: field('head_sha', (v) => SHA.test(v), 'a commit SHA').toLowerCase(),
    headRef,
    baseSha: field('base_sha', (v) => SHA.test(v), 'a commit SHA').toLowerCase(),
    baseRef: field('base_ref', (v) => v.startsWith('refs/heads/'), 'a branch ref, refs/heads/<name>'),
    pr: Number(QUEUE_REF.exec(headRef)?.[1]),
  };
}

/** The run's context from the GITHUB_* variables and the event file. */
export function readRunContext(env: NodeJS.ProcessEnv): RunContext {
  const eventName = env.GITHUB_EVENT_NAME;
  let pr: PullRequestEvent | undefined;
  let group: MergeGroupEvent | undefined;
  let payload: unknown;
  const read = (): unknown => {
    try {
      return JSON.parse(readFileSync(env.GITHUB_EVENT_PATH as string, 'utf8'));
    } catch (e) {
      throw new InputError('GITHUB_EVENT_PATH', env.GITHUB_EVENT_PATH, `a readable JSON event file (${(e as Error).message})`);
    }
  };
  if ((eventName === 'pull_request' || eventName === 'pull_request_target') && env.GITHUB_EVENT_PATH) {
    payload = read();
    pr = pullRequestFromPayload(payload);
  } else if (eventName === 'merge_group' && env.GITHUB_EVENT_PATH) {
    payload = read();
    group = mergeGroupFromPayload(payload);
  }
  const server = env.GITHUB_SERVER_URL ?? 'https://github.com';
  const runUrl = env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID ? `${server}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}` : undefined;
  return {
    eventName,
    pr,
    ...(group ? { group } : {}),
    repository: env.GITHUB_REPOSITORY,
    ...(env.GITHUB_SHA && /^[0-9a-f]{7,64}$/i.test(env.GITHUB_SHA) ? { sha: env.GITHUB_SHA } : {}),
    runId: env.GITHUB_RUN_ID,
    runUrl,
    apiUrl: env.GITHUB_API_URL ?? 'https://api.github.com',
    repoUrl: env.GITHUB_REPOSITORY ? `${server.replace(/\/+$/, '')}/${env.GITHUB_REPOSITORY}` : undefined,
    repositoryPublic: repositoryPublic(payload, eventName),
    dependabot: (env.GITHUB_ACTOR || pr?.author) === DEPENDABOT,
  };
}

/** Whether the event's repository is public: `private: false` or `visibility: public`; a run outside GitHub (no event) is not. */
function repositoryPublic(payload: unknown, eventName: string | undefined): boolean {
  const repo = obj(obj(payload)?.repository);
  if (repo?.private === true || repo?.visibility === 'private' || repo?.visibility === 'internal') return false;
  if (repo) return true;
  return eventName !== undefined;
}
