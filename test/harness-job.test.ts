/** The runner harness's runJob (test/harness/runner.ts) on small fixture workflows written to temp dirs. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runJob } from './harness/runner.js';
import { satisfies } from './harness/uses.js';
import { removeTrees, tree, workflowRepo } from './support/fixture-tree.js';

afterAll(removeTrees);

describe('runJob', () => {
  const actionRepo = () =>
    tree({
      'actions/echo/action.yml': `
name: echo
inputs:
  text: { description: t, required: true }
  suffix: { description: s, default: '!' }
outputs:
  said: { description: s, value: '\${{ steps.say.outputs.said }}' }
runs:
  using: composite
  steps:
    - id: say
      shell: bash
      env:
        TEXT: \${{ inputs.text }}
        SUFFIX: \${{ inputs.suffix }}
      run: |
        echo "said=$TEXT$SUFFIX" >> "$GITHUB_OUTPUT"
        echo "saying $TEXT"
`,
    });

  it('runs our actions from repoDir, passes step outputs on, and honours job env, step env, vars and secrets', async () => {
    const repoDir = actionRepo();
    const { workflowFile } = workflowRepo(`
name: wf
on: pull_request
env:
  WF: workflow
jobs:
  main:
    runs-on: ubuntu-latest
    env:
      JOB: \${{ vars.TENANT }}
    steps:
      - id: e
        uses: your-org/datamodel-ci/actions/echo@v1
        with:
          text: pr-\${{ github.event.pull_request.number }}
      - id: use
        env:
          SAID: \${{ steps.e.outputs.said }}
          KEY: \${{ secrets.API_KEY }}
        run: |
          echo "$WF $JOB $SAID key=$KEY"
          echo "GITHUB_TOKEN in env: \${GITHUB_TOKEN:-no}"
`);
    const r = await runJob({
      workflowFile,
      jobId: 'main',
      repoDir,
      eventName: 'pull_request',
      event: { number: 5, pull_request: { number: 5, head: { ref: 'feature', sha: 'abc' }, base: { ref: 'main' } } },
      vars: { TENANT: 'acme' },
      secrets: { API_KEY: 'key-123' },
    });
    expect(r.conclusion).toBe('success');
    expect(r.stepOutputs['e']).toEqual({ said: 'pr-5!' });
    expect(r.steps[0]?.inputs).toEqual({ text: 'pr-5', suffix: '!' });
    expect(r.log).toEqual(['saying pr-5', 'workflow acme pr-5! key=***', 'GITHUB_TOKEN in env: no']);
  });

  it('gives a merge_group run the group as GitHub does: GITHUB_REF and GITHUB_SHA name its branch and commit, no head or base ref', async () => {
    const { root, workflowFile } = workflowRepo(`
on:
  merge_group:
    types: [checks_requested]
jobs:
  main:
    runs-on: ubuntu-latest
    steps:
      - run: echo "$GITHUB_EVENT_NAME $GITHUB_REF $GITHUB_SHA [$GITHUB_HEAD_REF] [$GITHUB_BASE_REF] $GITHUB_REF_NAME"
`);
    const group = {
      head_sha: 'c'.repeat(40),
      head_ref: `refs/heads/gh-readonly-queue/main/pr-7-${'a'.repeat(40)}`,
      base_sha: 'b'.repeat(40),
      base_ref: 'refs/heads/main',
    };
    const r = await runJob({ workflowFile, jobId: 'main', repoDir: root, eventName: 'merge_group', event: { action: 'checks_requested', merge_group: group } });
    expect(r.log).toEqual([`merge_group ${group.head_ref} ${group.head_sha} [] [] gh-readonly-queue/main/pr-7-${'a'.repeat(40)}`]);
  });

  it('stops at a failing step, still runs if: always() and failure() steps, and reports failure', async () => {
    const { root, workflowFile } = workflowRepo(`
on: push
jobs:
  main:
    runs-on: ubuntu-latest
    steps:
      - run: echo one
      - id: boom
        run: |
          echo "::error file=a.yml,line=3::boom"
          exit 2
      - id: skipped
        run: echo never
      - id: cleanup
        if: always()
        run: echo "cleanup after \${{ steps.boom.outcome }}"
      - id: on-failure
        if: failure()
        run: echo "job failed"
`);
    const r = await runJob({ workflowFile, jobId: 'main', repoDir: root });
    expect(r.conclusion).toBe('failure');
    expect(r.steps.map((s) => [s.id, s.conclusion])).toEqual([
      ['__run', 'success'],
      ['boom', 'failure'],
      ['skipped', 'skipped'],
      ['cleanup', 'success'],
      ['on-failure', 'success'],
    ]);
    expect(r.steps[1]?.exitCode).toBe(2);
    expect(r.annotations).toEqual([
      { level: 'error', message: 'boom', file: 'a.yml', line: 3, step: 'boom' },
      { level: 'error', message: 'Process completed with exit code 2.', step: 'boom' },
    ]);
    expect(r.log).toEqual(['one', '##[error]boom', '##[error]Process completed with exit code 2.', 'cleanup after failure', 'job failed']);
  });

  it('continue-on-error: the outcome is failure, the conclusion success, and the job goes on', async () => {
    const { root, workflowFile } = workflowRepo(`
on: push
jobs:
  main:
    runs-on: ubuntu-latest
    steps:
      - id: flaky
        continue-on-error: true
        run: exit 1
      - id: next
        env:
          OUTCOME: \${{ steps.flaky.outcome }}
          CONCLUSION: \${{ steps.flaky.conclusion }}
        run: echo "$OUTCOME/$CONCLUSION"
`);
    const r = await runJob({ workflowFile, jobId: 'main', repoDir: root });
    expect(r.conclusion).toBe('success');
    expect(r.steps.map((s) => [s.outcome, s.conclusion])).toEqual([
      ['failure', 'success'],
      ['success', 'success'],
    ]);
    expect(r.log).toContain('failure/success');
  });

  it('setup-node stand-in: passes for the running major, fails for node-version 99', async () => {
    const major = process.versions.node.split('.')[0];
    const { root, workflowFile } = workflowRepo(`
on: push
jobs:
  ok:
    runs-on: ubuntu-latest
    steps:
      - id: node
        uses: actions/setup-node@v4
        with:
          node-version: ${major}
  too-new:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/setup-node@v4
        with:
          node-version: 99
      - run: echo never
`);
    const ok = await runJob({ workflowFile, jobId: 'ok', repoDir: root });
    expect(ok.conclusion).toBe('success');
    expect(ok.stepOutputs['node']).toEqual({ 'node-version': process.version });
    const bad = await runJob({ workflowFile, jobId: 'too-new', repoDir: root });
    expect(bad.conclusion).toBe('failure');
    expect(bad.steps.map((s) => s.conclusion)).toEqual(['failure', 'skipped']);
    expect(bad.annotations[0]?.message).toMatch(/node-version '99' was requested/);
    // A repository whose engines accept the runner's Node runs on it (a developer on the oldest supported version).
    writeFileSync(join(root, 'package.json'), JSON.stringify({ engines: { node: `^${major}.0.0 || >=99` } }));
    const supported = await runJob({ workflowFile, jobId: 'too-new', repoDir: root });
    expect(supported.conclusion).toBe('success');
    expect(supported.log.join('\n')).toContain(`which the repository's engines (^${major}.0.0 || >=99) accept`);
  });

  it('setup-node stand-in: reads engines ranges as npm does for ^ and >=', () => {
    expect(satisfies([22, 13, 0], '^22.13.0 || >=24')).toBe(true);
    expect(satisfies([22, 12, 9], '^22.13.0 || >=24')).toBe(false);
    expect(satisfies([23, 11, 0], '^22.13.0 || >=24')).toBe(false);
    expect(satisfies([26, 0, 0], '^22.13.0 || >=24')).toBe(true);
    expect(satisfies([20, 19, 0], '>=20')).toBe(true);
  });

  it('checkout stand-in copies the prepared tree; job if: false skips the job', async () => {
    const source = tree({ 'analytics/cube.js': 'module.exports = {};\n', 'node_modules/x/index.js': '' });
    const { root, workflowFile } = workflowRepo(`
on: push
jobs:
  main:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: ls analytics node_modules 2>&1 || true
  never:
    if: github.event_name == 'schedule'
    runs-on: ubuntu-latest
    steps:
      - run: echo never
`);
    const workspace = tree({});
    const r = await runJob({ workflowFile, jobId: 'main', repoDir: root, checkoutFrom: source, workspace });
    expect(r.conclusion).toBe('success');
    expect(readFileSync(join(workspace, 'analytics/cube.js'), 'utf8')).toBe('module.exports = {};\n');
    expect(r.log).toContainEqual(expect.stringMatching(/node_modules.*No such file/));
    const skipped = await runJob({ workflowFile, jobId: 'never', repoDir: root });
    expect(skipped).toMatchObject({ conclusion: 'skipped', steps: [] });
  });

  it('fails "Set up job" on an action it cannot run, before any step', async () => {
    const { root, workflowFile } = workflowRepo(`
on: push
jobs:
  main:
    runs-on: ubuntu-latest
    steps:
      - run: echo never
      - uses: someone/else@v1
`);
    const r = await runJob({ workflowFile, jobId: 'main', repoDir: root });
    expect(r.conclusion).toBe('failure');
    expect(r.steps).toEqual([]);
    expect(r.setupError).toMatch(/Unsupported action in the test harness: 'someone\/else@v1'/);
  });

  it('step timeout-minutes and cancellation end the step process group', async () => {
    const { root, workflowFile } = workflowRepo(`
on: push
jobs:
  main:
    runs-on: ubuntu-latest
    steps:
      - id: slow
        timeout-minutes: 0.005
        run: sleep 1000
      - id: after
        if: always()
        run: echo after
  cancel:
    runs-on: ubuntu-latest
    steps:
      - id: slow
        run: sleep 1000
      - id: skipped
        run: echo never
      - id: cleanup
        if: always()
        run: echo cleanup
`);
    const t = await runJob({ workflowFile, jobId: 'main', repoDir: root, cancelGraceMs: 200 });
    expect(t.steps.map((s) => [s.id, s.conclusion, s.timedOut ?? false])).toEqual([
      ['slow', 'failure', true],
      ['after', 'success', false],
    ]);
    const controller = new AbortController();
    const c = await runJob({
      workflowFile,
      jobId: 'cancel',
      repoDir: root,
      signal: controller.signal,
      cancelGraceMs: 200,
      onStepStart: (s) => {
        if (s.id === 'slow') setTimeout(() => controller.abort(), 200);
      },
    });
    expect(c.conclusion).toBe('cancelled');
    expect(c.steps.map((s) => [s.id, s.conclusion])).toEqual([
      ['slow', 'cancelled'],
      ['skipped', 'skipped'],
      ['cleanup', 'success'],
    ]);
    // Both steps sleep far longer than the test may run: that the jobs ended at all is the proof they were ended.
  });

  it('runs jobs concurrently without sharing state (masks, env, temp files)', async () => {
    const { root, workflowFile } = workflowRepo(`
on: push
jobs:
  main:
    runs-on: ubuntu-latest
    steps:
      - id: a
        env:
          KEY: \${{ secrets.KEY }}
        run: |
          echo "WHO=$KEY" >> "$GITHUB_ENV"
          sleep 0.2
          echo "out=$KEY" >> "$GITHUB_OUTPUT"
      - run: echo "key $WHO, run $GITHUB_RUN_ID"
`);
    const [one, two] = await Promise.all(
      ['first-secret', 'second-secret'].map((KEY) => runJob({ workflowFile, jobId: 'main', repoDir: root, secrets: { KEY } })),
    );
    expect(one?.stepOutputs['a']).toEqual({ out: 'first-secret' });
    expect(two?.stepOutputs['a']).toEqual({ out: 'second-secret' });
    expect(one?.log[0]).toMatch(/^key \*\*\*, run \d+$/);
    expect(one?.log[0]).not.toBe(two?.log[0]);
    expect(one?.masks).not.toContain('second-secret');
  });
});
