/**
 * The close of one model's preview: merged into the deploy branch when the pull request was merged and
 * the deployment takes merges (GitHub's merge deploys a repository-fed one: checked, never merged again),
 * then the branches removed; the comment (or section) says what happened, and whether the merge queue
 * validated the merge commit.
 */
import { InputError } from '../client/errors.js';
import { readLocalModel } from '../model/local-model.js';
import { deployTarget, type DeployTarget } from '../operations/branch-build.js';
import { mergeRefusal } from '../operations/merge-to-default.js';
import { CloseFailed, runClose } from '../operations/pr-close.js';
import { checkProduction, stagingOff, type ProductionCheck } from '../operations/repository-feed.js';
import { changesOf, touches } from '../pr/changed-files.js';
import { validatedInQueue } from '../pr/check-run.js';
import { retirePreview } from '../pr/deployment.js';
import type { Outputs } from '../pr/presenters.js';
import { publish } from '../pr/publish.js';
import type { ActionRun } from './action-run.js';
import type { ModelRun } from './models.js';
import { fedHead, projectModel, type ModelFailure } from './pr-preview.js';

/**
 * Whether the close merges into the deploy branch: never on a deployment fed from a connected repository
 * (GitHub's merge deploys it) or one that refuses merges; `merge-on-close: true` there is refused before
 * any write, naming the setting.
 */
function mergeOnClose(run: ActionRun<'pr'>, id: number, target: DeployTarget): boolean {
  const setting = run.settings.inputs.mergeOnClose;
  if (setting === 'false' || !run.event.pr?.merged) return false;
  const refused = mergeRefusal(target);
  if (!refused) return true;
  const why = `deployment ${id}: ${refused}`;
  if (setting === 'true') throw new InputError('merge-on-close', 'true', `auto or false: ${why}`);
  run.reporter.notice(`not merging into ${target.deployBranch}: ${why}`);
  return false;
}

/**
 * What production built after GitHub merged the PR on a fed deployment. The platform builds production
 * only when the project changed (the vendor: a monorepo rebuilds only for files under its root), so a
 * merge that touched nothing there is not waited for: the comment says why production did not move.
 */
async function productionAfterMerge(run: ActionRun<'pr'>, m: ModelRun, target: DeployTarget): Promise<ProductionCheck> {
  const pr = run.event.pr!;
  const root = target.projectRoot.replace(/^\/+|\/+$/g, '') || '.';
  const changes = await changesOf(m.side);
  if (!touches(changes, root)) {
    const why = `the merge changed nothing under ${root === '.' ? 'the repository' : `${root}/`}, and the platform builds production only when the project changes: not waited for`;
    run.reporter.info(`production (${target.deployBranch}): ${why}`);
    return { unchecked: why };
  }
  return run.reporter.group('Production', () => checkProduction(m.op, { deployBranch: target.deployBranch, mergeCommit: pr.mergeCommitSha }));
}

/** Merge (when the PR was merged and the deployment takes it) and clean up one model's preview. */
export async function closeModel(run: ActionRun<'pr'>, m: ModelRun, out: Outputs): Promise<ModelFailure | undefined> {
  const pr = run.event.pr!;
  const { inputs } = run.settings;
  const { side, op } = m;
  const { modelDir, deploymentId } = m.target;
  const [branch, target] = await Promise.all([side.resolveBranch(inputs.branch), deployTarget(op)]);
  const merge = mergeOnClose(run, deploymentId, target);
  // The run's ledger: what this PR's runs made, the only things the close removes (docs/faults.md).
  op.ledger = await side.runLedger();
  // The merge commit's model (the checkout) is read and checked before the first write: it is what the
  // shared branch must hold when it is merged, and what the deploy branch must hold after.
  const read = merge
    ? projectModel(run.reporter, op, modelDir, await readLocalModel(run.reporter, modelDir, inputs.exclude), target, inputs.exclude)
    : undefined;
  const local = read?.local;
  const state = pr.merged ? 'merged' : 'closed';
  const fedBranch = fedHead(run, target);
  out.branch = fedBranch ?? branch;
  let production: ProductionCheck | undefined;
  let turnedOff = false;
  let r: Awaited<ReturnType<typeof runClose>>;
  try {
    // Fed from a repository: production comes from GitHub's merge (checked, never merged again); the head
    // branch is the repository's own and stays, its staging goes off. A fallback preview branch is cleaned below.
    if (fedBranch) {
      if (pr.merged) production = await productionAfterMerge(run, m, target);
      // The head branch is the repository's: its staging goes off only when a run of this PR turned it on.
      turnedOff = await stagingOff(op, fedBranch);
      if (!turnedOff) run.reporter.info(`the staging environment of ${fedBranch} stays as it is: no run of this pull request turned it on`);
    }
    r = await runClose(op, {
      branch,
      merge,
      message: `Merge PR #${pr.number}: ${pr.title}`,
      generatedName: side.generatedName(branch),
      removeOnUpstream: inputs.removeOnUpstream,
      model: read && {
        local: read.local,
        concurrency: inputs.concurrency,
        modelDir: read.dir,
        allowModelDeletion: inputs.allowModelDeletion,
        via: inputs.via,
        excluded: read.excluded,
      },
      deployOnMerge: local && inputs.deployOnMerge,
      target,
    });
  } catch (e) {
    if (!(e instanceof CloseFailed)) throw e;
    out.merged = String(e.merge?.merged ?? false);
    out.status = 'failed';
    // The comment's ledger says what is still on the platform; a rerun (or the sweep) removes it.
    await publish(side, { state: 'failed', branch, failure: { step: e.step, message: e.message }, pending: e.pending }, { state: `${state}-pending` });
    return { failure: `${e.step.toLowerCase()} failed: ${e.message}` };
  }
  // A dry run says what would happen.
  out.merged = String(run.settings.dryRun ? merge : (r.merge?.merged ?? false));
  out.deleted = String(r.cleanup.deleted.length);
  out.status = 'cleaned';
  const [queued] = await Promise.all([pr.merged ? validatedInQueue(side, pr.mergeCommitSha) : undefined, retirePreview(side, inputs.environmentPrefix)]);
  const fedView = fedBranch
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
    side,
    {
      state,
      branch: fedBranch ?? branch,
      cleanup: { deleted: r.cleanup.deleted, ...(fedBranch && turnedOff ? { stagingOff: fedBranch } : {}) },
      ...(queued ? { queue: { sha: queued } } : {}),
      ...(r.merge ? { deployBranch: r.merge.deployBranch, merge: { deployMode: r.merge.deployMode, productionUpdated: r.merge.productionUpdated } } : fedView),
    },
    { state },
  );
  return undefined;
}
