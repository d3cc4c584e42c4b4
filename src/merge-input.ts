/**
 * What a merge into the deploy branch does besides merging, for the two actions that merge (`pr` on a
 * merged pull request's close, `merge-to-default`): upload the merged model in CLI deploy mode, and how
 * long the proof after the merge waits for production's newer build (docs/production.md).
 */
import type { InputReader } from './settings.js';

export interface MergeInputs {
  deployOnMerge: boolean;
  /** How long the proof after the merge waits for production's build newer than the merge, ms (`proof-wait`). */
  proofWaitMs: number;
}

export const readMergeInputs = (r: InputReader): MergeInputs => ({ deployOnMerge: r.bool('deploy-on-merge'), proofWaitMs: r.duration('proof-wait') });
