/**
 * Full PR lifecycles (open, push, close merged or not) against an emulator that injects faults, with
 * the GitHub stand-in. A run that fails is rerun once, as a person would rerun the job. After every
 * event it checks, from the emulator's own state: exactly one comment, no duplicate branch, the shared
 * branch equal to the local files, and after each merge the deploy branch holding exactly what the
 * merged PRs brought; at the end, after the sweep, nothing left behind. Used by `npm run soak` and,
 * short, by the test suite.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runActionCommand } from '../../src/commands/index.js';
import { skippedPath } from '../../src/model/local-model.js';
import { parseComment } from '../../src/pr/comment/ledger.js';
import { startEmulator, startGitHubStandin, type Emulator, type FileMap, type GitHubStandin } from '../../packages/emulator/src/index.js';
import { pushRef } from '../../packages/emulator/src/deployments/repository.js';
import { applyProfiles } from '../../packages/emulator/src/profile-state.js';
import { EXCLUSIVE, PROFILES, type ProfileName } from '../../packages/emulator/src/profiles.js';
import { pullRequestEvent, writeEvent } from '../support/payloads.js';

export interface SoakOptions {
  lifecycles: number;
  faults: string;
  faultSeed: number;
  /** Seconds a request may take before the client retries it (hangs are cut by this). */
  requestTimeout?: number;
  /** `draw`: each lifecycle runs on a tenant with profiles drawn at random (seeded); a list: these for all; default none. */
  profiles?: 'draw' | ProfileName[];
  log?: (line: string) => void;
}

/** Each profile is on with this chance in a drawn tenant (of two exclusive profiles, never both: the second is dropped). */
const DRAW_CHANCE = 0.3;

/** A seeded draw of tenant profiles (mulberry32). */
function profileDraws(seed: number): () => ProfileName[] {
  let a = (seed * 2654435761) >>> 0;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => {
    const on = PROFILES.filter(() => random() < DRAW_CHANCE);
    return on.filter((p) => !EXCLUSIVE.some(([a, b]) => p === b && on.includes(a)));
  };
}

export interface SoakReport {
  lifecycles: number;
  runs: number;
  runsOk: number;
  runsFailed: number;
  /** Lifecycles whose every check held. */
  correct: number;
  duplicateBranches: number;
  duplicateComments: number;
  lostOrStaleFiles: number;
  leftBehind: string[];
  deployBranchCorrect: boolean;
  faultsInjected: Record<string, number>;
  /** Keys, tokens or minted JWTs found in any captured log line or comment (must be 0). */
  secretsFound: number;
  requests: number;
  /** Requests the client repeated (its `retrying …` debug lines) and effects it checked before repeating a write. */
  retries: number;
  checks: number;
  seconds: number;
  failures: string[];
  /** Failed runs rerun once (the same event), and how many of those reruns ended correct. */
  reruns: number;
  repaired: number;
  /** Lifecycles that were correct only after a rerun. */
  correctAfterRerun: number;
  /** Merged closes after which the deploy branch did not hold exactly the merged PRs' files. */
  deployBranchWrong: number;
  /** Branches the sweep removed at the end (left by closes that failed twice). */
  swept: string[];
  /** Another repository's previews (profile another-repository-previews) that were removed or turned off: must be none. */
  othersTouched: string[];
  /** By profile: lifecycles run on a tenant with it, and how many of those ended correct (first try or after a rerun). */
  byProfile: Record<string, { lifecycles: number; correct: number }>;
  /** The proofs after the merged closes' last runs, by verdict (`differs` must be 0: the soak's merges are clean). */
  proofs: Record<string, number>;
}

const sha1 = (b: Buffer | string) => createHash('sha1').update(b).digest('hex');

/** What a repository-fed PR's event carries besides its number and head. */
type Extra = { headRef?: string; mergeCommitSha?: string };

/** path -> sha1 of a branch's files the walk reads (a connected repository's `.github/` on it is no model file). */
function hashes(files: FileMap): Record<string, string> {
  return Object.fromEntries(
    Object.entries(files)
      .filter(([p]) => !skippedPath(p))
      .map(([p, b64]) => [p, createHash('sha1').update(Buffer.from(b64, 'base64')).digest('hex')]),
  );
}

function cube(name: string, version: number): string {
  return `cubes:\n  - name: ${name}\n    sql_table: public.${name}\n    measures:\n      - name: count\n        type: count\n    dimensions:\n      - name: id\n        sql: id\n        type: number\n        primary_key: true\n      - name: v${version}\n        sql: v${version}\n        type: string\n`;
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const log = options.log ?? (() => undefined);
  const started = Date.now();
  const em: Emulator = await startEmulator({ seed: 'demo', faults: options.faults, faultSeed: options.faultSeed });
  const gh: GitHubStandin = await startGitHubStandin();
  const work = mkdtempSync(join(tmpdir(), 'dmci-soak-'));
  const caFile = join(work, 'ca.pem');
  writeFileSync(caFile, `${em.ca}\n${gh.ca}`);
  const d = () => em.state.deployments[0]!;
  const report: SoakReport = {
    lifecycles: options.lifecycles,
    runs: 0,
    runsOk: 0,
    runsFailed: 0,
    correct: 0,
    duplicateBranches: 0,
    duplicateComments: 0,
    lostOrStaleFiles: 0,
    leftBehind: [],
    deployBranchCorrect: false,
    faultsInjected: {},
    secretsFound: 0,
    requests: 0,
    retries: 0,
    checks: 0,
    seconds: 0,
    failures: [],
    reruns: 0,
    repaired: 0,
    correctAfterRerun: 0,
    deployBranchWrong: 0,
    swept: [],
    othersTouched: [],
    byProfile: {},
    proofs: {},
  };
  const draw = options.profiles === 'draw' ? profileDraws(options.faultSeed) : () => (options.profiles as ProfileName[] | undefined) ?? [];
  /** What the deploy branch must hold at the end: the seed plus every merged PR's file. */
  const expectedMain: Record<string, string> = hashes(d().branches.main!.head);

  /** Every line any run printed, for the secrets scan. */
  const captured: string[] = [];
  const runOnce = async (pr: number, action: string, headSha: string, modelDir: string, merged: boolean, attempt: number, extra: Extra) => {
    const lines: string[] = [];
    const env: NodeJS.ProcessEnv = {
      DATAMODEL_CI_API_URL: em.baseUrl,
      DATAMODEL_CI_API_KEY: em.credentials.admin,
      DATAMODEL_CI_CA_CERT: caFile,
      DATAMODEL_CI_DEPLOYMENT_ID: '1',
      DATAMODEL_CI_GITHUB_TOKEN: 'ghs_soak_token_0123456789',
      DATAMODEL_CI_MODEL_DIR: modelDir,
      // The folder the platform writes (profile platform-written-files): excluded, so never pruned.
      DATAMODEL_CI_EXCLUDE: 'model/generated/**',
      // A tenant that deploys with the CLI rebuilds production only from the close's upload (ignored in Git mode).
      DATAMODEL_CI_DEPLOY_ON_MERGE: 'true',
      DATAMODEL_CI_REQUEST_TIMEOUT: String(options.requestTimeout ?? 2),
      GITHUB_REPOSITORY: gh.repository,
      GITHUB_API_URL: gh.url,
      GITHUB_RUN_ID: String(pr * 10 + ['opened', 'synchronize', 'closed'].indexOf(action)),
      GITHUB_RUN_ATTEMPT: String(attempt),
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: writeEvent(pullRequestEvent(action, { number: pr, headSha, merged, ...extra })),
    };
    // --verbose: the debug lines (every retry) are captured and scanned for secrets too.
    const code = await runActionCommand('pr', ['--verbose'], { out: (l) => lines.push(l), err: (l) => lines.push(l), env });
    report.runs += 1;
    captured.push(...lines);
    report.retries += lines.filter((l) => /\bretrying (GET|POST|PUT|PATCH|DELETE) /.test(l)).length;
    report.checks += lines.filter((l) => /checking whether \S+ \S+ took effect after/.test(l)).length;
    const proof = lines.find((l) => l.startsWith('production-proof='))?.slice('production-proof='.length);
    if (proof && code === 0) report.proofs[proof] = (report.proofs[proof] ?? 0) + 1;
    if (code === 0) report.runsOk += 1;
    else {
      report.runsFailed += 1;
      report.failures.push(
        `PR ${pr} ${action}${attempt > 1 ? ' (rerun)' : ''}: exit ${code}: ${lines
          .filter((l) => /error|warning/.test(l))
          .slice(-3)
          .join(' | ')}`,
      );
    }
    return code;
  };
  /** Run the event; a failed run is rerun once, as a person reruns the job. */
  const current = { rerun: false };
  const run = async (pr: number, action: string, headSha: string, modelDir: string, merged = false, extra: Extra = {}) => {
    const code = await runOnce(pr, action, headSha, modelDir, merged, 1, extra);
    if (code === 0) return 0;
    report.reruns += 1;
    current.rerun = true;
    const again = await runOnce(pr, action, headSha, modelDir, merged, 2, extra);
    if (again === 0) report.repaired += 1;
    return again;
  };

  for (let i = 0; i < options.lifecycles; i++) {
    const pr = 1000 + i;
    const merge = i % 2 === 0;
    const branch = `preview-pr-${pr}`;
    const name = `soak_${i}`;
    let ok = true;
    current.rerun = false;
    const fail = (why: string) => {
      ok = false;
      report.failures.push(`PR ${pr}: ${why}`);
    };
    // The tenant of this lifecycle: its profiles drawn (a repository-fed one previews the PR's head branch).
    const profiles = draw();
    applyProfiles({ state: em.state, clock: em.clock, controls: em.controls }, profiles);
    // A repository connected now may bring files of its own to main (a `.gitignore`): the tenant's, not a merge's.
    for (const [p, h] of Object.entries(hashes(d().branches.main!.head))) if (!(p in expectedMain)) expectedMain[p] = h;
    // A repository connected by any of three profiles; it feeds production unless the tenant deploys with the CLI.
    const connected = (['github-connected', 'connected-later', 'cli-with-repository'] as const).some((p) => profiles.includes(p));
    const github = connected && !profiles.includes('cli-with-repository');
    const headRef = `soak-${i}`;
    const previewBranch = github ? headRef : branch;
    const sha = (v: string) => `${pr}${v}`.padEnd(40, '0');
    const extra: Extra = { headRef };
    // The PR's checkout: the deploy branch as it is now, plus the PR's own cube.
    const dir = join(work, `pr-${pr}`);
    for (const [p, b64] of Object.entries(d().branches.main!.head)) {
      mkdirSync(dirname(join(dir, p)), { recursive: true });
      writeFileSync(join(dir, p), Buffer.from(b64, 'base64'));
    }
    const tree = (v: number): FileMap => ({ ...d().branches.main!.head, [`model/cubes/${name}.yml`]: Buffer.from(cube(name, v)).toString('base64') });
    /** The checkout; on a repository-fed tenant GitHub holds the same at the PR's head. */
    const write = (v: number, headSha: string) => {
      mkdirSync(join(dir, 'model', 'cubes'), { recursive: true });
      writeFileSync(join(dir, 'model', 'cubes', `${name}.yml`), cube(name, v));
      if (github) pushRef({ clock: em.clock, controls: em.controls }, d(), headRef, tree(v), headSha);
    };
    const local = (v: number) => ({ ...hashes(d().branches.main!.head), [`model/cubes/${name}.yml`]: sha1(cube(name, v)) });

    const checkPreview = (v: number, headSha: string) => {
      const shared = d().branches[previewBranch];
      if (!shared) return fail(`no ${previewBranch} after a preview run`);
      const got = hashes(shared.head);
      const want = local(v);
      if (JSON.stringify(Object.entries(got).sort()) !== JSON.stringify(Object.entries(want).sort())) {
        report.lostOrStaleFiles += 1;
        fail(`${previewBranch} does not hold the local files`);
      }
      const ours = gh.comments(pr);
      if (ours.length !== 1) {
        report.duplicateComments += Math.max(0, ours.length - 1);
        return fail(`${ours.length} comments`);
      }
      if (parseComment(ours[0]!.body).ledger?.headSha !== headSha) fail('the comment does not show the head SHA');
    };

    gh.addPull({ number: pr, headSha: sha('a'), headRef });
    write(1, sha('a'));
    if ((await run(pr, 'opened', sha('a'), dir, false, extra)) !== 0) fail('opened run failed');
    else checkPreview(1, sha('a'));

    gh.setHead(pr, sha('b'));
    write(2, sha('b'));
    if ((await run(pr, 'synchronize', sha('b'), dir, false, extra)) !== 0) fail('synchronize run failed');
    else checkPreview(2, sha('b'));

    gh.closePull(pr, merge);
    // A repository-fed tenant: GitHub's merge pushes main, which deploys it; the close must not merge again.
    let mainCommits = d().branches.main!.commits;
    if (github && merge) {
      pushRef({ clock: em.clock, controls: em.controls }, d(), 'main', tree(2), sha('m'));
      mainCommits += 1;
    }
    if ((await run(pr, 'closed', sha('b'), dir, merge, { ...extra, ...(github ? { mergeCommitSha: sha('m') } : {}) })) !== 0) fail('closed run failed');
    if (d().branches[branch]) fail(`${branch} is still there after close`);
    if (github && d().branches.main!.commits !== mainCommits) fail('main was merged into on a repository-fed tenant (a second deploy)');
    if (github && d().branches[headRef]?.staging) fail(`the staging environment of ${headRef} is still on after close`);
    // Another repository's previews (profile another-repository-previews) are not this one's to remove.
    const others = d().otherPreviews ?? [];
    const refs = Object.keys(d().connected?.refs ?? {}).filter((r) => r.startsWith('preview-') && !others.includes(r));
    if (connected && refs.length) fail(`refs left in the connected repository: ${refs.join(', ')}`);
    const strays = Object.values(d().branches).filter((b) => b.kind === 'dev' || b.name.startsWith(`${branch}`));
    if (strays.length) {
      report.duplicateBranches += strays.filter((b) => b.name !== branch).length;
      fail(`left behind: ${strays.map((b) => b.name).join(', ')}`);
    }
    if (gh.comments(pr).length !== 1) {
      report.duplicateComments += Math.max(0, gh.comments(pr).length - 1);
      fail(`${gh.comments(pr).length} comments after close`);
    }
    if (merge) {
      expectedMain[`model/cubes/${name}.yml`] = sha1(cube(name, 2));
      // Production after every merge, not only at the end: a wrong deploy branch is never acceptable.
      const main = hashes(d().branches.main!.head);
      if (JSON.stringify(Object.entries(main).sort()) !== JSON.stringify(Object.entries(expectedMain).sort())) {
        report.deployBranchWrong += 1;
        fail('the deploy branch does not hold exactly the merged PRs');
        for (const k of Object.keys(expectedMain)) delete expectedMain[k];
        Object.assign(expectedMain, main);
      }
    }
    if (ok && !current.rerun) report.correct += 1;
    if (ok && current.rerun) report.correctAfterRerun += 1;
    for (const p of profiles.length ? profiles : ['none']) {
      const row = (report.byProfile[p] ??= { lifecycles: 0, correct: 0 });
      row.lifecycles += 1;
      if (ok) row.correct += 1;
    }
    rmSync(dir, { recursive: true, force: true });
    log(
      `lifecycle ${i + 1}/${options.lifecycles} [${profiles.join(',') || 'no profile'}]: ${ok ? 'ok' : 'NOT OK'} (${report.runsOk}/${report.runs} runs ok, faults ${JSON.stringify(em.faults.injected)})`,
    );
  }

  // The sweep removes what a close that failed twice left behind (every PR is closed by now).
  const others = d().otherPreviews ?? [];
  const before = Object.values(d().branches)
    .filter((b) => b.name.startsWith('preview-') && !others.includes(b.name))
    .map((b) => b.name);
  if (before.length) {
    const lines: string[] = [];
    await runActionCommand('cleanup-branch', ['--mode', 'sweep', '--min-age', '0s'], {
      out: (l) => lines.push(l),
      err: (l) => lines.push(l),
      env: {
        DATAMODEL_CI_API_URL: em.baseUrl,
        DATAMODEL_CI_API_KEY: em.credentials.admin,
        DATAMODEL_CI_CA_CERT: caFile,
        DATAMODEL_CI_DEPLOYMENT_ID: '1',
        DATAMODEL_CI_GITHUB_TOKEN: 'ghs_soak_token_0123456789',
        GITHUB_REPOSITORY: gh.repository,
        GITHUB_API_URL: gh.url,
      },
    });
    captured.push(...lines);
    report.swept = before.filter((b) => !d().branches[b]);
  }
  const main = hashes(d().branches.main!.head);
  report.deployBranchCorrect =
    report.deployBranchWrong === 0 && JSON.stringify(Object.entries(main).sort()) === JSON.stringify(Object.entries(expectedMain).sort());
  // Another repository's previews must still be there, its staging on: the sweep takes nothing on a name.
  report.othersTouched = others.filter((name) => !d().branches[name]?.staging);
  report.leftBehind = [
    ...Object.values(d().branches)
      .filter((b) => b.kind === 'dev' || (b.name.startsWith('preview-') && !others.includes(b.name)))
      .map((b) => b.name),
    ...Object.keys(d().devSessions).map((k) => `session:${k}`),
  ];
  report.faultsInjected = { ...em.faults.injected };
  const secrets = [...Object.values(em.credentials), 'ghs_soak_token_0123456789', ...em.controls.minted];
  const text = [...captured, ...Array.from({ length: options.lifecycles }, (_, i) => gh.comments(1000 + i).map((c) => c.body)).flat()].join('\n');
  report.secretsFound = secrets.filter((s) => text.includes(s)).length;
  // The emulator counts what reached a handler; a request answered by an injected fault (all kinds but `lost`) did not.
  const f = em.faults.injected;
  report.requests = Object.values(em.counts).reduce((a, b) => a + b, 0) + f['5xx'] + f['429'] + f.reset + f.hang;
  report.seconds = Math.round((Date.now() - started) / 100) / 10;
  await gh.close();
  await em.close();
  rmSync(work, { recursive: true, force: true });
  return report;
}
