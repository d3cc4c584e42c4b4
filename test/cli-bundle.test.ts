/**
 * The CLI as a person or a script meets it: the real bundle (dist/index.js) in a child process against
 * the emulator over HTTPS. stdout holds only the result, --json is one document, a closed pipe ends
 * quietly, switches work bare, every command has its --help, exit codes, and the hints of the errors a
 * person can fix (a wrong key, an untrusted certificate, an unreachable port).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';
import { COMMANDS } from '../src/commands/index.js';
import { emulatorFixture, type EmulatorFixture } from './support/emulator.js';

const BUNDLE = resolve('dist/index.js');
/** The escape character that starts a terminal's control sequences. */
const ESC = String.fromCharCode(27);
let fx: EmulatorFixture;
let caFile: string;

beforeAll(async () => {
  fx = await emulatorFixture({ clock: { scale: 200 } });
  caFile = join(mkdtempSync(join(tmpdir(), 'dmci-cli-ca-')), 'ca.pem');
  writeFileSync(caFile, fx.em.ca);
});
afterAll(() => fx.close());

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** ms after the start at which each stderr chunk arrived. */
  stderrAt: { ms: number; text: string }[];
  ms: number;
}

/** A terminal session's environment: the connection from variables, no GitHub Actions. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    DATAMODEL_CI_API_URL: fx.em.baseUrl,
    DATAMODEL_CI_API_KEY: fx.em.credentials.admin,
    DATAMODEL_CI_CA_CERT: caFile,
    DATAMODEL_CI_DEPLOYMENT_ID: '1',
    ...extra,
  };
}

function cli(args: string[], extra: Record<string, string> = {}): Promise<Run> {
  const started = Date.now();
  const child = spawn(process.execPath, [BUNDLE, ...args], { env: env(extra) });
  let stdout = '';
  const stderrAt: Run['stderrAt'] = [];
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => stderrAt.push({ ms: Date.now() - started, text: d.toString() }));
  return new Promise((done) =>
    child.on('close', (code) => done({ code, stdout, stderr: stderrAt.map((c) => c.text).join(''), stderrAt, ms: Date.now() - started })),
  );
}

/** A model folder with the demo model, one measure type broken when asked. */
function modelDir(broken: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'dmci-cli-model-'));
  const files = broken ? { ...DEMO_MODEL, 'model/cubes/orders.yml': DEMO_MODEL['model/cubes/orders.yml']!.replace('type: sum', 'type: summ') } : DEMO_MODEL;
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
  return dir;
}

/** A port on this machine that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe('stdout carries only the result', () => {
  it('--json: stdout is one document that JSON.parse reads, with every error and every output; the log is on stderr', async () => {
    const dir = modelDir(true);
    const up = await cli(['upload-model', '--branch', 'feature-revenue', '--model-dir', dir, '--json']);
    expect(up.code).toBe(0);
    expect(JSON.parse(up.stdout)).toMatchObject({ command: 'upload-model', exitCode: 0, outputs: { uploaded: '1', branch: 'feature-revenue' }, errors: [] });
    expect(up.stderr).toContain('== Upload 1 file to feature-revenue');

    const r = await cli(['validate', '--branch', 'feature-revenue', '--model-dir', dir, '--json']);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { exitCode: number; outputs: Record<string, string>; errors: { message: string; file?: string; line?: number }[] };
    expect(doc.exitCode).toBe(1);
    expect(doc.outputs).toMatchObject({ valid: 'false', 'error-count': '1', status: 'invalid', branch: 'feature-revenue' });
    // The validation error with its place, then the failure of the step.
    const line = DEMO_MODEL['model/cubes/orders.yml']!.split('\n').findIndex((l) => l.includes('type: sum')) + 1;
    expect(doc.errors[0]).toMatchObject({ file: expect.stringMatching(/model\/cubes\/orders\.yml$/) as string, line });
    expect(doc.errors[0]?.message).toMatch(/"measures\.total_amount\.type" must be one of/);
    expect(doc.errors.at(-1)?.message).toBe('the data model on feature-revenue is invalid: 1 error');
    expect(r.stderr).toContain('error: ');
  });

  it('in human form, stdout holds the outputs as name=value lines and nothing else', async () => {
    const r = await cli(['validate', '--branch', 'main']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual(['skipped=false', 'branch=main', 'valid=true', 'error-count=0', 'status=valid']);
    expect(r.stderr).toContain('main: the data model is valid');
  });

  it('--json of a tool that fails is one document too, with the hint', async () => {
    const r = await cli(['check', '--json'], { DATAMODEL_CI_API_KEY: 'dmci_wrong_key_0123456789' });
    expect(r.code).toBe(3);
    const doc = JSON.parse(r.stdout) as { command: string; exitCode: number; errors: { message: string; hint?: string }[] };
    expect(doc).toMatchObject({ command: 'check', exitCode: 3 });
    expect(doc.errors[0]?.message).toContain('GET /api/v1/deployments -> 401');
    expect(doc.errors[0]?.hint).toContain('the platform refused the API key (401)');
  });

  it('a pipe closed early ends quietly: no EPIPE, no stack trace, the exit code of the command', async () => {
    // The reader is gone before the bundle writes a byte.
    const child = spawn(process.execPath, [BUNDLE, 'endpoints', '--json'], { env: env() });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    // As a shell runs it, with pipefail: `true` exits before the bundle writes.
    const shell = spawnSync(
      'bash',
      ['--norc', '--noprofile', '-o', 'pipefail', '-c', `"${process.execPath}" "${BUNDLE}" endpoints | true; echo "rc=\${PIPESTATUS[0]}"`],
      {
        env: env(),
        encoding: 'utf8',
      },
    );
    expect(shell.stderr).toBe('');
    expect(shell.stdout.trim()).toBe('rc=0');
  });
});

describe('flags and arguments', () => {
  it('switches work bare, as --flag=false, and as --flag true|false', async () => {
    const dir = modelDir(false);
    const bare = await cli(['upload-model', '--branch', 'feature-revenue', '--model-dir', dir, '--dry-run']);
    expect(bare.code).toBe(0);
    expect(bare.stderr).toContain('dry run: would upload');
    const spaced = await cli(['upload-model', '--branch', 'feature-revenue', '--model-dir', dir, '--dry-run', 'true']);
    expect(spaced.stderr).toContain('dry run: would upload');
    const off = await cli(['upload-model', '--branch', 'feature-revenue', '--model-dir', dir, '--dry-run=false']);
    expect(off.code).toBe(0);
    expect(off.stderr).not.toContain('dry run');
    expect(off.stderr).toMatch(/== Upload \d+ files? to feature-revenue/);
    const bad = await cli(['upload-model', '--dry-run=maybe']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--dry-run: got "maybe", expected true or false');
  });

  it('every command refuses an argument it does not take, with exit 2 and nothing sent', async () => {
    const before = JSON.stringify(fx.em.state);
    // One process per command, all at once: each only starts, reads its flags and exits.
    const commands = COMMANDS.filter((x) => !x.args);
    const runs = await Promise.all(commands.map((c) => cli([c.name, 'main'])));
    for (const [i, c] of commands.entries()) {
      const r = runs[i]!;
      expect(r.code, c.name).toBe(2);
      expect(r.stderr, c.name).toContain(`unexpected argument "main": ${c.name} takes only --flags`);
      expect(r.stdout, c.name).toBe('');
    }
    const api = await cli(['api', 'GET', '/api/v1/deployments', 'extra']);
    expect(api.code).toBe(2);
    expect(api.stderr).toContain('unexpected argument "extra" (usage: datamodel-ci api <METHOD> <PATH>)');
    expect(JSON.stringify(fx.em.state)).toBe(before);
  });

  it('every command has its --help: usage, every flag, its default and variable, one example; exit 0', async () => {
    const runs = await Promise.all(COMMANDS.map((c) => cli([c.name, '--help'])));
    for (const [i, c] of COMMANDS.entries()) {
      const r = runs[i]!;
      expect(r.code, c.name).toBe(0);
      expect(r.stdout, c.name).toContain(`Usage: datamodel-ci ${c.name}`);
      for (const f of c.flags) expect(r.stdout, `${c.name} --${f.name}`).toMatch(new RegExp(`^  --${f.name}\\b`, 'm'));
      expect(r.stdout, c.name).toContain(`Example:\n  ${c.example}`);
    }
    const validate = await cli(['help', 'validate']);
    expect(validate.stdout).toMatch(
      /--fail-on-invalid\s+Fail the step when the model is invalid, or the agents\/ folder has an\s+error \(docs\/agents\.md\)\. \[default true;\s+DATAMODEL_CI_FAIL_ON_INVALID\]/,
    );
    const main = await cli(['--help']);
    for (const c of COMMANDS.filter((x) => !x.hidden)) expect(main.stdout).toMatch(new RegExp(`^  ${c.name}\\b`, 'm'));
    expect(main.stdout).toContain('3  the platform is unreachable or refused');
  });
});

describe('exit codes and the errors a person can fix', () => {
  it('0 done, 2 bad input (a missing key in a terminal says why), 1 failed', async () => {
    expect((await cli(['check'])).code).toBe(0);
    const noKey = await cli(['validate', '--branch', 'main'], { DATAMODEL_CI_API_KEY: '' });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('api-key: got nothing, expected an API key');
    expect(noKey.stderr).toContain('In GitHub Actions a missing key fails the step too, unless without-credentials: skip');
    expect((await cli(['check', '--nope'])).code).toBe(2);
    expect((await cli(['frobnicate'])).code).toBe(2);
    const missing = await cli(['api', 'GET', '/api/v1/deployments/99']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('-> 404');
  });

  it('a wrong key: exit 3, and the hint says where keys are made and which permissions they need', async () => {
    const r = await cli(['validate', '--branch', 'main'], { DATAMODEL_CI_API_KEY: 'dmci_wrong_key_0123456789' });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('-> 401: invalid credential');
    expect(r.stderr).toContain('hint: the platform refused the API key (401)');
    expect(r.stderr).toContain('Admin → API Keys (docs/cli.md#the-api-key-and-the-deployment-id)');
    expect(r.stderr + r.stdout).not.toContain('dmci_wrong_key_0123456789');
  });

  it('a key scoped to another deployment: exit 3, and the hint names the scope', async () => {
    const r = await cli(['validate', '--branch', 'main', '--deployment-id', '2'], { DATAMODEL_CI_API_KEY: fx.em.credentials.scoped });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('hint: the key may not act on deployment 2: its deployment scope (Admin → API Keys) must include 2');
  });

  it('a certificate the machine does not trust: exit 3, and the hint names --ca-cert and NODE_EXTRA_CA_CERTS', async () => {
    const r = await cli(['check'], { DATAMODEL_CI_CA_CERT: '' });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('connection failed');
    expect(r.stderr).toContain('does not trust the TLS certificate');
    expect(r.stderr).toContain('--ca-cert FILE (DATAMODEL_CI_CA_CERT) or NODE_EXTRA_CA_CERTS=FILE');
    // The hint works: the same CA through NODE_EXTRA_CA_CERTS.
    expect((await cli(['check'], { DATAMODEL_CI_CA_CERT: '', NODE_EXTRA_CA_CERTS: caFile })).code).toBe(0);
  });

  it('an unreachable port: said after the first failed attempt with the retries left, then exit 3 with the hint', async () => {
    const port = await closedPort();
    const r = await cli(['validate', '--branch', 'main'], { DATAMODEL_CI_API_URL: `https://127.0.0.1:${port}` });
    expect(r.code).toBe(3);
    const warning = r.stderrAt.find((c) => c.text.includes('warning: cannot reach'));
    expect(warning?.text).toContain(`warning: cannot reach 127.0.0.1:${port} (ECONNREFUSED) for GET /api/v1/deployments/1/settings: retrying for up to `);
    expect(warning?.text).toMatch(/retrying for up to \d+ s \(Ctrl-C stops\)/);
    // Said while the retries still run, not with the final error.
    expect(r.ms - warning!.ms).toBeGreaterThan(500);
    expect(r.stderr.indexOf('warning: cannot reach')).toBeLessThan(r.stderr.indexOf('connection failed'));
    expect(r.stderr).toContain(`hint: could not reach 127.0.0.1:${port}: check --api-url (host and port)`);
  });
});

describe('progress', () => {
  it('stays out of a pipe: no carriage return, no escape code on stderr', async () => {
    const r = await cli(['upload-model', '--branch', 'feature-revenue', '--model-dir', modelDir(true)]);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('\r');
    expect(r.stderr).not.toContain(ESC);
  });

  it('in a terminal, redraws one line with the files and bytes of an upload (script(1) gives it a terminal)', async () => {
    const dir = modelDir(false);
    for (let i = 0; i < 60; i++) writeFileSync(join(dir, 'model', `extra_${i}.yml`), `# ${'x'.repeat(2000)}\n`);
    const command = [process.execPath, BUNDLE, 'upload-model', '--branch', 'feature-revenue', '--model-dir', dir].map((a) => `'${a}'`).join(' ');
    // Asynchronously: the emulator answers from this process.
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: { ...env(), COLUMNS: '200', SHELL: '/bin/sh' } });
    const r = { stdout: '', status: null as number | null };
    child.stdout.on('data', (d: Buffer) => (r.stdout += d.toString()));
    r.status = await new Promise((done) => child.on('close', done));
    expect(r.status, r.stdout).toBe(0);
    // At least the 60 new files of 2 kB.
    expect(r.stdout).toMatch(new RegExp(`\\r${ESC}\\[2Kupload to feature-revenue \\(\\d+ s\\): 0/(6\\d) files, 0 B of 1\\d\\d\\.\\d kB`));
    // The line is erased before the next log line; the result follows on stdout.
    expect(r.stdout.split(`${ESC}[2K`).at(-1)).toMatch(/^feature-revenue: 6\d sent, \d+ deleted, \d+ unchanged\r?\n[\s\S]*status=uploaded/);
  });
});

describe('start-up: each command loads only its own part of the bundle', () => {
  const DIST = dirname(BUNDLE);
  const RECORDER = resolve('test/support/record-loads.mjs');
  /** The files of dist/ a command line loads (its exit code does not matter here). */
  const loads = (args: string[]) => {
    const r = spawnSync(process.execPath, ['--import', RECORDER, BUNDLE, ...args], { env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8' });
    const line = r.stderr.split('\n').find((l) => l.startsWith('LOADED '));
    expect(line, r.stderr).toBeDefined();
    return JSON.parse(line!.slice('LOADED '.length)) as string[];
  };
  const bytes = (files: string[]) => files.reduce((sum, f) => sum + statSync(join(DIST, f)).size, 0);
  const every = readdirSync(DIST).filter((f) => f.endsWith('.js'));
  /** The parts whose code holds `text` (a string only that code has). */
  const holding = (text: string) => every.filter((f) => readFileSync(join(DIST, f), 'utf8').includes(text));

  it('--version and --help load the command table only: under a tenth of the bundle, no command code', () => {
    const version = loads(['--version']);
    expect(loads(['--help'])).toEqual(version);
    expect(bytes(version)).toBeLessThan(bytes(every) / 10);
    // The platform contract, the PR comment and the doctor are each in a part the start-up never loads.
    for (const marker of ['getDeploymentSettings', ':ledger ', 'datamodel_ci_doctor_a']) {
      expect(holding(marker).length, marker).toBeGreaterThan(0);
      for (const f of holding(marker)) expect(version, `${marker} in ${f}`).not.toContain(f);
    }
  });

  it("a command loads its own code and what it uses, not another command's", () => {
    const hash = loads(['hash-model', 'examples']);
    const check = loads(['check']);
    const validate = loads(['validate']);
    for (const f of holding('getDeploymentSettings')) expect(hash).not.toContain(f);
    for (const f of holding(':ledger ')) expect(check).not.toContain(f);
    for (const f of holding('datamodel_ci_doctor_a')) expect(validate).not.toContain(f);
    expect(validate.length).toBeGreaterThan(check.length);
  });
});
