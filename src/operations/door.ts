/**
 * The one door: the only code that takes a step no rerun can undo (docs/faults.md, "One rule"). Each step
 * takes the evidence it needs as a value only the evidence makers can make (evidence.ts): a caller that
 * has none does not compile, and test/door.test.ts fails when any other module calls these endpoints.
 *
 * The steps and their evidence are listed in DOOR_STEPS (docs/faults.md's table is written from it).
 */
import type { schemas } from '@datamodel-ci/platform-api';
import { BadRequestError, NotFoundError } from '../client/errors.js';
import { gitWrite, mutate, type OpContext } from './context.js';
import { ledgerOf } from './ledger.js';
import {
  attest,
  type AcceptedBuild,
  type ChangeBuild,
  type CreatedBranch,
  type MergeReady,
  type OrphanRelease,
  type OwnFork,
  type PrunePlan,
  type StagingTurnedOn,
  type UpstreamRef,
} from './evidence.js';

/** Every step of the door with its evidence, as docs/faults.md's table gives them (written by `npm run generate-actions`). */
export const DOOR_STEPS = {
  deleteBranch: {
    step: 'Delete a branch on the platform',
    evidence: 'CreatedBranch',
    when: "the PR comment's ledger says a run of this PR created it (`created`: the branch list did not hold it before the create), or this run did; a merge queue branch is named from its entry's own commit",
    otherwise: 'the branch stays: `<branch> left as it is: no run of this pull request created it`',
  },
  deleteUpstream: {
    step: 'Delete its ref in a connected repository',
    evidence: 'UpstreamRef',
    when: "as above, and its name is one the toolkit generates (`<prefix>pr-<n>`, `<prefix>mq-…`, the doctor's), and `remove-on-upstream` allows it",
    otherwise: 'the ref stays',
  },
  deleteFork: {
    step: 'Delete a dev-mode fork',
    evidence: 'OwnFork',
    when: "a run of this PR opened it (the ledger's `forks`), and the branch list shows it forked from the PR's branch",
    otherwise: "it stays (a reviewer's dev-mode session); `DELETE …/dev-mode` is never sent (per credential: it ends another run's session)",
  },
  turnStagingOff: {
    step: 'Turn a staging environment off',
    evidence: 'StagingTurnedOn',
    when: 'a run of this PR turned it on (`stagingOn`: it was seen off first), or created the branch',
    otherwise: 'it stays on, said in one line',
  },
  deleteOrphan: {
    step: 'Sweep an orphan',
    evidence: 'OrphanRelease',
    when: 'no ledger of this repository claims the branch, the input `delete-orphans: true` releases it, and it has not built for `min-age`; never upstream',
    otherwise: "it is listed in the sweep's table as an orphan and kept (another repository's preview looks like that)",
  },
  merge: {
    step: 'Merge into the deploy branch',
    evidence: 'MergeReady',
    when: "the branch holds exactly the checkout's model (a merged PR's close uploads its merge commit first), or, with no checkout, exactly the model a run of this PR last validated (the ledger's digest); and the deployment takes merges",
    otherwise: 'no merge, production untouched, said with the reason',
  },
  removeWithMerge: {
    step: 'Remove the branch with the merge',
    evidence: 'CreatedBranch',
    when: 'as for deleting it: a run of this PR created it (`merge-to-default` with `keep-branch: false`)',
    otherwise: 'the branch is kept after the merge, said',
  },
  finishUpload: {
    step: 'Prune files with an upload',
    evidence: 'PrunePlan',
    when: 'each file the manifest lacks is one the walk reads, not `exclude`d, and missing from the checkout',
    otherwise: 'files the walk never reads (`.github/`, `node_modules`) or `exclude` leaves out stay, listed with their remote hash',
  },
  acceptBuild: {
    step: 'Declare a push valid',
    evidence: 'ChangeBuild',
    when: "the build is newer than the mark read before the change landed (its job id or finish time; a branch this run created or added; on a repository-fed branch the mark the ledger kept, or one read before GitHub's push landed), or of the pushed commit where no mark orders builds, or seen to start after the mark",
    otherwise: 'the wait goes on; at its deadline the push is "not proven", never valid, and the check fails',
  },
} as const;

/** docs/faults.md's table of the door's steps. */
export function doorTable(): string {
  const rows = Object.values(DOOR_STEPS).map((s) => `| ${s.step} | \`${s.evidence}\` | ${s.when} | ${s.otherwise} |`);
  return ['| Step | Evidence | Taken only when | Otherwise |', '|---|---|---|---|', ...rows].join('\n');
}

/**
 * Delete a branch a run of this pull request created (its upstream ref too with `upstream`), or an orphan
 * the user released (never upstream); `gone` when it was not there. A dry run says so only.
 */
export async function deleteBranch(ctx: OpContext, evidence: CreatedBranch | OrphanRelease, upstream?: UpstreamRef): Promise<'deleted' | 'gone'> {
  const name = evidence.branch;
  const removeOnUpstream = 'by' in evidence && upstream?.branch === name;
  try {
    const done = await mutate(ctx, `delete branch ${name}${removeOnUpstream ? ' and its upstream ref' : ''}`, () =>
      ctx.client.branches.remove({ deploymentId: ctx.deploymentId, query: { branchName: name, removeOnUpstream } }, { signal: ctx.signal }),
    );
    if (done) ctx.reporter.info(`deleted branch ${name}`);
    if (done) ledgerOf(ctx).forget(name);
    return 'deleted';
  } catch (e) {
    if (e instanceof NotFoundError) {
      ledgerOf(ctx).forget(name);
      return 'gone';
    }
    throw e;
  }
}

/** Delete a dev-mode fork a run of this pull request opened (which ends the session on it); never upstream. */
export async function deleteFork(ctx: OpContext, fork: OwnFork): Promise<'deleted' | 'gone'> {
  try {
    const done = await mutate(ctx, `delete dev branch ${fork.fork}`, () =>
      ctx.client.branches.remove({ deploymentId: ctx.deploymentId, query: { branchName: fork.fork, removeOnUpstream: false } }, { signal: ctx.signal }),
    );
    if (done) ctx.reporter.info(`deleted dev branch ${fork.fork}`);
    if (done) ledgerOf(ctx).forget(fork.fork);
    return 'deleted';
  } catch (e) {
    if (e instanceof NotFoundError) {
      ledgerOf(ctx).forget(fork.fork);
      return 'gone';
    }
    throw e;
  }
}

/** Turn off a staging environment a run of this pull request turned on; `gone` when the branch (or its environment) is not there. */
export async function turnStagingOff(ctx: OpContext, on: StagingTurnedOn): Promise<'off' | 'gone'> {
  try {
    await mutate(ctx, `disable the staging environment of ${on.branch}`, () =>
      ctx.client.branches.setStagingEnvironment({ deploymentId: ctx.deploymentId, body: { enabled: false, branchName: on.branch } }, { signal: ctx.signal }),
    );
    return 'off';
  } catch (e) {
    // Gone already, or not a shared branch any more: nothing to disable.
    if (e instanceof NotFoundError || e instanceof BadRequestError) return 'gone';
    throw e;
  }
}

export interface MergeOptions {
  deployBranch: string;
  message: string;
  /** Remove the branch with the merge: only a branch a run of this pull request created. */
  remove?: CreatedBranch;
  /** Recognise a merge whose answer was lost by its effect (the client's checked write). */
  settle: () => Promise<{ merged: boolean; branchDeleted: boolean } | undefined>;
}

/** Merge a branch holding a model the toolkit checked into the deploy branch; undefined in a dry run. */
export async function mergeIntoDeployBranch(
  ctx: OpContext,
  ready: MergeReady,
  options: MergeOptions,
): Promise<{ merged: boolean; branchDeleted: boolean } | undefined> {
  const removeBranchAfterMerge = options.remove?.branch === ready.branch;
  return mutate(ctx, `merge ${ready.branch} into ${options.deployBranch}${removeBranchAfterMerge ? ' and delete it' : ' (keeping it)'}`, async () => {
    const r = await ctx.client.branches.mergeToDefault(
      { deploymentId: ctx.deploymentId, body: { branchName: ready.branch, message: options.message, removeBranchAfterMerge } },
      { ...gitWrite(ctx), settle: options.settle },
    );
    return { merged: r?.merged ?? true, branchDeleted: r?.branchDeleted ?? removeBranchAfterMerge };
  });
}

/** Finish an upload transaction whose manifest prunes only what the plan allows (`autoRemoveFiles`). */
export async function finishUpload(
  ctx: OpContext,
  prune: PrunePlan,
  input: { transaction: { id: string }; commitMessage: string; query: Record<string, unknown>; settle: () => Promise<{ lastHash?: string } | undefined> },
): Promise<schemas.FinishUploadResponse> {
  return ctx.client.dataModel.finishUpload(
    {
      deploymentId: ctx.deploymentId,
      query: { branchName: prune.branch, ...input.query },
      body: {
        transaction: input.transaction,
        files: prune.manifest,
        autoRemoveFiles: true,
        commitMessage: input.commitMessage,
        branchName: prune.branch,
      },
    },
    // The branch holding the manifest means a finish whose answer was lost did land.
    { ...gitWrite(ctx), settle: input.settle },
  );
}

/** Accept a build as the change's: the only way a validation may declare a push's model valid. */
export function acceptBuild(build: ChangeBuild): AcceptedBuild {
  return attest('accepted', { branch: build.branch, status: build.status, proof: build.proof });
}
