/**
 * The records a run leaves beside its outputs: the impact's whole change set and the data diff, each a
 * JSON file under RUNNER_TEMP (else the system's temporary folder), named by deployment and branch; and
 * the two steps presented with their files, as the `impact` command and the `pr` preview both show them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AccessOutcome } from '../impact/access/types.js';
import type { DataDiffResult } from '../impact/data/types.js';
import type { DataDiffOutcome } from '../operations/data-diff.js';
import type { ImpactResult } from '../operations/impact.js';
import { presentImpact, presentNumbers } from './presenters.js';

/** Who can see what as the JSON holds it: the changes and the probes' counts, not the personas' contexts. */
function accessJson(a: AccessOutcome) {
  const { personas, policyTargets, changes, lost, probes, notices, probesNotRun, newGuarded } = a;
  return { personas, policyTargets, changes, lost, probes, notices, ...(probesNotRun ? { probesNotRun } : {}), ...(newGuarded ? { newGuarded } : {}) };
}

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
    ...(r.numbersMoveCounts ? { numbersMoveCounts: r.numbersMoveCounts } : {}),
    scanned: r.scanned,
    notices: r.notices,
    cubes: r.changes?.cubes ?? [],
    members: r.changes?.members ?? [],
    definitionChanges: r.definition?.changes ?? [],
    valuesChanged: r.definition?.values ?? [],
    affected: r.affected,
    ...(r.layer ? { layer: r.layer } : {}),
    ...(r.access ? { access: accessJson(r.access) } : {}),
  };
}

/** The whole data diff as the JSON file holds it (in the mode it ran in). */
export function dataDiffJson(deploymentId: number, head: string, r: DataDiffResult) {
  return { version: 1, deploymentId, head, ...r };
}

/** Write `value` as `<kind>-<deployment>-<branch>.json`; returns its path. */
function record(kind: string, deploymentId: number, head: string, value: unknown): string {
  const dir = join(process.env.RUNNER_TEMP || tmpdir(), 'datamodel-ci');
  const file = join(dir, `${kind}-${deploymentId}-${head.replace(/[^\w.-]+/g, '_')}.json`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
  return file;
}

/** The change-set file (output `change-set-file`); written again, same path, once the Cube versions and the rollup plans are known. */
export const recordChangeSet = (changeSet: ReturnType<typeof changeSetJson> & Record<string, unknown>): string =>
  record('impact', changeSet.deploymentId, changeSet.head, changeSet);

/** The data-diff file (output `data-diff-file`). */
const recordDataDiff = (deploymentId: number, head: string, r: DataDiffResult): string =>
  record('data-diff', deploymentId, head, dataDiffJson(deploymentId, head, r));

/** The impact as a run shows it, its change set built once: written to its file and kept for `--json`'s `result`. */
export function presentChangeSet(deploymentId: number, r: ImpactResult, failOnBreaking: boolean, failOnExposure = false) {
  const p = presentImpact(r, failOnBreaking, failOnExposure);
  const changeSet = changeSetJson(deploymentId, r);
  return { ...p, outputs: { ...p.outputs, 'change-set-file': recordChangeSet(changeSet) }, changeSet };
}

/** The data diff as a run shows it, written to its file when it ran (`data-diff-file` is empty when not). */
export function presentDataDiff(deploymentId: number, d: DataDiffOutcome, r: ImpactResult, failOnChange: boolean) {
  const n = presentNumbers(d, r, failOnChange);
  return { ...n, outputs: { ...n.outputs, 'data-diff-file': d.result ? recordDataDiff(deploymentId, r.head, d.result) : '' } };
}
