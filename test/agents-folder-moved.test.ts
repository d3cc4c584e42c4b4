/**
 * A deployment that moved its agents (`CUBE_CLOUD_AGENTS_CONFIG_PATH`): with `agents-folder` set to the
 * same folder, `plan` checks it there (file and line under the moved folder); with the default, the
 * moved folder is not the agents' and no check is made, which doctor's agents-folder check names.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';
import { runCli } from '../src/main.js';
import { cliIo, emulatorFixture, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
const SLOW = 120_000;

beforeAll(async () => {
  fx = await emulatorFixture();
}, SLOW);
afterAll(() => fx.close());

const MOVED = {
  'ai/agents/config.yml': `title: Order desk
runtime: plain
accessible_views:
  - orders_view
`,
  'ai/agents/eval_questions/orders.yml': `eval_questions:
  - name: order_count
    question: How many orders are there?
    sql: SELECT MEASURE(count) FROM orders_view
`,
};

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'dmci-agents-moved-'));
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
  return dir;
}

describe('agents-folder: a moved agents folder', () => {
  it(
    'checked where agents-folder says: the removed view is an error on the moved file',
    async () => {
      const { 'model/views/orders_view.yml': _dropped, ...rest } = DEMO_MODEL;
      const dir = folder({ ...rest, ...MOVED });
      const t = cliIo(fx.em);
      const code = await runCli(['plan', '--deployment-id', '1', '--model-dir', dir, '--agents-folder', './ai/agents/'], t);
      const out = t.stdout.join('\n');
      expect(code, t.stderr.join('\n')).toBe(1);
      expect(out).toMatch(/^Agents \(ai\/agents\/\): 1 agent, 0 certified queries, 1 eval question; .*: 3 errors, 0 warnings$/m);
      expect(out).toContain(
        `  ERROR ${dir}/ai/agents/config.yml:4: agent auto lists view orders_view in \`accessible_views\`, which this pull request removes`,
      );
    },
    SLOW,
  );

  it(
    'the default folder: the moved one is not read, and plan shows no agents block',
    async () => {
      const dir = folder({ ...DEMO_MODEL, ...MOVED });
      const t = cliIo(fx.em);
      const code = await runCli(['plan', '--deployment-id', '1', '--model-dir', dir], t);
      expect(code, t.stderr.join('\n')).toBe(0);
      expect(t.stdout.join('\n')).not.toMatch(/^Agents \(/m);
    },
    SLOW,
  );
});
