/**
 * A merge queue as GitHub runs one: each queued pull request becomes a merge group, a commit made on
 * top of the base branch and every group ahead of it, named by a temporary `gh-readonly-queue/…` branch;
 * required checks are read on that commit (success, neutral and skipped pass); a merged group moves the
 * base branch to its commit and closes its pull request as merged; a group that leaves the queue takes
 * the groups behind it along (GitHub rebuilds them).
 */
import { changeOf, shaOf, type Commits, type FileChange } from './commits.js';
import type { Pulls } from './pulls.js';

export type GroupState = 'queued' | 'merged' | 'dequeued' | 'invalidated';

export interface MergeGroup {
  /** The commit to check: the pull request's change on top of `baseSha`. */
  headSha: string;
  /** `refs/heads/gh-readonly-queue/<base>/pr-<number>-<pull head sha>`. */
  headRef: string;
  /** The parent: the base branch's tip, or the head of the group ahead. */
  baseSha: string;
  /** `refs/heads/<base>`. */
  baseRef: string;
  pr: number;
  state: GroupState;
  /** `owner/repo`. */
  repository: string;
}

export interface EnqueueOptions {
  /** The group's commit; default a made-up one. */
  headSha?: string;
  /** What the group's commit changes against its parent; default the pull request's files. */
  files?: (string | FileChange)[];
  repository?: string;
}

/** A required check as branch protection reads it on a commit: its latest run by name. */
export interface RequiredCheck {
  name: string;
  /** `missing` when no run of that name is on the commit. */
  state: 'missing' | 'pending' | 'completed';
  conclusion: string | null;
}

/** What branch protection makes of the required checks on a commit. */
export interface Verdict {
  /** `pass`: every required check completed with success, neutral or skipped; `fail`: one completed otherwise. */
  result: 'pass' | 'fail' | 'pending';
  checks: RequiredCheck[];
}

export interface QueueLinks {
  pulls: Pulls;
  commits: Commits;
  /** Latest check run of each name on a commit. */
  latestRuns: (fullName: string, sha: string) => { name: string; status: string; conclusion: string | null }[];
}

export interface Queue {
  enqueue: (pr: number, options?: EnqueueOptions) => MergeGroup;
  /** End a group: `merged` (it must be first in its queue), or `dequeued` (it and every group behind it leave). */
  finish: (headSha: string, reason: 'merged' | 'dequeued', repository?: string) => MergeGroup[];
  groups: (repository?: string) => MergeGroup[];
  /** A queued group's head for its `gh-readonly-queue/…` branch (the branch is gone once the group ends). */
  resolveRef: (fullName: string, ref: string) => string | undefined;
  verdict: (sha: string, required: string[], repository?: string) => Verdict;
}

/** Conclusions GitHub's branch protection counts as passing ("a successful, skipped, or neutral status"). */
export const PASSING = ['success', 'neutral', 'skipped'];

const QUEUE_REF = /^(?:refs\/heads\/)?(gh-readonly-queue\/.+\/pr-\d+-[0-9a-f]{40})$/;

export function createQueue(defaultRepo: string, links: QueueLinks): Queue {
  const all: MergeGroup[] = [];
  const of = (repository: string) => all.filter((g) => g.repository.toLowerCase() === repository.toLowerCase());
  const queued = (repository: string, baseRef: string) => of(repository).filter((g) => g.state === 'queued' && g.baseRef === baseRef);

  return {
    enqueue(pr, options = {}) {
      const repository = options.repository ?? defaultRepo;
      const pull = links.pulls.pull(pr, repository);
      if (!pull || pull.state !== 'open') throw new Error(`stand-in: pull #${pr} is not open in ${repository}`);
      if (of(repository).some((g) => g.state === 'queued' && g.pr === pr)) throw new Error(`stand-in: pull #${pr} is already queued`);
      const baseRef = `refs/heads/${pull.baseRef}`;
      const ahead = queued(repository, baseRef).at(-1);
      const baseSha = ahead?.headSha ?? links.commits.tip(repository, pull.baseRef) ?? links.pulls.resolveRef(repository, pull.baseRef) ?? '';
      const headSha = (options.headSha ?? shaOf(`merge group ${baseSha} ${pr} ${pull.headSha}`)).toLowerCase();
      const files = (options.files ?? pull.files).map(changeOf);
      links.commits.addCommit({ sha: headSha, parent: baseSha, files, message: `Merge pull request #${pr} from ${pull.headRef}`, repository });
      const group: MergeGroup = {
        headSha,
        headRef: `refs/heads/gh-readonly-queue/${pull.baseRef}/pr-${pr}-${pull.headSha}`,
        baseSha,
        baseRef,
        pr,
        state: 'queued',
        repository,
      };
      all.push(group);
      return { ...group };
    },
    finish(headSha, reason, repository = defaultRepo) {
      const group = of(repository).find((g) => g.headSha === headSha.toLowerCase() && g.state === 'queued');
      if (!group) throw new Error(`stand-in: no queued merge group at ${headSha}`);
      const line = queued(repository, group.baseRef);
      if (reason === 'merged') {
        if (line[0] !== group) throw new Error(`stand-in: the merge group of #${group.pr} is not first in its queue`);
        group.state = 'merged';
        links.commits.setTip(repository, group.baseRef.replace(/^refs\/heads\//, ''), group.headSha);
        links.pulls.closePull(group.pr, true, repository, group.headSha);
        return [{ ...group }];
      }
      const behind = line.slice(line.indexOf(group));
      for (const g of behind) g.state = g === group ? 'dequeued' : 'invalidated';
      return behind.map((g) => ({ ...g }));
    },
    groups: (repository = defaultRepo) => of(repository).map((g) => ({ ...g })),
    resolveRef(fullName, ref) {
      const name = QUEUE_REF.exec(ref)?.[1];
      return name ? of(fullName).find((g) => g.state === 'queued' && g.headRef === `refs/heads/${name}`)?.headSha : undefined;
    },
    verdict(sha, required, repository = defaultRepo) {
      const runs = links.latestRuns(repository, sha.toLowerCase());
      const checks: RequiredCheck[] = required.map((name) => {
        const run = runs.find((r) => r.name === name);
        if (!run) return { name, state: 'missing', conclusion: null };
        return { name, state: run.status === 'completed' ? 'completed' : 'pending', conclusion: run.conclusion };
      });
      const failed = checks.some((c) => c.state === 'completed' && !PASSING.includes(c.conclusion ?? ''));
      const done = checks.every((c) => c.state === 'completed');
      return { result: failed ? 'fail' : done ? 'pass' : 'pending', checks };
    },
  };
}
