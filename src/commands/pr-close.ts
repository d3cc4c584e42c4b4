/**
 * The close of one model's preview: merged into the deploy branch when the pull request was merged and
 * the deployment takes merges (GitHub's merge deploys a repository-fed one: checked, never merged again),
 * production then proven to serve the validated model (or shown to differ, which fails the step), then the
 * branches removed; the comment (or section) says what happened, and whether the merge queue validated the
 * merge commit.
 */
import { InputError } from '../client/errors.js';
import { readLocalModel } from '../model/local-model.js';
import { localModelFiles } from '../model/model-files.js';
import { proveProduction, type CheckoutForProof, type ProofOutcome } from '../operations/production-proof.js';
import { presentProof, recordProduction } from '../pr/present-proof.js';
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
  return run.reporter.group('Production', () =>
    checkProduction(m.op, { deployBranch: target.deployBranch, mergeCommit: pr.mergeCommitSha, waitMs: run.settings.inputs.proofWaitMs }),
  );
}

/**
 * The merge commit's model (the checkout) as the merge and the proof read it: read and checked before the
 * first write when the close merges; on a repository-fed deployment (GitHub merged) only for the proof,
 * and a missing checkout then only makes the proof "not proven".
 */
async function mergeCheckout(run: ActionRun<'pr'>, m: ModelRun, target: DeployTarget, needed: boolean) {
  const { inputs } = run.settings;
  const local = await readLocalModel(run.reporter, m.target.modelDir, inputs.exclude).catch((e: unknown) => {
    if (needed || !(e instanceof InputError)) throw e;
    run.reporter.notice(`no checkout of the merge commit to prove production with (${e.message})`);
    return undefined;
  });
  if (!local) return undefined;
  const read = projectModel(run.reporter, m.op, m.target.modelDir, local, target, inputs.exclude);
  const checkout: CheckoutForProof = { local: read.local, excluded: read.excluded, files: await localModelFiles(read.local, read.dir, { emptyAllowed: true }) };
  return { read, checkout };
}

/** Merge (when the PR was merged and the deployment takes it), prove production, and clean up one model's preview. */
export async function closeModel(run: ActionRun<'pr'>, m: ModelRun, out: Outputs): Promise<ModelFailure | undefined> {
  const pr = run.event.pr!;
  const { inputs } = run.settings;
  const { side, op } = m;
  const { deploymentId } = m.target;
  const [branch, target] = await Promise.all([side.resolveBranch(inputs.branch), deployTarget(op)]);
  const merge = mergeOnClose(run, deploymentId, target);
  // The run's ledger: what this PR's runs made, the only things the close removes (docs/faults.md).
  op.ledger = await side.runLedger();
  const fedBranch = fedHead(run, target);
  // The merge commit's model is read and checked before the first write: it is what the shared branch must
  // hold when it is merged, and what production must hold after (the proof).
  const model = merge || (pr.merged && fedBranch) ? await mergeCheckout(run, m, target, merge) : undefined;
  const read = model?.read;
  // The last push that validated (the comment's ledger): the proof compares production with it.
  const record = pr.merged ? (await side.thread())?.ledger?.record : undefined;
  const proofOf = { ...(record ? { record } : {}), ...(model ? { checkout: model.checkout } : {}) };
  const state = pr.merged ? 'merged' : 'closed';
  out.branch = fedBranch ?? branch;
  let production: ProductionCheck | undefined;
  let fedProof: ProofOutcome | undefined;
  let turnedOff = false;
  let r: Awaited<ReturnType<typeof runClose>>;
  try {
    // Fed from a repository: production comes from GitHub's merge (checked and proven, never merged again); the
    // head branch is the repository's own and stays, its staging goes off. A fallback preview branch is cleaned below.
    if (fedBranch) {
      if (pr.merged) production = await productionAfterMerge(run, m, target);
      const build = production?.build;
      if (build && !run.settings.dryRun) fedProof = await run.reporter.group('Production proof', () => proveProduction(op, { target, build, ...proofOf }));
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
      deployOnMerge: merge && inputs.deployOnMerge,
      target,
      proof: { ...proofOf, waitMs: inputs.proofWaitMs },
    });
  } catch (e) {
    if (!(e instanceof CloseFailed)) throw e;
    out.merged = String(e.merge?.merged ?? false);
    out.status = 'failed';
    const proof = e.proof ?? fedProof;
    const shown = proof ? await showProof(run, m, target, proof, out) : undefined;
    // The comment's ledger says what is still on the platform; a rerun (or the sweep) removes it.
    const merged =
      e.merge && shown
        ? { deployBranch: e.merge.deployBranch, merge: { deployMode: e.merge.deployMode, productionUpdated: e.merge.productionUpdated, proof: shown.view } }
        : {};
    await publish(
      side,
      { state: 'failed', branch, failure: { step: e.step, message: e.message }, pending: e.pending, ...merged },
      { state: `${state}-pending` },
    );
    return { failure: `${e.step.toLowerCase()} failed: ${e.message}` };
  }
  // A dry run says what would happen.
  out.merged = String(run.settings.dryRun ? merge : (r.merge?.merged ?? false));
  out.deleted = String(r.cleanup.deleted.length);
  out.status = 'cleaned';
  const proof = r.proof ?? fedProof;
  const shown = proof ? await showProof(run, m, target, proof, out) : undefined;
  const [queued] = await Promise.all([pr.merged ? validatedInQueue(side, pr.mergeCommitSha) : undefined, retirePreview(side, inputs.environmentPrefix)]);
  const proofView = shown ? { proof: shown.view } : {};
  const fedView = fedBranch
    ? {
        deployBranch: target.deployBranch,
        merge: {
          deployMode: target.deployMode,
          productionUpdated: !!production?.isMergeCommit,
          repository: target.repository?.name ?? 'the connected repository',
          ...(production?.builtAt ? { builtAt: production.builtAt } : {}),
          ...(production?.unchecked ? { unchecked: production.unchecked } : {}),
          ...proofView,
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
      ...(r.merge
        ? { deployBranch: r.merge.deployBranch, merge: { deployMode: r.merge.deployMode, productionUpdated: r.merge.productionUpdated, ...proofView } }
        : fedView),
    },
    { state },
  );
  return shown?.failure ? { failure: shown.failure } : undefined;
}

/** The proof's outputs and `--json` result, and the production record written for a later job. */
async function showProof(run: ActionRun<'pr'>, m: ModelRun, target: DeployTarget, proof: ProofOutcome, out: Outputs) {
  const shown = presentProof(proof);
  Object.assign(out, shown.outputs);
  run.setResult(shown.json);
  await recordProduction(m.side, run.event.pr?.mergeCommitSha, target.deployBranch, proof);
  return shown;
}
