/**
 * The validation record of a preview (issue 37), made once the preview has ended: a push validated on a
 * build accepted as its own gets one, naming its commit, its files as the upload hashed them (on a
 * repository-fed deployment the head branch's `file-hashes`, as the walk reads them), the accepted
 * build's marks, staging's Cube version and the preview's layer digest (the impact's read of the whole
 * layer; without the impact there is none, and the proof after the merge cannot say "proven").
 */
import { messageOf } from '../client/errors.js';
import type { PathFilter, LocalFile } from '../model/local-model.js';
import type { OpContext } from './context.js';
import type { PreviewOutcome } from './preview-types.js';
import { manifestOf, remoteTree, walked, type Manifest } from './upload-transaction.js';
import { makeRecord, type ValidationRecord } from './validation-record.js';

export interface RecordInput {
  /** The files the upload sent (the walk's, `exclude`d left out). */
  local: readonly LocalFile[];
  excluded: PathFilter;
  /** The commit validated: the pull request's head. */
  headSha?: string;
  /** The preview was of the repository's own head branch (no upload): its files are read from the platform. */
  fed: boolean;
}

/** The record of a preview that validated, or undefined (invalid, failed, stale, a dry run, no commit). */
export async function previewRecord(ctx: OpContext, input: RecordInput, o: PreviewOutcome): Promise<ValidationRecord | undefined> {
  const v = o.validation;
  if (!v?.valid || !v.accepted || o.failure || o.stale || ctx.dryRun || !input.headSha) return undefined;
  let files: Manifest;
  if (input.fed) {
    try {
      files = walked(await remoteTree(ctx, o.branch), input.excluded);
    } catch (e) {
      if (ctx.signal?.aborted) throw e;
      ctx.reporter.notice(`no validation record: the files of ${o.branch} could not be read (${messageOf(e)})`);
      return undefined;
    }
  } else files = manifestOf(input.local);
  const record = makeRecord({
    deploymentId: ctx.deploymentId,
    branch: o.branch,
    commit: input.headSha,
    files,
    status: v.accepted.status,
    cubeVersion: o.versions?.staging,
    layer: o.impact?.layerDigest,
  });
  const layer = record.layer
    ? `layer ${record.layer.digest.slice(0, 12)} (${record.layer.members} members)`
    : 'no layer digest (the impact did not read the whole layer: the proof after the merge cannot say "proven")';
  ctx.reporter.info(
    `validation record: ${record.commit.slice(0, 7)}, ${Object.keys(record.files).length} files (digest ${record.digest.slice(0, 12)}), ${layer}`,
  );
  return record;
}
