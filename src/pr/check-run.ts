/**
 * The checks a run writes on the PR's head, when the token may write checks. Validation errors are
 * pinned to lines: a check run "datamodel-ci / validation" with every annotation (GitHub takes 50 per
 * request); else the step's workflow commands, of which GitHub shows 10 per step, with a note of how
 * many were not shown. Beside it, a check per facet of the review (./facet-checks.ts decides them).
 */
import { messageOf } from '../client/errors.js';
import { compilerLine } from '../model/compiler-text.js';
import { GitHubRefused, type CheckAnnotation, type GitHubApi } from '../github/types.js';
import type { AcceptedBuild } from '../operations/evidence.js';
import { errorNotes, type ModelError } from '../operations/validate.js';
import type { PullRequestSide } from './pull-request.js';
import { changesOf } from './changed-files.js';
import type { Facet, FacetCheck } from './facet-checks.js';
import { plural } from '../report/plural.js';
import type { AgentsCheck, AgentsFinding } from '../model/agents/index.js';
import { reportAgentsFindings } from './present-agents.js';

/** Annotations GitHub takes in one check-run request. */
const PER_REQUEST = 50;
/** Error annotations GitHub shows for one step from workflow commands. */
const PER_STEP = 10;

/**
 * An annotation's text, and the terminal's line: the platform's message as the one rewriter words it
 * (src/model/compiler-text.ts; the comment shows the same), then what the model files add and the files
 * its echoes are on, a line each.
 */
export const annotationText = (e: ModelError) => [compilerLine(e.message), ...errorNotes(e)].join('\n');

/** Echoes folded under the root causes (never annotations of their own). */
const echoCount = (errors: ModelError[]) => errors.reduce((n, e) => n + (e.echoes?.length ?? 0), 0);

/** What a check is written from: the verdict, and the build the door accepted as the push's (none: no verdict on it). */
export interface CheckVerdict {
  branch: string;
  valid: boolean;
  accepted?: AcceptedBuild;
}

/**
 * Pin the root causes (their echoes are folded into their text): a check run when possible, else workflow
 * commands. The check passes only on a valid model whose build the door accepted as the push's;
 * `unproven` (or no accepted build) makes it a failure that says why.
 */
export async function annotate(side: PullRequestSide, errors: ModelError[], result: CheckVerdict, unproven?: string, agents?: AgentsCheck): Promise<void> {
  const placed = errors.filter((e): e is ModelError & { file: string; line: number } => !!e.file && !!e.line);
  const why = unproven ?? (result.valid && !result.accepted ? `${result.branch} compiles, but its build was not shown to be this push's` : undefined);
  const findings = agents?.findings ?? [];
  if (
    await writeCheck(side, 'no check run (the token may not write checks)', (github, head) =>
      checkRun(side, github, head, errors, placed, result, why, findings, agents?.folder.folder),
    )
  )
    return;
  const inActions = side.event.runId !== undefined;
  const shown = inActions ? errors.slice(0, PER_STEP) : errors;
  for (const e of shown) side.reporter.error(annotationText(e), { file: e.file, line: e.line, ...(e.column ? { column: e.column } : {}), title: 'data model' });
  // The agents' findings after the model's errors: GitHub shows the first ten a step writes.
  reportAgentsFindings(side.reporter, findings.slice(0, inActions ? Math.max(0, PER_STEP - shown.length) : findings.length));
  if (shown.length < errors.length) {
    side.reporter.warning(
      `${plural(errors.length - shown.length, 'more error')} ${errors.length - shown.length === 1 ? 'is' : 'are'} not shown as annotations (GitHub shows ${PER_STEP} per step); every error is in the job summary. Grant the job \`checks: write\` to get them all as annotations of the "${side.checkName}" check.`,
    );
  }
}

/**
 * Write a check on the run's head, when there is a token and it is no dry run; false when it was not
 * written. A refusal (the token may not write checks) is the debug line `refused: why`; else a warning.
 */
async function writeCheck(
  side: PullRequestSide,
  refused: string,
  write: (github: GitHubApi, head: string) => Promise<void>,
  name = side.checkName,
): Promise<boolean> {
  const head = side.headSha;
  if (!side.github || !head || side.settings.dryRun) return false;
  try {
    await write(side.github, head);
    return true;
  } catch (e) {
    if (e instanceof GitHubRefused) side.reporter.debug(`${refused}: ${messageOf(e)}`);
    else side.reporter.warning(`could not publish the "${name}" check: ${messageOf(e)}`);
    return false;
  }
}

/** A completed check run with every annotation: the first 50 with it, the rest appended 50 per request. */
async function completedCheck(
  side: PullRequestSide,
  github: GitHubApi,
  check: { name: string; headSha: string; conclusion: 'success' | 'neutral' | 'failure'; title: string; summary: string; annotations: CheckAnnotation[] },
): Promise<void> {
  const { name, headSha, conclusion, title, summary, annotations } = check;
  const run = await github.createCheckRun({
    name,
    headSha,
    conclusion,
    output: { title, summary, annotations: annotations.slice(0, PER_REQUEST) },
    detailsUrl: side.event.runUrl,
  });
  for (let i = PER_REQUEST; i < annotations.length; i += PER_REQUEST) {
    await github.addCheckRunAnnotations(run.id, { title, summary, annotations: annotations.slice(i, i + PER_REQUEST) });
  }
  if (annotations.length)
    side.reporter.info(`published ${plural(annotations.length, 'annotation')} on the check "${name}"${run.htmlUrl ? `: ${run.htmlUrl}` : ''}`);
}

/** The check run with every annotation (the caller falls back to workflow commands when it is not written). */
async function checkRun(
  side: PullRequestSide,
  github: GitHubApi,
  head: string,
  errors: ModelError[],
  placed: (ModelError & { file: string; line: number })[],
  r: CheckVerdict,
  unproven: string | undefined,
  findings: readonly AgentsFinding[] = [],
  folder = 'agents',
): Promise<void> {
  const agentNotes: CheckAnnotation[] = findings.map((f) => ({
    path: f.file,
    startLine: f.line,
    endLine: f.line,
    level: f.level === 'error' ? 'failure' : 'warning',
    message: f.message.slice(0, 64_000),
    title: 'agents',
  }));
  const agentErrors = findings.filter((f) => f.level === 'error').length;
  const modelNotes: CheckAnnotation[] = placed.map((e) => ({
    path: e.file,
    startLine: e.line,
    endLine: e.line,
    ...(e.column ? { startColumn: e.column } : {}),
    level: 'failure',
    message: annotationText(e).slice(0, 64_000),
    title: 'data model',
  }));
  const annotations = [...modelNotes, ...agentNotes];
  const compiles = r.valid && !!r.accepted && !unproven;
  // The agents' errors fail the check too: an agent that lists a view the model lost breaks on merge.
  const passes = compiles && !agentErrors;
  const agentsLine = findings.length
    ? ` The ${folder}/ folder: ${plural(agentErrors, 'error')}${findings.length > agentErrors ? `, ${plural(findings.length - agentErrors, 'warning')}` : ''}, annotated on their lines.`
    : '';
  const title = compiles
    ? agentErrors
      ? `${r.branch}: ${plural(agentErrors, 'error')} in ${folder}/`
      : `${r.branch}: valid`
    : r.valid
      ? `${r.branch}: not proven`
      : `${r.branch}: ${plural(errors.length, 'error')}`;
  const echoes = echoCount(errors);
  const folded = echoes
    ? ` ${plural(echoes, 'more error')} only ${echoes === 1 ? 'echoes' : 'echo'} them (a cube or view that depends on a failed one) and ${echoes === 1 ? 'is' : 'are'} named under ${errors.length === 1 ? 'it' : 'the error it echoes'}.`
    : '';
  const summary =
    (compiles
      ? `The data model compiles on the platform (its build proven this push's by ${r.accepted!.proof}).`
      : r.valid
        ? `Not proven: ${unproven}.`
        : `${plural(errors.length, 'error')} from the platform's compiler; ${placed.length} placed on a line.${placed.length < errors.length ? ' The others are in the job summary.' : ''}${folded}`) +
    agentsLine;
  await completedCheck(side, github, { name: side.checkName, headSha: head, conclusion: passes ? 'success' : 'failure', title, summary, annotations });
}

/**
 * A model the change does not touch: the check `neutral` with the reason as its title. Branch protection
 * lets neutral pass, and rightly here: the merge leaves the model's folder as the base branch holds it,
 * which its own gate validated (docs/security.md#what-the-check-says). Never `success`: nothing ran.
 * The same for each facet the run would have checked (`facets`): the change leaves the model as it is, so
 * it breaks, moves, exposes and costs nothing; a required facet check then does not wait forever.
 */
export async function untouchedCheck(side: PullRequestSide, title: string, summary: string, facets: readonly Facet[] = []): Promise<void> {
  await Promise.all([plainCheck(side, 'neutral', title, summary), ...facets.map((f) => plainCheck(side, 'neutral', title, summary, side.checkNameOf(f)))]);
}

/**
 * The facet checks of one run (./facet-checks.ts). The impact's annotations on files the pull request
 * changes go first, and its summary says how many there are: GitHub shows an annotation in "Files
 * changed" only on a line of the diff; the check's own page shows them all.
 */
export async function writeFacetChecks(side: PullRequestSide, checks: FacetCheck[]): Promise<void> {
  const impact = checks.find((c) => c.facet === 'impact');
  if (impact?.annotations.length && side.github && side.headSha && !side.settings.dryRun) {
    const changes = await changesOf(side);
    if (changes.known) {
      const changed = new Set(changes.files);
      const inDiff = impact.annotations.filter((a) => changed.has(a.path));
      impact.annotations = [...inDiff, ...impact.annotations.filter((a) => !changed.has(a.path))];
      impact.summary += `\n\n${plural(inDiff.length, 'annotated line is', 'annotated lines are')} in files this pull request changes (GitHub shows an annotation in "Files changed" only on a line of the diff; this page shows them all).`;
    }
  }
  await Promise.all(
    checks.map((c) => {
      const name = side.checkNameOf(c.facet);
      return writeCheck(
        side,
        `no "${name}" check (the token may not write checks)`,
        (github, headSha) => completedCheck(side, github, { ...c, name, headSha }),
        name,
      );
    }),
  );
}

/** A run that should have validated and could not (no API key): the check `failure`, the reason as its title. */
export async function unvalidatedCheck(side: PullRequestSide, title: string, summary: string): Promise<void> {
  await plainCheck(side, 'failure', title, summary);
}

/** A check without annotations; nothing when the token may not write checks (a fork's, Dependabot's) or in a dry run. */
async function plainCheck(side: PullRequestSide, conclusion: 'neutral' | 'failure', title: string, summary: string, name = side.checkName): Promise<void> {
  await writeCheck(
    side,
    `no "${name}" check (the token may not write checks)`,
    async (github, headSha) => {
      await github.createCheckRun({ name, headSha, conclusion, output: { title, summary, annotations: [] }, detailsUrl: side.event.runUrl });
    },
    name,
  );
}

/** The merge commit, when a merge queue validated it (the check passed on it): the close says so. */
export async function validatedInQueue(side: PullRequestSide, mergeCommitSha: string | undefined): Promise<string | undefined> {
  if (!side.github || !mergeCommitSha) return undefined;
  try {
    const runs = await side.github.listCheckRuns(mergeCommitSha, side.checkName);
    return runs.some((r) => r.status === 'completed' && r.conclusion === 'success') ? mergeCommitSha : undefined;
  } catch (e) {
    side.reporter.debug(`could not read the checks of the merge commit ${mergeCommitSha}: ${messageOf(e)}`);
    return undefined;
  }
}
