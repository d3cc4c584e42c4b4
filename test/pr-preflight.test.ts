/**
 * `preflight: true` on the PR lifecycle: the doctor's checks on the model's deployment run once, before the
 * preview, and `upload-via: auto` takes the way they found. On a tenant that takes uploads on dev-mode forks
 * only, the preview then goes through dev mode without trying a direct upload first.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cube, startLifecycle, type Lifecycle } from './support/lifecycle.js';

let lc: Lifecycle;
beforeAll(async () => {
  lc = await startLifecycle({ emulator: { directUploads: false } });
});
afterAll(() => lc.close());

const head = (pr: number) => `${pr}a`.padEnd(40, '0');

describe('the preflight of a preview', () => {
  it('runs the doctor before the preview, and the preview uploads the way the doctor found', async () => {
    lc.gh.addPull({ number: 61, headSha: head(61), headRef: 'preflight' });
    lc.checkout({ 'model/cubes/p.yml': cube('p', 1) });
    const r = await lc.run(61, 'opened', { headSha: head(61), env: { DATAMODEL_CI_PREFLIGHT: 'true' } });
    const log = r.lines.join('\n');
    expect(r.code, log).toBe(0);
    // The doctor first, in its own group, then the preview.
    expect(log).toContain('== Preflight: datamodel-ci doctor\n');
    expect(log.indexOf('== Preflight: datamodel-ci doctor')).toBeLessThan(log.indexOf('== Shared branch'));
    expect(log).toMatch(/✗ upload: a direct upload was refused .*; through dev mode and commit it works/);
    // Its later checks upload the way that worked: the broken model for the validation check goes through dev mode too.
    expect(log).toMatch(/✓ validation errors: 1 error, 1 with a file name/);
    expect(log).not.toContain('✗ doctor:');
    // The preview took the doctor's way: dev mode at once, no direct upload tried and refused.
    expect(log).not.toContain('this tenant refuses direct uploads');
    expect(r.lines).toContain('status=valid');
    expect(r.lines.find((l) => l.startsWith('dev-branch='))).toMatch(/^dev-branch=dev-/);
    expect(Object.keys(lc.em.state.deployments[0]!.branches['preview-pr-61']!.head)).toContain('model/cubes/p.yml');
  }, 90_000);

  it('comes after every input is checked: a missing key-queries file stops the run before the doctor touches the tenant', async () => {
    lc.gh.addPull({ number: 62, headSha: head(62), headRef: 'preflight-bad' });
    lc.checkout({ 'model/cubes/q.yml': cube('q', 1) });
    const branches = Object.keys(lc.em.state.deployments[0]!.branches).sort();
    const r = await lc.run(62, 'opened', {
      headSha: head(62),
      env: { DATAMODEL_CI_PREFLIGHT: 'true', DATAMODEL_CI_DATA_DIFF_QUERIES: join(lc.work, 'no-queries.json') },
    });
    const log = r.lines.join('\n');
    expect(r.code, log).toBe(2);
    expect(log).toContain('data-diff-queries');
    expect(log).not.toContain('Preflight: datamodel-ci doctor');
    expect(Object.keys(lc.em.state.deployments[0]!.branches).sort()).toEqual(branches);
  }, 90_000);
});
