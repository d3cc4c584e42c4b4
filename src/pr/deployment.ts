/**
 * A GitHub deployment per PR, so the PR shows "View deployment": environment `<prefix><number>`, its URL
 * the preview on the platform; marked inactive when the PR closes. Needs `deployments: write`: without
 * it the step goes on with a notice.
 */
import { messageOf } from '../client/errors.js';
import { GitHubRefused } from '../github/types.js';
import type { PullRequestSide } from './pull-request.js';

/** `environment-prefix` + the PR's number (+ `-<model folder>` with several models); none when the prefix is empty or there is no PR. */
function environmentOf(side: PullRequestSide, prefix: string | undefined): string | undefined {
  if (!prefix || !side.event.pr) return undefined;
  const label = side.settings.label;
  return `${prefix}${side.event.pr.number}${label ? `-${label.replace(/[^\w.-]+/g, '-')}` : ''}`;
}

function trouble(side: PullRequestSide, what: string, e: unknown): void {
  if (e instanceof GitHubRefused)
    side.reporter.notice(
      `no GitHub deployment: the token may not write deployments (grant the job \`deployments: write\`, or set environment-prefix to empty)`,
    );
  else side.reporter.warning(`could not ${what}: ${messageOf(e)}`);
}

/** Record the preview as a deployment of the PR's head, pointing at `url`. */
export async function deployPreview(side: PullRequestSide, environmentPrefix: string | undefined, url: string): Promise<void> {
  const environment = environmentOf(side, environmentPrefix);
  const pr = side.event.pr;
  const github = side.github;
  if (!environment || !pr || !github || side.settings.dryRun) return;
  try {
    const what = side.settings.label ? `data-model preview of ${side.settings.label} in PR #${pr.number}` : `data-model preview of PR #${pr.number}`;
    const id = await github.createDeployment({ ref: pr.headSha, environment, description: what });
    await github.createDeploymentStatus(id, {
      state: 'success',
      environmentUrl: url,
      logUrl: side.event.runUrl,
      description: 'preview ready',
    });
  } catch (e) {
    trouble(side, 'record the GitHub deployment', e);
  }
}

/** Mark the PR's deployments inactive (the preview is gone). */
export async function retirePreview(side: PullRequestSide, environmentPrefix: string | undefined): Promise<void> {
  const environment = environmentOf(side, environmentPrefix);
  const github = side.github;
  if (!environment || !github || side.settings.dryRun) return;
  try {
    for (const id of await github.listDeployments(environment)) {
      await github.createDeploymentStatus(id, { state: 'inactive', description: 'pull request closed' });
    }
  } catch (e) {
    trouble(side, 'mark the GitHub deployment inactive', e);
  }
}
