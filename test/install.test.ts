/**
 * The two packages a user installs, as npm would publish them: the CLI (`datamodel-ci`, the committed
 * bundle) and the emulator (`datamodel-ci-emulator`, bundled by its prepack). Both are packed, installed
 * from the tarballs into an empty folder outside the checkout (dependencies from the npm cache or the
 * registry), and run from there: the CLI's version, the emulator's help, and one validate of a small
 * model against the installed emulator, whose Cube compiler finds the model's error.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve('.');
const run = promisify(execFile);
/** The running Node first on PATH: npm, npx and the bins run on the version under test. */
const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`, npm_config_update_notifier: 'false' };
const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

const work = mkdtempSync(join(tmpdir(), 'dmci-install-'));
const app = join(work, 'app');
let emulator: ChildProcess | undefined;
const packed: Record<string, string[]> = {};
let installLog = '';

async function pack(args: string[]): Promise<string> {
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work, ...args], { cwd: ROOT, env, maxBuffer: 16 << 20 });
  const [info] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  packed[info!.filename] = info!.files.map((f) => f.path).sort();
  return join(work, info!.filename);
}

const npx = (args: string[], extra: Record<string, string> = {}) =>
  run('npx', ['--no', '--', ...args], { cwd: app, env: { ...env, ...extra } }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );

beforeAll(async () => {
  const cli = await pack([]);
  // The repository's .npmrc skips install scripts (server-core's would download a binary): the emulator's prepack builds it.
  const emu = await pack(['--workspace', 'packages/emulator', '--ignore-scripts=false']);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{ "name": "a-data-team", "private": true }\n');
  const r = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', cli, emu], { cwd: app, env, maxBuffer: 16 << 20 });
  installLog = `${r.stdout}\n${r.stderr}`;
}, 300_000);

afterAll(() => {
  if (emulator?.pid) emulator.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
});

describe('packed', () => {
  it('the CLI: the bundle, its licences and the readme; no sources, tests or tools', () => {
    const files = packed[`datamodel-ci-${version}.tgz`]!;
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'dist/index.js', 'dist/licenses.txt', 'dist/package.json', 'package.json']));
    expect(files.filter((f) => !f.startsWith('dist/') && !['LICENSE', 'README.md', 'package.json'].includes(f))).toEqual([]);
  });

  it('the emulator: its bin, its bundle and the licences of what is bundled; no TypeScript', () => {
    const files = packed[`datamodel-ci-emulator-${version}.tgz`]!;
    expect(files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'bin/datamodel-ci-emulator.mjs',
        'dist/compiler-api.cjs',
        'dist/index.js',
        'dist/licenses.txt',
        'package.json',
      ]),
    );
    expect(files.filter((f) => f.endsWith('.ts'))).toEqual([]);
  });

  it('installs on this Node.js without an engine warning', () => {
    expect(installLog).not.toMatch(/EBADENGINE/);
  });
});

describe('installed in an empty folder', () => {
  it('npx datamodel-ci --version', async () => {
    const r = await npx(['datamodel-ci', '--version']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toContain(version);
  });

  it("the emulator carries Cube's CompilerApi bundled: server-core is not installed, the bundle loads", async () => {
    expect(existsSync(join(app, 'node_modules/@cubejs-backend/server-core'))).toBe(false);
    const bundle = join(app, 'node_modules/datamodel-ci-emulator/dist/compiler-api.cjs');
    const r = await run(process.execPath, ['-e', `console.log(typeof require(${JSON.stringify(bundle)}).CompilerApi)`], { cwd: app, env });
    expect(r.stdout.trim()).toBe('function');
  });

  it('npx datamodel-ci-emulator --help', async () => {
    const r = await npx(['datamodel-ci-emulator', '--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Usage: datamodel-ci-emulator');
  });

  it('validates a small model against the installed emulator: the compiler names the error, file and line', async () => {
    emulator = spawn(process.execPath, [join(app, 'node_modules/datamodel-ci-emulator/bin/datamodel-ci-emulator.mjs'), '--seed', 'demo'], { cwd: app, env });
    const first = await new Promise<string>((ok, fail) => {
      createInterface({ input: emulator!.stdout! }).once('line', ok);
      emulator!.once('exit', (code) => fail(new Error(`the emulator exited with ${code}`)));
    });
    const info = JSON.parse(first) as { baseUrl: string; caFile: string; credentials: { admin: string } };
    const model = join(app, 'analytics', 'model', 'cubes');
    mkdirSync(model, { recursive: true });
    const cube = 'cubes:\n  - name: orders\n    sql_table: public.orders\n    measures:\n      - name: total\n        sql: amount\n        type: summ\n';
    writeFileSync(join(model, 'orders.yml'), cube);
    const connection = {
      DATAMODEL_CI_API_URL: info.baseUrl,
      DATAMODEL_CI_CA_CERT: info.caFile,
      DATAMODEL_CI_API_KEY: info.credentials.admin,
      DATAMODEL_CI_DEPLOYMENT_ID: '1',
      DATAMODEL_CI_MODEL_DIR: 'analytics',
    };
    expect((await npx(['datamodel-ci', 'start-dev-branch', '--branch', 'try-it'], connection)).code).toBe(0);
    const upload = await npx(['datamodel-ci', 'upload-model', '--branch', 'try-it', '--allow-model-deletion'], connection);
    expect(upload.code, upload.stderr).toBe(0);
    const r = await npx(['datamodel-ci', 'validate', '--branch', 'try-it'], connection);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('valid=false');
    expect(r.stdout).toContain('error-count=1');
    expect(r.stderr).toMatch(/analytics\/model\/cubes\/orders\.yml:\d+:\d+: orders cube: "measures\.total\.type" must be one of/);
  }, 60_000);
});
