/**
 * `npm run demo`: one pull request's life on one machine. The platform emulator and a GitHub REST
 * stand-in run in-process; the runner harness plays examples/workflows/preview.yml with the committed
 * bundle for seven events (open, a broken push, a fix, a push that changes how a measure is computed,
 * a push that removes a member a report uses, a push that adds a row-level policy and a view for one
 * group, seen by the personas of the repository's personas.yml, merge), then examples/workflows/monorepo.yml
 * for a monorepo's pull request (two models, two deployments, one comment: one model touched, then both,
 * merged), then, once production holds a rollup on orders, a third pull request that makes a measure a
 * distinct count (the same numbers, but reports leave the rollup), whose close proves production is the
 * validated model; last, the drift watch (examples/workflows/drift.yml) in sync, then catching a hotfix
 * uploaded from outside the repository. It prints each run's outputs, timing and the PR comment as that run
 * left it. `--keep` leaves the emulator running for the CLI.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { DEMO_MODEL, FINANCE_MODEL, startEmulator, startGitHubStandin } from '../packages/emulator/src/index.js';
import { PlatformClient } from '../src/client/index.js';
import { runJob, type JobRunResult } from '../test/harness/runner.js';
import { uploadTree } from '../test/support/emulator.js';
import { pullRequestEvent } from '../test/support/payloads.js';
import { playDrift } from './demo-drift.js';
import { ROLLUP_PUSH, distinctCount, withOrdersRollup } from './demo-rollup.js';

/** analytics/'s orders cube, which the rollup pull request changes. */
const ORDERS = 'model/cubes/orders.yml';
/** finance/'s model file the monorepo's pull request changes. */
const PAYMENTS = 'model/cubes/payments.yml';

/** The demo's personas (personas.yml at the repository's root): who the access review reads the model as. */
export const DEMO_PERSONAS = `# Kinds of users the team names: each one's view of the model is compared on every pull request.
personas:
  - name: analyst
    groups: [analysts]
  - name: finance
    groups: [finance]
`;

/** The sixth push's row-level policy: everyone sees the orders that were not cancelled, finance every order. */
export const ORDERS_POLICY = `    access_policy:
      - group: "*"
        member_level:
          includes: "*"
        row_level:
          filters:
            - member: status
              operator: notEquals
              values: [cancelled]
      - group: finance
        member_level:
          includes: "*"
        row_level:
          allow_all: true
`;

/** The sixth push's view for one group: finance's refunds, hidden from everyone else. */
export const FINANCE_VIEW = `views:
  - name: finance_orders
    cubes:
      - join_path: orders
        includes: [count, total_amount, status]
    access_policy:
      - group: finance
        member_level:
          includes: "*"
`;

/** The demo's sixth push, by its title (the comment picture of the access review is drawn from it). */
export const ACCESS_PUSH = '6. A push restores the member, adds a row-level policy and a view for one group';

/** The demo's fourth push: revenue leaves cancelled orders out. */
export const REVENUE_SQL = "CASE WHEN status = 'cancelled' THEN 0 ELSE amount END";

const bold = (s: string) => (process.stdout.isTTY ? `\u001b[1m${s}\u001b[0m` : s);
const dim = (s: string) => (process.stdout.isTTY ? `\u001b[2m${s}\u001b[0m` : s);
let print = (line: string): void => void process.stdout.write(`${line}\n`);
const say = (s = '') => print(s);

/** What each event left on the PR: the comment as GitHub stores it, and the servers' addresses in it. */
export interface DemoEvent {
  title: string;
  comment: string;
  platformUrl: string;
  githubUrl: string;
}

export async function main(argv: string[]): Promise<number> {
  const keep = argv.includes('--keep');
  const unknown = argv.filter((a) => a !== '--keep');
  if (unknown.length) {
    process.stderr.write(`demo: unknown argument ${JSON.stringify(unknown[0])} (known: --keep)\n`);
    return 2;
  }
  return (await playDemo({ keep })) ? 0 : 1;
}

/** Play the demo; `print` replaces stdout (the comment picture plays it quietly), `onEvent` sees each event's comment. */
export async function playDemo(options: { keep?: boolean; print?: (line: string) => void; onEvent?: (e: DemoEvent) => void }): Promise<boolean> {
  const keep = options.keep ?? false;
  if (options.print) print = options.print;
  const repo = resolve('.');
  const t0 = Date.now();
  say(bold('datamodel-ci demo: one pull request, from open to merge'));
  const em = await startEmulator({ seed: 'demo', clock: { scale: 50 }, buildMs: 0, warm: true });
  const gh = await startGitHubStandin();
  const work = mkdtempSync(join(tmpdir(), 'datamodel-ci-demo-'));
  const caFile = join(work, 'ca.pem');
  writeFileSync(caFile, `${em.ca}\n${gh.ca}`);
  say(dim(`platform emulator ${em.baseUrl} · GitHub stand-in ${gh.url} · workspace ${work}`));

  // The data team's repository: the model lives in analytics/.
  const userRepo = join(work, 'repo');
  const write = (files: Record<string, string>, folder = 'analytics') => {
    for (const [p, c] of Object.entries(files)) {
      mkdirSync(dirname(join(userRepo, folder, p)), { recursive: true });
      writeFileSync(join(userRepo, folder, p), c);
    }
  };
  write(DEMO_MODEL);
  write({ 'personas.yml': DEMO_PERSONAS }, '.');
  const payments =
    'cubes:\n  - name: payments\n    sql_table: public.payments\n    measures:\n      - name: count\n        type: count\n      - name: amount\n        type: sum\n        sql: amount\n    dimensions:\n      - name: id\n        sql: id\n        type: number\n        primary_key: true\n';

  // The pull request being played: preview.yml's, then the monorepo's (monorepo.yml, one deployment per model).
  let PR = 1;
  let workflow = 'preview.yml';
  let title = 'Add a payments cube';
  const previewVars: Record<string, string> = {
    PLATFORM_API_URL: em.baseUrl,
    PLATFORM_DEPLOYMENT_ID: '1',
    DATAMODEL_DATA_DIFF: 'values',
    DATAMODEL_PERSONAS: 'personas.yml',
  };
  let vars = previewVars;
  /** The event's `changed_files`, when the stand-in lists the pull request's files. */
  let changedFiles: number | undefined;
  const privateRepo = { ...(pullRequestEvent('opened').repository as Record<string, unknown>), private: true, visibility: 'private' };
  const sha = (n: number) => `${n}`.repeat(40).slice(0, 40);
  gh.addPull({ number: PR, headSha: sha(1), headRef: 'add-payments', baseRef: 'main', title: 'Add a payments cube' });

  const event = (action: string, headSha: string, extra: { merged?: boolean }) => {
    const e: Record<string, unknown> = { ...pullRequestEvent(action, { number: PR, headSha, title, ...extra }), repository: privateRepo };
    if (changedFiles !== undefined) (e.pull_request as Record<string, unknown>).changed_files = changedFiles;
    return e;
  };
  let ok = true;
  // The demo's own run numbers (the harness counts runs per process, which a test process shares).
  let runs = 0;
  const play = async (title: string, action: string, headSha: string, expect: 'success' | 'failure', extra: { merged?: boolean } = {}) => {
    say();
    say(bold(`▶ ${title}`) + dim(`  (pull_request.${action}, head ${headSha.slice(0, 7)})`));
    const started = Date.now();
    const r: JobRunResult = await runJob({
      workflowFile: join(repo, 'examples', 'workflows', workflow),
      jobId: 'preview',
      repoDir: repo,
      checkoutFrom: userRepo,
      eventName: 'pull_request',
      event: event(action, headSha, extra),
      github: {
        api_url: gh.url,
        repository: gh.repository,
        token: 'ghs_demo_token_not_a_real_one',
        run_id: String(4242000 + ++runs),
        run_number: String(runs),
      },
      secrets: { PLATFORM_API_KEY: em.credentials.admin },
      // The data diff is on: the team's repository is private (the event says so), so it needs no allow.
      vars,
      env: { NODE_EXTRA_CA_CERTS: caFile },
    });
    const ms = Date.now() - started;
    const step = r.steps.find((s) => s.uses?.startsWith('your-org/datamodel-ci'));
    const mark = r.conclusion === expect ? '✓' : '✗';
    if (r.conclusion !== expect) ok = false;
    say(
      `  ${mark} job ${r.conclusion} in ${(ms / 1000).toFixed(2)} s${r.conclusion === 'failure' && expect === 'failure' ? ' (as it should: the model is broken)' : ''}`,
    );
    for (const a of r.annotations.filter((x) => x.level === 'error')) {
      say(`    ::error ${a.file ? `${a.file}${a.line ? `:${a.line}` : ''} ` : ''}${a.message}`);
    }
    // With `checks: write`, each error is an annotation of the check run on the head commit.
    for (const run of gh.checkRuns().filter((c) => c.headSha === headSha && c.annotations.length)) {
      say(`  check "${run.name}": ${run.conclusion ?? run.status}`);
      for (const a of run.annotations) say(`    ${a.path}:${a.startLine} ${a.message}`);
    }
    const outputs = Object.entries(step?.outputs ?? {}).filter(([, v]) => v !== '');
    say(`  outputs: ${outputs.map(([k, v]) => `${k}=${v}`).join(' ') || '(none)'}`);
    if (r.conclusion !== expect)
      say(
        r.log
          .slice(-20)
          .map((l) => `    ${l}`)
          .join('\n'),
      );
    showComment();
    options.onEvent?.({ title, comment: gh.comments(PR).at(-1)?.body ?? '', platformUrl: em.baseUrl, githubUrl: gh.url });
    return Object.fromEntries(outputs);
  };
  /** A comment's or an issue's body in a box, its hidden markers left out. */
  const showBody = (body: string) => {
    say(dim(`  ${'─'.repeat(70)}`));
    say(
      body
        .replace(/<!--[\s\S]*?-->\n?/g, '')
        .trim()
        .split('\n')
        .map((l) => `  │ ${l}`)
        .join('\n'),
    );
    say(dim(`  ${'─'.repeat(70)}`));
  };
  const showComment = () => {
    const comments = gh.comments(PR);
    if (comments.length !== 1) ok = false;
    say(dim(`  The PR comment now (${comments.length} comment${comments.length === 1 ? '' : 's'} on the PR, rewritten in place):`));
    showBody(comments.at(-1)?.body ?? '(none)');
  };

  write({ 'model/cubes/payments.yml': payments });
  await play('1. The pull request is opened', 'opened', sha(1), 'success');

  gh.setHead(PR, sha(2));
  write({ 'model/cubes/payments.yml': payments.replace('type: sum', 'type: summ') });
  await play('2. A push breaks the model', 'synchronize', sha(2), 'failure');

  gh.setHead(PR, sha(3));
  write({ 'model/cubes/payments.yml': payments });
  await play('3. A push fixes it', 'synchronize', sha(3), 'success');

  // Only a measure's sql changes (cancelled orders stop counting as revenue): no name or type moves,
  // but every revenue figure does; the comment names the measure and shows how its numbers moved.
  gh.setHead(PR, sha(4));
  write({ 'model/cubes/orders.yml': DEMO_MODEL['model/cubes/orders.yml']!.replace('        sql: amount\n', `        sql: "${REVENUE_SQL}"\n`) });
  await play('4. A push changes how a measure is computed', 'synchronize', sha(4), 'success');

  // The model is valid, but customers.country goes: the report "Revenue by country", the dashboard
  // and a notification use it (through orders_view), and the comment says so.
  gh.setHead(PR, sha(5));
  write({
    'model/cubes/orders.yml': DEMO_MODEL['model/cubes/orders.yml']!,
    'model/cubes/customers.yml': DEMO_MODEL['model/cubes/customers.yml']!.replace('      - name: country\n        sql: country\n        type: string\n', ''),
    'model/views/orders_view.yml': DEMO_MODEL['model/views/orders_view.yml']!.replace('          - country\n', ''),
  });
  await play('5. A push removes a member a report uses', 'synchronize', sha(5), 'success');

  // Access: the member back, a row-level policy on orders (everyone but finance loses the cancelled ones)
  // and a view only finance may see; the comment says, per persona of personas.yml, who sees what differently.
  gh.setHead(PR, sha(6));
  write({
    'model/cubes/orders.yml': DEMO_MODEL['model/cubes/orders.yml']!.replace('    dimensions:\n', `${ORDERS_POLICY}    dimensions:\n`),
    'model/cubes/customers.yml': DEMO_MODEL['model/cubes/customers.yml']!,
    'model/views/orders_view.yml': DEMO_MODEL['model/views/orders_view.yml']!,
    'model/views/finance_orders.yml': FINANCE_VIEW,
  });
  await play(ACCESS_PUSH, 'synchronize', sha(6), 'success');

  gh.closePull(PR, true);
  await play('7. The pull request is merged', 'closed', sha(6), 'success', { merged: true });

  // A monorepo: finance/ beside analytics/, each its own deployment (1 and 3), one comment per pull request.
  say();
  say(bold('A monorepo: two models, two deployments, one comment (examples/workflows/monorepo.yml)'));
  write(FINANCE_MODEL, 'finance');
  [PR, workflow, title] = [2, 'monorepo.yml', 'Average payments, sign-up dates'];
  vars = { PLATFORM_API_URL: em.baseUrl, ANALYTICS_DEPLOYMENT_ID: '1', FINANCE_DEPLOYMENT_ID: '3' };
  const average = FINANCE_MODEL[PAYMENTS]!.replace(
    '    dimensions:\n',
    '      - name: average_amount\n        type: avg\n        sql: amount\n    dimensions:\n',
  );
  gh.addPull({ number: PR, headSha: sha(7), headRef: 'averages', baseRef: 'main', title, files: [`finance/${PAYMENTS}`] });
  changedFiles = 1;
  write({ [PAYMENTS]: average }, 'finance');
  await play('8. A monorepo pull request touches finance/ only', 'opened', sha(7), 'success');

  gh.setHead(PR, sha(8));
  gh.setFiles(PR, [`finance/${PAYMENTS}`, 'analytics/model/cubes/customers.yml']);
  changedFiles = 2;
  const customers = readFileSync(join(userRepo, 'analytics', 'model/cubes/customers.yml'), 'utf8');
  write({
    'model/cubes/customers.yml': customers.replace(
      '      - name: name\n',
      '      - name: signed_up_at\n        sql: signed_up_at\n        type: time\n      - name: name\n',
    ),
  });
  await play('9. A push touches both models', 'synchronize', sha(8), 'success');

  gh.closePull(PR, true);
  await play('10. The monorepo pull request is merged', 'closed', sha(8), 'success', { merged: true });

  // Cost: production gains a rollup of order counts (another team's merge, on the deploy branch and in the
  // repository), then a third pull request (preview.yml again) makes orders.count a distinct count. The numbers
  // stay the same, but a distinct count cannot be added up across the rollup's days, so the reports counting
  // orders by status or by week leave the rollup for the warehouse.
  say();
  say(bold('A pull request that costs more: the same numbers, off the rollup (examples/workflows/preview.yml)'));
  const withRollup = withOrdersRollup(readFileSync(join(userRepo, 'analytics', ORDERS), 'utf8'));
  write({ [ORDERS]: withRollup });
  const admin = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca });
  await uploadTree(admin, 1, 'main', { [ORDERS]: withRollup }, false).finally(() => admin.close());
  say(dim(`  production's ${ORDERS} gains the rollup orders_by_status (counts by status and day)`));
  [PR, workflow, title, vars, changedFiles] = [3, 'preview.yml', 'Count distinct orders', previewVars, undefined];
  gh.addPull({ number: PR, headSha: sha(9), headRef: 'distinct-orders', baseRef: 'main', title });
  write({ [ORDERS]: distinctCount(withRollup) });
  await play(ROLLUP_PUSH, 'opened', sha(9), 'success');

  gh.closePull(PR, true);
  const merged = await play('12. The pull request is merged', 'closed', sha(9), 'success', { merged: true });
  // The close proved production after the merge: a newer build serves the validated file hashes and members.
  say();
  if (merged['production-proof'] === 'proven')
    say(bold('  ✓ production = the validated model') + dim(' (production-proof=proven: a build after the merge serves its files and members)'));
  else {
    ok = false;
    say(`  ✗ production is not proven: production-proof=${merged['production-proof'] ?? '(none)'}`);
  }

  if (!(await playDrift({ em, gh, userRepo, repo, caFile, say, bold, dim, showBody }))) ok = false;

  say();
  say(`${ok ? '✓ done' : '✗ something did not go as expected'} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  await gh.close();
  if (!keep) {
    await em.close();
    return ok;
  }
  say();
  say(bold('The emulator keeps running. In another terminal:'));
  say(`  export DATAMODEL_CI_API_URL=${em.baseUrl}`);
  say(`  export DATAMODEL_CI_CA_CERT=${em.caFile}`);
  say(`  export DATAMODEL_CI_API_KEY=${em.credentials.admin}`);
  say('  npx datamodel-ci check');
  say('  npx datamodel-ci validate --deployment-id 1 --branch main');
  say('  npx datamodel-ci api GET /build/api/v1/deployments/1/branches');
  say(dim('Ctrl-C stops it.'));
  await new Promise<void>((resolveStop) => {
    process.once('SIGINT', () => resolveStop());
    process.once('SIGTERM', () => resolveStop());
  });
  await em.close();
  return ok;
}
