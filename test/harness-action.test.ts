/**
 * The runner harness's runAction (test/harness/runner.ts) on small fixture actions written to temp dirs,
 * then once on the project's real actions/validate (the committed dist/).
 */
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runAction } from './harness/runner.js';
import { removeTrees, tree } from './support/fixture-tree.js';
import { pullRequestEvent } from './support/payloads.js';

const REPO = resolve(import.meta.dirname, '..');
afterAll(removeTrees);

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

describe('the real actions/validate (committed dist/)', () => {
  it('fails when api-key is missing, naming the input and the secret; skips with a notice and skipped=true only with without-credentials: skip', async () => {
    const run = (inputs: Record<string, string>) =>
      runAction({
        actionDir: join(REPO, 'actions', 'validate'),
        inputs: { 'api-url': 'https://tenant.example.com', 'deployment-id': '1', ...inputs },
        eventName: 'pull_request',
        event: pullRequestEvent('opened', { number: 7 }),
        // No platform here: nothing may be reached (the check's write finds no GitHub and says so).
        github: { api_url: 'http://127.0.0.1:9' },
      });
    const failed = await run({});
    expect(failed.exitCode).toBe(1);
    expect(failed.outputs.skipped).toBe('');
    // It tried to write the failure check (no GitHub here: it says so and fails anyway).
    expect(failed.annotations).toContainEqual(
      expect.objectContaining({ level: 'warning', message: expect.stringContaining('could not publish the "datamodel-ci / validation" check') }),
    );
    expect(failed.annotations).toContainEqual(
      expect.objectContaining({
        level: 'error',
        message: expect.stringMatching(/^validate: api-key: got nothing, expected an API key: the input api-key is empty .*PLATFORM_API_KEY/),
      }),
    );
    const skipped = await run({ 'without-credentials': 'skip' });
    expect(skipped.exitCode).toBe(0);
    expect(skipped.outputs.skipped).toBe('true');
    expect(skipped.annotations).toContainEqual(
      expect.objectContaining({
        level: 'notice',
        message: expect.stringMatching(/without-credentials is skip\. No "datamodel-ci \/ validation" check was written/),
      }),
    );
    expect(skipped.annotations.filter((a) => a.level === 'error')).toEqual([]);
  });
});
