/**
 * The doctor's agents-folder check against the emulator: the deployment's own CUBE_CLOUD_AGENTS_CONFIG_*
 * variables beside `agents-folder` (off, the default folder, a moved folder with the input right and
 * wrong, a setting outside the project), a platform that masks every value (profile
 * `env-vars-all-masked`) is "not checked", and the input's own bad values refused before any call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProfileName } from '../packages/emulator/src/profiles.js';
import { normalAgentsFolder } from '../src/agents-input.js';
import type { Io } from '../src/io.js';
import { runCli } from '../src/main.js';
import type { OpContext } from '../src/operations/context.js';
import type { Check } from '../src/operations/doctor.js';
import { agentsFolderCheck } from '../src/operations/doctor-agents.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { control, emulatorFixture, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
const SLOW = 120_000;
const ctx = (): OpContext => ({ client: fx.admin, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false, ca: fx.em.ca });

/** The deployment's variables as the test sets them (through the platform's own PUT), the others removed. */
function setVariables(vars: Record<string, string>): void {
  const d = fx.em.state.deployments[0]!;
  d.envVars = d.envVars.filter((v) => !v.name.startsWith('CUBE_CLOUD_AGENTS_'));
  for (const [name, value] of Object.entries(vars)) d.envVars.push({ name, value });
}

async function check(vars: Record<string, string>, folder: string, profiles: ProfileName[] = []): Promise<Check> {
  setVariables(vars);
  await control(fx.em, 'profiles', { profiles });
  try {
    const checks: Check[] = [];
    await agentsFolderCheck(ctx(), (name, state, seen, action) => checks.push({ name, state, seen, action }), folder);
    expect(checks).toHaveLength(1);
    return checks[0]!;
  } finally {
    await control(fx.em, 'profiles', { profiles: [] });
  }
}

beforeAll(async () => {
  fx = await emulatorFixture({ continueWaitPolls: 0 });
}, SLOW);
afterAll(() => fx.close());

describe('doctor: the agents folder the deployment loads, beside agents-folder', () => {
  it('YAML agent configuration off: said, and the folder is checked all the same', async () => {
    const c = await check({}, 'agents');
    expect(c.state).toBe('ok');
    expect(c.seen).toContain('YAML agent configuration is off on this deployment (CUBE_CLOUD_AGENTS_CONFIG_ENABLED is not set)');
    const off = await check({ CUBE_CLOUD_AGENTS_CONFIG_ENABLED: 'false' }, 'agents');
    expect(off.seen).toContain('CUBE_CLOUD_AGENTS_CONFIG_ENABLED is "false"');
  });

  it('enabled with the default folder: agents/ matches the default input', async () => {
    const c = await check({ CUBE_CLOUD_AGENTS_CONFIG_ENABLED: 'true' }, 'agents');
    expect(c).toMatchObject({ state: 'ok', seen: 'the deployment loads its agents from agents/ (CUBE_CLOUD_AGENTS_CONFIG_PATH not set, so agents/)' });
  });

  it('a moved folder: a failure naming what to set while the input is the default, ok once it is set', async () => {
    const vars = { CUBE_CLOUD_AGENTS_CONFIG_ENABLED: 'TRUE', CUBE_CLOUD_AGENTS_CONFIG_PATH: './ai/agents/' };
    const wrong = await check(vars, 'agents');
    expect(wrong.state).toBe('failed');
    expect(wrong.seen).toBe('the deployment loads its agents from ai/agents/ (CUBE_CLOUD_AGENTS_CONFIG_PATH="./ai/agents/"), but agents-folder is agents');
    expect(wrong.action).toContain('set agents-folder: ai/agents');
    const right = await check(vars, 'ai/agents');
    expect(right.state).toBe('ok');
  });

  it("a setting outside the project is the deployment's own mistake", async () => {
    const c = await check({ CUBE_CLOUD_AGENTS_CONFIG_ENABLED: 'true', CUBE_CLOUD_AGENTS_CONFIG_PATH: '../agents' }, 'agents');
    expect(c.state).toBe('failed');
    expect(c.seen).toContain('is not a folder inside the project');
  });

  it('a platform that masks every value (env-vars-all-masked): not checked, never a guess', async () => {
    const c = await check({ CUBE_CLOUD_AGENTS_CONFIG_ENABLED: 'true', CUBE_CLOUD_AGENTS_CONFIG_PATH: 'ai/agents' }, 'agents', ['env-vars-all-masked']);
    expect(c.state).toBe('not checked');
    expect(c.seen).toContain('the platform masks CUBE_CLOUD_AGENTS_CONFIG_ENABLED');
  });

  it('only secret-named values are masked by default (the vendor file says which)', async () => {
    setVariables({ CUBE_CLOUD_AGENTS_CONFIG_PATH: 'x', CUBE_CLOUD_AGENTS_SECRET_TOKEN: 'hidden' });
    const seen = new Map<string, string>();
    for await (const v of fx.admin.deployments.iterateEnvVars({ deploymentId: 1 })) seen.set(v.name, v.value);
    expect(seen.get('CUBE_CLOUD_AGENTS_CONFIG_PATH')).toBe('x');
    expect(seen.get('CUBE_CLOUD_AGENTS_SECRET_TOKEN')).toBe('[ENCRYPTED]');
  });

  it('the CLI: --agents-folder reaches the check, and a bad value is refused before any call', async () => {
    setVariables({ CUBE_CLOUD_AGENTS_CONFIG_ENABLED: 'true', CUBE_CLOUD_AGENTS_CONFIG_PATH: 'ai/agents' });
    const run = async (args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const env = { DATAMODEL_CI_API_URL: fx.em.baseUrl, DATAMODEL_CI_API_KEY: fx.em.credentials.admin, DATAMODEL_CI_CA_CERT: fx.em.ca };
      const io: Io = { out: (l) => out.push(l), err: (l) => err.push(l), env };
      const code = await runCli(['doctor', '--deployment-id', '1', '--dry-run', ...args], io);
      return { code, out: out.join('\n'), err: err.join('\n') };
    };
    const wrong = await run([]);
    expect(wrong.code).toBe(1);
    expect(wrong.out).toContain('✗ agents folder: the deployment loads its agents from ai/agents/');
    const right = await run(['--agents-folder', 'ai/agents']);
    expect(right.code).toBe(0);
    expect(right.out).toContain('✓ agents folder: the deployment loads its agents from ai/agents/');
    const calls = JSON.stringify(fx.em.counts);
    const bad = await run(['--agents-folder', '../agents']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('agents-folder');
    expect(bad.err).toContain('"../agents"');
    expect(JSON.stringify(fx.em.counts)).toBe(calls);
  });
});

describe('agents-folder: the folder as the check compares it', () => {
  it.each([
    ['agents', 'agents'],
    ['./agents/', 'agents'],
    ['ai\\agents', 'ai/agents'],
    ['ai//agents/.', 'ai/agents'],
  ])('%s is %s', (given, folder) => expect(normalAgentsFolder(given)).toBe(folder));

  it.each(['/agents', '../agents', 'ai/../../x', '.', '', 'C:', 'agents/*'])('%s is refused', (given) => expect(normalAgentsFolder(given)).toBeUndefined());
});
