/**
 * Outside text in the job log never becomes a workflow command: file names holding a line break and
 * `::error::`, or a legacy `##[error]`, pass through the dry-run listing and the "delete" lines of an
 * upload as text. Runs the root action through the harness, which parses commands as the runner does.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inertLog } from '../src/report/actions.js';
import { DEMO_MODEL, startEmulator, type Emulator } from '../packages/emulator/src/index.js';
import { runAction } from './harness/runner.js';
import { parseWorkflowCommand } from './harness/commands.js';
import { pullRequestEvent } from './support/payloads.js';

let em: Emulator;
const repo = mkdtempSync(join(tmpdir(), 'dmci-loginject-'));
const HOSTILE = ['model/cubes/a\n::error::pwned by a name.yml', 'model/cubes/##[error]legacy pwned.yml', 'model/cubes/b\n::add-mask::.yml'];

function write(files: Record<string, string>): void {
  rmSync(join(repo, 'cube'), { recursive: true, force: true });
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, 'cube', p)), { recursive: true });
    writeFileSync(join(repo, 'cube', p), c);
  }
}

beforeAll(async () => {
  em = await startEmulator({ seed: 'demo' });
  writeFileSync(join(repo, 'ca.pem'), em.ca);
});
afterAll(() => em.close());

const run = (dryRun: boolean) =>
  runAction({
    actionDir: resolve('.'),
    repoDir: resolve('.'),
    workspace: repo,
    eventName: 'pull_request',
    event: pullRequestEvent('opened', { number: 67, headSha: '7'.repeat(40) }),
    inputs: {
      'api-url': em.baseUrl,
      'api-key': em.credentials.admin,
      'deployment-id': 1,
      'model-dir': 'cube',
      'ca-cert': join(repo, 'ca.pem'),
      'dry-run': dryRun,
      'fail-on-invalid': false,
    },
  });

describe('workflow commands in file names', () => {
  it('leave the dry-run listing and the delete lines as text: no annotation, no mask', async () => {
    write({ ...DEMO_MODEL, ...Object.fromEntries(HOSTILE.map((p) => [p, 'cubes: []\n'])) });
    const listed = await run(true);
    // The upload that puts them on the branch, then one that deletes them (the "delete" lines).
    const uploaded = await run(false);
    write({ ...DEMO_MODEL });
    const deleted = await run(false);
    for (const [what, r] of [
      ['dry run', listed],
      ['upload', uploaded],
      ['delete', deleted],
    ] as const) {
      expect(r.annotations.map((a) => a.message).join('\n'), what).not.toMatch(/pwned/);
      expect(r.masks, what).not.toContain('.yml');
    }
    expect(listed.log.join('\n')).toContain('pwned by a name.yml');
    expect(deleted.log.join('\n')).toMatch(/delete model\/cubes\/##\u200B\[error\]legacy pwned\.yml/);
  }, 120_000);

  it('inertLog leaves ordinary text alone and no line of hostile text parses as a command', () => {
    expect(inertLog('12 files, 3400 bytes')).toBe('12 files, 3400 bytes');
    for (const hostile of ['x\n::error::y', '  ::warning file=a::b', 'a ##[error]b', 'x\r::add-mask::y', '::stop-commands::t']) {
      for (const line of inertLog(hostile).split('\n')) expect(parseWorkflowCommand(line), JSON.stringify(line)).toBeUndefined();
    }
  });
});
