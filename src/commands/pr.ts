/** `pr` (the root action): the whole PR lifecycle for the pull_request event of the run. */
import { InputError } from '../client/errors.js';
import { DEFAULTS } from '../defaults.js';
import type { PreviewView } from '../github/preview-view.js';
import { deployTarget, type DeployTarget } from '../operations/branch-build.js';
import { CloseFailed, runClose, runPreview, type PreviewOutcome } from '../operations/pr-preview.js';
import { checkProduction, runRepositoryPreview, stagingOff, type ProductionCheck } from '../operations/repository-feed.js';
import { hashLocalModel } from '../operations/upload-model.js';
import { localModelFiles } from '../model/model-files.js';
import { dataChangeFailure, planNumbers, runNumbers, type NumbersOutcome } from './numbers.js';
import { commitMessage, isStale, resolveBranch, StepFailed, type ActionRun } from './action-run.js';
import { doctorFor, renderDoctor } from './doctor.js';
import { annotate } from './annotate.js';
import { breakingFailure, recordImpact } from './impact.js';
import type { ImpactView } from '../github/render-impact.js';
import { deployPreview, retirePreview } from './github-deployment.js';
import { platformPageUrl, publish, viewErrors } from './publish.js';
import { hintFor } from '../report/hints.js';
import { plural } from '../report/plural.js';

/** Events that (re)build the preview. */
const PREVIEW_ACTIONS = ['opened', 'synchronize', 'reopened', 'ready_for_review'];

export async function prCommand(x: ActionRun<'pr'>): Promise<number> {
  const pr = x.run.pr;
  if (!pr) throw new InputError('event', x.run.eventName, 'a pull_request event (the lifecycle runs on pull requests)');
  if (pr.action === 'closed') return close(x);
  if (!PREVIEW_ACTIONS.includes(pr.action)) {
    x.reporter.notice(`pull_request ${pr.action}: nothing to do`);
    x.out.skipped = 'true';
    return 0;
  }
  return preview(x);
}

async function preview(x: ActionRun<'pr'>): Promise<number> {
  const { inputs, modelDir, connection } = x.settings;
  // The local model is read and checked before the first platform call; then the PR's comment (its
  // ledger names the branch) and the deployment's settings, read together.
  const local = await hashLocalModel(x.op, modelDir, inputs.exclude);
  const modelFiles = inputs.impact ? await localModelFiles(local, modelDir, { emptyAllowed: true }) : undefined;
  const plan = inputs.impact ? await planNumbers(x) : undefined;
  const [previewBranch, target] = await Promise.all([resolveBranch(x), deployTarget(x.op)]);
  // A deployment fed from a connected repository previews the PR's own head branch (no upload), unless
  // the branch input names another or the head is not in that repository (a fork's: then by upload).
  const pr = x.run.pr!;
  const fed = !!target.repository && !inputs.branch && !!pr.headRef && !pr.fork;
  let branch = fed ? pr.headRef : previewBranch;
  x.out.branch = branch;
  // "Updating" goes up at once and runs alongside the platform work; the result replaces it at the end.
  const updating = x.settings.dryRun ? Promise.resolve() : publish(x, { state: 'updating', branch }, { branch, state: 'open' }, { summary: false });
  let via = inputs.via;
  if (inputs.preflight && !x.settings.dryRun) {
    const report = await x.reporter.group('Preflight: datamodel-ci doctor', () => doctorFor(connection, x.settings.deploymentId, x.reporter, false));
    x.reporter.summary(`### datamodel-ci: preflight\n\n\`\`\`text\n${renderDoctor(report).join('\n')}\n\`\`\``);
    if (!report.uploadVia) throw new StepFailed('preflight: no way to upload a model to a shared branch with this key (see the doctor lines above)');
    if (via === 'auto') via = report.uploadVia;
  }
  const common = {
    deployBranch: target.deployBranch,
    smokeTest: inputs.smokeTest,
    smoke: { timeoutMs: DEFAULTS.smokeTimeoutSeconds * 1000, ...(connection.caCert ? { ca: connection.caCert } : {}) },
    ...(inputs.impact ? { impact: connection.caCert ? { ca: connection.caCert } : {} } : {}),
    ...(modelFiles ? { modelFiles } : {}),
  };
  let o: PreviewOutcome | undefined;
  if (fed) {
    o = await runRepositoryPreview(x.op, { ...common, branch, headSha: pr.headSha, modelDir: repositoryModelDir(x, target) });
    if (!o) {
      x.reporter.notice(
        `${branch} is not a branch of ${target.repository?.name ?? 'the connected repository'} (a fork's?): previewing by upload on ${previewBranch}, whose ref is removed from the repository at cleanup`,
      );
      branch = previewBranch;
      x.out.branch = branch;
    }
  }
  o ??= await runPreview(
    x.op,
    {
      ...common,
      branch,
      local,
      modelDir,
      concurrency: inputs.concurrency,
      via,
      commitMessage: commitMessage(x),
      allowModelDeletion: inputs.allowModelDeletion,
    },
    { isStale: () => isStale(x) },
  ).catch(async (e: unknown) => {
    // Refused input (the model-dir guard) ends the comment in a failed state with the reason, not on "updating".
    await updating;
    if (e instanceof InputError && !x.settings.dryRun)
      await publish(x, { state: 'failed', branch, failure: failureOf('Preview', e, connection.apiUrl) }, { branch, state: 'open' });
    throw e;
  });
  await updating;
  if (o.upload) {
    x.out['dev-branch'] = o.upload.devBranch ?? '';
    x.out.uploaded = String(o.upload.uploaded);
    x.out.deleted = String(o.upload.deleted);
  }
  if (o.stale) {
    x.out.skipped = 'true';
    x.out.status = 'stale';
    return 0;
  }
  if (x.settings.dryRun) {
    x.out.status = 'dry-run';
    return 0;
  }
  const view: Partial<PreviewView> = { branch, deployBranch: target.deployBranch };
  if (o.upload) view.upload = { sent: o.upload.uploaded, deleted: o.upload.deleted, unchanged: o.upload.unchanged, via: o.upload.via };
  let failure = o.failure;
  const errors = viewErrors(o.validation?.errors ?? []);
  // The check run, the comment and the GitHub deployment depend on nothing of each other: written together.
  const github: Promise<unknown>[] = [];
  if (o.validation) {
    const v = o.validation;
    github.push(annotate(x, v.errors, v));
    x.out.valid = String(v.valid);
    x.out['error-count'] = String(v.errors.length);
    x.out.status = v.valid ? 'valid' : 'invalid';
    view.validation = { valid: v.valid, errorCount: v.errors.length, errors, ...(v.cubes !== undefined ? { cubes: v.cubes } : {}) };
    if (!v.valid && inputs.failOnInvalid) failure ??= `the data model on ${branch} is invalid: ${plural(v.errors.length, 'error')}`;
  }
  if (o.staging) {
    x.out['staging-url'] = o.staging.stagingUrl ?? '';
    x.out['environment-id'] = o.staging.environmentId ?? '';
    view.staging = { enabled: !!o.staging.stagingUrl, ...(o.staging.smoke ? { smoke: o.staging.smoke } : {}) };
    if (o.staging.stagingUrl) view.restUrl = o.staging.stagingUrl;
  }
  let impact: ImpactView | undefined;
  let numbers: NumbersOutcome = {};
  if (o.impact) {
    impact = recordImpact(x, o.impact);
    view.impact = impact;
    failure ??= breakingFailure(o.impact, inputs.failOnBreaking);
    if (plan) numbers = await runNumbers(x, plan, o.impact, connection.caCert);
    if (numbers.view) view.numbers = numbers.view;
    if (plan) failure ??= dataChangeFailure(numbers, plan, o.impact.head);
  }
  if (o.failure) {
    view.failure = failureOf('Preview', o.failureCause ?? new Error(o.failure), connection.apiUrl, o.failure);
    x.out.status = 'failed';
  }
  github.push(
    publish(
      x,
      view,
      { branch, state: 'open', ...(o.staging?.stagingUrl ? { stagingUrl: o.staging.stagingUrl } : {}) },
      { errors, ...(impact ? { impact } : {}), ...(numbers.view ? { numbers: numbers.view } : {}) },
    ),
  );
  if (o.staging?.stagingUrl && !o.failure) github.push(deployPreview(x, platformPageUrl(connection.apiUrl, x.settings.deploymentId, branch)));
  // Every write finishes before the step ends; the first failure is the one reported.
  const settled = await Promise.allSettled(github);
  const rejected = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (rejected) throw rejected.reason;
  if (failure) throw new StepFailed(failure, o.failure ? { cause: o.failureCause } : undefined);
  return 0;
}

/** A failure as the comment shows it: the step, the message, and the hint the terminal prints under it. */
function failureOf(step: string, cause: unknown, apiUrl: string, message = cause instanceof Error ? cause.message : String(cause)) {
  const hint = hintFor(cause, apiUrl);
  return { step, message, ...(hint ? { hint } : {}) };
}

/**
 * Whether the close merges into the deploy branch: never on a deployment fed from a connected repository
 * (GitHub's merge deploys it) or one that refuses merges; `merge-on-close: true` there is refused before
 * any write, naming the setting.
 */
function mergeOnClose(x: ActionRun<'pr'>, target: DeployTarget): boolean {
  const setting = x.settings.inputs.mergeOnClose;
  if (setting === 'false' || !x.run.pr?.merged) return false;
  const id = x.settings.deploymentId;
  const why = target.repository
    ? `deployment ${id} is fed from ${target.repository.name ?? 'a connected repository'} (creationMethod: ${target.repository.creationMethod}): GitHub's merge of the pull request deploys production, and a merge into ${target.deployBranch} would deploy it a second time`
    : !target.mergeAllowed
      ? `deployment ${id} refuses merges into ${target.deployBranch} (deployBranchMergeAllowed: false)`
      : undefined;
  if (!why) return true;
  if (setting === 'true') throw new InputError('merge-on-close', 'true', `auto or false: ${why}`);
  x.reporter.notice(`not merging into ${target.deployBranch}: ${why}`);
  return false;
}

/** The model folder for placing errors on a repository-fed deployment: the project root the platform builds. */
export function repositoryModelDir(x: ActionRun<'pr'>, target: DeployTarget): string {
  const root = target.projectRoot.replace(/^\/+|\/+$/g, '') || '.';
  const given = x.settings.modelDir.replace(/^\.\/|\/+$/g, '') || '.';
  if (given !== root && given === '.') return root;
  if (given !== root && !given.startsWith('/')) {
    x.reporter.warning(
      `model-dir is ${given}, but the deployment builds ${root} of the repository (deployProjectRoot: ${target.projectRoot}): errors are placed under model-dir`,
    );
  }
  return x.settings.modelDir;
}

async function close(x: ActionRun<'pr'>): Promise<number> {
  const pr = x.run.pr!;
  const { inputs } = x.settings;
  const [branch, target] = await Promise.all([resolveBranch(x), deployTarget(x.op)]);
  const merge = mergeOnClose(x, target);
  const devBranch = (await x.thread())?.ledger?.devBranch;
  // The merge commit's model (the checkout) is read and checked before the first write: it is what the
  // shared branch must hold when it is merged, and what the deploy branch must hold after.
  const local = merge ? await hashLocalModel(x.op, x.settings.modelDir, inputs.exclude) : undefined;
  const state = pr.merged ? 'merged' : 'closed';
  const fedHead = target.repository && !inputs.branch && pr.headRef && !pr.fork ? pr.headRef : undefined;
  x.out.branch = fedHead ?? branch;
  let production: ProductionCheck | undefined;
  let r: Awaited<ReturnType<typeof runClose>>;
  try {
    // Fed from a repository: production comes from GitHub's merge (checked, never merged again); the head
    // branch is the repository's own and stays, its staging goes off. A fallback preview branch is cleaned below.
    if (fedHead) {
      if (pr.merged)
        production = await x.reporter.group('Production', () => checkProduction(x.op, { deployBranch: target.deployBranch, mergeCommit: pr.mergeCommitSha }));
      await stagingOff(x.op, fedHead);
    }
    r = await runClose(x.op, {
      branch,
      merge,
      message: `Merge PR #${pr.number}: ${pr.title}`,
      devBranches: devBranch ? [devBranch] : [],
      removeOnUpstream: inputs.removeOnUpstream,
      ...(local
        ? {
            model: { local, concurrency: inputs.concurrency, modelDir: x.settings.modelDir, allowModelDeletion: inputs.allowModelDeletion, via: inputs.via },
            deployOnMerge: inputs.deployOnMerge,
          }
        : {}),
    });
  } catch (e) {
    if (!(e instanceof CloseFailed)) throw e;
    x.out.merged = String(e.merge?.merged ?? false);
    x.out.status = 'failed';
    // The comment's ledger says what is still on the platform; a rerun (or the sweep) removes it.
    await publish(x, { state: 'failed', branch, failure: { step: e.step, message: e.message }, pending: e.pending }, { state: `${state}-pending` });
    throw new StepFailed(`${e.step.toLowerCase()} failed: ${e.message}`);
  }
  // A dry run says what would happen.
  x.out.merged = String(x.settings.dryRun ? merge : (r.merge?.merged ?? false));
  x.out.deleted = String(r.cleanup.deleted.length);
  x.out.status = 'cleaned';
  await retirePreview(x);
  const fedView = fedHead
    ? {
        deployBranch: target.deployBranch,
        merge: {
          deployMode: target.deployMode,
          productionUpdated: !!production?.isMergeCommit,
          repository: target.repository?.name ?? 'the connected repository',
          ...(production?.builtAt ? { builtAt: production.builtAt } : {}),
          ...(production?.unchecked ? { unchecked: production.unchecked } : {}),
        },
      }
    : {};
  await publish(
    x,
    {
      state,
      branch: fedHead ?? branch,
      cleanup: { deleted: r.cleanup.deleted, ...(fedHead ? { stagingOff: fedHead } : {}) },
      ...(r.merge ? { deployBranch: r.merge.deployBranch, merge: { deployMode: r.merge.deployMode, productionUpdated: r.merge.productionUpdated } } : fedView),
    },
    { state },
  );
  return 0;
}
