/**
 * A clone builds, tests and runs with nothing beside it: no source names a file above the repository
 * root. Every string in the TypeScript and JavaScript sources that walks up (`..`) must land inside the
 * repository when read from its own folder (`new URL(…, import.meta.url)`, imports); the other text sources
 * (workflows, manifests, the CI script) must not name the folder the vendor's files sit in on the
 * developers' machines. A fresh clone's `npm ci && npm test` is the end-to-end proof.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../packages/platform-api/scripts/generate.js';

const SKIP = new Set(['node_modules', '.git', 'dist', '.tmp', 'coverage']);
const CODE = new Set(['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs']);
const TEXT = new Set(['.json', '.yml', '.yaml', '.sh', '']);

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const abs = join(dir, name);
    if (statSync(abs).isDirectory()) files(abs, out);
    else out.push(abs);
  }
  return out;
}

const inside = (abs: string) => abs === ROOT || abs.startsWith(ROOT + sep);

/** Strings that walk up on purpose: hostile input a test feeds the code under test, never a path it reads. */
const HOSTILE = new Set(['test/workflows.test.ts ../../etc/passwd']);
/** The folder beside the repository where the vendor's files sit on the developers' machines. */
const BESIDE = ['..', 'shared', ''].join('/');

/** A module specifier: `import … from '…'`, `export … from '…'`, `import('…')`, `require('…')`. */
function isSpecifier(node: ts.Node): boolean {
  const p = node.parent;
  if (ts.isImportDeclaration(p) || ts.isExportDeclaration(p) || ts.isExternalModuleReference(p)) return true;
  if (ts.isLiteralTypeNode(p) && ts.isImportTypeNode(p.parent)) return true;
  return ts.isCallExpression(p) && (p.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(p.expression) && p.expression.text === 'require'));
}

/** The strings of a source that walk up a folder, with their line; `${…}` parts read as one folder name. */
export function upwardStrings(file: string, text: string): { value: string; line: number; specifier: boolean }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: { value: string; line: number; specifier: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    let value: string | undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) value = node.text;
    else if (ts.isTemplateExpression(node)) value = node.head.text + node.templateSpans.map((s) => `x${s.literal.text}`).join('');
    if (value !== undefined && /(^|[/\\])\.\.([/\\]|$)/.test(value)) {
      out.push({ value, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, specifier: isSpecifier(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

describe('self-contained', () => {
  const all = files(ROOT);

  it('finds the sources it checks', () => {
    const rel = all.map((f) => relative(ROOT, f));
    expect(rel).toContain('packages/platform-api/scripts/generate.ts');
    expect(rel).toContain(join('.ci', 'run'));
    expect(rel).not.toContain('node_modules');
  });

  it('no string in the code walks above the repository root from its own folder', () => {
    const escapes: string[] = [];
    for (const file of all.filter((f) => CODE.has(extname(f)))) {
      for (const s of upwardStrings(file, readFileSync(file, 'utf8'))) {
        if (HOSTILE.has(`${relative(ROOT, file)} ${s.value}`)) continue;
        if (!inside(resolve(dirname(file), s.value))) escapes.push(`${relative(ROOT, file)}:${s.line} ${s.value}`);
      }
    }
    expect(escapes).toEqual([]);
  });

  it('no workflow, manifest or script names the folder beside the repository', () => {
    const naming = all
      .filter((f) => TEXT.has(extname(f)) || CODE.has(extname(f)))
      .filter((f) => readFileSync(f, 'utf8').includes(BESIDE))
      .map((f) => relative(ROOT, f));
    expect(naming).toEqual([]);
  });

  it('the check sees a string that escapes, and one that stays inside', () => {
    const outside = ['..', '..', '..', 'shared', 'x.yaml'].join('/');
    const found = upwardStrings(
      join(ROOT, 'test/x.ts'),
      `import a from '../a.js';\nconst f = new URL('${outside}', import.meta.url);\nconst t = \`\${dir}/../y\`;`,
    );
    expect(found).toEqual([
      { value: '../a.js', line: 1, specifier: true },
      { value: outside, line: 2, specifier: false },
      { value: 'x/../y', line: 3, specifier: false },
    ]);
    expect(found.map((s) => inside(resolve(join(ROOT, 'test'), s.value)))).toEqual([true, false, true]);
  });
});
