/**
 * A repository's issues: list (with GitHub's filters: state, labels, creator, sort, direction, since; pull
 * requests listed among them, as GitHub does, marked by `pull_request`), create, read and update (title,
 * body, state, labels). Issues and pull requests share one sequence of numbers. Labels a caller without
 * push access sets are dropped in silence when the stand-in is told GitHub does that to the token
 * (`labelsNeedPush`): GitHub's description says so of users, and is silent on an app's `issues: write`.
 */
import type { JsonObject } from './description.js';
import { json } from '../https-server.js';
import { pageOf } from './paging.js';
import { bodyOf, notFound, type Route } from './service.js';
import type { StandinPull } from './pulls.js';
import { simpleUser, timestamp } from './shapes.js';
import { access, type Caller } from './tokens.js';

export interface StandinIssue {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  stateReason: 'completed' | 'reopened' | 'not_planned' | null;
  labels: string[];
  /** Login of the author. */
  user: string;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
}

export interface IssueLinks {
  /** The repository's pull requests (their numbers are taken; GitHub lists them among issues). */
  pulls: (fullName: string) => StandinPull[];
  /** Labels set by a caller without `contents: write` are dropped, as GitHub's description says for users without push access. */
  labelsNeedPush: () => boolean;
}

export interface Issues {
  route: Route;
  hasRepo: (fullName: string) => boolean;
  /** Every issue of the repository, oldest first (copies). */
  issues: (repository?: string) => StandinIssue[];
  /** Add an issue as someone (default a human), e.g. one a person opened with the same label. */
  addIssue: (issue: { title: string; body?: string; labels?: string[]; user?: string; repository?: string }) => StandinIssue;
}

interface IssueBody {
  title: string | number | null;
  body: string | null;
  state: 'open' | 'closed';
  state_reason: StandinIssue['stateReason'] | 'duplicate';
  labels: (string | { name?: string })[];
}

const copy = (i: StandinIssue): StandinIssue => ({ ...i, labels: [...i.labels] });
const labelNames = (labels: IssueBody['labels'] | undefined) => [
  ...new Set((labels ?? []).map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter(Boolean)),
];

/** A stable positive id for a label name (GitHub's ids are per label). */
function labelId(name: string): number {
  let h = 7;
  for (const ch of name) h = (h * 31 + (ch.codePointAt(0) ?? 0)) % 1_000_000_007;
  return 208_045_946 + h;
}

export function createIssues(defaultRepo: string, links: IssueLinks): Issues {
  const repos = new Map<string, StandinIssue[]>();
  const listOf = (fullName: string): StandinIssue[] => {
    const key = fullName.toLowerCase();
    let list = repos.get(key);
    if (!list) repos.set(key, (list = []));
    return list;
  };
  const nextNumber = (fullName: string) => Math.max(0, ...listOf(fullName).map((i) => i.number), ...links.pulls(fullName).map((p) => p.number)) + 1;
  const mayLabel = (caller: Caller) => !links.labelsNeedPush() || access(caller.permissions, 'contents') === 'write';

  const issueJson = (base: string, fullName: string, i: StandinIssue, pull?: StandinPull): JsonObject => {
    const url = `${base}/repos/${fullName}/issues/${i.number}`;
    return {
      id: 1_800_000_000 + i.number,
      node_id: `I_kwDO${i.number}`,
      url,
      repository_url: `${base}/repos/${fullName}`,
      labels_url: `${url}/labels{/name}`,
      comments_url: `${url}/comments`,
      events_url: `${url}/events`,
      html_url: `https://github.com/${fullName}/${pull ? 'pull' : 'issues'}/${i.number}`,
      number: i.number,
      state: i.state,
      state_reason: i.stateReason,
      title: i.title,
      body: i.body,
      user: simpleUser(base, i.user),
      labels: i.labels.map((name) => ({
        id: labelId(name),
        node_id: `LA_kwDO${labelId(name)}`,
        url: `${base}/repos/${fullName}/labels/${encodeURIComponent(name)}`,
        name,
        description: null,
        color: 'ededed',
        default: false,
      })),
      assignee: null,
      assignees: [],
      milestone: null,
      locked: false,
      active_lock_reason: null,
      comments: 0,
      closed_at: i.closedAt,
      created_at: i.createdAt,
      updated_at: i.updatedAt,
      author_association: i.user.endsWith('[bot]') ? 'NONE' : 'CONTRIBUTOR',
      ...(pull
        ? {
            pull_request: {
              url: `${base}/repos/${fullName}/pulls/${i.number}`,
              html_url: `https://github.com/${fullName}/pull/${i.number}`,
              diff_url: `https://github.com/${fullName}/pull/${i.number}.diff`,
              patch_url: `https://github.com/${fullName}/pull/${i.number}.patch`,
              merged_at: pull.mergedAt,
            },
          }
        : {}),
    };
  };
  /** A pull request as GitHub lists it among issues. */
  const asIssue = (p: StandinPull): StandinIssue => ({
    number: p.number,
    title: p.title,
    body: '',
    state: p.state,
    stateReason: null,
    labels: [],
    user: p.user,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
    closedAt: p.closedAt,
  });

  const route: Route = ({ req, res, operationId, params: p, fullName, caller, base }) => {
    switch (operationId) {
      case 'issues/list-for-repo': {
        const q = req.query;
        const state = q.get('state') ?? 'open';
        const labels = (q.get('labels') ?? '')
          .split(',')
          .map((l) => l.trim())
          .filter(Boolean);
        const creator = q.get('creator')?.toLowerCase();
        const since = q.get('since');
        const sort = q.get('sort') ?? 'created';
        const pulls = new Map(links.pulls(fullName).map((x) => [x.number, x]));
        const all = [...listOf(fullName), ...[...pulls.values()].map(asIssue)]
          .filter((i) => state === 'all' || i.state === state)
          .filter((i) => labels.every((l) => i.labels.some((x) => x.toLowerCase() === l.toLowerCase())))
          .filter((i) => !creator || i.user.toLowerCase() === creator)
          .filter((i) => !since || i.updatedAt >= since)
          .sort((a, b) => {
            const key = sort === 'updated' ? 'updatedAt' : 'createdAt';
            return a[key] === b[key] ? a.number - b.number : a[key] < b[key] ? -1 : 1;
          });
        if ((q.get('direction') ?? 'desc') === 'desc') all.reverse();
        const { items, headers } = pageOf(req, base, all);
        json(
          res,
          200,
          items.map((i) => issueJson(base, fullName, i, pulls.get(i.number))),
          headers,
        );
        return true;
      }
      case 'issues/create': {
        const b = bodyOf<IssueBody>(req);
        const now = timestamp();
        const issue: StandinIssue = {
          number: nextNumber(fullName),
          title: String(b.title ?? ''),
          body: b.body ?? '',
          state: 'open',
          stateReason: null,
          labels: mayLabel(caller) ? labelNames(b.labels) : [],
          user: caller.login,
          createdAt: now,
          updatedAt: now,
          closedAt: null,
        };
        listOf(fullName).push(issue);
        json(res, 201, issueJson(base, fullName, issue), { location: `${base}/repos/${fullName}/issues/${issue.number}` });
        return true;
      }
      case 'issues/get':
      case 'issues/update': {
        const issue = listOf(fullName).find((i) => i.number === Number(p.issue_number));
        if (!issue) return (notFound(res), true);
        if (operationId === 'issues/update') {
          const b = bodyOf<IssueBody>(req);
          const now = timestamp();
          if (b.title !== undefined && b.title !== null) issue.title = String(b.title);
          if (b.body !== undefined) issue.body = b.body ?? '';
          if (b.labels !== undefined && mayLabel(caller)) issue.labels = labelNames(b.labels);
          if (b.state && b.state !== issue.state) {
            issue.state = b.state;
            issue.closedAt = b.state === 'closed' ? now : null;
            issue.stateReason = b.state === 'closed' ? (b.state_reason === 'not_planned' ? 'not_planned' : 'completed') : 'reopened';
          }
          issue.updatedAt = now;
        }
        json(res, 200, issueJson(base, fullName, issue));
        return true;
      }
      default:
        return false;
    }
  };

  return {
    route,
    hasRepo: (fullName) => repos.has(fullName.toLowerCase()),
    issues: (repository = defaultRepo) => listOf(repository).map(copy),
    addIssue(spec) {
      const repository = spec.repository ?? defaultRepo;
      const now = timestamp();
      const issue: StandinIssue = {
        number: nextNumber(repository),
        title: spec.title,
        body: spec.body ?? '',
        state: 'open',
        stateReason: null,
        labels: [...(spec.labels ?? [])],
        user: spec.user ?? 'octocat',
        createdAt: now,
        updatedAt: now,
        closedAt: null,
      };
      listOf(repository).push(issue);
      return copy(issue);
    },
  };
}
