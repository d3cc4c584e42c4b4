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

const SCRIPT = fileURLToPath(new URL('../scripts/check-types.mjs', import.meta.url));
/** eslint.config.js is JavaScript (in no program): its config factory, typed here. */
const ESLINT_CONFIG = new URL('../eslint.config.js', import.meta.url).href;
const lintConfig = async () => ((await import(ESLINT_CONFIG)) as { lintConfig: () => Linter.Config[] }).lintConfig();
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

function checkTypes(cwd: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT], { cwd, env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } });
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

// Each test starts node with TypeScript and eslint (seconds on a quiet machine, far more on a busy one).
describe('check-types: tsc and eslint over one program', { timeout: 180_000 }, () => {
  it('passes a clean project, its plain JavaScript linted too', async () => {
    const r = await checkTypes(project(CLEAN));
    expect(r.out).toContain('tsc: 0 error(s) in 1 files');
    expect(r.out).toContain('eslint: 0 error(s) in 2 files');
    expect(r.code, r.out).toBe(0);
  });

  it('fails on a type error, and names it as tsc does', async () => {
    const r = await checkTypes(project({ ...CLEAN, 'c.ts': "export const n: number = 'text';\n" }));
    expect(r.out).toMatch(/^c\.ts\(1,14\): error TS2322: Type 'string' is not assignable to type 'number'/m);
    expect(r.out).toContain('tsc: 1 error(s)');
    expect(r.code, r.out).toBe(1);
  });

  it("fails on a lint error, and finds exactly what eslint with the project service finds (the type-aware rules' too)", async () => {
    const dir = project({
      ...CLEAN,
      'c.ts': "import { one } from './a.js';\nexport function run(): void {\n  one();\n  [1].forEach(async () => {\n    await one();\n  });\n}\n",
      'd.mjs': 'export const unused = () => {\n  const x = 1;\n};\n',
    });
    const r = await checkTypes(dir);
    expect(r.code, r.out).toBe(1);
    const apart = await new ESLint({ cwd: dir, overrideConfigFile: true, baseConfig: await lintConfig() }).lintFiles(['.']);
    const expected = apart.flatMap((f) => f.messages.map((m) => `${m.line}:${m.column} ${m.ruleId ?? 'fatal'}`)).sort();
    expect(expected).toEqual(
      ['2:9 @typescript-eslint/no-unused-vars', '3:3 @typescript-eslint/no-floating-promises', '4:15 @typescript-eslint/no-misused-promises'].sort(),
    );
    const found = [...r.out.matchAll(/^\s+(\d+:\d+)\s+error\s+.*?\s(\S+)$/gm)].map(([, at, rule]) => `${at} ${rule}`).sort();
    expect(found).toEqual(expected);
    expect(r.out).toContain('tsc: 0 error(s)');
    expect(r.out).toContain('eslint: 3 error(s) in 4 files');
  });

  it('fails on a TypeScript file the program does not hold, rather than lint it without types', async () => {
    const r = await checkTypes(project({ ...CLEAN, 'c.ts': 'export const three = 3;\n' }, { ...TSCONFIG, include: ['a.ts'] }));
    expect(r.out).toMatch(/c\.ts\n\s+0:0\s+error\s+Parsing error: "parserOptions\.programs" has been provided/);
    expect(r.code, r.out).toBe(1);
  });
});
