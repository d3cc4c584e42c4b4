/**
 * The control routes of the production-drift scenarios (`scenarios.ts`): `POST /_emulator/production/<scenario>`,
 * `POST /_emulator/builds/slow-next`, `GET /_emulator/production?deploymentId=`. Each body is checked whole
 * before anything changes; a bad field is a 400 naming it, its value and what was expected.
 */
import { HttpError } from '../context.js';
import {
  crlfOnPlatform,
  dbtMerge,
  failedProductionBuild,
  mergeWithoutBuild,
  outOfBandUpload,
  productionView,
  slowBuild,
  uiMerge,
  unwalkedFiles,
  type DriftEnv,
  type FileChanges,
} from './scenarios.js';

type Body = Record<string, unknown>;

const shown = (v: unknown) => (JSON.stringify(v) ?? 'undefined').slice(0, 80);

function deploymentId(body: Body): number {
  const id = body.deploymentId;
  if (typeof id !== 'number' || !Number.isInteger(id)) throw new HttpError(400, `deploymentId: got ${shown(id)}, expected the id of a deployment`);
  return id;
}

function optionalText(body: Body, name: string): string | undefined {
  const v = body[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v === '') throw new HttpError(400, `${name}: got ${shown(v)}, expected a non-empty text`);
  return v;
}

function optionalFlag(body: Body, name: string): boolean | undefined {
  const v = body[name];
  if (v !== undefined && typeof v !== 'boolean') throw new HttpError(400, `${name}: got ${shown(v)}, expected true or false`);
  return v;
}

/** `files`: path -> text (null deletes, where `deletes`), or absent (the scenario's own cube). */
function files(body: Body, deletes: boolean): FileChanges | undefined {
  const v = body.files;
  if (v === undefined) return undefined;
  const ok = (x: unknown) => typeof x === 'string' || (deletes && x === null);
  if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.values(v).every(ok)) {
    throw new HttpError(400, `files: got ${shown(v)}, expected an object of path -> text${deletes ? ' (null deletes the path)' : ''}`);
  }
  return v as FileChanges;
}

function paths(body: Body): string[] | undefined {
  const v = body.paths;
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((p) => typeof p === 'string')) throw new HttpError(400, `paths: got ${shown(v)}, expected a list of paths`);
  return v;
}

const SCENARIOS: Record<string, (env: DriftEnv, body: Body) => unknown> = {
  'ui-merge': (env, b) =>
    uiMerge(env, {
      deploymentId: deploymentId(b),
      files: files(b, true),
      branchName: optionalText(b, 'branchName'),
      neverInGit: optionalFlag(b, 'neverInGit'),
    }),
  'out-of-band-upload': (env, b) => outOfBandUpload(env, { deploymentId: deploymentId(b), files: files(b, true) }),
  'failed-build': (env, b) => failedProductionBuild(env, { deploymentId: deploymentId(b), files: files(b, true), errorText: optionalText(b, 'errorText') }),
  'dbt-merge': (env, b) => dbtMerge(env, { deploymentId: deploymentId(b), ref: optionalText(b, 'ref'), keepBranch: optionalFlag(b, 'keepBranch') }),
  'merge-without-build': (env, b) => mergeWithoutBuild(env, { deploymentId: deploymentId(b), files: files(b, true) }),
  crlf: (env, b) => crlfOnPlatform(env, { deploymentId: deploymentId(b), paths: paths(b) }),
  'unwalked-files': (env, b) => unwalkedFiles(env, { deploymentId: deploymentId(b), files: files(b, false) as Record<string, string> | undefined }),
};

/** The answer of a drift route, or undefined when the path is none of them. */
export function serveDriftControl(env: DriftEnv, method: string, path: string, body: Body, query: URLSearchParams): unknown {
  if (method === 'GET' && path === '/_emulator/production') {
    const id = Number(query.get('deploymentId'));
    if (!Number.isInteger(id)) throw new HttpError(400, `deploymentId: got ${shown(query.get('deploymentId'))}, expected the id of a deployment`);
    return productionView(env, id);
  }
  if (method === 'POST' && path === '/_emulator/builds/slow-next') {
    const ms = body.ms;
    if (typeof ms !== 'number') throw new HttpError(400, `ms: got ${shown(ms)}, expected a non-negative number of ms`);
    return slowBuild(env, { deploymentId: deploymentId(body), branchName: optionalText(body, 'branchName'), ms });
  }
  const scenario = method === 'POST' && path.startsWith('/_emulator/production/') ? SCENARIOS[path.slice('/_emulator/production/'.length)] : undefined;
  if (scenario) return scenario(env, body);
  if (path.startsWith('/_emulator/production/')) {
    throw new HttpError(404, `no such production scenario: ${method} ${path} (POST one of: ${Object.keys(SCENARIOS).join(', ')})`);
  }
  return undefined;
}
