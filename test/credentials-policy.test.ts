/**
 * Who runs without the platform key, as pure logic: the inputs that decide (`without-credentials`, the
 * deprecated `fail-without-credentials`), and which runs cannot have the repository's secrets (a fork's
 * pull request; a run Dependabot started, read from `github.actor`, else the pull request's author).
 */
import { describe, expect, it } from 'vitest';
import { actionSpec, inputsOf } from '../src/action-spec.js';
import { InputError } from '../src/client/errors.js';
import { ACTION_FLAGS, parseFor } from '../src/commands/spec.js';
import { withoutSecrets } from '../src/commands/without-key.js';
import { readRunContext } from '../src/github/event.js';
import { InputReader, readCredentialsPolicy, sourceOf } from '../src/settings.js';
import { mergeGroupEvent, pullRequestEvent, writeEvent } from './support/payloads.js';

const policy = (env: Record<string, string>, argv: string[] = []) => {
  const { flags } = parseFor({ name: 'validate', flags: ACTION_FLAGS('validate') }, argv);
  return readCredentialsPolicy(new InputReader(sourceOf(flags, env), inputsOf(actionSpec('validate'))));
};

describe('the inputs that decide', () => {
  it('fails by default; skips only when asked', () => {
    expect(policy({})).toEqual({ missing: 'fail', failUntrusted: false });
    expect(policy({ DATAMODEL_CI_WITHOUT_CREDENTIALS: 'skip' })).toEqual({ missing: 'skip', failUntrusted: false });
    expect(() => policy({ DATAMODEL_CI_WITHOUT_CREDENTIALS: 'warn' })).toThrow(InputError);
  });

  it('the deprecated fail-without-credentials, when given, decides with a warning; never when not given', () => {
    const off = policy({ DATAMODEL_CI_FAIL_WITHOUT_CREDENTIALS: 'false', DATAMODEL_CI_WITHOUT_CREDENTIALS: 'fail' });
    expect(off).toMatchObject({ missing: 'skip', failUntrusted: false });
    expect(off.deprecation).toBe('the input fail-without-credentials is deprecated and decides this run (false); write without-credentials: skip instead');
    const on = policy({ DATAMODEL_CI_FAIL_WITHOUT_CREDENTIALS: 'true' });
    expect(on).toMatchObject({ missing: 'fail', failUntrusted: true });
    expect(on.deprecation).toMatch(/^the input fail-without-credentials is deprecated and decides this run \(true\); write without-credentials: fail/);
    // Its action.yml default is empty, so an unset input reads as not given.
    expect(inputsOf(actionSpec('validate')).find((i) => i.name === 'fail-without-credentials')?.default).toBe('');
    expect(() => policy({ DATAMODEL_CI_FAIL_WITHOUT_CREDENTIALS: 'perhaps' })).toThrow('fail-without-credentials: got "perhaps", expected true or false');
  });

  it('the command line keeps the bare --fail-without-credentials switch, and takes --without-credentials skip', () => {
    expect(policy({}, ['--fail-without-credentials'])).toMatchObject({ missing: 'fail', failUntrusted: true });
    expect(policy({}, ['--without-credentials', 'skip'])).toMatchObject({ missing: 'skip', failUntrusted: false });
  });
});

describe('runs that cannot have the secrets', () => {
  const context = (event: Record<string, unknown>, env: Record<string, string> = {}, eventName = 'pull_request') =>
    readRunContext({ GITHUB_EVENT_NAME: eventName, GITHUB_EVENT_PATH: writeEvent(event), GITHUB_REPOSITORY: 'Codertocat/Hello-World', ...env });
  const byDependabot = () => {
    const e = pullRequestEvent('synchronize', { number: 4 });
    ((e.pull_request as Record<string, unknown>).user as Record<string, unknown>).login = 'dependabot[bot]';
    return e;
  };

  it("a fork's pull request, with a key or without (the key is never used on a fork's code)", () => {
    const fork = context(pullRequestEvent('opened', { fork: true }));
    expect(withoutSecrets(fork, false)).toBe('fork');
    expect(withoutSecrets(fork, true)).toBe('fork');
    expect(withoutSecrets(context(pullRequestEvent('opened')), false)).toBeUndefined();
  });

  it("a run Dependabot started: github.actor, else the pull request's author; only without a key (a Dependabot secret runs as any other)", () => {
    const started = context(byDependabot(), { GITHUB_ACTOR: 'dependabot[bot]' });
    expect(started.dependabot).toBe(true);
    expect(withoutSecrets(started, false)).toBe('dependabot');
    expect(withoutSecrets(started, true)).toBeUndefined();
    // No actor known (outside Actions): the author says it.
    expect(context(byDependabot()).dependabot).toBe(true);
    // A maintainer's push to Dependabot's branch runs as the maintainer, with the secrets: a missing key is a misconfiguration then.
    const pushed = context(byDependabot(), { GITHUB_ACTOR: 'octocat' });
    expect(pushed.dependabot).toBe(false);
    expect(withoutSecrets(pushed, false)).toBeUndefined();
    // A push by Dependabot (no pull request in the event).
    expect(context({ ref: 'refs/heads/dependabot/x' }, { GITHUB_ACTOR: 'dependabot[bot]' }, 'push').dependabot).toBe(true);
  });

  it('never a merge queue run: it always has the repository secrets', () => {
    const group = {
      headSha: 'a'.repeat(40),
      headRef: `refs/heads/gh-readonly-queue/main/pr-4-${'b'.repeat(40)}`,
      baseSha: 'c'.repeat(40),
      baseRef: 'refs/heads/main',
    };
    const queue = context(mergeGroupEvent(group), { GITHUB_ACTOR: 'dependabot[bot]' }, 'merge_group');
    expect(withoutSecrets(queue, false)).toBeUndefined();
  });
});
