/**
 * The runner harness (test/harness) on small fixture actions and workflows written to temp dirs, then once
 * on the project's real actions/validate (the committed dist/).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SecretMasker, parseEnvFile, parseWorkflowCommand } from './harness/commands.js';
import { evaluateCondition, evaluateTemplate, evaluateTemplateValue, parseTemplate } from './harness/expressions.js';
import { runAction, runJob } from './harness/runner.js';
import { pullRequestEvent } from './support/payloads.js';

const REPO = resolve(import.meta.dirname, '..');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A temp dir holding the given files (path → text). */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'harness-fixture-'));
  dirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** A fixture repository with one workflow; returns its paths. */
function workflowRepo(workflow: string, files: Record<string, string> = {}) {
  const root = tree({ 'wf.yml': workflow, ...files });
  return { root, workflowFile: join(root, 'wf.yml') };
}

describe('expressions', () => {
  const contexts = {
    github: { event_name: 'pull_request', event: { pull_request: { number: 7, draft: false, labels: [{ name: 'a' }, { name: 'b' }] } } },
    env: { NAME: 'x' },
    inputs: { 'dry-run': 'true', count: '3' },
    steps: { s1: { outputs: { branch: 'preview-pr-7' }, outcome: 'success', conclusion: 'success' } },
  };

  it('reads contexts (case-insensitively, dashes in names) and mixes literal text', () => {
    expect(evaluateTemplate('pr ${{ github.event.pull_request.number }} on ${{ steps.s1.outputs.branch }}', contexts)).toBe('pr 7 on preview-pr-7');
    expect(evaluateTemplate('${{ INPUTS.dry-run }}', contexts)).toBe('true');
    expect(evaluateTemplate('${{ inputs.missing }}', contexts)).toBe('');
    expect(evaluateTemplate('no expression', contexts)).toBe('no expression');
    // `}}` inside a string literal does not close the expression.
    expect(evaluateTemplate("${{ format('{0}}}', 'a') }}", contexts)).toBe('a}');
  });

  it('calls the built-in functions', () => {
    expect(evaluateTemplate("${{ format('{0}-{1}', env.NAME, inputs.count) }}", contexts)).toBe('x-3');
    expect(evaluateTemplate("${{ contains(github.event.pull_request.labels.*.name, 'b') }}", contexts)).toBe('true');
    expect(evaluateTemplate("${{ startsWith(steps.s1.outputs.branch, 'PREVIEW') }}", contexts)).toBe('true');
    expect(evaluateTemplate("${{ join(github.event.pull_request.labels.*.name, ',') }}", contexts)).toBe('a,b');
    expect(evaluateTemplate("${{ fromJSON('{\"a\":[1,2]}').a[1] }}", contexts)).toBe('2');
    expect(JSON.parse(evaluateTemplate('${{ toJSON(inputs) }}', contexts))).toEqual(contexts.inputs);
    expect(evaluateTemplateValue('${{ inputs.count == 3 }}', contexts)).toBe(true);
  });

  it('fails clearly: unknown context, unclosed template, object value, hashFiles', () => {
    expect(() => evaluateTemplate('${{ secrets.X }}', contexts)).toThrow(/Unrecognized named-value: 'secrets'/);
    expect(() => evaluateTemplate('${{ github.x', contexts)).toThrow(/not closed/);
    expect(() => evaluateTemplate('${{ github.event }}', contexts)).toThrow(/mapping was not expected/);
    expect(evaluateTemplate('is ${{ github.event }}', contexts)).toBe('is Object');
    expect(() => evaluateTemplate("${{ hashFiles('**/x') }}", contexts)).toThrow(/hashFiles\(\) is not supported/);
    expect(parseTemplate('a${{ b }}c')).toEqual([{ literal: 'a' }, { expression: 'b' }, { literal: 'c' }]);
  });

  it('evaluates if: conditions with an implicit success()', () => {
    expect(evaluateCondition("github.event_name == 'pull_request'", contexts)).toBe(true);
    expect(evaluateCondition("${{ github.event_name == 'push' }}", contexts)).toBe(false);
    expect(evaluateCondition('${{ !github.event.pull_request.draft }}', contexts)).toBe(true);
    expect(evaluateCondition(undefined, contexts)).toBe(true);
    expect(evaluateCondition(undefined, contexts, { status: 'failure' })).toBe(false);
    expect(evaluateCondition('true', contexts, { status: 'failure' })).toBe(false);
    expect(evaluateCondition('always()', contexts, { status: 'failure' })).toBe(true);
    expect(evaluateCondition('failure()', contexts, { status: 'failure' })).toBe(true);
    expect(evaluateCondition('failure()', contexts)).toBe(false);
    expect(evaluateCondition('cancelled()', contexts, { status: 'cancelled' })).toBe(true);
    expect(evaluateCondition(false, contexts)).toBe(false);
    // The runner's trap: literal text around ${{ }} makes a non-empty string, hence true.
    expect(evaluateCondition("${{ github.event_name == 'push' }} && true", contexts)).toBe(true);
  });
});

describe('workflow commands, environment files, masking', () => {
  it('parses commands with escaped properties and data', () => {
    expect(parseWorkflowCommand('::error file=a.yml,line=3,title=T%3A x%2C y::boom%0Anext %25')).toEqual({
      command: 'error',
      properties: { file: 'a.yml', line: '3', title: 'T: x, y' },
      data: 'boom\nnext %',
    });
    expect(parseWorkflowCommand('  ::NOTICE::hi')?.command).toBe('notice');
    expect(parseWorkflowCommand('::unknown::x')).toBeUndefined();
    expect(parseWorkflowCommand('plain ::error::x')).toBeUndefined();
  });

  it('parses GITHUB_OUTPUT in k=v and heredoc forms, and rejects a missing delimiter', () => {
    expect(parseEnvFile('a=1=2\n\nb<<EOF\nline 1\nline 2\nEOF\nc<<X\nX\nd=\n')).toEqual([
      ['a', '1=2'],
      ['b', 'line 1\nline 2'],
      ['c', ''],
      ['d', ''],
    ]);
    expect(() => parseEnvFile('b<<EOF\nno end\n')).toThrow(/Matching delimiter not found 'EOF'/);
    expect(() => parseEnvFile('nonsense\n')).toThrow(/Invalid format/);
  });

  it('masks a secret and its encodings', () => {
    const m = new SecretMasker();
    m.add('s3cr3t"x');
    expect(m.mask('a s3cr3t"x b')).toBe('a *** b');
    expect(m.mask(JSON.stringify({ k: 's3cr3t"x' }))).toBe('{"k":"***"}');
    expect(m.mask(Buffer.from('s3cr3t"x').toString('base64'))).toContain('***');
  });
});

describe('runAction (composite)', () => {
  it('maps inputs through env:, applies defaults (github.token), sets the runner variables, and masks the token', async () => {
    const action = tree({
      'action.yml': `
name: fixture
inputs:
  x: { description: x, required: true }
  token: { description: t, default: '\${{ github.token }}' }
outputs:
  seen: { description: s, value: '\${{ steps.run.outputs.seen }}' }
runs:
  using: composite
  steps:
    - id: run
      shell: bash
      env:
        FIXTURE_X: \${{ inputs.x }}
        FIXTURE_TOKEN: \${{ inputs.token }}
      run: |
        echo "seen=$FIXTURE_X" >> "$GITHUB_OUTPUT"
        echo "token=$FIXTURE_TOKEN"
        echo "path=$GITHUB_ACTION_PATH ws=$GITHUB_WORKSPACE pwd=$(pwd) ci=$CI os=$RUNNER_OS actions=$GITHUB_ACTIONS"
        echo "event=$GITHUB_EVENT_NAME number=$(node -p 'require(process.env.GITHUB_EVENT_PATH).number')"
        echo "repo=$GITHUB_REPOSITORY run=$GITHUB_RUN_ID/$GITHUB_RUN_ATTEMPT api=$GITHUB_API_URL"
        echo "no INPUT_ variables: $(env | grep -c '^INPUT_' || true)"
`,
    });
    const workspace = tree({});
    const r = await runAction({
      actionDir: action,
      inputs: { x: 'hello world', bogus: '1' },
      workspace,
      eventName: 'pull_request',
      event: { number: 7 },
      github: { repository: 'acme/models', api_url: 'http://127.0.0.1:1' },
    });
    expect(r.exitCode).toBe(0);
    expect(r.outputs).toEqual({ seen: 'hello world' });
    expect(r.inputs.token).toMatch(/^ghs_/);
    expect(r.log).toContain('token=***');
    expect(r.log).toContain(`path=${action} ws=${workspace} pwd=${workspace} ci=true os=Linux actions=true`);
    expect(r.log).toContain('event=pull_request number=7');
    expect(r.log).toContainEqual(expect.stringMatching(/^repo=acme\/models run=\d+\/1 api=http:\/\/127\.0\.0\.1:1$/));
    expect(r.log).toContain('no INPUT_ variables: 0');
    expect(r.annotations).toContainEqual(
      expect.objectContaining({ level: 'warning', message: "Unexpected input(s) 'bogus', valid inputs are ['x', 'token']" }),
    );
  });

  it('parses a heredoc GITHUB_OUTPUT, GITHUB_ENV for later steps, step summaries, and ::error with file and line', async () => {
    const action = tree({
      'action.yml': `
name: fixture
outputs:
  multi: { description: m, value: '\${{ steps.a.outputs.multi }}' }
  later: { description: l, value: '\${{ steps.b.outputs.later }}' }
runs:
  using: composite
  steps:
    - id: a
      shell: bash
      run: |
        { echo "multi<<GHADELIM"; echo "line 1"; echo "line 2"; echo "GHADELIM"; } >> "$GITHUB_OUTPUT"
        echo "FROM_A=set by a" >> "$GITHUB_ENV"
        echo "## summary a" >> "$GITHUB_STEP_SUMMARY"
        echo "::error file=a.yml,line=3::boom"
        echo "::warning title=Careful::watch out"
        echo "::group::details"
        echo "inside"
        echo "::endgroup::"
        echo "::debug::quiet"
    - id: b
      shell: bash
      env:
        SEEN: \${{ env.FROM_A }}
      run: echo "later=$FROM_A / $SEEN" >> "$GITHUB_OUTPUT"
`,
    });
    const r = await runAction({ actionDir: action });
    expect(r.exitCode).toBe(0);
    expect(r.outputs).toEqual({ multi: 'line 1\nline 2', later: 'set by a / set by a' });
    expect(r.envChanges).toEqual({ FROM_A: 'set by a' });
    expect(r.summary).toBe('## summary a\n');
    expect(r.annotations).toEqual([
      { level: 'error', message: 'boom', file: 'a.yml', line: 3, step: 'a' },
      { level: 'warning', message: 'watch out', title: 'Careful', step: 'a' },
    ]);
    expect(r.log).toEqual(['##[error]boom', '##[warning]watch out', '##[group]details', 'inside', '##[endgroup]']);
    expect(r.debug).toEqual(['quiet']);
  });

  it('masks an ::add-mask:: value in every later line (not earlier ones), in summaries and annotations', async () => {
    const action = tree({
      'action.yml': `
name: fixture
runs:
  using: composite
  steps:
    - shell: bash
      run: |
        echo "early: minted-abc123"
        echo "::add-mask::minted-abc123"
        echo "late: minted-abc123"
        echo "::error::failed with minted-abc123"
        echo "summary minted-abc123" >> "$GITHUB_STEP_SUMMARY"
    - shell: bash
      run: echo "next step minted-abc123"
`,
    });
    const r = await runAction({ actionDir: action });
    expect(r.log).toEqual(['early: minted-abc123', 'late: ***', '##[error]failed with ***', 'next step ***']);
    expect(r.annotations[0]?.message).toBe('failed with ***');
    expect(r.summary).toBe('summary ***\n');
    expect(r.masks).toContain('minted-abc123');
  });

  it('handles ::stop-commands::, the deprecated ::set-output, and disabled ::set-env', async () => {
    const action = tree({
      'action.yml': `
name: fixture
outputs:
  old: { description: o, value: '\${{ steps.a.outputs.old }}' }
runs:
  using: composite
  steps:
    - id: a
      shell: bash
      run: |
        echo "::set-output name=old::value"
        echo "::stop-commands::pause-token"
        echo "::error::not a command now"
        echo "::pause-token::"
        echo "::notice::a command again"
    - id: b
      shell: bash
      run: echo "::set-env name=X::y"
`,
    });
    const r = await runAction({ actionDir: action });
    expect(r.outputs).toEqual({ old: 'value' });
    expect(r.log).toContain('::error::not a command now');
    expect(r.annotations.map((a) => [a.level, a.message.slice(0, 40)])).toEqual([
      ['warning', 'The `set-output` command is deprecated a'],
      ['notice', 'a command again'],
      ['error', "Unable to process command '::set-env nam"],
      ['error', 'The `set-env` command is disabled. Pleas'],
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.steps.map((s) => s.outcome)).toEqual(['success', 'failure']);
  });

  it('evaluates ${{ }} inside run: as GitHub does: an input interpolated into the script is executed', async () => {
    // This is script injection, and why our action.yml files never put ${{ }} in run: (they pass inputs
    // through env: and quote "$VAR"). The harness must behave like GitHub to show the difference.
    const action = tree({
      'action.yml': `
name: bad
inputs:
  x: { description: x }
runs:
  using: composite
  steps:
    - shell: bash
      run: |
        echo "interpolated: \${{ inputs.x }}"
    - shell: bash
      env:
        X: \${{ inputs.x }}
      run: |
        echo "through env: $X"
`,
    });
    const r = await runAction({ actionDir: action, inputs: { x: '$(echo pwned)' } });
    expect(r.steps[0]?.script).toBe('echo "interpolated: $(echo pwned)"\n');
    expect(r.log).toEqual(['interpolated: pwned', 'through env: $(echo pwned)']);
  });

  it('requires shell: on composite run steps and stops at the first failing step', async () => {
    const action = tree({
      'action.yml': `
name: fixture
runs:
  using: composite
  steps:
    - id: one
      shell: bash
      run: exit 3
    - id: two
      shell: bash
      run: echo never
    - id: three
      if: always()
      run: echo no shell
`,
    });
    const r = await runAction({ actionDir: action });
    expect(r.exitCode).toBe(3);
    expect(r.steps.map((s) => [s.id, s.outcome])).toEqual([
      ['one', 'failure'],
      ['two', 'skipped'],
      ['three', 'failure'],
    ]);
    expect(r.annotations.map((a) => a.message)).toEqual(['Process completed with exit code 3.', 'Required property is missing: shell']);
  });
});

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
        run: sleep 20
      - id: after
        if: always()
        run: echo after
  cancel:
    runs-on: ubuntu-latest
    steps:
      - id: slow
        run: sleep 20
      - id: skipped
        run: echo never
      - id: cleanup
        if: always()
        run: echo cleanup
`);
    const started = Date.now();
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
    expect(Date.now() - started).toBeLessThan(10_000);
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

describe('the real actions/validate (committed dist/)', () => {
  it('skips with a notice and skipped=true when api-key is missing', async () => {
    const r = await runAction({
      actionDir: join(REPO, 'actions', 'validate'),
      inputs: { 'api-url': 'https://tenant.example.com', 'deployment-id': '1' },
      eventName: 'pull_request',
      event: pullRequestEvent('opened', { number: 7 }),
      // No network here: nothing may be reached.
      github: { api_url: 'http://127.0.0.1:9' },
    });
    expect(r.exitCode).toBe(0);
    expect(r.outputs.skipped).toBe('true');
    expect(r.annotations).toContainEqual(expect.objectContaining({ level: 'notice', message: expect.stringMatching(/no api-key/) }));
    expect(r.annotations.filter((a) => a.level === 'error')).toEqual([]);
  });
});
