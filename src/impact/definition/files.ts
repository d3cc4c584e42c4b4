/**
 * Production's model files, from the platform: the deploy branch's source tree, with content, kept
 * to what Cube compiles (src/model/model-files.ts; the pull request's side comes from the checkout).
 */
import { AbortedError, messageOf } from '../../client/errors.js';
import type { OpContext } from '../../operations/context.js';
import { modelFilesOf, type FileTexts } from '../../model/model-files.js';

export type { FileTexts } from '../../model/model-files.js';

interface SourceNode {
  path?: unknown;
  fileName?: unknown;
  type?: unknown;
  content?: unknown;
  children?: unknown;
}

/**
 * The files of a source tree: nested nodes (`type`, `path` from the project root, `children`), as the
 * vendor's CLI reads them, or a flat list. Paths lose their leading `/`; a child whose path is only its
 * own name is placed under its parent.
 */
export function flattenSourceTree(nodes: readonly unknown[], parent = '', depth = 0): FileTexts {
  const out: FileTexts = new Map();
  if (depth > 64) return out;
  for (const raw of nodes) {
    if (!raw || typeof raw !== 'object') continue;
    const n = raw as SourceNode;
    const given = typeof n.path === 'string' ? n.path : typeof n.fileName === 'string' ? n.fileName : '';
    let path = given.replace(/^\/+/, '');
    if (parent && path && !path.startsWith(`${parent}/`)) path = `${parent}/${path}`;
    if (Array.isArray(n.children)) for (const [p, t] of flattenSourceTree(n.children, path, depth + 1)) out.set(p, t);
    if (n.type !== 'directory' && typeof n.content === 'string' && path) out.set(path, n.content);
  }
  return out;
}

/** The deploy branch's model files, with their content, from the platform. */
export async function branchModelFiles(ctx: OpContext, branch: string): Promise<FileTexts> {
  const nodes: unknown[] = [];
  try {
    for await (const node of ctx.client.dataModel.iterateFiles(
      { deploymentId: ctx.deploymentId, query: { branchName: branch, withContent: true } },
      { signal: ctx.signal },
    ))
      nodes.push(node);
  } catch (e) {
    if (e instanceof AbortedError) throw e;
    throw new Error(`the files of ${branch} could not be read (${messageOf(e)})`, { cause: e });
  }
  return modelFilesOf(flattenSourceTree(nodes));
}
