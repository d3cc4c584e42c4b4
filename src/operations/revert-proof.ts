/**
 * The proof after a revert's merge: wait, bounded, for production's build newer than the mark read before
 * the merge, then compare production's files with the restored hashes and its semantic layer (read whole)
 * with the one the revert branch served when it was validated. "proven" only with a newer build, equal
 * hashes and an equal layer digest; what differs is listed; anything that cannot be shown is "not proven",
 * with the reason. Nothing is written (a difference is said, never "fixed" by another merge).
 */
import { AbortedError, messageOf } from '../client/errors.js';
import { memberChanges } from '../impact/layer-digest.js';
import type { PathFilter } from '../model/local-model.js';
import { BuildError, waitForBuild, type BuildMark, type DeployTarget } from './branch-build.js';
import type { OpContext } from './context.js';
import { compareWithHashes, productionLayer, type FileChange, type LayerRead } from './production-state.js';
import type { ProductionProof } from './validation-record.js';

export interface ProofInput {
  commit: string;
  /** What production must hold: path -> SHA-1, of the files the walk reads. */
  files: Readonly<Record<string, string>>;
  excluded: PathFilter;
  /** Production's build status read before the merge (undefined: it could not be read; only a run seen to start then proves a build). */
  mark: BuildMark | undefined;
  /** The layer the validated revert branch served: what production must serve after. */
  expected: LayerRead;
  /** The groups its policies name (each layer is read whole, with every one). */
  groups: readonly string[];
  timeoutMs: number;
}

/** `production = <commit>'s model`, what differs, or why it is not proven. */
export async function proveProduction(ctx: OpContext, target: DeployTarget, input: ProofInput): Promise<ProductionProof> {
  const commit = input.commit;
  let build: string | undefined;
  try {
    await waitForBuild(ctx, target.deployBranch, { ...(input.mark ? { since: input.mark } : {}), timeoutMs: input.timeoutMs });
  } catch (e) {
    if (e instanceof AbortedError || ctx.signal?.aborted || !(e instanceof BuildError)) throw e;
    build = messageOf(e);
  }
  let files: FileChange[];
  let layer: LayerRead;
  try {
    [files, layer] = await Promise.all([compareWithHashes(ctx, target, input.files, input.excluded), productionLayer(ctx, input.groups)]);
  } catch (e) {
    if (e instanceof AbortedError || ctx.signal?.aborted) throw e;
    return { status: 'not-proven', commit, files: [], members: [], reason: `production could not be read after the merge (${messageOf(e)})` };
  }
  const members = layer.members && input.expected.members ? memberChanges(layer.members, input.expected.members) : [];
  const sameLayer = !!layer.digest && layer.digest === input.expected.digest;
  if (files.length || members.length || (layer.digest && input.expected.digest && !sameLayer)) {
    const why = build ? `production's build after the merge: ${build}` : undefined;
    return { status: 'differs', commit, files, members, ...(why ? { reason: why } : {}) };
  }
  const reason = build
    ? `no build of production newer than the merge was shown (${build})`
    : !layer.digest
      ? `production's semantic layer could not be read (${layer.problem ?? 'no /meta'})`
      : !input.expected.digest
        ? `the revert branch's semantic layer was not read before the merge (${input.expected.problem ?? 'no /meta'}), so there is nothing to compare production's with`
        : undefined;
  return reason ? { status: 'not-proven', commit, files, members, reason } : { status: 'proven', commit, files: [], members: [] };
}
