/**
 * The model files of each side: production's from the platform (the deploy branch's source tree, with
 * content), the pull request's from the checkout. Both keep what Cube compiles: the files under
 * `model/` (else the older `schema/`), as its file repository picks them.
 */
import { AbortedError } from '../../client/errors.js';
import type { OpContext } from '../../workflows/context.js';

/** Paths (repository-relative, POSIX) to texts. */
export type FileTexts = Map<string, string>;

const MODEL_FILE = /\.(js|ya?ml|jinja|py)$/i;

/** The files Cube reads as the model: under `model/`, else under `schema/` when there is no `model/`. */
export function modelFilesOf(all: ReadonlyMap<string, string>): FileTexts {
  const paths = [...all.keys()];
  const root = paths.some((p) => p.startsWith('model/')) || !paths.some((p) => p.startsWith('schema/')) ? 'model/' : 'schema/';
  return new Map([...all].filter(([p]) => p.startsWith(root) && MODEL_FILE.test(p) && !p.split('/').includes('node_modules')));
}

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
    throw new Error(`the files of ${branch} could not be read (${e instanceof Error ? e.message : String(e)})`, { cause: e });
  }
  return modelFilesOf(flattenSourceTree(nodes));
}
