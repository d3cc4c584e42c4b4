/**
 * doctor: check on the user's own tenant what no document settles, on a throwaway shared branch
 * (`datamodel-ci-doctor-<random>`) that is removed at the end whatever failed. Each check says what it
 * saw and what the toolkit does about it. With dry-run it only reads.
 */
import { randomBytes } from 'node:crypto';
import { PlatformError, messageOf } from '../client/errors.js';
import { authSchemeFor } from '../client/http.js';
import { DEFAULTS } from '../defaults.js';
import { plural } from '../report/plural.js';
import { ABSENT, deployTarget, enableBranchStaging, waitForBuild, type DeployTarget } from './branch-build.js';
import { ledgerOf } from './ledger.js';
import { wakeStaging } from './enable-staging.js';
import type { OpContext } from './context.js';
import { sha1Of, type LocalFile } from '../model/local-model.js';
import { refusesDirectUpload } from './upload-model.js';
import { remoteTree, uploadTransaction } from './upload-transaction.js';
import { doctorCleanup, doctorUploadViaDevMode, duplicateAnswer, hashForm, readBuildStates, readStagingUrl, validateBroken } from './doctor-checks.js';
import { fedChecks, projectRootCheck } from './doctor-fed.js';
import { agentsFolderCheck } from './doctor-agents.js';
import { groupsCheck } from './doctor-groups.js';
import { planCheck } from './doctor-plan.js';

export type CheckState = 'ok' | 'failed' | 'not checked';

export interface Check {
  name: string;
  state: CheckState;
  /** What was seen (or why it was not checked). */
  seen: string;
  /** What the toolkit does about it. */
  action: string;
}

export interface DoctorReport {
  deploymentId: number;
  branch: string;
  /** Only reads were tried: the checks that write are listed as not checked. */
  dryRun: boolean;
  checks: Check[];
  /** Everything the doctor made was removed (or it made nothing). */
  cleanedUp: boolean;
  /** How uploads reach a shared branch on this tenant, when it could tell. */
  uploadVia?: 'direct' | 'dev-mode';
}

/** Throwaway model files: small, valid, and one broken on purpose (its error is read, never kept). */
function file(path: string, text: string): LocalFile {
  const bytes = Buffer.from(text);
  return { path, abs: '', size: bytes.length, sha1: sha1Of(bytes), bytes };
}

export const DOCTOR_FILES = {
  a: file(
    'model/cubes/datamodel_ci_doctor_a.yml',
    'cubes:\n  - name: datamodel_ci_doctor_a\n    sql: SELECT 1 AS id\n    measures:\n      - name: count\n        type: count\n',
  ),
  b: file(
    'model/cubes/datamodel_ci_doctor_b.yml',
    'cubes:\n  - name: datamodel_ci_doctor_b\n    sql: SELECT 1 AS id\n    measures:\n      - name: count\n        type: count\n',
  ),
  c: file(
    'model/cubes/datamodel_ci_doctor_c.yml',
    'cubes:\n  - name: datamodel_ci_doctor_c\n    sql: SELECT 1 AS id\n    measures:\n      - name: count\n        type: count\n',
  ),
  broken: file(
    'model/cubes/datamodel_ci_doctor_broken.yml',
    'cubes:\n  - name: datamodel_ci_doctor_broken\n    sql: SELECT 1 AS id\n    measures:\n      - name: count\n        type: cnt\n',
  ),
};

/** Raw probes the doctor cannot make through the client (the command layer makes them). */
export interface DoctorProbes {
  /** GET the deployment with the other auth scheme: the status it answered. */
  otherScheme?: () => Promise<number>;
  /** A bodyless DELETE of dev mode sent without Content-Length: the status it answered. */
  bodylessWithoutLength?: () => Promise<number>;
}

/** How the deployment gets its model, as its settings say. */
function feedSeen(t: DeployTarget): string {
  const root = t.projectRoot && t.projectRoot !== '/' ? `, project root ${t.projectRoot}` : '';
  const feed = t.repository
    ? `fed from ${t.repository.name ?? 'a connected repository'} (${t.repository.evidence}${root}): production is built from pushes to ${t.deployBranch}`
    : `fed by uploads and merges (deploy mode ${t.deployMode})`;
  const rules = [!t.mergeAllowed ? 'merges into the deploy branch refused' : '', t.readOnly ? 'the deploy branch is read-only' : ''].filter(Boolean);
  return `deploy branch ${t.deployBranch}, ${feed}${rules.length ? `; ${rules.join(', ')}` : ''}`;
}

function feedAction(t: DeployTarget): string {
  if (t.repository)
    return "previews the PR's own head branch (pull, no upload) and never merges on close: it checks that production built the merge commit (merge-on-close: true is refused)";
  if (!t.mergeAllowed) return 'uploads previews; never merges on close (merge-on-close: true is refused)';
  return t.deployMode === 'cli' ? 'says on merge that production is not rebuilt unless deploy-on-merge is set' : 'merges rebuild production';
}

/** Why a check that writes was not made on a dry run. */
export const DRY_RUN = 'dry run: the doctor only reads';

export async function runDoctor(
  ctx: OpContext,
  /** `onCheck`: told of each check as it is made (the caller prints it, once). */
  options: { apiKey: string; authScheme?: string; branch?: string; agentsFolder?: string; probes?: DoctorProbes; onCheck?: (check: Check) => void },
): Promise<DoctorReport> {
  const branch = options.branch ?? `datamodel-ci-doctor-${randomBytes(4).toString('hex')}`;
  const checks: Check[] = [];
  const add = (name: string, state: CheckState, seen: string, action: string) => {
    const check = { name, state, seen, action };
    checks.push(check);
    options.onCheck?.(check);
  };
  const report: DoctorReport = { deploymentId: ctx.deploymentId, branch, dryRun: !!ctx.dryRun, checks, cleanedUp: true };
  const skip = (names: string[], why: string) => names.forEach((n) => add(n, 'not checked', why, ''));

  // Reads first: the key, its scheme, the deployment's settings, the deploy branch's build.
  const scheme = options.authScheme ?? authSchemeFor(options.apiKey);
  let target;
  try {
    target = await deployTarget(ctx);
    add('api key', 'ok', `accepted with the ${scheme === 'api-key' ? 'Api-Key' : 'Bearer'} scheme`, 'keeps this scheme');
    add('deploy settings', 'ok', feedSeen(target), feedAction(target));
  } catch (e) {
    add('api key', 'failed', messageOf(e), 'cannot work with this key: check it and its permissions');
    skip(['upload', 'hash algorithm', 'build status', 'validation errors', 'staging URL'], 'the key was refused');
    return report;
  }
  const other = scheme === 'api-key' ? 'Bearer' : 'Api-Key';
  if (options.probes?.otherScheme) {
    const status = await options.probes.otherScheme().catch(() => 0);
    add(
      'auth scheme',
      'ok',
      `${other} ${status >= 200 && status < 300 ? 'is accepted too' : `is refused (${status || 'no answer'})`}`,
      `sends ${scheme === 'api-key' ? 'Api-Key' : 'Bearer'} (auth-scheme overrides it)`,
    );
  }
  if (options.probes?.bodylessWithoutLength && ctx.dryRun) skip(['content-length'], DRY_RUN);
  if (options.probes?.bodylessWithoutLength && !ctx.dryRun) {
    const status = await options.probes.bodylessWithoutLength().catch(() => 0);
    const needs = status === 411;
    add(
      'content-length',
      'ok',
      needs
        ? 'a bodyless write without Content-Length is refused with 411'
        : `a bodyless write without Content-Length is answered ${status || 'with no answer'}`,
      'always sends Content-Length: 0 on bodyless writes',
    );
  }
  const states = await readBuildStates(ctx, [target.deployBranch]).catch((e: unknown) => [`(${messageOf(e)})`]);
  await agentsFolderCheck(ctx, add, options.agentsFolder ?? DEFAULTS.agentsFolder);
  await projectRootCheck(ctx, target, add).catch((e: unknown) => add('project root', 'failed', messageOf(e), 'cannot tell which root files are named from'));
  // A plan mints a token: with dry-run, not tried.
  if (ctx.dryRun) skip(['rollup plan'], DRY_RUN);
  else await planCheck(ctx, add).catch((e: unknown) => add('rollup plan', 'failed', messageOf(e), 'rollup plans may be notices: see the refusal'));
  // A persona token is minted too: with dry-run, not tried.
  if (ctx.dryRun) skip(['persona groups'], DRY_RUN);
  else
    await groupsCheck(ctx, add, target.deployBranch, target.deployMode === 'cli').catch((e: unknown) =>
      add('persona groups', 'failed', messageOf(e), "whether the personas' groups reach the policies is told by each review"),
    );
  // Fed from a repository: no tree is written there (a commit would reach the repository); the fed flow's needs are tried.
  if (target.repository) {
    add('build status', 'ok', `deploy branch: ${states.join(', ')}`, 'waits for built before validating');
    if (ctx.dryRun) skip(['pull', 'data-API token', 'staging /load'], DRY_RUN);
    else await fedChecks(ctx, target, add).catch((e: unknown) => add('doctor', 'failed', messageOf(e), 'see the checks above'));
    skip(['upload', 'hash algorithm', 'validation errors', 'staging URL'], 'a deployment fed from its repository: the doctor writes no tree there');
    return report;
  }
  if (ctx.dryRun) {
    add('build status', 'ok', `deploy branch: ${states.join(', ')}`, 'waits for built before validating');
    skip(['duplicate branch', 'upload', 'hash algorithm', 'staging URL', 'hash form', 'staging wake', 'validation errors'], DRY_RUN);
    return report;
  }

  const made = { branch: false, fork: undefined as string | undefined };
  try {
    await ctx.client.branches.create(
      { deploymentId: ctx.deploymentId, body: { name: branch, from: target.deployBranch } },
      { signal: ctx.signal, repeatable: true },
    );
    made.branch = true;
    ledgerOf(ctx).recordCreated(branch);
    add('duplicate branch', 'ok', await duplicateAnswer(ctx, branch, target.deployBranch), 'checks the branch list when a create is refused with any 4xx');
    // Two files one at a time, then two in parallel, straight to the shared branch.
    const one = [DOCTOR_FILES.a];
    const both = [DOCTOR_FILES.a, DOCTOR_FILES.b, DOCTOR_FILES.c];
    let finishHash: string | undefined;
    try {
      // On a branch that mirrors a repository, the doctor's files are added and nothing of the branch is removed.
      const keepRemote = target.connected !== undefined;
      await uploadTransaction(ctx, { branch, local: one, concurrency: 1, commitMessage: 'datamodel-ci doctor: one file', keepRemote });
      finishHash = (await uploadTransaction(ctx, { branch, local: both, concurrency: 2, commitMessage: 'datamodel-ci doctor: two in parallel', keepRemote }))
        .lastHash;
      report.uploadVia = 'direct';
      add(
        'upload',
        'ok',
        'direct uploads to a shared branch are accepted, one at a time and two in parallel',
        'uploads straight to the shared branch (upload-via: auto or direct)',
      );
    } catch (e) {
      if (!refusesDirectUpload(e) && !(e instanceof PlatformError)) throw e;
      try {
        made.fork = await doctorUploadViaDevMode(ctx, branch, both);
        report.uploadVia = 'dev-mode';
        add(
          'upload',
          'failed',
          `a direct upload was refused (${messageOf(e)}); through dev mode and commit it works`,
          'uploads through dev mode (set upload-via: dev-mode to skip the first try)',
        );
      } catch (e2) {
        add(
          'upload',
          'failed',
          `a direct upload was refused (${messageOf(e)}), and through dev mode too (${messageOf(e2)})`,
          'cannot upload a model to a shared branch with this key',
        );
        skip(['hash algorithm', 'build status', 'validation errors', 'staging URL'], 'nothing could be uploaded');
        return report;
      }
    }
    const remote = await remoteTree(ctx, branch);
    const ours = both.every((f) => remote[f.path]?.hash === f.sha1);
    add(
      'hash algorithm',
      ours ? 'ok' : 'failed',
      ours
        ? 'file-hashes are the SHA-1 of the raw bytes; the files are on the shared branch'
        : `file-hashes differ from the SHA-1 of the bytes sent: ${JSON.stringify(both.map((f) => [f.path, remote[f.path]?.hash ?? null]))}`,
      ours ? 'sends only changed files' : 'would resend every file on each run: report this to the maintainers',
    );
    const enabledAt = Date.now();
    await enableBranchStaging(ctx, branch);
    const staging = await readStagingUrl(ctx, branch);
    add('staging URL', 'ok', staging.seen, 'uses this address for the smoke test and the comment');
    let wokenAt: number | undefined;
    let wakes = 0;
    const wake = async () => {
      wokenAt ??= Date.now();
      wakes += 1;
      return staging.url ? wakeStaging(ctx, staging.url) : false;
    };
    // The branch is this run's own: every build of it is of the doctor's files.
    const built = await waitForBuild(ctx, branch, { since: ABSENT, timeoutMs: 10 * 60_000, wake }).then(
      (b) => b.status,
      (e: unknown) => new Error(`not built: ${messageOf(e)}`),
    );
    const secs = (ms: number) => `${Math.round(ms / 1000)} s`;
    add(
      'build status',
      built instanceof Error ? 'failed' : 'ok',
      `deploy branch: ${states.join(', ')}; doctor branch: ${built instanceof Error ? built.message : `built (${built.status})`}`,
      'waits for built before validating',
    );
    if (!(built instanceof Error)) {
      add(
        'hash form',
        'ok',
        hashForm(finishHash, built.lastHash ?? undefined),
        "takes a hash as a hint: the build newer than the one seen before the upload is the upload's",
      );
      add(
        'staging wake',
        'ok',
        wokenAt === undefined
          ? `the staging environment ran ${secs(Date.now() - enabledAt)} after it was enabled, without a wake`
          : `the staging environment said "Branch is not active" after it was enabled; ${wakes === 1 ? 'one data request' : `${wakes} data requests`} woke it, built ${secs(Date.now() - wokenAt)} later`,
        `wakes a staging environment that says "Branch is not active" (again when a wake gets no answer, and every ${DEFAULTS.stagingWakeRepeatMs / 1000} s), and waits up to ${plural(DEFAULTS.stagingWakeMs / 60_000, 'minute')} before that is final`,
      );
    }
    const shape = await validateBroken(ctx, branch, [...both, DOCTOR_FILES.broken], report.uploadVia ?? 'direct', target.connected !== undefined);
    add(
      'validation errors',
      shape.ok ? 'ok' : 'failed',
      shape.seen,
      shape.ok ? 'annotates each error on its file and line' : 'reports the errors without a file',
    );
  } catch (e) {
    add('doctor', 'failed', messageOf(e), 'see the checks above');
  } finally {
    report.cleanedUp = await doctorCleanup(ctx, branch, made);
    add(
      'clean-up',
      report.cleanedUp ? 'ok' : 'failed',
      report.cleanedUp ? 'everything the doctor made is gone' : `could not remove everything: ${branch} may be left`,
      report.cleanedUp ? '' : `delete ${branch} by hand`,
    );
  }
  return report;
}
