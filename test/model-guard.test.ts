/**
 * A wrong `model-dir` never wipes the model: left at `.` when the model lives in `analytics/`, the
 * upload would delete every model file of the PR's branch (and, merged, of production). It is refused
 * before any write, naming the folder that holds the model, unless `allow-model-deletion` says so.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardModelDeletion } from '../src/model/guard.js';
import { cube, startLifecycle, type Lifecycle } from './support/lifecycle.js';

let lc: Lifecycle;
beforeAll(async () => {
  lc = await startLifecycle();
});
afterAll(() => lc.close());

const head = (pr: number, v = 'a') => `${pr}${v}`.padEnd(40, '0');

describe('the model-dir guard', () => {
  it('refuses an upload from the repository root when the model lives in analytics/, and changes nothing', async () => {
    lc.gh.addPull({ number: 51, headSha: head(51), headRef: 'wipe' });
    lc.checkout({ 'model/cubes/w.yml': cube('w', 1) });
    expect((await lc.run(51, 'opened', { headSha: head(51) })).code).toBe(0);
    const before = structuredClone(lc.em.state.deployments[0]!.branches['preview-pr-51']!.head);
    // The repository: README at the root, the model under analytics/ (the checkout moved there).
    const root = join(lc.work, 'repo');
    mkdirSync(join(root, 'analytics', 'model', 'cubes'), { recursive: true });
    writeFileSync(join(root, 'README.md'), '# repo\n');
    writeFileSync(join(root, 'analytics', 'cube.js'), 'module.exports = {};\n');
    writeFileSync(join(root, 'analytics', 'model', 'cubes', 'w.yml'), cube('w', 1));
    lc.gh.setHead(51, head(51, 'b'));
    const r = await lc.run(51, 'synchronize', { headSha: head(51, 'b'), env: { DATAMODEL_CI_MODEL_DIR: root } });
    // Bad input (exit 2 on the command line, 1 in a step).
    expect(r.code, r.lines.join('\n')).toBe(2);
    expect(r.lines.join('\n')).toMatch(
      /model-dir: got ".*repo", expected the folder that holds cube\.js and model\/ \(the upload would leave preview-pr-51 with no cube or view \(\d+ of its \d+ model files deleted\); ".*repo\/analytics" holds cube\.js or model\/\); set allow-model-deletion: true if the deletion is meant/,
    );
    expect(lc.em.state.deployments[0]!.branches['preview-pr-51']!.head).toEqual(before);
    // The comment ends in a failed state with the reason, not on "updating".
    const comment = lc.gh.comments(51).at(-1)!.body;
    expect(comment).toContain('### ❌ Data-model preview · failed');
    expect(comment).not.toContain('updating for');
    // (Outside text is escaped for Markdown.)
    expect(comment).toContain('**Preview failed:** model\\-dir\\: got');
    expect(comment).toContain('set allow\\-model\\-deletion\\: true if the deletion is meant');

    // Said explicitly, it goes ahead.
    const allowed = await lc.run(51, 'synchronize', {
      headSha: head(51, 'b'),
      env: { DATAMODEL_CI_MODEL_DIR: root, DATAMODEL_CI_ALLOW_MODEL_DELETION: 'true' },
    });
    expect(allowed.lines.join('\n')).not.toMatch(/allow-model-deletion/);
    expect(Object.keys(lc.em.state.deployments[0]!.branches['preview-pr-51']!.head)).toContain('analytics/cube.js');
  }, 90_000);

  it('lets ordinary changes through: a few files removed, or a model that grows', async () => {
    const remote = ['cube.js', 'model/cubes/a.yml', 'model/cubes/b.yml', 'model/cubes/c.yml', 'model/views/v.yml'];
    const ok = (local: string[], remove: string[]) => guardModelDeletion({ branch: 'b', modelDir: '.', local, remote, remove, allow: false });
    await expect(ok(['cube.js', 'model/cubes/a.yml', 'model/cubes/b.yml', 'model/cubes/c.yml'], ['model/views/v.yml'])).resolves.toBeUndefined();
    await expect(ok(['cube.js', 'model/cubes/a.yml'], ['model/cubes/b.yml', 'model/cubes/c.yml', 'model/views/v.yml'])).rejects.toThrow(
      /would delete 3 of the 4 model files on b/,
    );
  });
});
