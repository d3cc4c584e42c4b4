/**
 * Which model folders a change touches, from GitHub's own list of changed files: a pull request's
 * (`pulls/list-files`), or a merge queue group's against its parent (`compare`). A list is trusted only
 * when it is whole: under GitHub's caps, and for a pull request as long as the event's `changed_files`
 * says. Anything else (no token, a refusal, a cut list) counts every model as touched.
 */
import { messageOf } from '../client/errors.js';
import { GitHubRefused } from '../github/types.js';
import type { PullRequestSide } from './pull-request.js';
import { underFolder } from '../deployments-input.js';

/** The changed paths, or why they are not known (every model then counts as touched). */
export type Changes = { known: true; files: string[] } | { known: false; why: string };

export async function changesOf(side: PullRequestSide): Promise<Changes> {
  const { pr, group } = side.event;
  const github = side.github;
  if (!github) return { known: false, why: 'no github-token to list the changed files' };
  try {
    if (group) {
      const c = await github.compareFiles(group.baseSha, group.headSha);
      return c.complete ? { known: true, files: c.files } : { known: false, why: `GitHub lists at most ${c.count} changed files of a compare` };
    }
    if (!pr) return { known: false, why: 'no pull request' };
    const c = await github.listPullFiles(pr.number);
    if (!c.complete) return { known: false, why: `GitHub lists at most ${c.count} files of a pull request` };
    // The event's count and the list disagree: a push in between, or a list cut short.
    if (pr.changedFiles !== c.count)
      return { known: false, why: `the pull request changes ${pr.changedFiles ?? 'an unknown number of'} files, GitHub listed ${c.count}` };
    return { known: true, files: c.files };
  } catch (e) {
    const why = e instanceof GitHubRefused ? 'the token may not read the changed files (grant `pull-requests: read` and `contents: read`)' : messageOf(e);
    return { known: false, why };
  }
}

/** The change the models are weighed against: none with `preview-untouched`; an unknown one is logged (every model is `done`). */
export async function changesUnlessAll(side: PullRequestSide, previewUntouched: boolean, done: 'previewed' | 'checked'): Promise<Changes> {
  const changes: Changes = previewUntouched ? { known: false, why: 'preview-untouched is true' } : await changesOf(side);
  if (!changes.known) side.reporter.info(`every model is ${done}: ${changes.why}`);
  return changes;
}

/** Whether the change touches the folder; an unknown change touches everything. */
export function touches(changes: Changes, folder: string): boolean {
  return !changes.known || changes.files.some((f) => underFolder(f, folder));
}
