/**
 * The `deployments` input: several data models of one repository, each a folder and its own deployment,
 * as a small YAML (or JSON) map. Read and checked whole before the first call; every problem names the
 * entry, what it got and what was expected.
 */
import { isMap, isScalar, parseDocument } from 'yaml';
import { InputError } from './client/errors.js';
import { parseBaseUrl } from './client/http.js';

/** A path is under a model folder (`.` holds every path). */
export function underFolder(path: string, folder: string): boolean {
  const dir = folder.replace(/^\.\/+/, '').replace(/\/+$/, '') || '.';
  return dir === '.' || path === dir || path.startsWith(`${dir}/`);
}

/** One model of a monorepo: its folder and where it is previewed. */
export interface ModelTarget {
  /** The folder as the comment, the check run and the outputs name it (no `./`, no trailing `/`). */
  key: string;
  /** The folder to read, relative to the workspace. */
  modelDir: string;
  deploymentId: number;
  /** The entry's own tenant, else the `api-url` input. */
  apiUrl: string;
}

/** More models than this in one comment would not be read; more previews than this per push would not be wanted. */
export const MAX_MODELS = 20;

const INPUT = 'deployments';
const ENTRY_KEYS = ['deployment-id', 'api-url'];
const FORM = 'a map of model folder to deployment, e.g. "analytics: 12" or "finance: { deployment-id: 34, api-url: https://… }", one entry a line';

/** `./analytics/` → `analytics`; a folder inside the repository or refused. */
function folderOf(raw: string): string {
  const key =
    raw
      .trim()
      .replace(/^\.\/+/, '')
      .replace(/\/+$/, '') || '.';
  if (raw.trim() === '' || key.startsWith('/') || /^[A-Za-z]:/.test(key) || key.split(/[\\/]/).includes('..') || key.includes('\\')) {
    throw new InputError(`${INPUT} (entry ${JSON.stringify(raw)})`, raw, 'a folder inside the repository, relative to it, with "/" and without ".."');
  }
  return key;
}

function idOf(where: string, v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new InputError(where, v, 'the id of the platform deployment (a positive integer)');
  return n;
}

/** Parse and check the `deployments` input; `apiUrl` is the `api-url` input, for entries that give none. */
export function parseDeployments(text: string, apiUrl: string): ModelTarget[] {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length) {
    const e = doc.errors[0]!;
    throw new InputError(INPUT, text.split('\n')[0] ?? '', `${FORM} (YAML or JSON; line ${e.linePos?.[0]?.line ?? 1}: ${e.message.split('\n')[0]})`);
  }
  if (!isMap(doc.contents) || doc.contents.items.length === 0) throw new InputError(INPUT, text.split('\n')[0] ?? '', FORM);
  const targets: ModelTarget[] = [];
  for (const pair of doc.contents.items) {
    const rawKey = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const key = folderOf(rawKey);
    const where = `${INPUT} (entry ${key})`;
    const value: unknown = (pair.value as { toJSON?: () => unknown } | null)?.toJSON?.() ?? null;
    let deploymentId: number;
    let url = apiUrl;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const entry = value as Record<string, unknown>;
      const unknown = Object.keys(entry).filter((k) => !ENTRY_KEYS.includes(k));
      if (unknown.length) throw new InputError(where, unknown.join(', '), `only ${ENTRY_KEYS.join(' and ')}`);
      deploymentId = idOf(`${where}.deployment-id`, entry['deployment-id']);
      if (entry['api-url'] !== undefined) {
        if (typeof entry['api-url'] !== 'string') throw new InputError(`${where}.api-url`, entry['api-url'], "the tenant's https:// address");
        parseBaseUrl(entry['api-url'], `${where}.api-url`);
        url = entry['api-url'];
      }
    } else deploymentId = idOf(where, value);
    targets.push({ key, modelDir: key, deploymentId, apiUrl: url });
  }
  if (targets.length > MAX_MODELS) throw new InputError(INPUT, `${targets.length} entries`, `at most ${MAX_MODELS} models`);
  for (const [i, a] of targets.entries()) {
    for (const b of targets.slice(i + 1)) {
      if (underFolder(b.key, a.key) || underFolder(a.key, b.key))
        throw new InputError(
          `${INPUT} (entries ${a.key} and ${b.key})`,
          `${a.key}, ${b.key}`,
          'model folders apart from each other (neither inside the other)',
        );
      const host = (u: string) => new URL(u).href.replace(/\/+$/, '');
      if (a.deploymentId === b.deploymentId && host(a.apiUrl) === host(b.apiUrl))
        throw new InputError(
          `${INPUT} (entries ${a.key} and ${b.key})`,
          a.deploymentId,
          'a deployment of its own for each model (a deployment holds one model)',
        );
    }
  }
  return targets;
}
