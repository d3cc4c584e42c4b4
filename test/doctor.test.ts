/**
 * `datamodel-ci doctor` against the emulator: green on a vendor-faithful tenant, tells a tenant that
 * refuses direct uploads apart, only reads with --dry-run, and leaves nothing behind, also under faults.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Io } from '../src/io.js';
import { runCli } from '../src/main.js';
import type { DoctorReport } from '../src/operations/doctor.js';
import type { Emulator } from '../packages/emulator/src/index.js';
import { emulatorFixture, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;

beforeAll(async () => {
  fx = await emulatorFixture();
});
afterAll(() => fx.close());

async function doctor(em: Emulator, args: string[] = []): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const env = { DATAMODEL_CI_API_URL: em.baseUrl, DATAMODEL_CI_API_KEY: em.credentials.admin, DATAMODEL_CI_CA_CERT: em.ca, DATAMODEL_CI_DEPLOYMENT_ID: '1' };
  const io: Io = { out: (l) => out.push(l), err: (l) => err.push(l), env };
  const code = await runCli(['doctor', ...args], io);
  return { code, out, err };
}

/** What a doctor run could leave behind on the platform. */
function leftovers(em: Emulator): string[] {
  const d = em.state.deployments[0]!;
  return [
    ...Object.keys(d.branches).filter((n) => n.startsWith('datamodel-ci-doctor-') || d.branches[n]!.parent?.startsWith('datamodel-ci-doctor-')),
    ...Object.entries(d.devSessions).map(([k, v]) => `session ${k} on ${v}`),
    ...Object.values(d.uploads)
      .filter((u) => u.branch.startsWith('datamodel-ci-doctor-'))
      .map((u) => `upload ${u.id}`),
  ];
}

describe('doctor', () => {
  it('checks everything on a throwaway branch, prints one line per check, and removes what it made', async () => {
    const r = await doctor(fx.em);
    expect(r.code, r.err.join('\n')).toBe(0);
    const text = r.out.join('\n');
    for (const name of [
      'api key',
      'auth scheme',
      'content-length',
      'deploy settings',
      'duplicate branch',
      'upload',
      'hash algorithm',
      'staging URL',
      'build status',
      'hash form',
      'staging wake',
      'validation errors',
      'clean-up',
    ]) {
      expect(text).toMatch(new RegExp(`^✓ ${name}: `, 'm'));
    }
    expect(text).toContain('direct uploads to a shared branch are accepted, one at a time and two in parallel');
    expect(text).toContain('a bodyless write without Content-Length is refused with 411');
    expect(text).toMatch(/validation errors: \d+ errors?, \d+ with a file name/);
    // The demo's production names no group in a policy: whether groups take effect cannot be told, never ✓.
    expect(text).toMatch(/^- persona groups: .*cannot be told here/m);
    expect(text).toContain('checks passed, 1 check not made: persona groups');
    // Each check once on the terminal (stdout and stderr together), the header first and the verdict last.
    const screen = [...r.err, ...r.out];
    for (const line of r.out.filter((l) => /^[✓✗-] /.test(l)))
      expect(
        screen.filter((l) => l === line),
        line,
      ).toHaveLength(1);
    expect(r.err.filter((l) => /^[✓✗-] /.test(l))).toEqual([]);
    expect(r.out[0]).toBe('datamodel-ci doctor: deployment 1');
    expect(r.out.at(-1)).toMatch(/^\d+ checks passed, 1 check not made: persona groups$/);
    expect(leftovers(fx.em)).toEqual([]);
  });

  it('tells a tenant that refuses direct uploads, and what the toolkit will do (--json on stdout only)', async () => {
    fx.em.controls.behaviour.directUploads = false;
    try {
      const r = await doctor(fx.em, ['--json']);
      expect(r.out).toHaveLength(1);
      const report = JSON.parse(r.out[0]!) as DoctorReport;
      expect(report.uploadVia).toBe('dev-mode');
      const upload = report.checks.find((c) => c.name === 'upload')!;
      expect(upload).toMatchObject({ state: 'failed', action: expect.stringContaining('uploads through dev mode') });
      expect(upload.seen).toContain('through dev mode and commit it works');
      expect(r.code).toBe(1);
      expect(leftovers(fx.em)).toEqual([]);
    } finally {
      fx.em.controls.behaviour.directUploads = true;
    }
  });

  it("names the tenant as it finds it: a duplicate's status, the hash form, the staging wake", async () => {
    const tenant = await emulatorFixture({ profiles: ['duplicate-branch-400', 'short-hash', 'staging-cold'] });
    try {
      const r = await doctor(tenant.em);
      const text = r.out.join('\n');
      expect(r.code, text).toBe(0);
      expect(text).toMatch(/^✓ duplicate branch: a second create of the same name answers 400 /m);
      expect(text).toMatch(/^✓ hash form: upload\/finish reports 40 hex characters, build status 7 hex characters, the same commit$/m);
      expect(text).toMatch(/^✓ staging wake: the staging environment said "Branch is not active" after it was enabled; one data request woke it/m);
      expect(leftovers(tenant.em)).toEqual([]);
    } finally {
      await tenant.close();
    }
  });

  it('on a deployment fed from its repository writes no tree: it tries a pull, a data-API token, a /load, and makes no branch or ref', async () => {
    const tenant = await emulatorFixture({ profiles: ['connected-later', 'pull-needs-added-branch'] });
    try {
      const before = Object.keys(tenant.em.state.deployments[0]!.connected!.refs).sort();
      const r = await doctor(tenant.em);
      const text = r.out.join('\n');
      expect(r.code, text).toBe(0);
      expect(text).toMatch(/^✓ deploy settings: deploy branch main, fed from acme\/analytics \(repoType: git\): production is built from pushes to main/m);
      expect(text).toContain("→ the toolkit previews the PR's own head branch (pull, no upload) and never merges on close");
      expect(text).toMatch(/^✓ pull: a pull of a branch the platform does not have answers 404/m);
      expect(text).toMatch(/^✓ data-API token: /m);
      expect(text).toMatch(/^- upload: a deployment fed from its repository: the doctor writes no tree there$/m);
      expect(Object.keys(tenant.em.state.deployments[0]!.branches).filter((n) => n.startsWith('datamodel-ci-doctor-'))).toEqual([]);
      expect(Object.keys(tenant.em.state.deployments[0]!.connected!.refs).sort()).toEqual(before);
      expect(tenant.em.counts.startUpload ?? 0).toBe(0);
    } finally {
      await tenant.close();
    }
  });

  it("ends no dev-mode session: the Content-Length probe names a branch that does not exist (a session is the key's, maybe another run's)", async () => {
    await fx.admin.branches.startDevMode({ deploymentId: 1, body: { branchName: 'feature-revenue' } });
    try {
      const r = await doctor(fx.em);
      expect(r.code, r.err.join('\n')).toBe(0);
      expect(Object.keys(fx.em.state.deployments[0]!.devSessions)).toEqual(['key-admin']);
    } finally {
      await fx.admin.branches.stopDevMode({ deploymentId: 1 });
    }
  });

  it('with --dry-run only reads', async () => {
    const before = JSON.stringify(fx.em.state);
    const writes = () => Object.entries(fx.em.counts).filter(([id]) => !/^(get|list|fileHashes|validate|buildStatus)/i.test(id));
    const w0 = JSON.stringify(writes());
    const r = await doctor(fx.em, ['--dry-run']);
    expect(r.code).toBe(0);
    expect(r.out.join('\n')).toMatch(/^- upload: not checked \(dry run: the doctor only reads\)|^- upload: dry run: the doctor only reads/m);
    // It says what it did not check, never that every check passed.
    expect(r.out[0]).toBe('datamodel-ci doctor: deployment 1 (dry run: reads only)');
    expect(r.out.join('\n')).not.toContain('every check passed');
    expect(r.out.at(-1)).toBe(
      '5 checks passed, 10 checks not made: content-length, rollup plan, persona groups, duplicate branch, upload, hash algorithm, staging URL, hash form, staging wake, validation errors (a dry run only reads: run without --dry-run to make them)',
    );
    expect(r.err.filter((l) => /^[✓✗-] /.test(l))).toEqual([]);
    expect(JSON.stringify(writes())).toBe(w0);
    expect(JSON.stringify(fx.em.state)).toBe(before);
  });

  it('leaves nothing behind under injected faults', async () => {
    // Three fault seeds, each on its own emulator: they run at once (their waits are the retries' backoff).
    const runs = [3, 11, 29].map(async (seed) => {
      const faulty = await emulatorFixture({ faults: '5xx=0.15,429=0.1,reset=0.05', faultSeed: seed });
      try {
        const r = await doctor(faulty.em);
        // Whatever failed, the faults are switched off and the platform checked: nothing of the doctor's remains.
        faulty.em.faults.set({});
        return { seed, code: r.code, out: r.out, left: leftovers(faulty.em) };
      } finally {
        await faulty.close();
      }
    });
    for (const r of await Promise.all(runs)) {
      expect([0, 1], `seed ${r.seed}`).toContain(r.code);
      expect(r.left, `seed ${r.seed}: ${r.out.join('\n')}`).toEqual([]);
    }
  });
});
