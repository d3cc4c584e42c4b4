/**
 * The three rooms stay apart: the product (src/) never reaches into the emulator, the emulator uses
 * only the contract of the project's code, the contract depends on nothing of ours. Inside the
 * product, imports run one way: commands/ -> pr/ -> operations/ -> model/ and client/, with report/
 * at the bottom; only pr/ writes to GitHub, and the platform's operations know nothing of it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(join(REPO, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = join(dir, e.name);
    if (e.isDirectory()) return sources(rel);
    return /\.(ts|mts|mjs|js)$/.test(e.name) ? [rel] : [];
  });
}

/** Every module a file imports (static, dynamic and re-exports), as written. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(REPO, file), 'utf8');
  const found = [
    ...text.matchAll(/^\s*(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]/gm),
    ...text.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ];
  return found.map((m) => m[1] as string);
}

/** An import: the specifier as written, and for a relative one the repository path it lands on. */
interface Import {
  spec: string;
  path?: string;
}

function violations(dir: string, allowed: (i: Import) => boolean): string[] {
  return sources(dir).flatMap((file) =>
    importsOf(file)
      .map((spec): Import => (spec.startsWith('.') ? { spec, path: relative(REPO, resolve(REPO, dirname(file), spec)) } : { spec }))
      .filter((i) => !allowed(i))
      .map((i) => `${file} imports ${i.spec}`),
  );
}

/** The emulator source file holding `marker` (so the bundle check cannot pass on a marker nobody uses). */
function emulatorFileWith(marker: string): string | undefined {
  return sources('packages/emulator/src').find((f) => readFileSync(join(REPO, f), 'utf8').includes(marker));
}

describe('import boundaries', () => {
  it('finds the imports it checks (the scanner itself works)', () => {
    expect(importsOf('src/commands/pr-close.ts')).toContain('../operations/pr-close.js');
    expect(importsOf('packages/emulator/src/index.ts').length).toBeGreaterThan(2);
  });

  it('src/ never imports the emulator', () => {
    expect(violations('src', (i) => (i.path ? !i.path.startsWith('packages/emulator') : !i.spec.startsWith('datamodel-ci-emulator')))).toEqual([]);
  });

  it('the emulator imports, of the project code, only the contract', () => {
    const ok = (i: Import) =>
      i.path ? i.path.startsWith('packages/emulator/') : !i.spec.startsWith('@datamodel-ci/') || i.spec === '@datamodel-ci/platform-api';
    expect(violations('packages/emulator', ok)).toEqual([]);
  });

  it('the contract depends on nothing of the project, and only on zod outside Node', () => {
    const ok = (i: Import) => (i.path ? i.path.startsWith('packages/platform-api/') : i.spec === 'zod' || i.spec.startsWith('node:'));
    expect(violations('packages/platform-api/src', ok)).toEqual([]);
  });

  it("src/operations/ imports no @actions/*, nothing of GitHub (src/github/), the pull request's side (src/pr/) or the commands", () => {
    const ok = (i: Import) => (i.path ? !/^src\/(github|pr|commands)\//.test(i.path) : !i.spec.startsWith('@actions/') && !i.spec.startsWith('@octokit/'));
    expect(violations('src/operations', ok)).toEqual([]);
  });

  it('src/model/ (the local model) imports no operation, nothing of GitHub, the pull request or the commands', () => {
    const ok = (i: Import) => (i.path ? !/^src\/(operations|github|pr|commands|impact)\//.test(i.path) : !i.spec.startsWith('@actions/'));
    expect(violations('src/model', ok)).toEqual([]);
  });

  it("src/report/ imports nothing above it (only itself, the client's errors and the Actions runtime)", () => {
    const ok = (i: Import) => (i.path ? /^src\/(report|client)\//.test(i.path) : i.spec.startsWith('node:') || i.spec === '@actions/core');
    expect(violations('src/report', ok)).toEqual([]);
  });

  it("src/pr/ (the pull request's side) never reaches up into the commands", () => {
    expect(violations('src/pr', (i) => !i.path?.startsWith('src/commands/'))).toEqual([]);
  });

  it('src/impact/ (the diffs) calls no platform operation and knows no GitHub: it imports only itself, the local model and the client', () => {
    expect(violations('src/impact', (i) => !i.path || /^src\/(impact|model|client)\//.test(i.path))).toEqual([]);
  });

  it("src/impact/'s facets are peers: each folder imports of src/impact/ only itself and base/, and base/ imports no facet", () => {
    const folders = readdirSync(join(REPO, 'src/impact'), { withFileTypes: true }).filter((e) => e.isDirectory());
    const facets = folders.map((e) => e.name).filter((n) => n !== 'base');
    // The rule has something to hold: the base and the four facets are there.
    expect(folders.map((e) => e.name)).toContain('base');
    expect(facets).toEqual(expect.arrayContaining(['access', 'data', 'definition', 'rollups']));
    for (const folder of ['base', ...facets]) {
      const ok = (i: Import) => !i.path?.startsWith('src/impact/') || i.path.startsWith(`src/impact/${folder}/`) || i.path.startsWith('src/impact/base/');
      expect(violations(`src/impact/${folder}`, ok), folder).toEqual([]);
    }
  });

  it('only src/pr/ writes to GitHub (comments, check runs, deployments, issues); src/github/ is the port it writes through', () => {
    const writes = /\.(createComment|updateComment|createCheckRun|addCheckRunAnnotations|createDeployment|createDeploymentStatus|createIssue|updateIssue)\(/;
    const writers = sources('src')
      .filter((f) => !f.startsWith('src/pr/') && !f.startsWith('src/github/'))
      .filter((f) => writes.test(readFileSync(join(REPO, f), 'utf8')));
    expect(writers).toEqual([]);
    // The rule has something to hold: the writes are there, in src/pr/.
    expect(sources('src/pr').filter((f) => writes.test(readFileSync(join(REPO, f), 'utf8'))).length).toBeGreaterThanOrEqual(2);
  });

  it('the bundle a runner downloads holds no emulator code', () => {
    const parts = readdirSync(join(REPO, 'dist')).filter((f) => f.endsWith('.js'));
    expect(parts).toContain('index.js');
    // Strings that exist only in the emulator: its control API prefix, its OpenAPI title, the stand-in's entry.
    for (const marker of ['/_emulator/', 'datamodel-ci emulator', 'startGitHubStandin']) {
      expect(emulatorFileWith(marker), `no emulator file contains ${marker}`).toBeDefined();
      for (const f of parts) expect(readFileSync(join(REPO, 'dist', f), 'utf8').includes(marker), `dist/${f} contains ${marker}`).toBe(false);
    }
    // 2.3 MB: the agents check's SQL grammar (node-sql-parser's PostgreSQL part, ~315 KB) is loaded only for an agents/ folder with SQL.
    expect(parts.reduce((sum, f) => sum + statSync(join(REPO, 'dist', f)).size, 0)).toBeLessThan(2_300_000);
  });
});

describe('file size', () => {
  // Hand-written files stay readable in one sitting; generated tables are exempt.
  it('keeps every hand-written source file under about 400 lines', () => {
    const roots = ['src', 'packages/platform-api/src', 'packages/platform-api/scripts', 'packages/emulator/src', 'scripts', 'test', 'bench'];
    const files = roots.flatMap((r) => sources(r)).filter((f) => !f.includes('/generated/') && !f.startsWith('test/fixtures/'));
    expect(files.length).toBeGreaterThan(100);
    const long = files.map((f) => ({ f, n: readFileSync(join(REPO, f), 'utf8').split('\n').length })).filter((x) => x.n > 420);
    expect(long.map((x) => `${x.f}: ${x.n} lines`)).toEqual([]);
  });
});
