/** Real pull_request and merge_group event payloads (@octokit/webhooks-examples), adjusted per test and written to a file. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

type Payload = Record<string, any>;
const definitions = createRequire(import.meta.url)('@octokit/webhooks-examples') as { name: string; examples: Payload[] }[];
const pullRequestExamples = definitions.find((d) => d.name === 'pull_request')?.examples ?? [];
const mergeGroupExamples = definitions.find((d) => d.name === 'merge_group')?.examples ?? [];

/** The first published example of an action, deep-copied. */
export function example(action: string): Payload {
  const found = pullRequestExamples.find((e) => e.action === action);
  if (!found) throw new Error(`no pull_request.${action} example in @octokit/webhooks-examples`);
  return structuredClone(found);
}

/** A payload for PR `number` at `headSha`; `merged` sets the flag the examples never set. */
export function pullRequestEvent(
  action: string,
  opts: {
    number?: number;
    headSha?: string;
    headRef?: string;
    baseSha?: string;
    mergeCommitSha?: string;
    merged?: boolean;
    fork?: boolean;
    title?: string;
  } = {},
): Payload {
  const p = example(action);
  const pr = p.pull_request;
  if (opts.number !== undefined) {
    p.number = opts.number;
    pr.number = opts.number;
  }
  if (opts.headSha) pr.head.sha = opts.headSha;
  if (opts.headRef) pr.head.ref = opts.headRef;
  if (opts.baseSha) pr.base.sha = opts.baseSha;
  if (opts.mergeCommitSha) pr.merge_commit_sha = opts.mergeCommitSha;
  if (opts.title) pr.title = opts.title;
  if (opts.merged !== undefined) pr.merged = opts.merged;
  if (action === 'closed') pr.state = 'closed';
  if (opts.fork) pr.head.repo = { ...pr.head.repo, full_name: 'someone-else/Hello-World', fork: true };
  return p;
}

/** The group fields of a merge_group payload (what the GitHub stand-in's `enqueue` returns has them all). */
export interface GroupFields {
  headSha: string;
  headRef: string;
  baseSha: string;
  baseRef: string;
}

/**
 * A merge_group `checks_requested` payload for a queued group: the published example with the group's
 * SHAs and refs, its head commit, and (when given) the repository of a pull_request payload.
 */
export function mergeGroupEvent(group: GroupFields, repository?: Payload): Payload {
  const found = mergeGroupExamples.find((e) => e.action === 'checks_requested');
  if (!found) throw new Error('no merge_group.checks_requested example in @octokit/webhooks-examples');
  const p = structuredClone(found);
  const pr = /\/pr-(\d+)-/.exec(group.headRef)?.[1] ?? '1';
  p.merge_group = {
    ...p.merge_group,
    head_sha: group.headSha,
    head_ref: group.headRef,
    base_sha: group.baseSha,
    base_ref: group.baseRef,
    head_commit: { ...p.merge_group.head_commit, id: group.headSha, message: `Merge pull request #${pr}` },
  };
  if (repository) p.repository = structuredClone(repository);
  return p;
}

/** Write a payload to a fresh file; returns its path (for GITHUB_EVENT_PATH). */
export function writeEvent(payload: Payload): string {
  const file = join(mkdtempSync(join(tmpdir(), 'dmci-event-')), 'event.json');
  writeFileSync(file, JSON.stringify(payload));
  return file;
}
