/**
 * Production's model files as the platform lists them: the deploy branch's source tree, flattened to
 * paths and texts (read by src/operations/impact.ts; the pull request's side comes from the checkout).
 */
import type { FileTexts } from '../../model/model-files.js';

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
