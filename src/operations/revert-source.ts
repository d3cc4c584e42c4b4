/**
 * What a revert restores, decided before any platform call: the last validation record's files, or a
 * named commit's; either way the checkout in model-dir must be exactly that model, since its bytes are
 * what the revert uploads. A record and the checkout are compared by their hashes; a commit without a
 * record of it is asked of git (model/git-commit.ts). Anything else is refused, naming what to check out.
 */
import { InputError } from '../client/errors.js';
import { checkoutIsCommit } from '../model/git-commit.js';
import type { LocalFile, PathFilter } from '../model/local-model.js';
import { sameCommit } from './branch-build.js';
import { treeDiff } from './merge-to-default.js';
import { manifestOf, sameTree, walked } from './upload-transaction.js';
import { recordManifest, type ValidationRecord } from './validation-record.js';

/** The model a revert restores: its commit, and every file production must hold after (path -> SHA-1, as the walk reads them). */
export interface RevertSource {
  commit: string;
  files: Record<string, string>;
  /** `record`: the last validation record's; `commit`: a named commit's (with its record when that is the last one). */
  from: 'record' | 'commit';
  record?: ValidationRecord;
}

export interface SourceInput {
  modelDir: string;
  local: readonly LocalFile[];
  excluded: PathFilter;
  deploymentId: number;
  /** Input `commit`. */
  commit?: string;
  /** The last validation record GitHub keeps for the deployment, and the commit it was deployed as (the merge commit). */
  last?: { record: ValidationRecord; ref: string };
  /** Why the last record could not be read (GitHub refused, a payload this version does not read). */
  problem?: string;
  /** The GitHub environment that keeps the records, for messages. */
  environment: string;
}

const hashes = (m: Record<string, { hash: string }>) => Object.fromEntries(Object.entries(m).map(([p, e]) => [p, e.hash]));

/** The checkout against a record: undefined when it holds exactly the record's files (of those the walk reads), else where they differ. */
function checkoutAgainst(input: SourceInput, record: ValidationRecord): string | undefined {
  const checkout = walked(manifestOf(input.local), input.excluded);
  const recorded = walked(recordManifest(record), input.excluded);
  return sameTree(checkout, recorded) ? undefined : treeDiff(checkout, recorded, 8).join(', ');
}

export async function revertSource(input: SourceInput): Promise<RevertSource> {
  const { last } = input;
  if (!input.commit) {
    if (!last)
      throw new InputError(
        'commit',
        undefined,
        `a commit to revert to: ${input.problem ?? `deployment ${input.deploymentId} has no validation record on GitHub (no deployment to the environment ${input.environment}; a merged pull request's close writes one)`}`,
      );
    const differs = checkoutAgainst(input, last.record);
    if (differs)
      throw new InputError(
        'model-dir',
        input.modelDir,
        `a checkout of the recorded model (validated at ${last.record.commit.slice(0, 7)}, deployed as ${last.ref.slice(0, 7)}), whose files it must hold; they differ in ${differs}. Check out ${last.ref} (actions/checkout with ref: ${last.ref}), or name the commit to revert to`,
      );
    return { commit: last.record.commit, files: hashes(walked(recordManifest(last.record), input.excluded)), from: 'record', record: last.record };
  }
  const commit = input.commit;
  // The last record is of this commit (validated, or deployed as it): the checkout must hold its files.
  if (last && (sameCommit(last.record.commit, commit) || sameCommit(last.ref, commit))) {
    const differs = checkoutAgainst(input, last.record);
    if (differs)
      throw new InputError('commit', commit, `the commit checked out in model-dir: its validation record's files and the checkout's differ in ${differs}`);
    return { commit: last.record.commit, files: hashes(walked(recordManifest(last.record), input.excluded)), from: 'commit', record: last.record };
  }
  // No record of it: git says whether the checkout is that commit's model.
  const checked = await checkoutIsCommit(input.modelDir, commit, input.local, input.excluded);
  if ('problem' in checked)
    throw new InputError(
      'commit',
      commit,
      `the commit checked out in model-dir (actions/checkout with ref: ${commit}), whose model the revert uploads: ${checked.problem}`,
    );
  return { commit: checked.commit, files: hashes(walked(manifestOf(input.local), input.excluded)), from: 'commit' };
}
