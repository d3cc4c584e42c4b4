/** The revert's inputs (src/action-spec-revert.ts), read and checked before its first call. */
import { InputError } from './client/errors.js';
import type { UploadVia } from './operations/upload-model.js';
import type { InputReader } from './settings.js';

export interface RevertInputs {
  /** The commit whose model to restore (the checkout's); undefined: the last validated record's. */
  commit?: string;
  /** Merge the validated revert into the deploy branch; otherwise a dry run that merges nothing. */
  confirm: boolean;
  exclude: string[];
  via: UploadVia;
  allowModelDeletion: boolean;
}

/** A commit as git names it: 7 to 40 hexadecimal characters (never a branch or a tag, which move). */
const COMMIT = /^[0-9a-f]{7,40}$/i;

export function readRevertInputs(r: InputReader): RevertInputs {
  const commit = r.string('commit');
  if (commit !== undefined && !COMMIT.test(commit))
    throw new InputError('commit', commit, 'a commit SHA: 7 to 40 hexadecimal characters (a branch or tag moves; name the commit it points at)');
  return {
    commit: commit?.toLowerCase(),
    confirm: r.bool('confirm'),
    exclude: r.globs('exclude'),
    via: r.oneOf('upload-via', ['auto', 'direct', 'dev-mode'] as const),
    allowModelDeletion: r.bool('allow-model-deletion'),
  };
}
