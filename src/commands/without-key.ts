/**
 * A GitHub Actions run without the platform key. A fork's or Dependabot's pull request gets no secrets and
 * a read-only token: it is skipped with a warning and the job summary, and writes no check, so a required
 * "datamodel-ci / validation" stays pending. Any other run should have the key: it fails, and its
 * validation check says `failure`, naming the input and the secret; with `without-credentials: skip` it
 * ends with a notice and writes no check. No path writes `neutral` or `success` for work not done.
 */
import { InputError } from '../client/errors.js';
import type { CommandName } from '../action-spec.js';
import type { RunContext } from '../github/event.js';
import { unvalidatedCheck } from '../pr/check-run.js';
import { renderPreview } from '../pr/comment/render-preview.js';
import { CHECK_NAME, type PullRequestSide } from '../pr/pull-request.js';
import type { Reporter } from '../report/reporter.js';
import type { CredentialsPolicy } from '../settings.js';

/** Commands whose result is the `datamodel-ci / validation` check: a run of theirs without a key says so on it. */
const VALIDATING: CommandName[] = ['pr', 'validate'];

/** The secret the examples pass as `api-key`. */
const SECRET = 'PLATFORM_API_KEY';

/** Why this run cannot have the repository's secrets (a queue run always has them), or undefined. */
export function withoutSecrets(run: RunContext, hasKey: boolean): 'fork' | 'dependabot' | undefined {
  if (run.group) return undefined;
  if (run.pr?.fork) return 'fork';
  // With a key (a Dependabot secret of the same name) Dependabot's run goes on as any other.
  return !hasKey && run.dependabot ? 'dependabot' : undefined;
}

export interface KeylessRun {
  command: CommandName;
  run: RunContext;
  policy: CredentialsPolicy;
  reporter: Reporter;
  /** The run's validation check writers: one per model. */
  sides: () => PullRequestSide[];
}

/** Skip (0) or throw the InputError that fails the step, after writing what the user reads. */
export async function runWithoutKey(k: KeylessRun): Promise<0> {
  const { run, policy } = k;
  const untrusted = withoutSecrets(run, false);
  // A check goes only where the run validates: not on a pull request's close.
  const checks = VALIDATING.includes(k.command) && (run.group !== undefined || (run.pr !== undefined && run.pr.action !== 'closed'));
  if (untrusted) {
    const why = untrustedWhy(run, untrusted);
    if (policy.failUntrusted) throw new InputError('api-key', undefined, `an API key (${why}; fail-without-credentials is true)`);
    skipped(k, 'warning', untrusted === 'fork' ? 'fork PR' : 'Dependabot PR', `${nothing(k.command)}: ${why}. ${checks ? pendingCheck(untrusted) : ''}`.trim());
    return 0;
  }
  const setIt = `set the repository secret ${SECRET} (the examples' name; a misspelt or missing secret reads as empty) and pass it as api-key: \${{ secrets.${SECRET} }}`;
  if (run.group || policy.missing === 'fail') {
    const where = run.group
      ? `the input api-key is empty in the merge queue, which runs with the repository's secrets: a skip would let the queue merge pull request #${run.group.pr} with nothing validated`
      : `the input api-key is empty on a run that has the repository's secrets (not a fork's or Dependabot's pull request)`;
    if (checks) {
      const summary = `Nothing was validated: ${where}. To fix it, ${setIt}.${run.group ? '' : ' To skip such runs instead (no check is written then, so a required check stays pending), set without-credentials: skip.'}`;
      await Promise.all(k.sides().map((s) => unvalidatedCheck(s, 'No API key: the input api-key is empty', summary)));
    }
    throw new InputError('api-key', undefined, `an API key: ${where}; ${setIt}${run.group ? '' : ' (without-credentials: skip skips such runs instead)'}`);
  }
  const check = checks ? ` No "${CHECK_NAME}" check was written, so a required one stays pending: a skip never passes it.` : '';
  skipped(k, 'notice', 'no API key', `${nothing(k.command)}: the input api-key is empty and without-credentials is skip.${check} To run it, ${setIt}.`);
  return 0;
}

const nothing = (command: CommandName) => (VALIDATING.includes(command) ? 'Nothing was validated' : 'Nothing ran');

function untrustedWhy(run: RunContext, kind: 'fork' | 'dependabot'): string {
  const pr = run.pr ? `pull request #${run.pr.number}` : 'this run';
  return kind === 'fork'
    ? `${pr} comes from a fork, and GitHub gives a fork's workflow no secrets (no platform key) and a read-only token (no check)`
    : `${run.pr ? `${pr} was started by Dependabot` : 'Dependabot started this run'}, and GitHub gives Dependabot's workflows a read-only token and no Actions secrets, only Dependabot secrets (no platform key among them)`;
}

/** What a skipped pull request's required check does, and how a maintainer validates it. */
function pendingCheck(kind: 'fork' | 'dependabot'): string {
  const how =
    kind === 'fork'
      ? 'pushing its commits to a branch of this repository and opening a pull request from there (the check lands on the same commits, so this pull request shows it too)'
      : `pushing a commit to its branch (a re-run stays Dependabot's: GitHub keeps its limits), or by storing the key as a Dependabot secret named ${SECRET} too (Settings → Secrets and variables → Dependabot)`;
  return (
    `The required check "${CHECK_NAME}" stays pending, so it cannot merge on this run. A maintainer validates it by ${how}; ` +
    `a merge queue (examples/workflows/merge-queue.yml) then validates the merge commit with the repository's secrets before it lands. \`datamodel-ci validate\` checks it locally, without a check.`
  );
}

/** The skip's annotation and job summary; the step ends green. */
function skipped(k: KeylessRun, level: 'warning' | 'notice', as: string, what: string): void {
  if (level === 'warning') k.reporter.warning(what);
  else k.reporter.notice(what);
  const { run } = k;
  k.reporter.summary(
    renderPreview(
      {
        state: 'skipped',
        headSha: run.pr?.headSha ?? '',
        skipped: what,
        skippedAs: as,
        ...(run.runUrl ? { runUrl: run.runUrl } : {}),
        ...(run.repoUrl ? { repoUrl: run.repoUrl } : {}),
      },
      { target: 'summary' },
    ),
  );
}
