/**
 * What production holds and serves, read without writing anything: its model files (the deploy branch's
 * git tree, or in CLI deploy mode its last upload, which is what it runs) compared with a reference model,
 * its semantic layer (`/meta` as a user of every group the model's policies name sees it, with the empty
 * context's read) as members and a digest, and its build. The proof after a merge, the drift watch and the
 * revert read production here. Files the walk never reads, files `exclude` leaves out and line endings
 * are no difference.
 */
import { AbortedError, messageOf } from '../client/errors.js';
import { collect } from '../client/pagination.js';
import { flattenSourceTree } from '../impact/definition/files.js';
import { layerDigest, membersOfMeta, type LayerMember } from '../impact/layer-digest.js';
import { unionMeta } from '../impact/access/visibility.js';
import { readLocal, sha1Of, skippedPath, type LocalFile, type PathFilter } from '../model/local-model.js';
import { markOf, type BuildMark, type DeployTarget } from './branch-build.js';
import type { OpContext } from './context.js';
import { environmentMeta, findEnvironments, type EnvironmentRef } from './impact.js';
import { readWholeLayer } from './impact-layer.js';
import { remoteTree, type Manifest } from './upload-transaction.js';

/** A file production holds relative to a reference: one it has that the reference lacks, one it lacks, one whose content differs. */
export interface FileChange {
  path: string;
  change: 'added' | 'removed' | 'changed';
}

/** No model file of production's: a dotfile (`.gitignore` included), one the walk never reads, one `exclude` leaves out. */
const outside = (path: string, excluded?: PathFilter) => skippedPath(path) || path.split('/').some((s) => s.startsWith('.')) || !!excluded?.(path);

/** Text with its line endings as LF: a file stored with CRLF is the same model. */
const lf = (bytes: Buffer): Buffer => Buffer.from(bytes.toString('utf8').replace(/\r\n?/g, '\n'));

/** The content hash the comparison uses: SHA-1 of the bytes with LF line endings. */
export const contentHash = (bytes: Buffer): string => sha1Of(lf(bytes));

/** Production's files as texts, the ones the walk reads and `exclude` keeps (CLI mode: its last upload, `showLastCLIUpload`). */
async function productionTexts(ctx: OpContext, target: DeployTarget, excluded?: PathFilter): Promise<Map<string, string>> {
  const query = { branchName: target.deployBranch, withContent: true, ...(target.deployMode === 'cli' ? { showLastCLIUpload: true } : {}) };
  const nodes = await collect(ctx.client.dataModel.iterateFiles({ deploymentId: ctx.deploymentId, query }, { signal: ctx.signal }));
  return new Map([...flattenSourceTree(nodes)].filter(([p]) => !outside(p, excluded)));
}

/**
 * Production's model files against `reference` (a checkout's, as the walk read it): what production has
 * relative to it. Git mode reads `file-hashes` first and fetches contents only when a hash differs (a CRLF
 * copy of the same text is no change); CLI mode reads its last upload with contents.
 */
export async function compareFiles(ctx: OpContext, target: DeployTarget, reference: readonly LocalFile[], excluded?: PathFilter): Promise<FileChange[]> {
  const want = new Map(reference.filter((f) => !outside(f.path, excluded)).map((f) => [f.path, f]));
  let remote: Manifest | undefined;
  let texts: Map<string, string> | undefined;
  if (target.deployMode === 'cli') texts = await productionTexts(ctx, target, excluded);
  else remote = Object.fromEntries(Object.entries(await remoteTree(ctx, target.deployBranch)).filter(([p]) => !outside(p, excluded)));
  const paths = new Set<string>([...want.keys(), ...(remote ? Object.keys(remote) : [...texts!.keys()])]);
  const out: FileChange[] = [];
  const suspects: string[] = [];
  for (const path of [...paths].sort()) {
    const local = want.get(path);
    const there = remote ? path in remote : texts!.has(path);
    if (!there) out.push({ path, change: 'removed' });
    else if (!local) out.push({ path, change: 'added' });
    else if (remote ? remote[path]!.hash !== local.sha1 : true) suspects.push(path);
  }
  if (suspects.length) {
    // A differing hash may be line endings only: the contents decide.
    texts ??= await productionTexts(ctx, target, excluded);
    for (const path of suspects) {
      const theirs = texts.get(path);
      const ours = contentHash(await readLocal(want.get(path)!));
      if (theirs === undefined || contentHash(Buffer.from(theirs)) !== ours) out.push({ path, change: 'changed' });
    }
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Production's files compared with a record's hashes only (no checkout to read): a differing hash is a change. */
export async function compareWithHashes(
  ctx: OpContext,
  target: DeployTarget,
  files: Readonly<Record<string, string>>,
  excluded?: PathFilter,
): Promise<FileChange[]> {
  const want = Object.fromEntries(Object.entries(files).filter(([p]) => !outside(p, excluded)));
  const have: Record<string, string> = {};
  if (target.deployMode === 'cli') for (const [p, t] of await productionTexts(ctx, target, excluded)) have[p] = sha1Of(Buffer.from(t));
  else for (const [p, e] of Object.entries(await remoteTree(ctx, target.deployBranch))) if (!outside(p, excluded)) have[p] = e.hash;
  const out: FileChange[] = [];
  for (const p of new Set([...Object.keys(want), ...Object.keys(have)])) {
    if (!(p in have)) out.push({ path: p, change: 'removed' });
    else if (!(p in want)) out.push({ path: p, change: 'added' });
    else if (have[p] !== want[p]) out.push({ path: p, change: 'changed' });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Production's semantic layer as members and a digest, or why it could not be read. */
export interface LayerRead {
  members?: LayerMember[];
  digest?: string;
  problem?: string;
  /** The read with every group failed: `members` are what the empty context alone sees (no proof of the whole layer). */
  partial?: string;
}

/** An environment without the branch it serves, so minting for it asks no validation first. */
const unvalidated = (e: EnvironmentRef | undefined): EnvironmentRef | undefined => e && { id: e.id, restUrl: e.restUrl, label: e.label };

/**
 * Production's layer as the review reads a side: the empty context's `/meta` and, when the model's
 * policies name groups, the read of a user of every one of them, as one union (never what one empty
 * context alone sees: under access policies that is nothing).
 */
export async function productionLayer(ctx: OpContext, groups: readonly string[], branch?: string): Promise<LayerRead> {
  try {
    // With `branch`: that branch's staging environment, read the same way (a revert's, before it is merged).
    // No branch on the ref: the watch and the proof ask no validation before minting (a /meta read that fails says why).
    const env = findEnvironments(ctx, branch).then((e) => unvalidated(branch ? e.staging : e.production));
    const [empty, whole] = await Promise.all([environmentMeta(ctx, env), readWholeLayer(ctx, env, Promise.resolve([...groups]))]);
    const reads = [empty.meta, whole?.meta].filter((m): m is NonNullable<typeof m> => !!m);
    if (!reads.length) return { problem: [empty.problem, whole?.problem].filter(Boolean).join('; ') || "production's /meta could not be read" };
    const members = membersOfMeta(unionMeta(reads));
    const partial = whole?.problem ? `production's /meta read with every group the policies name failed (${whole.problem})` : undefined;
    return { members, digest: layerDigest(members), ...(partial ? { partial } : {}) };
  } catch (e) {
    if (e instanceof AbortedError || ctx.signal?.aborted) throw e;
    return { problem: messageOf(e) };
  }
}

/** Production's build status as a mark (with its error text and the deploy branch's `filesHash`), or undefined when it cannot be read. */
export async function productionBuild(ctx: OpContext, target: DeployTarget): Promise<(BuildMark & { errorText?: string; filesHash?: string }) | undefined> {
  const s = await ctx.client.deployments
    .buildStatus({ deploymentId: ctx.deploymentId, query: { branchName: target.deployBranch } }, { signal: ctx.signal })
    .catch((e: unknown) => {
      if (ctx.signal?.aborted) throw e;
      return undefined;
    });
  return s && { ...markOf(s), ...(s.errorText ? { errorText: s.errorText } : {}), ...(s.filesHash ? { filesHash: s.filesHash } : {}) };
}
