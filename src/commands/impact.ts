/**
 * `impact` (and `datamodel-ci diff`): what the PR's branch changes in the semantic layer and which
 * content that breaks; its outputs, the JSON file of the whole change set, and the comment's section.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { impactView, type ImpactView } from '../github/render-impact.js';
import { plural } from '../report/plural.js';
import { deployTarget } from '../operations/branch-build.js';
import { analyseImpact, type ImpactResult } from '../operations/impact.js';
import { localModelFiles } from '../model/model-files.js';
import { walkModel } from '../model/local-model.js';
import { resolveBranch, StepFailed, type ActionRun } from './action-run.js';
import { publish } from './publish.js';
import { dataChangeFailure, planNumbers, runNumbers } from './numbers.js';

/** The change set as the JSON file and `--json` give it: everything, nothing cut. */
export function changeSetJson(deploymentId: number, r: ImpactResult) {
  return {
    version: 1,
    deploymentId,
    base: r.base,
    head: r.head,
    compared: !r.unavailable,
    ...(r.unavailable ? { unavailable: r.unavailable } : {}),
    counts: r.counts,
    affectedCounts: r.affectedCounts,
    scanned: r.scanned,
    notices: r.notices,
    cubes: r.changes?.cubes ?? [],
    members: r.changes?.members ?? [],
    definitionChanges: r.definition?.changes ?? [],
    valuesChanged: r.definition?.values ?? [],
    affected: r.affected,
  };
}

/** Outputs and the JSON file of an impact result; returns the view for the comment. */
export function recordImpact(x: ActionRun, r: ImpactResult): ImpactView {
  const dir = join(process.env.RUNNER_TEMP || tmpdir(), 'datamodel-ci');
  const file = join(dir, `impact-${x.settings.deploymentId}-${r.head.replace(/[^\w.-]+/g, '_')}.json`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(changeSetJson(x.settings.deploymentId, r), null, 2)}\n`);
  const compared = !r.unavailable;
  x.out['breaking-count'] = compared ? String(r.counts.breaking) : '';
  x.out['values-changed-count'] = compared ? String(r.counts.values ?? 0) : '';
  x.out['added-count'] = compared ? String(r.counts.added) : '';
  x.out['changed-count'] = compared ? String(r.counts.changed) : '';
  x.out['affected-content-count'] = compared ? String(r.affected.length) : '';
  x.out['change-set-file'] = file;
  x.setResult(changeSetJson(x.settings.deploymentId, r));
  return impactView(r);
}

/** The failure `fail-on-breaking` asks for, when there is one. */
export function breakingFailure(r: ImpactResult, failOnBreaking: boolean): string | undefined {
  if (!failOnBreaking || !r.counts.breaking) return undefined;
  const hit = r.affected.length ? `, used by ${plural(r.affected.length, 'report, dashboard or notification', 'reports, dashboards and notifications')}` : '';
  return `${r.head} makes ${plural(r.counts.breaking, 'breaking change')} to the semantic layer${hit} (fail-on-breaking is true)`;
}

export async function impactCommand(x: ActionRun<'impact'>): Promise<number> {
  const { connection, modelDir, inputs } = x.settings;
  // The checkout's model and the key queries are read (and checked) before the first platform call.
  const headFiles = await localModelFiles(await walkModel(modelDir), modelDir);
  const plan = await planNumbers(x);
  const [branch, target] = await Promise.all([resolveBranch(x), deployTarget(x.op)]);
  x.out.branch = branch;
  const r = await x.reporter.group('Impact on the semantic layer', () =>
    analyseImpact(x.op, { branch, deployBranch: target.deployBranch, modelDir, headFiles }, connection.caCert ? { ca: connection.caCert } : {}),
  );
  const view = recordImpact(x, r);
  x.out.status = r.unavailable ? 'not-compared' : r.counts.breaking ? 'breaking' : 'compatible';
  const numbers = await runNumbers(x, plan, r, connection.caCert);
  if (numbers.result) x.setResult({ ...changeSetJson(x.settings.deploymentId, r), dataDiff: numbers.result });
  const shown = numbers.view ? { numbers: numbers.view } : {};
  await publish(x, { branch, impact: view, ...shown }, { branch }, { impact: view, ...shown });
  const failure = breakingFailure(r, inputs.failOnBreaking) ?? dataChangeFailure(numbers, plan, r.head);
  if (failure) throw new StepFailed(failure);
  return 0;
}
