/**
 * What a `uses:` runs in the harness: this repository's actions from repoDir, and stand-ins for
 * actions/checkout and actions/setup-node.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { fileCommands } from './env-files.js';
import type { Execution, JobState, Scope } from './job-state.js';
import type { StepRecorder } from './recorder.js';
import { processEnv } from './step-process.js';
import { firstLine, scalar } from './yaml-values.js';

export type UsesTarget =
  { kind: 'checkout' } | { kind: 'setup-node' } | { kind: 'local'; dir: string; repository: string; ref: string } | { kind: 'unsupported'; reason: string };

/** Where a `uses:` points in the harness. */
export function resolveUses(state: JobState, uses: string): UsesTarget {
  if (/^actions\/checkout@\S+$/.test(uses)) return { kind: 'checkout' };
  if (/^actions\/setup-node@\S+$/.test(uses)) return { kind: 'setup-node' };
  const ours = /^([^/@\s]+)\/datamodel-ci(?:\/([^@]+))?@(\S+)$/.exec(uses);
  const root = state.repoDir ?? state.workspace;
  if (ours) return { kind: 'local', dir: resolve(root, ours[2] ?? '.'), repository: `${ours[1]}/datamodel-ci`, ref: ours[3] ?? '' };
  if (uses.startsWith('./')) return { kind: 'local', dir: resolve(root, uses), repository: '', ref: '' };
  return {
    kind: 'unsupported',
    reason:
      `Unsupported action in the test harness: '${uses}'. It runs actions/checkout and actions/setup-node as stand-ins, ` +
      `and <owner>/datamodel-ci[/<path>]@<ref> or ./<path> from the repository under test; nothing else.`,
  };
}

/** The action.yml (or action.yaml) of a folder, if it has one. */
export function manifestPath(dir: string): string | undefined {
  return ['action.yml', 'action.yaml'].map((f) => join(dir, f)).find((f) => existsSync(f));
}

/** A stand-in's result: it runs no step process, so it ends with its own exit code. */
const finished = (exitCode: 0 | 1): Execution => ({ exitCode, failed: exitCode !== 0, cancelled: false, timedOut: false });

/** Parse a `node --version` style or `node-version:` style version; undefined for aliases (lts/*, latest). */
function versionParts(spec: string): number[] | undefined {
  const m = /^(?:>=|\^|~|=)?\s*v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?/.exec(spec.trim());
  if (!m) return undefined;
  const parts: number[] = [];
  for (const p of m.slice(1)) {
    if (p === undefined || p === 'x' || p === '*') break;
    parts.push(Number(p));
  }
  return parts;
}

async function nodeVersion(env: Record<string, string>): Promise<string> {
  const { stdout } = await promisify(execFile)('node', ['--version'], { env });
  return stdout.trim();
}

/** The `engines.node` range of the repository's package.json, if it has one. */
function enginesOf(dir: string | undefined): string | undefined {
  const file = dir ? join(dir, 'package.json') : undefined;
  if (!file || !existsSync(file)) return undefined;
  return (JSON.parse(readFileSync(file, 'utf8')) as { engines?: { node?: string } }).engines?.node;
}

/** Whether a version meets a range of `^X.Y.Z` and `>=X[.Y[.Z]]` parts joined by `||` (the forms engines uses here). */
export function satisfies(version: number[], range: string): boolean {
  const atLeast = (min: number[]) => {
    for (const [i, m] of min.entries()) if ((version[i] ?? 0) !== m) return (version[i] ?? 0) > m;
    return true;
  };
  return range.split('||').some((part) => {
    const m = /^\s*(\^|>=)\s*v?(\d+(?:\.\d+){0,2})\s*$/.exec(part);
    if (!m) return false;
    const min = (m[2] as string).split('.').map(Number);
    return atLeast(min) && (m[1] === '>=' || version[0] === min[0]);
  });
}

/**
 * actions/setup-node stand-in: nothing is installed; the runner's node must be the requested version or
 * newer, or one the repository under test supports (its package.json engines).
 */
export async function setupNodeStandIn(
  state: JobState,
  scope: Scope,
  rec: StepRecorder,
  inputs: Record<string, string>,
  stepEnv: Record<string, string>,
): Promise<Execution> {
  let requested = inputs['node-version'] ?? '';
  const versionFile = inputs['node-version-file'] ?? '';
  if (requested === '' && versionFile !== '') {
    const text = readFileSync(resolve(state.workspace, versionFile), 'utf8');
    if (basename(versionFile) === 'package.json') {
      const pkg = JSON.parse(text) as { volta?: { node?: string }; engines?: { node?: string } };
      requested = pkg.volta?.node ?? pkg.engines?.node ?? '';
    } else {
      requested = firstLine(text);
    }
  }
  const current = await nodeVersion(processEnv(state, scope, rec, stepEnv, fileCommands(state)));
  rec.outputs['node-version'] = current;
  const wanted = versionParts(requested);
  const have = versionParts(current) ?? [];
  if (!wanted || wanted.length === 0) {
    rec.write(`harness: actions/setup-node stand-in cannot check node-version '${requested}'; using the runner's Node.js ${current}`);
    return finished(0);
  }
  for (const [i, w] of wanted.entries()) {
    const h = have[i] ?? 0;
    if (h > w) break;
    if (h < w) {
      // Older than asked: still fine when it is a version the repository under test supports.
      const engines = enginesOf(state.repoDir);
      if (engines && satisfies(have, engines)) {
        rec.write(
          `harness: actions/setup-node stand-in: node-version '${requested}' requested; using the runner's Node.js ${current}, which the repository's engines (${engines}) accept`,
        );
        return finished(0);
      }
      rec.annotate({
        level: 'error',
        message: `actions/setup-node stand-in: node-version '${requested}' was requested, but the harness can only use the runner's Node.js ${current}`,
      });
      return finished(1);
    }
  }
  rec.write(`harness: actions/setup-node stand-in: node-version '${requested}' requested; using the runner's Node.js ${current}`);
  return finished(0);
}

/** actions/checkout stand-in: copy the prepared tree into the workspace (or `path:`). */
export function checkoutStandIn(state: JobState, rec: StepRecorder, inputs: Record<string, string>): Execution {
  const target = resolve(state.workspace, inputs['path'] || '.');
  rec.outputs['ref'] = scalar(state.github['ref']);
  rec.outputs['commit'] = scalar(state.github['sha']);
  if (!state.checkoutFrom) {
    rec.write('harness: actions/checkout stand-in: no checkoutFrom given; the workspace is left as it is');
    return finished(0);
  }
  const from = resolve(state.checkoutFrom);
  mkdirSync(target, { recursive: true });
  cpSync(from, target, { recursive: true, filter: (src) => src === from || state.checkoutFilter(src) });
  rec.write(`harness: actions/checkout stand-in: copied ${from} to ${target}`);
  return finished(0);
}
