/**
 * Every action.yml (the root one and actions/*), parsed and schema-checked with @actions/workflow-parser,
 * against the table in src/action-spec.ts and the code that reads the inputs.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { startEmulator, type Emulator } from '../packages/emulator/src/index.js';
import { describe, expect, it, vi } from 'vitest';
import { NoOperationTraceWriter, isBasicExpression, isMapping, isScalar, isSequence, isString } from '@actions/workflow-parser';
import { convertActionTemplate, parseAction, type ActionRunsComposite, type ActionTemplate } from '@actions/workflow-parser/actions/index';
import { isRunStep } from '@actions/workflow-parser/model/type-guards';
import type { TemplateToken } from '@actions/workflow-parser/templates/tokens/template-token';
import { ACTIONS, COMMON_INPUTS, envName, inputsOf, type ActionSpec } from '../src/action-spec.js';
import { NODE_CHECK, NODE_FLOOR, NODE_PROBE, SETUP_NODE, renderActionReadme, renderActionYml } from '../src/action-files.js';
import { runActionCommand } from '../src/commands/index.js';
import { InputReader, readSettingsWith } from '../src/settings.js';

const REPO = resolve(import.meta.dirname, '..');
const BUNDLE = join(REPO, 'dist', 'index.js');
const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
/** The flags GitHub runs `shell: bash` with. */
const BASH = ['--noprofile', '--norc', '-eo', 'pipefail'];

interface Parsed {
  text: string;
  template: ActionTemplate;
  runs: ActionRunsComposite;
  /** The raw mapping of the step that runs the bundle (the converted Step drops `shell`). */
  step: TemplateToken;
}

function ymlPath(spec: ActionSpec): string {
  return join(REPO, spec.dir, 'action.yml');
}

/** Parse with the action schema; any schema error fails here with its line. */
function parse(spec: ActionSpec): Parsed {
  const text = readFileSync(ymlPath(spec), 'utf8');
  const result = parseAction({ name: join(spec.dir, 'action.yml'), content: text }, new NoOperationTraceWriter());
  expect(result.context.errors.getErrors().map(String)).toEqual([]);
  expect(result.value).toBeDefined();
  const template = convertActionTemplate(result.context, result.value!);
  expect(result.context.errors.getErrors().map(String)).toEqual([]);
  expect(template.runs.using).toBe('composite');
  const root = result.value!;
  if (!isMapping(root)) throw new Error('action.yml is not a mapping');
  const runs = root.find('runs');
  const steps = runs && isMapping(runs) ? runs.find('steps') : undefined;
  if (!steps || !isSequence(steps)) throw new Error('runs.steps is not a sequence');
  expect(steps.count).toBe(3);
  return { text, template, runs: template.runs as ActionRunsComposite, step: steps.get(2) };
}

/** The text of a token: a literal, or `${{ expr }}` for an expression. */
function text(t: TemplateToken | undefined): string | undefined {
  if (!t) return undefined;
  if (isString(t)) return t.value;
  if (isBasicExpression(t)) return `\${{ ${t.expression} }}`;
  if (isScalar(t)) return t.toString();
  throw new Error('a mapping or a sequence where text was expected');
}

/** The run script of the step that runs the bundle, as a literal (an expression in it fails). */
function script(p: Parsed): string {
  const step = p.runs.steps[2]!;
  if (!isRunStep(step)) throw new Error('the step has no run:');
  if (!isString(step.run)) throw new Error('run: is not a literal: an ${{ }} in it is interpolated into the script');
  return step.run.value;
}

describe.each(ACTIONS.map((spec) => [spec.dir === '.' ? 'action.yml' : `${spec.dir}/action.yml`, spec] as const))('%s', (_name, spec) => {
  let cached: Parsed | undefined;
  const declared = inputsOf(spec);
  const get = () => (cached ??= parse(spec));

  it('is a composite action of three steps: the node probe, the pinned setup of Node 24 when it is old, and the `shell: bash` step, id run', () => {
    const { runs, step } = get();
    expect(runs.steps.map((s) => s.id)).toEqual(['node', expect.any(String), 'run']);
    expect(runs.steps[1]!.if?.expression).toBe("success() && (steps.node.outputs.old == 'true')");
    if (!isMapping(step)) throw new Error('the step is not a mapping');
    expect(text(step.find('shell'))).toBe('bash');
  });

  it('declares exactly the inputs of the table (inputsOf), in order, with their required flags and defaults', () => {
    const inputs = get().template.inputs ?? [];
    expect(inputs.map((i) => i.id)).toEqual(declared.map((i) => i.name));
    for (const i of declared) {
      const got = inputs.find((x) => x.id === i.name)!;
      expect(got.required ?? false, i.name).toBe(i.required ?? false);
      expect(text(got.default), i.name).toBe(i.default);
    }
  });

  it('maps every input, and nothing else, to the DATAMODEL_CI_* variable the code reads', () => {
    const step = get().runs.steps[2]!;
    if (!isRunStep(step) || !step.env) throw new Error('the step has no run: or no env:');
    const env = step.env;
    const entries = [...env].map((kv) => [text(kv.key), kv.value] as const);
    expect(entries.map(([k]) => k)).toEqual(declared.map((i) => envName(i.name)));
    for (const [key, value] of entries) {
      const input = declared.find((i) => envName(i.name) === key)!;
      expect(isBasicExpression(value), key).toBe(true);
      expect(text(value), key).toBe(`\${{ inputs.${input.name} }}`);
    }
    // The exact line, as the runner sees it.
    for (const i of declared) expect(get().text).toContain(`\n        ${envName(i.name)}: \${{ inputs.${i.name} }}\n`);
  });

  it('never writes ${{ }} into the run script', () => {
    const body = script(get());
    expect(body).not.toContain('${{');
    // And in the file itself: every line of both `run: |` blocks (the probe's and the run step's).
    const lines = get().text.split('\n');
    const starts = lines.flatMap((l, i) => (/^\s+run: \|$/.test(l) ? [i] : []));
    expect(starts).toHaveLength(2);
    for (const start of starts) {
      const block = lines.slice(start + 1);
      const end = block.findIndex((l) => !l.startsWith('        '));
      for (const l of end < 0 ? block : block.slice(0, end)) expect(l).not.toContain('${{');
    }
  });

  it(`runs the node check, then exec node "\${GITHUB_ACTION_PATH}/…/dist/index.js" ${spec.command}`, () => {
    const lines = script(get()).trimEnd().split('\n');
    expect(lines.slice(0, NODE_CHECK.length)).toEqual(NODE_CHECK);
    expect(lines).toHaveLength(NODE_CHECK.length + 1);
    const m = /^exec node "\$\{GITHUB_ACTION_PATH\}\/([^"]+)" (\S+)$/.exec(lines.at(-1)!);
    expect(m, lines.at(-1)).not.toBeNull();
    expect(m![2]).toBe(spec.command);
    expect(resolve(REPO, spec.dir, m![1]!)).toBe(BUNDLE);
    expect(existsSync(BUNDLE)).toBe(true);
  });

  it('takes every output from steps.run.outputs under the same name', () => {
    const outputs = get().template.outputs ?? [];
    expect(outputs.map((o) => o.id)).toEqual(spec.outputs.map((o) => o.name));
    for (const o of outputs) expect(text(o.value), o.id).toBe(`\${{ steps.run.outputs.${o.id} }}`);
  });

  it('names inputs and outputs in kebab-case', () => {
    for (const name of [...declared.map((i) => i.name), ...spec.outputs.map((o) => o.name)]) expect(name).toMatch(KEBAB);
  });

  it('is what `generate-actions` writes from the table (action.yml and README)', () => {
    expect(get().text, 'run `npm run generate-actions` after editing src/action-spec.ts').toBe(renderActionYml(spec));
    if (spec.dir !== '.') {
      expect(readFileSync(join(REPO, spec.dir, 'README.md'), 'utf8'), 'run `npm run generate-actions`').toBe(renderActionReadme(spec));
    }
  });
});

describe('the action table and the code', () => {
  it('has one action.yml per action and no stray ones', () => {
    const onDisk = readdirSync(join(REPO, 'actions'), { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(REPO, 'actions', d.name, 'action.yml')))
      .map((d) => `actions/${d.name}`);
    expect(onDisk.sort()).toEqual(
      ACTIONS.filter((a) => a.dir !== '.')
        .map((a) => a.dir)
        .sort(),
    );
    expect(ACTIONS.filter((a) => a.dir === '.').map((a) => a.command)).toEqual(['pr']);
    expect(new Set(ACTIONS.map((a) => a.command)).size).toBe(ACTIONS.length);
  });

  it('starts every action with the common inputs and never declares an input twice', () => {
    for (const spec of ACTIONS) {
      const names = inputsOf(spec).map((i) => i.name);
      expect(names.slice(0, COMMON_INPUTS.length), spec.command).toEqual(COMMON_INPUTS.map((i) => i.name));
      expect(new Set(names).size, spec.command).toBe(names.length);
      expect(new Set(names.map(envName)).size, spec.command).toBe(names.length);
    }
  });

  it('reads every declared input of each command, and only those, before anything is sent', () => {
    for (const spec of ACTIONS) {
      // Every input set to a value its reader accepts, so no read stops early on an error.
      const valid: Record<string, string> = { 'api-url': 'https://tenant.example', 'deployment-id': '1', source: 'git', mode: 'pr', 'auth-scheme': 'bearer' };
      const r = new InputReader((name) => valid[name], inputsOf(spec));
      readSettingsWith(spec.command, r);
      expect([...r.read].sort(), spec.command).toEqual(
        inputsOf(spec)
          .map((i) => i.name)
          .sort(),
      );
    }
  });

  /** Run `pr` on a closed PR in dry run (nothing is sent, so no server is needed); returns the input names read. */
  async function closedPr(merged: boolean): Promise<{ code: number; out: string[]; err: string[]; read: Set<string> }> {
    // A dry run still reads the platform (which branches would go): the emulator answers.
    const em = await startEmulator({ seed: 'demo' });
    try {
      return await closedPrOn(merged, em);
    } finally {
      await em.close();
    }
  }

  async function closedPrOn(merged: boolean, em: Emulator): Promise<{ code: number; out: string[]; err: string[]; read: Set<string> }> {
    const event = join(mkdtempSync(join(tmpdir(), 'dmci-event-')), 'event.json');
    const sha = '0123456789abcdef0123456789abcdef01234567';
    const repo = { full_name: 'octo/repo' };
    const pull_request = { number: 7, merged, title: 't', head: { sha, ref: 'f', repo }, base: { ref: 'main', repo } };
    writeFileSync(event, JSON.stringify({ action: 'closed', number: 7, pull_request }));
    const env = {
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: event,
      DATAMODEL_CI_API_URL: em.baseUrl,
      DATAMODEL_CI_API_KEY: em.credentials.admin,
      DATAMODEL_CI_CA_CERT: em.ca,
      DATAMODEL_CI_DEPLOYMENT_ID: '1',
      DATAMODEL_CI_DRY_RUN: 'true',
      // Stray variables of the job, named like inputs the root action does not declare.
      DATAMODEL_CI_KEEP_BRANCH: 'true',
      DATAMODEL_CI_MESSAGE: 'stray message',
    };
    /** Names that yielded a value. */
    const read = new Set<string>();
    // eslint-disable-next-line @typescript-eslint/unbound-method -- the original, called below with the spied instance as `this`
    const raw = InputReader.prototype.raw;
    const spy = vi.spyOn(InputReader.prototype, 'raw').mockImplementation(function (this: InputReader, name: string) {
      const value = raw.call(this, name);
      if (value !== undefined) read.add(name);
      return value;
    });
    const out: string[] = [];
    const err: string[] = [];
    try {
      const code = await runActionCommand('pr', [], { out: (l) => out.push(l), err: (l) => err.push(l), env });
      return { code, out, err, read };
    } finally {
      spy.mockRestore();
    }
  }

  it("runs the pr command on a closed PR with only the root action's inputs set (merged or not)", async () => {
    for (const merged of [false, true]) {
      const r = await closedPr(merged);
      // The log is on stderr now; no line of it is a warning or an error.
      expect(
        r.err.filter((l) => /^(warning|error):/.test(l)),
        `merged=${merged}`,
      ).toEqual([]);
      expect(r.code, `merged=${merged}`).toBe(0);
      expect(r.out).toContain('status=cleaned');
      expect(r.out).toContain(`merged=${merged}`);
    }
  });

  // On a merged PR, `pr` runs the merge-to-default step; a stray DATAMODEL_CI_MESSAGE or
  // DATAMODEL_CI_KEEP_BRANCH variable of the job must not reach it.
  it('the pr command reads only inputs the root action declares', async () => {
    const declared = new Set(inputsOf(ACTIONS.find((a) => a.command === 'pr')!).map((i) => i.name));
    for (const merged of [false, true]) {
      const r = await closedPr(merged);
      expect(
        [...r.read].filter((n) => !declared.has(n)),
        `read by pr (merged=${merged}) but not declared in action.yml`,
      ).toEqual([]);
    }
  });
});

describe('the node check of every step', () => {
  const check = NODE_CHECK.join('\n');

  function runCheck(path: string): { status: number | null; stdout: string } {
    const file = join(mkdtempSync(join(tmpdir(), 'dmci-check-')), 'check.sh');
    writeFileSync(file, `${check}\necho node-ok\n`);
    const r = spawnSync('/bin/bash', [...BASH, file], { env: { PATH: path }, encoding: 'utf8' });
    return { status: r.status, stdout: r.stdout };
  }

  /** A folder with an executable `node` that answers like the given script. */
  function fakeNode(body: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'dmci-node-'));
    writeFileSync(join(dir, 'node'), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, 'node'), 0o755);
    return dir;
  }

  it('is the first thing in every action.yml', () => {
    for (const spec of ACTIONS) expect(readFileSync(ymlPath(spec), 'utf8')).toContain(`      run: |\n${NODE_CHECK.map((l) => `        ${l}`).join('\n')}\n`);
  });

  /** A node that prints `version` for `node -p` and `v<version>` for `node --version`. */
  const nodeOf = (version: string) => fakeNode(`case "$1" in -p) echo ${version} ;; --version) echo v${version} ;; *) exit 9 ;; esac`);

  it('fails with ::error below the floor of package.json engines: 20.19, 22.12 and 23.11', () => {
    for (const version of ['20.19.5', '22.12.0', '23.11.1']) {
      const r = runCheck(`${nodeOf(version)}:/usr/bin:/bin`);
      expect(r.status, version).toBe(1);
      expect(r.stdout).toMatch(
        new RegExp(`^::error title=datamodel-ci::Node\\.js 22\\.13\\+ or 24\\+ is needed on the runner; found v${version.replace(/\./g, '\\.')}\\.`, 'm'),
      );
      expect(r.stdout).not.toContain('node-ok');
    }
  });

  it('passes on 22.13, 24 and later', () => {
    for (const version of ['22.13.0', '22.23.3', '24.0.0', '26.10.0']) {
      const r = runCheck(`${nodeOf(version)}:/usr/bin:/bin`);
      expect(r.stdout.trim(), version).toBe('node-ok');
    }
  });

  it('says the same floor as package.json engines', () => {
    const engines = (JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } }).engines.node;
    expect(engines).toBe(`^${NODE_FLOOR.major}.${NODE_FLOOR.minor}.0 || >=24`);
  });

  it('fails with ::error when there is no node at all', () => {
    const r = runCheck(mkdtempSync(join(tmpdir(), 'dmci-empty-')));
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('Node.js 22.13+ or 24+');
    expect(r.stdout).toContain('found no node');
  });

  /** The first step's verdict, as GITHUB_OUTPUT receives it, and what it printed. */
  function runProbe(path: string): { old: string | undefined; stdout: string } {
    const dir = mkdtempSync(join(tmpdir(), 'dmci-probe-'));
    writeFileSync(join(dir, 'probe.sh'), `${NODE_PROBE.join('\n')}\n`);
    writeFileSync(join(dir, 'out'), '');
    const r = spawnSync('/bin/bash', [...BASH, join(dir, 'probe.sh')], { env: { PATH: path, GITHUB_OUTPUT: join(dir, 'out') }, encoding: 'utf8' });
    expect(r.status).toBe(0);
    return { old: /^old=(.*)$/m.exec(readFileSync(join(dir, 'out'), 'utf8'))?.[1], stdout: r.stdout };
  }

  it('the first step asks for Node 24 below the floor, with no node and on garbage; not on 22.13, 24 and later', () => {
    for (const version of ['20.19.5', '22.12.0', '23.11.1']) {
      const r = runProbe(`${nodeOf(version)}:/usr/bin:/bin`);
      expect(r.old, version).toBe('true');
      expect(r.stdout).toContain(
        `::notice title=datamodel-ci::the runner's node is v${version}, older than Node.js 22.13+ or 24+: this action sets up Node.js 24`,
      );
    }
    expect(runProbe(mkdtempSync(join(tmpdir(), 'dmci-empty-'))).old).toBe('true');
    expect(runProbe(`${fakeNode('echo v18.20.0')}:/usr/bin:/bin`).old).toBe('true');
    for (const version of ['22.13.0', '24.0.0', '26.10.0']) {
      const r = runProbe(`${nodeOf(version)}:/usr/bin:/bin`);
      expect(r.old, version).toBe('false');
      expect(r.stdout).toBe('');
    }
  });

  it('every action.yml sets up Node 24 with a pinned actions/setup-node only when the first step says so, then checks and runs', () => {
    expect(SETUP_NODE).toMatch(/^actions\/setup-node@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
    for (const spec of ACTIONS) {
      const yml = readFileSync(ymlPath(spec), 'utf8');
      const steps = yml.slice(yml.indexOf('  steps:\n'));
      expect(steps, spec.dir).toMatch(
        new RegExp(
          `^  steps:\\n    - id: node\\n      shell: bash\\n      run: \\|\\n[\\s\\S]*?\\n    - if: steps\\.node\\.outputs\\.old == 'true'\\n      uses: ${SETUP_NODE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n      with:\\n        node-version: 24\\n    - id: run\\n`,
        ),
      );
    }
  });

  it('passes with the node running this test', () => {
    const r = runCheck(`${dirname(process.execPath)}:/usr/bin:/bin`);
    expect(r.stdout.trim()).toBe('node-ok');
    expect(r.status).toBe(0);
  });

  // `[ x -ge 24 ]` on a non-number is a test error that `if` reads as false: the check must fail closed.
  it('fails closed when node -p prints something other than a version (v18.20.0)', () => {
    const dir = fakeNode('echo v18.20.0');
    const r = runCheck(`${dir}:/usr/bin:/bin`);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('::error');
    expect(r.stdout).toContain('Node.js 22.13+ or 24+');
  });
});
