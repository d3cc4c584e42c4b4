/**
 * A GitHub deployment per PR, so the PR shows "View deployment": environment `<prefix><number>`, its URL
 * the preview on the platform; marked inactive when the PR closes. Needs `deployments: write`: without
 * it the step goes on with a notice.
 */
import type { ActionRun } from './action-run.js';

function status(e: unknown): number | undefined {
  const s = (e as { status?: unknown } | null)?.status;
  return typeof s === 'number' ? s : undefined;
}

function environmentOf(x: ActionRun<'pr'>): string | undefined {
  const prefix = x.settings.inputs.environmentPrefix;
  return prefix && x.run.pr ? `${prefix}${x.run.pr.number}` : undefined;
}

function trouble(x: ActionRun, what: string, e: unknown): void {
  if (status(e) === 403)
    x.reporter.notice(`no GitHub deployment: the token may not write deployments (grant the job \`deployments: write\`, or set environment-prefix to empty)`);
  else x.reporter.warning(`could not ${what}: ${e instanceof Error ? e.message : String(e)}`);
}

/** Record the preview as a deployment of the PR's head, pointing at `url`. */
export async function deployPreview(x: ActionRun<'pr'>, url: string): Promise<void> {
  const environment = environmentOf(x);
  const pr = x.run.pr;
  if (!environment || !pr || !x.github || x.settings.dryRun) return;
  try {
    const id = await x.github.createDeployment({ ref: pr.headSha, environment, description: `data-model preview of PR #${pr.number}` });
    await x.github.createDeploymentStatus(id, {
      state: 'success',
      environmentUrl: url,
      ...(x.run.runUrl ? { logUrl: x.run.runUrl } : {}),
      description: 'preview ready',
    });
  } catch (e) {
    trouble(x, 'record the GitHub deployment', e);
  }
}

/** Mark the PR's deployments inactive (the preview is gone). */
export async function retirePreview(x: ActionRun<'pr'>): Promise<void> {
  const environment = environmentOf(x);
  if (!environment || !x.github || x.settings.dryRun) return;
  try {
    for (const id of await x.github.listDeployments(environment)) {
      await x.github.createDeploymentStatus(id, { state: 'inactive', description: 'pull request closed' });
    }
  } catch (e) {
    trouble(x, 'mark the GitHub deployment inactive', e);
  }
}
