/**
 * `pr` (the root action): the whole PR lifecycle for the pull_request event of the run. A preview's data
 * goes one way: the settings (read and checked before the first call), the platform's operations, one
 * outcome, the pull request's side (src/pr/), the outputs.
 */
import { InputError } from '../client/errors.js';
import { DEFAULTS } from '../defaults.js';
import { planDataDiff } from '../impact/data/plan.js';
import { readLocalModel } from '../model/local-model.js';
import { localModelFiles } from '../model/model-files.js';
import { deployTarget, type DeployTarget } from '../operations/branch-build.js';
import { previewOnPlatform } from '../operations/pr-lifecycle.js';
import { CloseFailed, runClose } from '../operations/pr-preview.js';
import { checkProduction, stagingOff, type ProductionCheck } from '../operations/repository-feed.js';
import type { UploadVia } from '../operations/upload-model.js';
import { retirePreview } from '../pr/deployment.js';
import { failureOf, presentPreview, writePreview } from '../pr/preview.js';
import { publish } from '../pr/publish.js';
import { StepFailed, type ActionRun } from './action-run.js';
import { doctorFor, renderDoctor } from './doctor.js';
import { queueCommand } from './pr-queue.js';
import { changesOf, touches } from '../pr/changed-files.js';
import { neutralCheck, validatedInQueue } from '../pr/check-run.js';
import type { PullRequestSide } from '../pr/pull-request.js';

/** Events that (re)build the preview. */
const PREVIEW_ACTIONS = ['opened', 'synchronize', 'reopened', 'ready_for_review'];

export async function prCommand(run: ActionRun<'pr'>): Promise<number> {
  const pr = run.event.pr;
  if (run.event.group) return queueCommand(run);
  if (!pr)
    throw new InputError('event', run.event.eventName, 'a pull_request or merge_group event (the lifecycle runs on pull requests and in the merge queue)');
  if (pr.action === 'closed') return close(run);
  if (!PREVIEW_ACTIONS.includes(pr.action)) {
    run.reporter.notice(`pull_request ${pr.action}: nothing to do`);
    run.out.skipped = 'true';
    return 0;
  }
  return preview(run);
}

async function preview(run: ActionRun<'pr'>): Promise<number> {
  const { inputs, modelDir, connection, dryRun, deploymentId } = run.settings;
  // The local model (walked once: hashed for the upload, its texts read from the same walk) and the key
  // queries are read and checked before the first platform call; then the PR's comment (its ledger names
  // the branch) and the deployment's settings, read together.
  const local = await readLocalModel(run.reporter, modelDir, inputs.exclude);
  if (await untouched(run, run.pr, modelDir)) return 0;
  const modelFiles = inputs.impact ? await localModelFiles(local, modelDir, { emptyAllowed: true }) : undefined;
  const numbers = inputs.impact ? await planDataDiff(inputs.dataDiff, run.event) : undefined;
  const [previewBranch, target] = await Promise.all([run.pr.resolveBranch(inputs.branch), deployTarget(run.op)]);
  // A deployment fed from a connected repository previews the PR's own head branch (no upload), unless
  // the branch input names another or the head is not in that repository (a fork's: then by upload).
  const pr = run.event.pr!;
  const fed = !!target.repository && !inputs.branch && !!pr.headRef && !pr.fork;
  const branch = fed ? pr.headRef : previewBranch;
  run.out.branch = branch;
  // "Updating" goes up at once and runs alongside the platform work; the result replaces it at the end.
  const updating = dryRun ? Promise.resolve() : publish(run.pr, { state: 'updating', branch }, { branch, state: 'open' }, { summary: false });
  const via = await preflight(run, inputs.via);
  const o = await previewOnPlatform(
    run.op,
    {
      branch: previewBranch,
      deployBranch: target.deployBranch,
      local,
      modelDir,
      concurrency: inputs.concurrency,
      via,
      commitMessage: run.pr.commitMessage(),
      allowModelDeletion: inputs.allowModelDeletion,
      smokeTest: inputs.smokeTest,
      smoke: { timeoutMs: DEFAULTS.smokeTimeoutSeconds * 1000, ca: connection.caCert },
      impact: inputs.impact ? { ca: connection.caCert } : undefined,
      modelFiles,
      numbers,
      ca: connection.caCert,
      fed: fed
        ? { branch, headSha: pr.headSha, modelDir: repositoryModelDir(run, target), repository: target.repository?.name ?? 'the connected repository' }
        : undefined,
    },
    { isStale: () => run.pr.isStale() },
  ).catch(async (e: unknown) => {
    // Refused input (the model-dir guard) ends the comment in a failed state with the reason, not on "updating".
    await updating;
    run.out.branch = previewBranch;
    if (e instanceof InputError && !dryRun)
      await publish(
        run.pr,
        { state: 'failed', branch: previewBranch, failure: failureOf('Preview', e, connection.apiUrl) },
        { branch: previewBranch, state: 'open' },
      );
    throw e;
  });
  await updating;
  run.out.branch = o.branch;
  const { failOnInvalid, failOnBreaking } = inputs;
  const shown = presentPreview(o, {
    deploymentId,
    apiUrl: connection.apiUrl,
    deployBranch: target.deployBranch,
    dryRun,
    failOnInvalid,
    failOnBreaking,
    failOnDataChange: inputs.dataDiff.failOnChange,
  });
  Object.assign(run.out, shown.outputs);
  if (shown.result !== undefined) run.setResult(shown.result);
  if (o.stale || dryRun) return 0;
  await writePreview(run.pr, o, shown, inputs.environmentPrefix);
  if (shown.failure) throw new StepFailed(shown.failure, o.failure ? { cause: o.failureCause } : undefined);
  return 0;
}

/**
 * A pull request that changes no file under the model folder gets no preview (a notice, and the check
 * neutral with the reason), unless `preview-untouched` asks for one or the model has a preview already
 * (it is kept equal to the pull request, which may have undone its change).
 */
export async function untouched(run: ActionRun<'pr'>, side: PullRequestSide, modelDir: string): Promise<boolean> {
  if (run.settings.inputs.previewUntouched) return false;
  const changes = await changesOf(side);
  if (touches(changes, modelDir)) return false;
  const ledger = (await side.thread())?.ledger;
  if (ledger?.state === 'open' && ledger.branch) return false;
  const dir = modelDir === '.' ? 'the repository' : `${modelDir}/`;
  const why = `pull request #${run.event.pr!.number} changes no file under ${dir}: no preview`;
  if (!run.settings.targets) {
    run.reporter.notice(`${why} (preview-untouched: true previews it anyway)`);
    run.out.skipped = 'true';
    run.out.status = 'untouched';
  }
  await neutralCheck(side, `Not previewed: no change under ${dir}`, `${why[0]!.toUpperCase()}${why.slice(1)}.`);
  return true;
}

/** `preflight: true`: the doctor's checks first (in the job summary); `upload-via: auto` takes the way it found. */
async function preflight(run: ActionRun<'pr'>, via: UploadVia): Promise<UploadVia> {
  const { inputs, connection, deploymentId, dryRun } = run.settings;
  if (!inputs.preflight || dryRun) return via;
  const report = await run.reporter.group('Preflight: datamodel-ci doctor', () => doctorFor(connection, deploymentId, run.reporter, false));
  run.reporter.summary(`### datamodel-ci: preflight\n\n\`\`\`text\n${renderDoctor(report).join('\n')}\n\`\`\``);
  if (!report.uploadVia) throw new StepFailed('preflight: no way to upload a model to a shared branch with this key (see the doctor lines above)');
  return via === 'auto' ? report.uploadVia : via;
}

/**
 * Whether the close merges into the deploy branch: never on a deployment fed from a connected repository
 * (GitHub's merge deploys it) or one that refuses merges; `merge-on-close: true` there is refused before
 * any write, naming the setting.
 */
function mergeOnClose(run: ActionRun<'pr'>, target: DeployTarget): boolean {
  const setting = run.settings.inputs.mergeOnClose;
  if (setting === 'false' || !run.event.pr?.merged) return false;
  const id = run.settings.deploymentId;
  const why = target.repository
    ? `deployment ${id} is fed from ${target.repository.name ?? 'a connected repository'} (creationMethod: ${target.repository.creationMethod}): GitHub's merge of the pull request deploys production, and a merge into ${target.deployBranch} would deploy it a second time`
    : !target.mergeAllowed
      ? `deployment ${id} refuses merges into ${target.deployBranch} (deployBranchMergeAllowed: false)`
      : undefined;
  if (!why) return true;
  if (setting === 'true') throw new InputError('merge-on-close', 'true', `auto or false: ${why}`);
  run.reporter.notice(`not merging into ${target.deployBranch}: ${why}`);
  return false;
}

/** The model folder for placing errors on a repository-fed deployment: the project root the platform builds. */
export function repositoryModelDir(run: Pick<ActionRun<'pr'>, 'settings' | 'reporter'>, target: DeployTarget): string {
  const root = target.projectRoot.replace(/^\/+|\/+$/g, '') || '.';
  const given = run.settings.modelDir.replace(/^\.\/|\/+$/g, '') || '.';
  if (given !== root && given === '.') return root;
  if (given !== root && !given.startsWith('/')) {
    run.reporter.warning(
      `model-dir is ${given}, but the deployment builds ${root} of the repository (deployProjectRoot: ${target.projectRoot}): errors are placed under model-dir`,
    );
  }
  return run.settings.modelDir;
}

async function close(run: ActionRun<'pr'>): Promise<number> {
  const pr = run.event.pr!;
  const { inputs, modelDir } = run.settings;
  const [branch, target] = await Promise.all([run.pr.resolveBranch(inputs.branch), deployTarget(run.op)]);
  const merge = mergeOnClose(run, target);
  const devBranch = (await run.pr.thread())?.ledger?.devBranch;
  // The merge commit's model (the checkout) is read and checked before the first write: it is what the
  // shared branch must hold when it is merged, and what the deploy branch must hold after.
  const local = merge ? await readLocalModel(run.reporter, modelDir, inputs.exclude) : undefined;
  const state = pr.merged ? 'merged' : 'closed';
  const fedHead = target.repository && !inputs.branch && pr.headRef && !pr.fork ? pr.headRef : undefined;
  run.out.branch = fedHead ?? branch;
  let production: ProductionCheck | undefined;
  let r: Awaited<ReturnType<typeof runClose>>;
  try {
    // Fed from a repository: production comes from GitHub's merge (checked, never merged again); the head
    // branch is the repository's own and stays, its staging goes off. A fallback preview branch is cleaned below.
    if (fedHead) {
      if (pr.merged)
        production = await run.reporter.group('Production', () =>
          checkProduction(run.op, { deployBranch: target.deployBranch, mergeCommit: pr.mergeCommitSha }),
        );
      await stagingOff(run.op, fedHead);
    }
    r = await runClose(run.op, {
      branch,
      merge,
      message: `Merge PR #${pr.number}: ${pr.title}`,
      devBranches: devBranch ? [devBranch] : [],
      removeOnUpstream: inputs.removeOnUpstream,
      model: local && { local, concurrency: inputs.concurrency, modelDir, allowModelDeletion: inputs.allowModelDeletion, via: inputs.via },
      deployOnMerge: local && inputs.deployOnMerge,
    });
  } catch (e) {
    if (!(e instanceof CloseFailed)) throw e;
    run.out.merged = String(e.merge?.merged ?? false);
    run.out.status = 'failed';
    // The comment's ledger says what is still on the platform; a rerun (or the sweep) removes it.
    await publish(run.pr, { state: 'failed', branch, failure: { step: e.step, message: e.message }, pending: e.pending }, { state: `${state}-pending` });
    throw new StepFailed(`${e.step.toLowerCase()} failed: ${e.message}`);
  }
  // A dry run says what would happen.
  run.out.merged = String(run.settings.dryRun ? merge : (r.merge?.merged ?? false));
  run.out.deleted = String(r.cleanup.deleted.length);
  run.out.status = 'cleaned';
  const [queued] = await Promise.all([pr.merged ? validatedInQueue(run.pr, pr.mergeCommitSha) : undefined, retirePreview(run.pr, inputs.environmentPrefix)]);
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
    run.pr,
    {
      state,
      branch: fedHead ?? branch,
      cleanup: { deleted: r.cleanup.deleted, ...(fedHead ? { stagingOff: fedHead } : {}) },
      ...(queued ? { queue: { sha: queued } } : {}),
      ...(r.merge ? { deployBranch: r.merge.deployBranch, merge: { deployMode: r.merge.deployMode, productionUpdated: r.merge.productionUpdated } } : fedView),
    },
    { state },
  );
  return 0;
}
