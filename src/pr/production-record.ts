/**
 * Where the close leaves the last validation record for a later job (the drift watch, a revert): a GitHub
 * deployment of the merge commit to the environment `datamodel-ci-production-<deployment id>`, its payload
 * the record. A job with the workflow's token and `deployments: read` reads it back; no file or branch of
 * the repository is written, and the repository's Environments page shows what production was proven to
 * run, and when (docs/production.md says why this place).
 */
import { messageOf } from '../client/errors.js';
import type { GitHubApi } from '../github/types.js';
import { readRecord, type ProductionProof, type ValidationRecord } from '../operations/validation-record.js';

/** The GitHub environment that keeps deployment `deploymentId`'s production record. */
export const productionEnvironment = (deploymentId: number): string => `datamodel-ci-production-${deploymentId}`;

/** What a production record's deployment carries: the record, and the proof after the merge when there was one. */
export interface ProductionRecord {
  record: ValidationRecord;
  proof?: Pick<ProductionProof, 'status' | 'reason'>;
  /** The commit GitHub deployed (the merge commit), and when. */
  ref: string;
  createdAt: string;
}

/** Write `record` (with the proof's verdict) as a deployment of `ref` (the merge commit); returns its id. */
export async function writeProductionRecord(
  github: GitHubApi,
  input: { ref: string; record: ValidationRecord; proof?: ProductionProof; url?: string; logUrl?: string },
): Promise<number> {
  const { record, proof } = input;
  const id = await github.createDeployment({
    ref: input.ref,
    environment: productionEnvironment(record.deploymentId),
    description: `datamodel-ci: the model validated at ${record.commit.slice(0, 7)} (${Object.keys(record.files).length} files)`,
    production: true,
    payload: { datamodelCi: { record, ...(proof ? { proof: { status: proof.status, ...(proof.reason ? { reason: proof.reason } : {}) } } : {}) } },
  });
  await github.createDeploymentStatus(id, {
    state: proof?.status === 'differs' ? 'failure' : 'success',
    ...(input.url ? { environmentUrl: input.url } : {}),
    ...(input.logUrl ? { logUrl: input.logUrl } : {}),
    description: proof ? `production ${proof.status === 'proven' ? '= the validated model' : proof.status}` : 'validated model recorded',
  });
  return id;
}

/** The last production record of `deploymentId`, or undefined (none, or one this version cannot read: a reason). */
export async function readProductionRecord(github: GitHubApi, deploymentId: number): Promise<ProductionRecord | { problem: string } | undefined> {
  let d: Awaited<ReturnType<GitHubApi['latestDeployment']>>;
  try {
    d = await github.latestDeployment(productionEnvironment(deploymentId));
  } catch (e) {
    return { problem: `the GitHub deployments of ${productionEnvironment(deploymentId)} could not be read (${messageOf(e)})` };
  }
  if (!d) return undefined;
  const carried = (d.payload as { datamodelCi?: { record?: unknown; proof?: { status?: unknown; reason?: unknown } } } | null)?.datamodelCi;
  const record = readRecord(carried?.record);
  if (!record) return { problem: `the newest deployment of ${productionEnvironment(deploymentId)} (${d.id}) carries no validation record this version reads` };
  const status = carried?.proof?.status;
  const verdicts: readonly ProductionProof['status'][] = ['proven', 'differs', 'not-proven'];
  const known = verdicts.find((v) => v === status);
  const proof = known ? { status: known, ...(typeof carried?.proof?.reason === 'string' ? { reason: carried.proof.reason } : {}) } : undefined;
  return { record, ...(proof ? { proof } : {}), ref: d.ref, createdAt: d.createdAt };
}
