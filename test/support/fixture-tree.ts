/** Fixture trees for the runner harness tests: temp dirs written from a path → text map. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const dirs: string[] = [];

/** Remove every tree made so far (a test file's afterAll). */
export function removeTrees(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A temp dir holding the given files (path → text). */
export function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'harness-fixture-'));
  dirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** A fixture repository with one workflow; returns its paths. */
export function workflowRepo(workflow: string, files: Record<string, string> = {}) {
  const root = tree({ 'wf.yml': workflow, ...files });
  return { root, workflowFile: join(root, 'wf.yml') };
}
