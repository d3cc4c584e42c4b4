/** The doctor's steps that read more than one call: build states, the staging URL, a broken model's errors, dev mode, clean-up. */
import { DEFAULTS } from '../defaults.js';
import { environmentRestUrl, isDevBranch, normaliseRestUrl } from '@datamodel-ci/platform-api';
import { NotFoundError, PlatformError, messageOf } from '../client/errors.js';
import { markBuild, waitForBuild } from './branch-build.js';
import { gitWrite, type OpContext } from './context.js';
import { deleteBranch, deleteFork, turnStagingOff } from './door.js';
import { ledgerOf } from './ledger.js';
import type { LocalFile } from '../model/local-model.js';
import { openDevMode } from './start-dev-branch.js';
import { stagingEnvironmentOf } from './enable-staging.js';
import { holds, manifestOf, uploadTransaction } from './upload-transaction.js';
import { plural } from '../report/plural.js';

/** The build state of each branch as the platform words it (`status`, with `errorText` when given). */
export async function readBuildStates(ctx: OpContext, branches: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const branchName of branches) {
    const s = await ctx.client.deployments.buildStatus({ deploymentId: ctx.deploymentId, query: { branchName } }, { signal: ctx.signal });
    out.push(`${s.status}${s.errorText ? ` (${s.errorText})` : ''}`);
  }
  return out;
}

/** The REST URL the environments list reports for the branch, and its form. */
export async function readStagingUrl(ctx: OpContext, branch: string): Promise<{ seen: string; url?: string }> {
  const env = await stagingEnvironmentOf(ctx, branch);
  const url = env ? environmentRestUrl(env) : undefined;
  if (!url) return { seen: 'the environments list names no REST URL for the branch: the toolkit builds <deploymentUrl>/dev-mode/<branch>/cubejs-api/v1' };
  const form = url.replace(/\/+$/, '').endsWith('/v1') ? 'ends in /v1' : 'does not end in /v1 (the toolkit adds it)';
  return { seen: `${url} (${form})`, url: normaliseRestUrl(url) };
}

/** What creating a branch that exists answers (the vendor does not say). */
export async function duplicateAnswer(ctx: OpContext, branch: string, from: string): Promise<string> {
  try {
    await ctx.client.branches.create({ deploymentId: ctx.deploymentId, body: { name: branch, from } }, { signal: ctx.signal, retry: { maxAttempts: 1 } });
    return 'a second create of the same name was accepted';
  } catch (e) {
    if (!(e instanceof PlatformError) || e.status === undefined) throw e;
    return `a second create of the same name answers ${e.status}${e.platformMessage ? ` (${JSON.stringify(e.platformMessage.slice(0, 120))})` : ''}`;
  }
}

/** The form of a commit id as the platform words it. */
function form(hash: string | undefined): string {
  if (!hash) return 'none';
  return /^[0-9a-f]{40}$/i.test(hash) ? '40 hex characters' : /^[0-9a-f]+$/i.test(hash) ? `${hash.length} hex characters` : `${hash.length} characters`;
}

/** How upload/finish and build status word the commit. */
export function hashForm(finish: string | undefined, status: string | undefined): string {
  const match = finish && status ? (finish.startsWith(status) || status.startsWith(finish) ? ', the same commit' : ', not the same text') : '';
  return `upload/finish reports ${form(finish)}, build status ${form(status)}${match}`;
}

/**
 * Upload a model with one broken file the way uploads worked (a tenant that refuses direct uploads takes
 * it through dev mode), validate, and read the errors' shape (the caller cleans the branch up).
 */
export async function validateBroken(
  ctx: OpContext,
  branch: string,
  files: LocalFile[],
  via: 'direct' | 'dev-mode',
  keepRemote = false,
): Promise<{ ok: boolean; seen: string }> {
  const since = await markBuild(ctx, branch, { settleMs: DEFAULTS.buildIdleGraceMs });
  let lastHash: string | undefined;
  if (via === 'dev-mode') await doctorUploadViaDevMode(ctx, branch, files);
  else
    lastHash = (await uploadTransaction(ctx, { branch, local: files, concurrency: 1, commitMessage: 'datamodel-ci doctor: a broken file', keepRemote }))
      .lastHash;
  await waitForBuild(ctx, branch, { ...(lastHash ? { lastHash } : {}), ...(since ? { since } : {}), timeoutMs: 10 * 60_000 });
  const r = await ctx.client.dataModel.validate({ deploymentId: ctx.deploymentId, query: { branchName: branch } }, { signal: ctx.signal });
  if (r.valid) return { ok: false, seen: 'a broken model validated as valid: validation does not compile this branch' };
  const first = r.errors[0];
  const named = r.errors.filter((e) => e.fileName).length;
  const form = first?.fileName ? (first.fileName.startsWith('model/') ? 'relative to the project root' : 'relative to model/') : 'no file name';
  return {
    ok: named > 0,
    seen: `${plural(r.errors.length, 'error')}, ${named} with a file name (${form}); first: ${JSON.stringify(first?.message ?? '').slice(0, 160)}`,
  };
}

/** The vendor's dev-mode recipe on the doctor branch: fork, upload, commit to the shared branch; returns the fork. */
export async function doctorUploadViaDevMode(ctx: OpContext, branch: string, files: LocalFile[]): Promise<string> {
  const fork = await openDevMode(ctx, branch);
  if (!fork || !isDevBranch(fork)) throw new Error(`dev mode answered without a dev- fork (${JSON.stringify(fork ?? null)})`);
  await uploadTransaction(ctx, { branch: fork, local: files, concurrency: 1, commitMessage: 'datamodel-ci doctor: via dev mode' });
  await ctx.client.branches.commit({ deploymentId: ctx.deploymentId, body: { branchName: fork, message: 'datamodel-ci doctor: commit' } }, gitWrite(ctx));
  if (!(await holds(ctx, branch, manifestOf(files)))) throw new Error(`committing ${fork} did not put its files on ${branch}`);
  return fork;
}

/**
 * Remove what the doctor made, through the door: its forks (each one this run opened, as the run's ledger
 * recorded), the branch's staging environment, the branch. The branch's random name is this run's own, so
 * a create whose answer was lost on the way is recognised by the name listed. True when all went.
 */
export async function doctorCleanup(ctx: OpContext, branch: string, made: { branch: boolean; fork: string | undefined }): Promise<boolean> {
  const ledger = ledgerOf(ctx);
  let ok = true;
  const step = async (what: string, fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (e) {
      if (e instanceof NotFoundError) return;
      ok = false;
      ctx.reporter.warning(`doctor clean-up: could not ${what}: ${messageOf(e)}`);
    }
  };
  const forks = new Set<string>();
  let exists = made.branch;
  await step('list the branches', async () => {
    for await (const b of ctx.client.branches.iterate({ deploymentId: ctx.deploymentId, query: { first: 100 } }, { signal: ctx.signal })) {
      if (b.name === branch) exists = true;
      if (b.parentBranch === branch && ledger.fork(b.name, branch)) forks.add(b.name);
    }
  });
  // Deleting a fork ends the session on it; `DELETE …/dev-mode` would end the key's session, maybe another run's.
  for (const fork of forks) await step(`delete ${fork}`, () => deleteFork(ctx, ledger.fork(fork, branch)!));
  if (exists) {
    // Its random name was made by this run: listed, it is this run's (a create whose answer was lost).
    if (!ledger.created(branch)) ledger.recordCreated(branch);
    const created = ledger.created(branch)!;
    await step(`disable staging of ${branch}`, () => turnStagingOff(ctx, ledger.stagingOf(created)));
    // Its ref in a connected repository goes too (a generated name, made by this run).
    await step(`delete ${branch}`, () => deleteBranch(ctx, created, ledger.upstream(created, true, true)));
  }
  return ok;
}
