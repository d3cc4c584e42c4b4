/**
 * Whether a workflow's `on:` starts a run for an event, as GitHub decides it: the event is listed; its
 * activity type is in `types:` (pull_request and pull_request_target default to opened, synchronize and
 * reopened; other events take every type); `branches` / `branches-ignore` match the base branch of a
 * pull request or merge group, or the pushed branch; `paths` / `paths-ignore` match the changed files
 * when the caller gives them (GitHub reads no `paths` filter for merge_group).
 */
import { readFileSync } from 'node:fs';
import picomatch from 'picomatch';
import { parse } from 'yaml';
import { isMapping, mapping, scalar, type Mapping } from './yaml-values.js';

export interface TriggerAnswer {
  runs: boolean;
  /** Why not (or what was matched). */
  reason: string;
}

const DEFAULT_TYPES: Record<string, string[]> = {
  pull_request: ['opened', 'synchronize', 'reopened'],
  pull_request_target: ['opened', 'synchronize', 'reopened'],
};

const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(scalar) : v === undefined || v === null ? [] : [scalar(v)]);

/** The branch a filter reads for an event, or undefined when the event has none. */
function filteredBranch(eventName: string, event: Mapping): string | undefined {
  if (eventName === 'pull_request' || eventName === 'pull_request_target') return scalar(mapping(mapping(event['pull_request'])['base'])['ref'] ?? '');
  if (eventName === 'merge_group') return scalar(mapping(event['merge_group'])['base_ref'] ?? '').replace(/^refs\/heads\//, '');
  if (eventName === 'push') return scalar(event['ref'] ?? '').replace(/^refs\/heads\//, '');
  return undefined;
}

/** Glob filters with `!` negations, later patterns winning, as GitHub reads `branches` and `paths`. */
function matches(patterns: string[], value: string): boolean {
  let hit = false;
  for (const p of patterns) {
    const negated = p.startsWith('!');
    if (picomatch(negated ? p.slice(1) : p, { dot: true })(value)) hit = !negated;
  }
  return hit;
}

/** Whether `workflow` (a file path or YAML text) runs for `eventName` with payload `event`; `files` are the changed paths. */
export function workflowTriggers(workflow: string, eventName: string, event: Mapping, files?: string[]): TriggerAnswer {
  const text = workflow.includes('\n') ? workflow : readFileSync(workflow, 'utf8');
  const on: unknown = mapping(parse(text))['on'];
  const names = typeof on === 'string' ? [on] : Array.isArray(on) ? on.map(scalar) : Object.keys(mapping(on));
  if (!names.includes(eventName)) return { runs: false, reason: `the workflow does not listen to ${eventName} (on: ${names.join(', ')})` };
  const config = isMapping(on) ? mapping(on[eventName]) : {};

  const action = scalar(event['action'] ?? '');
  const types = config['types'] === undefined ? DEFAULT_TYPES[eventName] : list(config['types']);
  if (types && action && !types.includes(action)) return { runs: false, reason: `${eventName}.${action} is not in types: ${types.join(', ')}` };

  const branch = filteredBranch(eventName, event);
  if (branch !== undefined) {
    const only = list(config['branches']);
    const ignore = list(config['branches-ignore']);
    if (only.length && !matches(only, branch)) return { runs: false, reason: `branch ${branch} is not in branches: ${only.join(', ')}` };
    if (ignore.length && matches(ignore, branch)) return { runs: false, reason: `branch ${branch} is in branches-ignore` };
  }

  const paths = list(config['paths']);
  const pathsIgnore = list(config['paths-ignore']);
  if (eventName !== 'merge_group' && (paths.length || pathsIgnore.length)) {
    if (!files) throw new Error(`the workflow filters ${eventName} by paths: give the changed files`);
    if (paths.length && !files.some((f) => matches(paths, f))) return { runs: false, reason: 'no changed file matches paths' };
    if (pathsIgnore.length && files.every((f) => matches(pathsIgnore, f))) return { runs: false, reason: 'every changed file matches paths-ignore' };
  }
  return { runs: true, reason: `${eventName}${action ? `.${action}` : ''}` };
}
