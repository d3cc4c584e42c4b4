/**
 * The proof after a merge as a run shows it (issue 37): the `production-proof` output, the comment's part
 * (src/pr/comment/render-proof.ts), `--json`'s `result.proof` with every file and member, and the failure
 * when production differs; then the production record left where a later job reads it (a GitHub deployment
 * of the merge commit, src/pr/production-record.ts).
 */
import { messageOf } from '../client/errors.js';
import { GitHubRefused } from '../github/types.js';
import type { ProofOutcome } from '../operations/production-proof.js';
import { proofView, type ProofView } from './comment/render-proof.js';
import type { Outputs } from './presenters.js';
import { writeProductionRecord } from './production-record.js';
import { platformPageUrl } from './publish.js';
import type { PullRequestSide } from './pull-request.js';

export interface PresentedProof {
  outputs: Outputs;
  view: ProofView;
  /** `--json`'s `result`: the proof whole (and the record it is of, when the merge commit's model is the record's). */
  json: { proof: Omit<ProofOutcome, 'record'>; record?: ProofOutcome['record'] };
  /** Production differs from the validated model: the step fails. */
  failure?: string;
}

/** The proof as outputs, view, JSON and failure. */
export function presentProof(proof: ProofOutcome): PresentedProof {
  const { record, ...whole } = proof;
  const view = proofView(whole)!;
  const failure =
    proof.status === 'differs'
      ? `production differs from the validated model${proof.commit ? ` (commit ${proof.commit.slice(0, 7)})` : ''}: ${proof.reason ?? 'see the log'}`
      : undefined;
  return {
    outputs: { 'production-proof': proof.status },
    view,
    json: { proof: whole, ...(record ? { record } : {}) },
    ...(failure ? { failure } : {}),
  };
}

/**
 * Leave the record production was compared with (and the verdict) as a GitHub deployment of `ref` (the merge
 * commit), for the drift watch and the revert. Only a record whose files are the merge commit's is written;
 * without `deployments: write` a notice says so and the close goes on.
 */
export async function recordProduction(side: PullRequestSide, ref: string | undefined, deployBranch: string, proof: ProofOutcome): Promise<void> {
  const github = side.github;
  if (!github || side.settings.dryRun) return;
  if (!proof.record) {
    side.reporter.notice("no production record written: no validation record of this pull request is of the merge commit's model");
    return;
  }
  try {
    const id = await writeProductionRecord(github, {
      ref: ref ?? proof.record.commit,
      record: proof.record,
      proof,
      url: platformPageUrl(side.settings.apiUrl, side.settings.deploymentId, deployBranch),
      ...(side.event.runUrl ? { logUrl: side.event.runUrl } : {}),
    });
    side.reporter.info(`production record: GitHub deployment ${id} of ${(ref ?? proof.record.commit).slice(0, 7)} (${proof.status})`);
  } catch (e) {
    if (e instanceof GitHubRefused)
      side.reporter.notice('no production record written: the token may not write deployments (grant the job `deployments: write`)');
    else side.reporter.warning(`could not write the production record: ${messageOf(e)}`);
  }
}
