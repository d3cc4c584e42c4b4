/**
 * The models of a run: one (`model-dir` and `deployment-id`), or several (`deployments`), each with its
 * own platform side (a client for its tenant, its deployment) and pull request side (its check run, its
 * GitHub deployment, and, with several, its section of the one comment). Run within a cap.
 */
import type { PlatformClient } from '../client/client.js';
import type { ModelTarget } from '../deployments-input.js';
import type { OpContext } from '../operations/context.js';
import { PullRequestSide, type PreviewThread } from '../pr/pull-request.js';
import { platformClient, type ActionRun } from './action-run.js';

export interface ModelRun {
  target: ModelTarget;
  /** The folder that names its section, check run and GitHub deployment; undefined for a run of one model. */
  label: string | undefined;
  op: OpContext;
  side: PullRequestSide;
}

export interface ModelRuns {
  runs: ModelRun[];
  /** Close the clients made for other tenants. */
  close(): Promise<void>;
}

/** A run of one model (`model-dir` and `deployment-id`): the run's own sides, its client made by the command's runner. */
export function oneModel(run: ActionRun<'pr'>): ModelRun {
  const { settings } = run;
  const target = { key: settings.modelDir, modelDir: settings.modelDir, deploymentId: settings.deploymentId, apiUrl: settings.connection.apiUrl };
  return { target, label: undefined, op: run.op, side: run.pr };
}

/** The run's models; `section` gives each its part of the one comment (several models only). */
export function modelRuns(run: ActionRun<'pr'>, section?: (key: string) => () => Promise<PreviewThread | undefined>): ModelRuns {
  const { settings } = run;
  // One model: the run's own sides (its comment thread is the one the run has opened).
  if (!settings.targets) return { runs: [oneModel(run)], close: () => Promise.resolve() };
  const apiKey = settings.connection.apiKey ?? '';
  const targets = settings.targets;
  const clients = new Map<string, PlatformClient>([[settings.connection.apiUrl, run.op.client]]);
  const made: PlatformClient[] = [];
  const clientFor = (apiUrl: string): PlatformClient => {
    let c = clients.get(apiUrl);
    if (!c) {
      c = platformClient({ ...settings.connection, apiKey }, apiUrl, run.reporter, run.event.runId !== undefined);
      clients.set(apiUrl, c);
      made.push(c);
    }
    return c;
  };
  const runs = targets.map((target): ModelRun => {
    const label = target.key;
    const side = new PullRequestSide(
      run.event,
      run.pr.github,
      run.reporter,
      { deploymentId: target.deploymentId, apiUrl: target.apiUrl, dryRun: settings.dryRun, branchPrefix: settings.branchPrefix, ...(label ? { label } : {}) },
      label && section ? section(label) : undefined,
    );
    return { target, label, op: { ...run.op, client: clientFor(target.apiUrl), deploymentId: target.deploymentId }, side };
  });
  return { runs, close: () => Promise.all(made.map((c) => c.close().catch(() => undefined))).then(() => undefined) };
}
