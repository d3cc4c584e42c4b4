import type { InputSpec, OutputSpec } from './action-spec.js';

/** The revert's own inputs and outputs (issue 37): what to restore, and the consent to merge it. */

export const REVERT_INPUTS: InputSpec[] = [
  {
    name: 'commit',
    description:
      "Revert to the model of this commit (7 to 40 hexadecimal characters), which the checkout in `model-dir` must be (actions/checkout with `ref:`; checked against the commit's files, or against its validation record when it is the last one). Empty: the last validated record of the deployment (the GitHub deployment to `datamodel-ci-production-<deployment-id>` a merged close wrote), whose files the checkout must hold.",
    default: '',
  },
  {
    name: 'confirm',
    description:
      "Merge the validated revert into the deploy branch (production). Off (default): a dry run that uploads the model to a fresh branch, validates it, prints what it would change in production's semantic layer, merges nothing and deletes the branch.",
    default: 'false',
  },
];

/** The revert's outputs of its own (the others are the common ones: valid, error-count, merged, status, skipped). */
export const REVERT_OUTPUT = {
  branch: { name: 'branch', description: 'The branch the revert made for the model (`<branch-prefix>revert-<commit>`), deleted after.' },
  commit: { name: 'commit', description: 'The commit whose model the revert restores.' },
  proof: {
    name: 'production-proof',
    description:
      "After a confirmed merge: `proven` (production's build newer than the merge holds exactly the restored files and serves their layer), `differs`, or `not-proven` (no newer build within the bound, a layer that could not be read); empty when nothing was merged.",
  },
} satisfies Record<string, OutputSpec>;
