/** Seeded deployments: a deploy branch holding a model, and (for the demo) a history of dbt syncs. */
import { makeBranch } from '../build/branches.js';
import { filesOf, treeHash } from '../build/trees.js';
import type { Clock } from '../clock.js';
import type { DbtRunRec } from '../dbt/models.js';
import { dbtBranchName, dbtPlan } from '../dbt/runs.js';
import { newDeployment, type DeploymentRec, type DeployMode } from '../deployments/models.js';
import { nextId, type State } from '../state.js';

/** A ready deployment, 90 days old, with `model` committed once on `main` and built for production. */
export function seedDeployment(state: State, name: string, clock: Clock, model: Record<string, string>, deployMode: DeployMode = 'git'): DeploymentRec {
  const id = nextId(state, 'deployment');
  const d = newDeployment({
    id,
    name,
    createdAt: new Date(clock.now() - 90 * 86400_000).toISOString(),
    creationStep: 'ready',
    settings: { cloudProvider: 'aws', region: 'us-east-1', deployMode, creationMethod: deployMode === 'cli' ? 'upload' : 'cubecloud', template: 'single' },
    envVars: [{ name: 'CUBEJS_DB_TYPE', value: 'postgres' }],
  });
  const main = makeBranch(d, 'main', null, 'deploy', d.createdAt);
  main.files = filesOf(model);
  main.head = { ...main.files };
  main.lastHash = treeHash(main.head, `${id}:main:1`);
  main.commits = 1;
  const builtAt = Date.parse(d.createdAt);
  main.runtime.builds = [
    {
      jobId: d.nextBuildJobId++,
      kind: 'build',
      hash: main.lastHash,
      files: { ...main.head },
      startedAt: builtAt,
      endsAt: builtAt + 60_000,
      outcome: 'success',
    },
  ];
  state.deployments.push(d);
  return d;
}

/** Past dbt syncs, one an hour: enough for several pages (a page holds at most 100); some failed, some cancelled. */
export function seedDbtHistory(d: DeploymentRec, clock: Clock, userId: number): void {
  const triggers = ['api', 'webhook', 'manual', 'agent'];
  for (let i = 0; i < 120; i++) {
    const startedAt = clock.now() - (121 - i) * 3600_000;
    const n = String(i + 1).padStart(4, '0');
    const run: DbtRunRec = {
      syncJobId: `sync-${n}`,
      workflowId: `wf-${n}`,
      deploymentId: d.id,
      branchName: dbtBranchName('main', startedAt, n.padStart(8, '0')),
      ref: 'main',
      source: 'git',
      trigger: triggers[i % triggers.length] as string,
      userId,
      startedAt,
      plan: dbtPlan(),
      generated: {},
      materialized: true,
    };
    if (i % 10 === 3) run.failure = { phase: 'parse', message: 'dbt parse failed: model "stg_orders" not found' };
    if (i % 17 === 5) run.cancelledAt = startedAt + 5_000;
    d.dbtRuns.push(run);
  }
}
