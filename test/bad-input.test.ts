/**
 * Bad input, table-driven: every case gives an error naming the input, the value and what was
 * expected (or, for a platform refusal, the status, the platform's message and the path), and none
 * leaves a dev-mode session or a half-made branch behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runActionCommand } from '../src/commands/index.js';
import type { Io } from '../src/io.js';
import { runCli } from '../src/main.js';
import { startGitHubStandin, type GitHubStandin } from '../packages/emulator/src/index.js';
import { emulatorFixture, type EmulatorFixture } from './support/emulator.js';
import { cases, goodModel, makeBadInputModels } from './support/bad-input-cases.js';

let fx: EmulatorFixture;
let gh: GitHubStandin;

beforeAll(async () => {
  fx = await emulatorFixture();
  gh = await startGitHubStandin();
  gh.addPull({ number: 5, headSha: 'e'.repeat(40), headRef: 'x' });
  makeBadInputModels();
  fx.em.state.apiKeys.push(
    { id: 'key-expired', key: 'dmci_expired_bad_input_0123', userId: 1, kind: 'api', label: 'expired', expiresAt: fx.em.clock.now() - 1000 },
    { id: 'key-lin', key: 'dmci_lin_bad_input_0123456', userId: 4, kind: 'api', label: 'lin' },
  );
});
afterAll(async () => {
  await fx.close();
  await gh.close();
});

function io(env: NodeJS.ProcessEnv): Io & { stderr: string[] } {
  const stderr: string[] = [];
  return { out: () => undefined, err: (l) => stderr.push(l), env, stderr };
}

function platformSnapshot() {
  const d = fx.em.state.deployments;
  return JSON.stringify({
    branches: d.map((x) => Object.keys(x.branches).sort()),
    sessions: d.map((x) => x.devSessions),
    uploads: d.map((x) => Object.keys(x.uploads).length),
  });
}

describe('bad input', () => {
  it('has at least 40 cases', () => {
    expect(cases().length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases().map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const keys: Record<string, string> = { SCOPED: fx.em.credentials.scoped, MEMBER: fx.em.credentials.member };
    const env: NodeJS.ProcessEnv = {
      DATAMODEL_CI_API_URL: fx.em.baseUrl,
      DATAMODEL_CI_API_KEY: fx.em.credentials.admin,
      DATAMODEL_CI_CA_CERT: `${fx.em.ca}\n${gh.ca}`,
      DATAMODEL_CI_DEPLOYMENT_ID: '1',
      DATAMODEL_CI_GITHUB_TOKEN: 'ghs_bad_input_token_0123',
      DATAMODEL_CI_MODEL_DIR: goodModel,
      DATAMODEL_CI_BRANCH: 'feature-revenue',
      DATAMODEL_CI_REQUEST_TIMEOUT: '10',
      GITHUB_REPOSITORY: gh.repository,
      GITHUB_API_URL: gh.url,
      ...c.env,
    };
    if (env.DATAMODEL_CI_API_KEY && keys[env.DATAMODEL_CI_API_KEY]) env.DATAMODEL_CI_API_KEY = keys[env.DATAMODEL_CI_API_KEY];
    const before = platformSnapshot();
    const t = io(env);
    const code = c.command === 'cli' ? await runCli(c.argv ?? [], t) : await runActionCommand(c.command, [], t);
    const text = t.stderr.join('\n');
    for (const s of c.says) {
      if (typeof s === 'string') expect(text).toContain(s);
      else expect(text).toMatch(s);
    }
    expect(code).toBe(c.code);
    expect(platformSnapshot()).toBe(before);
    expect(text).not.toContain(fx.em.credentials.admin);
  });
});
