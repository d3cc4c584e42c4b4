import type { InputSpec } from './action-spec.js';
import { DEFAULTS } from './defaults.js';

/** The `pr` action's own inputs (kept here so src/action-spec.ts stays one screenful per action). */

/** Closing, validating, uploading: the first of the root action's own inputs. */
export const PR_OWN_INPUTS: InputSpec[] = [
  {
    name: 'merge-on-close',
    description:
      "When the PR is merged: `auto` (default) merges the preview into the deploy branch unless the deployment is fed from a connected repository (GitHub's merge deploys it) or refuses merges (`deployBranchMergeAllowed: false`); `true` always merges (refused on such a deployment, before any write); `false` never.",
    default: 'auto',
  },
  { name: 'fail-on-invalid', description: 'Fail the job when the model is invalid.', default: 'true' },
  { name: 'smoke-test', description: 'Query the staging environment once it is enabled.', default: 'false' },
  { name: 'concurrency', description: 'Files uploaded in parallel at most (the connection pool holds 16).', default: String(DEFAULTS.uploadConcurrency) },
  {
    name: 'remove-on-upstream',
    description:
      "At cleanup, also delete the preview branch's git ref in the deployment's connected repository: only for a branch whose name the toolkit generates and that a run of the PR created, as its comment's ledger records (`false` keeps the ref).",
    default: 'true',
  },
];

/** The GitHub deployment, the preflight and the impact switch. */
export const PR_PREVIEW_INPUTS: InputSpec[] = [
  {
    name: 'environment-prefix',
    description:
      'GitHub deployment per PR (the PR shows "View deployment"): environment `<environment-prefix><number>`, pointing at the preview; needs `deployments: write`. Empty: no GitHub deployment.',
    default: 'preview-pr-',
  },
  {
    name: 'preflight',
    description:
      'Run `datamodel-ci doctor` first (a throwaway branch, removed after): checks the upload path, hashes, build states, validation errors and staging URL on your tenant, and uploads the way it found to work.',
    default: 'false',
  },
  {
    name: 'impact',
    description:
      "After a valid validation, compare the PR's semantic layer with production's and list the content its breaking changes hit (a section of the comment).",
    default: 'true',
  },
];
