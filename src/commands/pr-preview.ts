/**
 * One model's preview for a pull request's push: its local model (read by the caller before the first
 * call), the platform's operations, one outcome, its pull request side (check run, comment or section,
 * GitHub deployment), its outputs. A run of one model and a run of several (`deployments`) use it alike.
 */
import { InputError } from '../client/errors.js';
import { DEFAULTS } from '../defaults.js';
import { planDataDiff, type DataDiffPlan } from '../impact/data/plan.js';
import { excludeFilter, type LocalFile, type PathFilter } from '../model/local-model.js';
import { localModelFiles } from '../model/model-files.js';
import { deployTarget, type DeployTarget } from '../operations/branch-build.js';
import { previewOnPlatform } from '../operations/pr-preview.js';
import type { UploadVia } from '../operations/upload-model.js';
import type { Outputs } from '../pr/presenters.js';
import { changesOf, touches, type Changes } from '../pr/changed-files.js';
import { untouchedCheck } from '../pr/check-run.js';
import { configuredFacets, facetSettings } from '../pr/facet-checks.js';
import { failureOf, presentPreview, writePreview } from '../pr/preview.js';
import { publish } from '../pr/publish.js';
import type { PullRequestSide } from '../pr/pull-request.js';
import type { Reporter } from '../report/reporter.js';
import type { ModelTarget } from '../deployments-input.js';
import type { Persona } from '../impact/access/types.js';
import { readPersonas } from '../personas-input.js';
import type { OpContext } from '../operations/context.js';
import type { ActionRun } from './action-run.js';
import { preflight } from './doctor.js';
import type { ModelRun } from './models.js';

/** Why a preview fails the step (the caller reports it), with the error behind a platform failure. */
export interface ModelFailure {
  failure: string;
  cause?: unknown;
}

/** What a model's preview starts from, made ready by the caller before its first platform call. */
export interface ReadyModel {
  /** Its local model, read and checked once. */
  local: LocalFile[];
  /** `upload-via`, or the way the preflight found for `auto`. */
  via: UploadVia;
  /** The data diff after the impact, planned (its key queries read and checked); none without the impact. */
  numbers: DataDiffPlan | undefined;
  /** The personas whose view the impact compares (read and checked before the first call); none without the impact. */
  personas?: Persona[];
  /** The preview's first reads (the comment's branch, the deployment's settings), when started before the model was known to be touched. */
  reads?: Promise<FirstReads>;
}

/** The branch the PR's comment names (or the input) and the deployment's settings: what a preview reads first. */
export type FirstReads = [branch: string, target: DeployTarget];

/** Start a preview's first reads: reads only, so one started for a model then skipped changes nothing. */
export function firstReads(run: ActionRun<'pr'>, m: ModelRun): Promise<FirstReads> {
  const reads = Promise.all([m.side.resolveBranch(run.settings.inputs.branch), deployTarget(m.op)]);
  reads.catch(() => undefined);
  return reads;
}

/** The data diff's plan, once per run, before the first platform call; none without the impact. */
export function planNumbers(run: ActionRun<'pr'>): Promise<DataDiffPlan | undefined> {
  const { inputs } = run.settings;
  return inputs.impact ? planDataDiff(inputs.dataDiff, run.event) : Promise.resolve(undefined);
}

/** The personas file, once per run, before the first platform call (read even without the impact: a wrong path is said now). */
export function planPersonas(run: ActionRun<'pr'>): Promise<Persona[]> {
  return readPersonas(run.settings.inputs.access);
}

/** A model to preview, made ready: with `preflight` (not in a dry run) the doctor's checks decide `upload-via: auto`. */
export async function readyModel(
  run: ActionRun<'pr'>,
  target: ModelTarget,
  local: LocalFile[],
  numbers: DataDiffPlan | undefined,
  reads?: Promise<FirstReads>,
  personas: Persona[] = [],
): Promise<ReadyModel> {
  const { inputs, connection, dryRun } = run.settings;
  const via = inputs.preflight && !dryRun ? await preflight(run.reporter, connection, target, inputs.via, inputs.agentsFolder) : inputs.via;
  return { local, via, numbers, ...(personas.length ? { personas } : {}), ...(reads ? { reads } : {}) };
}

/**
 * A deployment fed from a connected repository previews (and closes) the PR's own head branch (no upload),
 * unless the branch input names another or the head is not in that repository (a fork's: then by upload).
 */
export function fedHead(run: ActionRun<'pr'>, target: DeployTarget): string | undefined {
  const pr = run.event.pr!;
  return target.repository && !run.settings.inputs.branch && pr.headRef && !pr.fork ? pr.headRef : undefined;
}

/** Preview one model; its outputs go to `out`. Bad input is thrown; a failure the step reports is returned. */
export async function previewModel(
  run: ActionRun<'pr'>,
  m: ModelRun,
  { local, via, numbers, personas, reads }: ReadyModel,
  out: Outputs,
): Promise<ModelFailure | undefined> {
  const { inputs, dryRun } = run.settings;
  const { side, op } = m;
  const { modelDir, deploymentId, apiUrl } = m.target;
  // The PR's comment (its ledger names the branch) and the deployment's settings, read together.
  const [previewBranch, target] = await (reads ?? firstReads(run, m));
  const pr = run.event.pr!;
  const head = fedHead(run, target);
  const fed = head !== undefined;
  const branch = head ?? previewBranch;
  // There the model is the folder the platform builds (`deployProjectRoot`), the repository root's `.` included.
  const project = projectModel(run.reporter, op, modelDir, local, target, inputs.exclude);
  // The run's ledger: what this PR's runs made (the comment's), and what this run makes (the door's evidence).
  op.ledger = await side.runLedger();
  const modelFiles = inputs.impact ? await localModelFiles(project.local, project.dir, { emptyAllowed: true }) : undefined;
  out.branch = branch;
  // "Updating" goes up at once and runs alongside the platform work; the result replaces it at the end.
  const updating = dryRun ? Promise.resolve() : publish(side, { state: 'updating', branch }, { branch, state: 'open' }, { summary: false });
  const o = await previewOnPlatform(
    op,
    {
      branch: previewBranch,
      deployBranch: target.deployBranch,
      deployMode: target.deployMode,
      local: project.local,
      modelDir: project.dir,
      concurrency: inputs.concurrency,
      via,
      excluded: project.excluded,
      headSha: pr.headSha,
      commitMessage: side.commitMessage(),
      allowModelDeletion: inputs.allowModelDeletion,
      smokeTest: inputs.smokeTest,
      agentsFolder: inputs.agentsFolder,
      ...(inputs.evals ? { evals: inputs.evals } : {}),
      smoke: { timeoutMs: DEFAULTS.smokeTimeoutSeconds * 1000 },
      impact: inputs.impact,
      modelFiles,
      numbers,
      ...(personas ? { personas } : {}),
      fed: fed
        ? {
            branch,
            headSha: pr.headSha,
            modelDir: project.dir,
            repository: target.repository?.name ?? 'the connected repository',
          }
        : undefined,
    },
    { isStale: () => side.isStale() },
  ).catch(async (e: unknown) => {
    // Refused input (the model-dir guard) ends the comment in a failed state with the reason, not on "updating".
    await updating;
    out.branch = previewBranch;
    if (e instanceof InputError && !dryRun)
      await publish(side, { state: 'failed', branch: previewBranch, failure: failureOf('Preview', e, apiUrl) }, { branch: previewBranch, state: 'open' });
    throw e;
  });
  await updating;
  out.branch = o.branch;
  const { failOnInvalid, failOnBreaking } = inputs;
  const shown = presentPreview(o, {
    deploymentId,
    apiUrl,
    deployBranch: target.deployBranch,
    dryRun,
    failOnInvalid,
    failOnBreaking,
    failOnDataChange: inputs.dataDiff.failOnChange,
    failOnExposure: inputs.access.failOnExposure,
    failOnRollupLoss: !!inputs.dataDiff.failOnRollupLoss,
    failOnVersionSkew: inputs.failOnVersionSkew,
    records: run.records,
  });
  Object.assign(out, shown.outputs);
  if (shown.result !== undefined) run.setResult(shown.result);
  if (o.stale || dryRun) return undefined;
  await writePreview(side, o, shown, inputs.environmentPrefix, facetSettings(inputs, project.dir));
  return shown.failure ? { failure: shown.failure, ...(o.failure ? { cause: o.failureCause } : {}) } : undefined;
}

/**
 * A model the pull request does not touch gets no preview: the check is neutral with the reason. Not so
 * with `preview-untouched`, or when the model has a preview already (it is kept equal to the pull
 * request, which may have undone its change). Returns the reason when it is skipped.
 */
export async function untouched(run: ActionRun<'pr'>, side: PullRequestSide, modelDir: string, changes?: Changes): Promise<string | undefined> {
  if (run.settings.inputs.previewUntouched) return undefined;
  if (touches(changes ?? (await changesOf(side)), modelDir)) return undefined;
  const ledger = (await side.thread())?.ledger;
  if (ledger?.state === 'open' && ledger.branch) return undefined;
  const dir = modelDir === '.' ? 'the repository' : `${modelDir}/`;
  const why = `Pull request #${run.event.pr!.number} changes no file under ${dir}: not previewed.`;
  await untouchedCheck(side, `Not previewed: no change under ${dir}`, why, configuredFacets(facetSettings(run.settings.inputs, modelDir)));
  return why;
}

/**
 * The model as the platform keys it: on a deployment connected to a repository its branches hold the
 * project root's folder (`deployProjectRoot`), so from a checkout of the whole repository (`model-dir: .`)
 * only that folder is uploaded, its paths relative to it (the preview, its fallback, the queue, the close).
 * `excluded` is `exclude`'s globs, in the same paths.
 */
export function projectModel(
  reporter: Reporter,
  op: OpContext,
  modelDir: string,
  local: LocalFile[],
  target: DeployTarget,
  exclude: readonly string[],
): { dir: string; local: LocalFile[]; excluded: PathFilter } {
  const excluded = excludeFilter(exclude);
  if (!target.connected) return { dir: modelDir, local, excluded };
  // The platform is asked to name files from the project root too (doctor's `project root` check).
  if (target.projectRoot.replace(/^\/+|\/+$/g, '')) op.useDeployProjectRoot = true;
  const dir = repositoryModelDir(reporter, modelDir, target);
  if (dir === modelDir) return { dir, local, excluded };
  const prefix = `${dir.replace(/^\.\/|\/+$/g, '')}/`;
  return { dir, local: filesUnder(local, prefix), excluded: (p) => excluded(`${prefix}${p}`) };
}

/** The walk's files under `prefix` (a subfolder of the model dir, with its slash), with paths relative to it. */
function filesUnder(local: LocalFile[], prefix: string): LocalFile[] {
  return local.filter((f) => f.path.startsWith(prefix)).map((f) => ({ ...f, path: f.path.slice(prefix.length) }));
}

/** The model folder on a repository-fed deployment: the project root the platform builds. */
export function repositoryModelDir(reporter: Reporter, modelDir: string, target: DeployTarget): string {
  const root = target.projectRoot.replace(/^\/+|\/+$/g, '') || '.';
  const given = modelDir.replace(/^\.\/|\/+$/g, '') || '.';
  if (given !== root && given === '.') return root;
  if (given !== root && !given.startsWith('/')) {
    reporter.warning(
      `model-dir is ${given}, but the deployment builds ${root} of the repository (deployProjectRoot: ${target.projectRoot}): errors are placed under model-dir`,
    );
  }
  return modelDir;
}
