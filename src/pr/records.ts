/**
 * The records a run leaves beside its outputs: the impact's whole change set and the data diff, each a
 * JSON file named by deployment and branch, in the run's folder (`RecordsFolder`: RUNNER_TEMP's in
 * Actions, a folder of the run's own in a terminal); and the two steps presented with their files, as the
 * `impact` command and the `pr` preview both show them.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { InputError, messageOf } from '../client/errors.js';
import type { AccessOutcome } from '../impact/access/types.js';
import type { DataDiffResult } from '../impact/data/types.js';
import type { DataDiffOutcome } from '../operations/data-diff.js';
import type { ImpactResult } from '../operations/impact.js';
import { presentImpact, presentNumbers } from './presenters.js';

/** Who can see what as the JSON holds it: the changes and the probes' counts, not the personas' contexts. */
function accessJson(a: AccessOutcome) {
  const { personas, policyTargets, changes, lost, probes, notices, probesNotRun, newGuarded, groupsUnreached } = a;
  return {
    personas,
    policyTargets,
    changes,
    lost,
    probes,
    notices,
    ...(probesNotRun ? { probesNotRun } : {}),
    ...(newGuarded ? { newGuarded } : {}),
    ...(groupsUnreached ? { groupsUnreached } : {}),
  };
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

/**
 * Where a run's detail files go. In Actions, RUNNER_TEMP's `datamodel-ci/` (the job's own temporary
 * folder); in a terminal, `--out DIR`, else a fresh folder of the run's own under the system's temporary
 * folder, made on the first write (two runs on one machine never overwrite each other's files).
 */
export class RecordsFolder {
  private made: string | undefined;

  private constructor(private readonly given: string | undefined) {}

  /** The folder of a run: `out` (made now, so a bad one is refused before the first call), else Actions' or a fresh one. */
  static of(where: { inActions: boolean; runnerTemp?: string; out?: string }): RecordsFolder {
    if (where.out) {
      const dir = resolve(where.out);
      try {
        mkdirSync(dir, { recursive: true });
      } catch (e) {
        throw new InputError('out', where.out, `a folder the run may create and write to (${messageOf(e)})`);
      }
      return new RecordsFolder(dir);
    }
    return new RecordsFolder(where.inActions ? join(where.runnerTemp || tmpdir(), 'datamodel-ci') : undefined);
  }

  /** The folder, made when first asked for. */
  path(): string {
    if (this.made) return this.made;
    if (this.given) mkdirSync(this.given, { recursive: true });
    this.made = this.given ?? mkdtempSync(join(tmpdir(), 'datamodel-ci-'));
    return this.made;
  }

  /** Write `value` as `<kind>-<deployment>-<branch>.json`; returns its path. */
  write(kind: string, deploymentId: number, head: string, value: unknown): string {
    const file = join(this.path(), `${kind}-${deploymentId}-${head.replace(/[^\w.-]+/g, '_')}.json`);
    writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
    return file;
  }
}

/** The change-set file (output `change-set-file`); written again, same path, once the Cube versions and the rollup plans are known. */
export const recordChangeSet = (folder: RecordsFolder, changeSet: ReturnType<typeof changeSetJson> & Record<string, unknown>): string =>
  folder.write('impact', changeSet.deploymentId, changeSet.head, changeSet);

/** The data-diff file (output `data-diff-file`). */
const recordDataDiff = (folder: RecordsFolder, deploymentId: number, head: string, r: DataDiffResult): string =>
  folder.write('data-diff', deploymentId, head, dataDiffJson(deploymentId, head, r));

/** The impact as a run shows it, its change set built once: written to its file and kept for `--json`'s `result`. */
export function presentChangeSet(folder: RecordsFolder, deploymentId: number, r: ImpactResult, failOnBreaking: boolean, failOnExposure = false) {
  const p = presentImpact(r, failOnBreaking, failOnExposure);
  const changeSet = changeSetJson(deploymentId, r);
  return { ...p, outputs: { ...p.outputs, 'change-set-file': recordChangeSet(folder, changeSet) }, changeSet };
}

/** The data diff as a run shows it, written to its file when it ran (`data-diff-file` is empty when not). */
export function presentDataDiff(folder: RecordsFolder, deploymentId: number, d: DataDiffOutcome, r: ImpactResult, failOnChange: boolean) {
  const n = presentNumbers(d, r, failOnChange);
  return { ...n, outputs: { ...n.outputs, 'data-diff-file': d.result ? recordDataDiff(folder, deploymentId, r.head, d.result) : '' } };
}
