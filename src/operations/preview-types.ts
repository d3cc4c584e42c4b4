/**
 * What the preview's two flows (upload-preview.ts, repository-feed.ts) and the preview that runs them
 * (pr-preview.ts) share: its input, its outcome, the pull request's port. Below all three, so none
 * imports another for its types.
 */
import type { RollupOutcome } from '../impact/rollups/outcome.js';
import type { AgentsCheck } from '../model/agents/index.js';
import type { EnableStagingResult, SmokeOptions } from './enable-staging.js';
import type { ImpactResult, MetaToken } from './impact.js';
import type { VersionSkew } from '../model/version-skew.js';
import type { FileTexts } from '../model/model-files.js';
import type { DataDiffOutcome } from './data-diff.js';
import type { EvalDelta } from './evals/delta.js';
import type { LocalFile, PathFilter } from '../model/local-model.js';
import type { UploadResult, UploadVia } from './upload-model.js';
import type { ValidateResult } from './validate.js';
import type { ValidationRecord } from './validation-record.js';

/** What the lifecycle needs from the pull request's side (GitHub), behind a port. */
export interface PullRequestPort {
  /** True once a newer push owns the PR: the run then stops without merging its files. */
  isStale(): Promise<boolean>;
}

export interface PreviewInput {
  branch: string;
  /** The deployment's deploy branch (from its settings; read by the caller alongside its own reads). */
  deployBranch: string;
  /** Its deploy mode (`cli`: production runs the last upload, not the deploy branch's git). */
  deployMode?: string;
  /** The local model, hashed and checked by the caller before its first platform call. */
  local: LocalFile[];
  modelDir: string;
  concurrency: number;
  commitMessage: string;
  via: UploadVia;
  smokeTest: boolean;
  smoke: SmokeOptions;
  /** Compare the semantic layer with production's once the model is valid. */
  impact?: boolean;
  /** The checkout's model files (what is uploaded), for the definition diff. */
  modelFiles?: FileTexts;
  /** Allow an upload that deletes most of the branch's model (input `allow-model-deletion`). */
  allowModelDeletion?: boolean;
  /** Remote paths `exclude` leaves out (as the model's paths): kept on the branch, never pruned. */
  excluded: PathFilter;
  /** The commit the preview is of (the validation record names it). */
  headSha?: string;
  /** The agents' configuration folder under model-dir (input `agents-folder`; default `agents`). */
  agentsFolder?: string;
  /** The agents' eval delta (`evals: on`): the wait's bound, the gate, the agent. */
  evals?: { timeoutMs: number; failOnRegression: boolean; agent?: string; production?: 'run' | 'last-complete'; runs?: number };
}

export interface PreviewOutcome {
  branch: string;
  /** The shared branch was created by this run. */
  created: boolean;
  upload?: UploadResult;
  validation?: ValidateResult;
  staging?: EnableStagingResult;
  impact?: ImpactResult;
  /** A newer push owns the PR: nothing more was done. */
  stale: boolean;
  /** What failed on the platform, when something did (the outcome holds what was done before). */
  failure?: string;
  /** The error behind `failure` (its exit code and hint). */
  failureCause?: unknown;
  /** The data diff after the impact, when it was asked for. */
  numbers?: DataDiffOutcome;
  /** The rollup plans of the key queries (after the data diff; absent when the impact did not run). */
  rollups?: RollupOutcome;
  /** Production's and staging's Cube versions, and the keys of the model production's refuses. */
  versions?: VersionSkew;
  /** What the push that validated was (absent when it did not validate on a build accepted as its own). */
  record?: ValidationRecord;
  /** The offline check of the `agents/` folder (absent when the model has none). */
  agents?: AgentsCheck;
  /** The agents' eval delta, when asked and the model is valid. */
  evals?: EvalDelta;
}

/** One flow's outcome, and the impact's token for its staging environment (minted while the model built). */
export interface PreviewFlow {
  outcome: PreviewOutcome;
  stagingToken?: Promise<MetaToken> | undefined;
}
