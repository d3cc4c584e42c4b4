/**
 * The doctor on a deployment connected to a repository. Fed from it (Git mode), the doctor writes no tree
 * there (an upload's commit would reach the repository): it tries what the fed preview needs instead, a
 * pull of a branch the platform does not have, a data-API token, a `/load` on a staging environment.
 * Connected with a project root in a folder, it reads which root the platform names files from.
 */
import { randomBytes } from 'node:crypto';
import { PlatformError, messageOf } from '../client/errors.js';
import { collect } from '../client/pagination.js';
import { DEFAULTS } from '../defaults.js';
import type { DeployTarget } from './branch-build.js';
import type { OpContext } from './context.js';
import { smokeTest } from './enable-staging.js';
import { findEnvironments, metaToken } from './impact.js';
import { environmentRestUrl, normaliseRestUrl } from '@datamodel-ci/platform-api';

/** One check's line: its state, what was seen, what the toolkit does about it. */
export type AddCheck = (name: string, state: 'ok' | 'failed' | 'not checked', seen: string, action: string) => void;

/** The project root as a folder of the repository (`analytics`), or undefined at its root. */
export function rootFolder(target: DeployTarget): string | undefined {
  return target.projectRoot.replace(/^\/+|\/+$/g, '') || undefined;
}

/**
 * Which root the platform names a connected deployment's files from: asked for paths relative to the
 * project root (`useDeployProjectRoot`), the deploy branch's files should not start with its folder.
 */
export async function projectRootCheck(ctx: OpContext, target: DeployTarget, add: AddCheck): Promise<void> {
  const folder = rootFolder(target);
  if (!target.connected || !folder) return;
  const hashes = await ctx.client.dataModel.fileHashes(
    { deploymentId: ctx.deploymentId, query: { branchName: target.deployBranch, useDeployProjectRoot: true } },
    { signal: ctx.signal },
  );
  const paths = Object.keys(hashes);
  const fromRepository = paths.filter((p) => p.startsWith(`${folder}/`));
  const ok = fromRepository.length === 0;
  add(
    'project root',
    ok ? 'ok' : 'failed',
    ok
      ? `with useDeployProjectRoot, files are named from the project root ${folder}/ (${paths.length} on ${target.deployBranch}, e.g. ${paths[0] ?? 'none'})`
      : `even with useDeployProjectRoot, ${fromRepository.length} of ${paths.length} files are named from the repository root (e.g. ${fromRepository[0]})`,
    ok
      ? `uploads ${folder}/ only, with useDeployProjectRoot, and places errors under ${folder}/`
      : 'would upload the project folder where the platform expects the repository root: report this to the maintainers',
  );
}

/** What the fed preview needs, tried without writing a tree: pull, a data-API token, a `/load` on a staging environment. */
export async function fedChecks(ctx: OpContext, target: DeployTarget, add: AddCheck): Promise<void> {
  const unknown = `datamodel-ci-doctor-${randomBytes(4).toString('hex')}`;
  try {
    const r = await ctx.client.branches.pull(
      { deploymentId: ctx.deploymentId, body: { branchName: unknown } },
      { signal: ctx.signal, retry: { maxAttempts: 1 } },
    );
    add('pull', 'failed', `a pull of ${unknown}, a branch nobody has, was answered as done (${JSON.stringify(r)})`, 'cannot tell a branch the platform lacks');
  } catch (e) {
    if (!(e instanceof PlatformError) || e.status === undefined) throw e;
    add(
      'pull',
      'ok',
      `a pull of a branch the platform does not have answers ${e.status}${e.platformMessage ? ` (${JSON.stringify(e.platformMessage.slice(0, 120))})` : ''}`,
      "adds a pull request's head branch it does not know with the dev-mode switch (its fork deleted at once), then pulls it; else previews by upload, saying the branch is not added",
    );
  }
  const { production } = await findEnvironments(ctx);
  if (production) {
    // Whether a token can be minted, whether or not production's model compiles: no validation first.
    const { branch: _served, ...unvalidated } = production;
    const t = await metaToken(ctx, unvalidated).then(
      (m) => m,
      (e: unknown) => new Error(messageOf(e)),
    );
    add(
      'data-API token',
      t instanceof Error ? 'failed' : 'ok',
      t instanceof Error ? `none could be minted: ${t.message}` : (t.notice ?? "production's environment token is minted"),
      'reads /meta for the impact with the first token that works: environment, deployment, metadata',
    );
  } else add('data-API token', 'not checked', 'the environments list names no production environment with a REST URL', '');
  const staging = await collect(
    ctx.client.deployments.iterateEnvironments({ deploymentId: ctx.deploymentId, query: { type: 'staging' }, limit: 100 }, { signal: ctx.signal }),
  );
  const url = staging.map((e) => environmentRestUrl(e)).find((u): u is string => !!u);
  if (!url) {
    add('staging /load', 'not checked', 'no staging environment is on: the doctor turns none on here', '');
    return;
  }
  const smoke = await smokeTest(ctx, normaliseRestUrl(url), { timeoutMs: DEFAULTS.smokeTimeoutSeconds * 1000 }).then(
    (s) => s,
    (e: unknown) => new Error(messageOf(e)),
  );
  add(
    'staging /load',
    smoke instanceof Error ? 'failed' : 'ok',
    smoke instanceof Error
      ? `${normaliseRestUrl(url)}: ${smoke.message}`
      : `${normaliseRestUrl(url)}: /meta lists ${smoke.cubes} cubes and views, /load answered ${smoke.rows} row(s)`,
    'queries the preview there for the smoke test and the data diff',
  );
}
