/**
 * `npm run check-types` (scripts/check-types.mjs, CI's typecheck and lint): tsc's check and eslint over one
 * TypeScript program find what `tsc --noEmit` and eslint with the project service find, and fail on either.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import { afterEach, describe, expect, it } from 'vitest';

const SCRIPT = new URL('../scripts/check-types.mjs', import.meta.url);
type Checked = { typeErrors: number; lintErrors: number; output: string };
/** The script and eslint.config.js are JavaScript (in no program): what they export, typed here. */
const script = async () => (await import(SCRIPT.href)) as { checkTypes: (cwd: string) => Promise<Checked> };
const lintConfig = async () => ((await import(new URL('../eslint.config.js', import.meta.url).href)) as { lintConfig: () => Linter.Config[] }).lintConfig();

const TSCONFIG = {
  compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: [] },
  include: ['.'],
};
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A project of its own: a tsconfig.json and the given files. */
function project(files: Record<string, string>, tsconfig: object = TSCONFIG): string {
  const dir = mkdtempSync(join(tmpdir(), 'check-types-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** `npm run check-types` as CI runs it, in `cwd`. */
function run(cwd: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(SCRIPT)], { cwd, env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

const CLEAN = {
  'a.ts': 'export async function one(): Promise<number> {\n  return Promise.resolve(1);\n}\n',
  'b.mjs': "export const two = () => 'plain JavaScript, in no program';\n",
};
const TYPE_ERROR = { 'c.ts': "export const n: number = 'text';\n" };
const LINT_ERRORS = {
  'd.ts': "import { one } from './a.js';\nexport function run(): void {\n  one();\n  [1].forEach(async () => {\n    await one();\n  });\n}\n",
  'e.mjs': 'export const unused = () => {\n  const x = 1;\n};\n',
};
/** `line:column rule` of each finding in eslint's stylish output. */
const findings = (out: string) => [...out.matchAll(/^\s+(\d+:\d+)\s+error\s+.*?\s(\S+)$/gm)].map(([, at, rule]) => `${at} ${rule}`).sort();

// Each test starts TypeScript and eslint (seconds on a quiet machine, far more on a busy one).
describe('check-types: tsc and eslint over one program', { timeout: 180_000 }, () => {
  it('passes a clean project, its plain JavaScript linted too', async () => {
    const r = await (await script()).checkTypes(project(CLEAN));
    expect(r.output).toContain('tsc: 0 error(s) in 1 files');
    expect(r.output).toContain('eslint: 0 error(s) in 2 files');
    expect(r).toMatchObject({ typeErrors: 0, lintErrors: 0 });
  });

  it("finds exactly what eslint with the project service finds (the type-aware rules' too)", async () => {
    const dir = project({ ...CLEAN, ...LINT_ERRORS });
    const r = await (await script()).checkTypes(dir);
    const apart = await new ESLint({ cwd: dir, overrideConfigFile: true, baseConfig: await lintConfig() }).lintFiles(['.']);
    const expected = apart.flatMap((f) => f.messages.map((m) => `${m.line}:${m.column} ${m.ruleId ?? 'fatal'}`)).sort();
    expect(expected).toEqual([
      '2:9 @typescript-eslint/no-unused-vars',
      '3:3 @typescript-eslint/no-floating-promises',
      '4:15 @typescript-eslint/no-misused-promises',
    ]);
    expect(findings(r.output)).toEqual(expected);
    expect(r).toMatchObject({ typeErrors: 0, lintErrors: 3 });
  });

  it('fails on a TypeScript file the program does not hold, rather than lint it without types', async () => {
    const r = await (await script()).checkTypes(project({ ...CLEAN, 'c.ts': 'export const three = 3;\n' }, { ...TSCONFIG, include: ['a.ts'] }));
    expect(r.output).toMatch(/c\.ts\n\s+0:0\s+error\s+Parsing error: "parserOptions\.programs" has been provided/);
    expect(r.lintErrors).toBe(1);
  });

  it('as CI runs it: prints the type error as tsc does and the lint errors as eslint does, and exits 1', async () => {
    const r = await run(project({ ...CLEAN, ...TYPE_ERROR, ...LINT_ERRORS }));
    expect(r.out).toMatch(/^c\.ts\(1,14\): error TS2322: Type 'string' is not assignable to type 'number'/m);
    expect(findings(r.out)).toHaveLength(3);
    expect(r.out).toContain('tsc: 1 error(s) in 3 files');
    expect(r.out).toContain('eslint: 3 error(s) in 5 files');
    expect(r.code, r.out).toBe(1);
  });
});
