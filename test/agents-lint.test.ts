/**
 * The offline check of the `agents/` folder (src/model/agents/): on fixtures of the documented shapes
 * (test/fixtures/agents-*, written here), every rule fires on the broken folder, on its file and line,
 * and none fires on the well-formed one; removals are named with what they break.
 */
import { describe, expect, it } from 'vitest';
import { checkAgents, namesFromFiles, namesFromMeta, readAgentsFolder, type AgentsCheck } from '../src/model/agents/index.js';
import { sqlNames } from '../src/model/agents/sql-names.js';
import { agentsView, renderAgents } from '../src/pr/comment/render-agents.js';
import { fixtureTexts, under } from './support/agents-fixtures.js';

const shop = fixtureTexts('agents-shop');
const model = under(shop, 'model/');
/** The shop's model with the broken folder in place of its own. */
const broken = new Map([...model, ...fixtureTexts('agents-broken')]);

const lines = (c: AgentsCheck | undefined) => c?.findings.map((f) => `${f.level} ${f.rule} ${f.file}:${f.line}`);

describe('the agents folder, read', () => {
  it('reads every documented shape of the well-formed folder, with files and lines, and finds nothing', async () => {
    const c = await checkAgents(shop, { head: namesFromFiles(model) });
    expect(c?.findings).toEqual([]);
    const f = c!.folder;
    expect(f.spaces.map((s) => `${s.name}${s.implicit ? ' (implicit)' : ''}`)).toEqual(['auto (implicit)', 'sales-space']);
    expect(f.agents.map((a) => [a.name, a.space, a.at.file, a.at.line, a.accessibleViews.map((v) => `${v.name}@${v.at.line}`)])).toEqual([
      ['auto', 'auto', 'agents/auto.yml', 1, ['sales@5']],
      ['sales-assistant', 'sales-space', 'agents/config.yml', 10, ['sales@16', 'order_status@17']],
      ['status-bot', 'sales-space', 'agents/config.yml', 18, ['order_status@25']],
    ]);
    expect(f.rules.map((r) => [r.name, r.space, r.type, r.at.file])).toEqual([
      ['completed-only', 'sales-space', 'always', 'agents/config.yml'],
      ['fiscal-year', 'sales-space', 'agent_requested', 'agents/rules/fiscal-year.md'],
    ]);
    // Markdown: the name from the file, the SQL from the body (its HTML comment blanked), starting on its line.
    const md = f.certifiedQueries.find((q) => q.name === 'revenue-by-month')!;
    expect([md.space, md.userRequest, md.sqlAt]).toEqual([
      'sales-space',
      'What is our revenue by month?',
      { file: 'agents/certified_queries/revenue-by-month.md', line: 5 },
    ]);
    expect(md.sql).not.toContain('Revenue is the sum');
    expect(f.evalQuestions.map((q) => [q.name, q.space, q.certifiedQuery?.name ?? null, q.sql ? 'sql' : null])).toEqual([
      ['statuses', 'auto', null, 'sql'],
      ['revenue_monthly', 'sales-space', 'revenue-by-month', null],
      ['open_orders', 'sales-space', null, 'sql'],
    ]);
    expect(c!.counts).toEqual({ agents: 3, certifiedQueries: 2, evalQuestions: 3, sqlChecked: 4, sqlNotRead: 0 });
  });

  it('is off without the folder, and follows a moved folder (CUBE_CLOUD_AGENTS_CONFIG_PATH)', async () => {
    expect(await checkAgents(model, { head: namesFromFiles(model) })).toBeUndefined();
    const moved = new Map([...model, ...[...shop].filter(([p]) => p.startsWith('agents/')).map(([p, t]) => [`config/ai/${p.slice(7)}`, t] as const)]);
    expect(readAgentsFolder(moved)).toBeUndefined();
    expect(readAgentsFolder(moved, 'config/ai')?.agents.map((a) => a.name)).toEqual(['auto', 'sales-assistant', 'status-bot']);
  });

  it('fires every rule of the broken folder on its file and line', async () => {
    const c = await checkAgents(broken, { head: namesFromFiles(model) });
    expect(lines(c)).toEqual([
      'error yaml agents/broken.yaml:3',
      'warning sql-not-read agents/certified_queries/odd.md:5',
      'error duplicate-certified-query agents/certified_queries/q1.md:1',
      'error unknown-member agents/certified_queries/q1.md:4',
      'error duplicate-space agents/config.yml:3',
      'error required agents/config.yml:4',
      'error value agents/config.yml:9',
      'error value agents/config.yml:10',
      'error shape agents/config.yml:11',
      'error duplicate-agent agents/config.yml:12',
      'error unknown-space agents/config.yml:13',
      'error not-a-view agents/config.yml:15',
      'error unknown-view agents/config.yml:16',
      'error required agents/config.yml:17',
      'warning unknown-key agents/config.yml:18',
      'error ground-truth agents/eval_questions/main.yml:2',
      'error ground-truth agents/eval_questions/main.yml:6',
      'error duplicate-eval-question agents/eval_questions/main.yml:8',
      'error unknown-certified-query agents/eval_questions/main.yml:13',
      'error unknown-table agents/eval_questions/main.yml:16',
      'error mixed-forms agents/mixed.yml:1',
      'error kind agents/notes/what.md:1',
      'error duplicate-rule agents/rules/bad.md:1',
      'error value agents/rules/bad.md:3',
      'error frontmatter agents/rules/plain.md:1',
    ]);
    const text = (rule: string) => c!.findings.find((f) => f.rule === rule)!.message;
    // Each message names the value and what was expected.
    expect(text('unknown-member')).toBe(
      "certified query q1 names sales.missing_member, which view sales does not have (checked against the pull request's model files)",
    );
    expect(text('unknown-space')).toBe('agent helper names space "marketing-space", which no file declares (declared: `auto`, `sales-space`)');
    expect(text('shape')).toBe('`accessible_views` of agent helper is "sales"; expected a list');
    expect(text('not-a-view')).toContain('orders');
  });

  it("resolves a certified query only in the question's space, and says where it is instead", async () => {
    const texts = new Map([
      ...model,
      ['agents/certified_queries/q.md', '---\nspace: other\nuser_request: Count\n---\nSELECT MEASURE(count) FROM sales\n'],
      ['agents/spaces.yml', 'spaces:\n  - name: other\n'],
      ['agents/eval_questions.yml', 'eval_questions:\n  - name: count\n    question: How many?\n    certifiedQuery: q\n'],
    ]);
    const c = await checkAgents(texts, { head: namesFromFiles(model) });
    expect(c?.findings.map((f) => f.message)).toEqual([
      'eval question count names certified query "q", which space auto does not define (it is in space other, agents/certified_queries/q.md:1)',
    ]);
  });
});

describe('the agents folder against the model', () => {
  /** The shop's model without the view `order_status` and without `orders.status` (so `sales.status` goes too). */
  const shrunk = new Map(model);
  shrunk.set(
    'model/views/sales.yml',
    (model.get('model/views/sales.yml') as string).replace(/\n {2}- name: order_status[\s\S]*$/, '\n').replace('          - status\n', ''),
  );
  shrunk.set('model/cubes/orders.yml', (model.get('model/cubes/orders.yml') as string).replace(/ {6}- name: status\n.*\n.*\n/, ''));

  it('names each removal with the agents, certified queries and questions it breaks; a removed view is an error on the agent and on its definition', async () => {
    const c = await checkAgents(shop, { head: namesFromFiles(shrunk), base: namesFromFiles(model) });
    expect(lines(c)).toEqual([
      'error removed-member agents/auto.yml:10',
      'error removed-view agents/config.yml:17',
      'error removed-view agents/config.yml:25',
      'error removed-member agents/eval_questions.yml:5',
      'error removed-table agents/eval_questions/sales.yml:8',
      'error removed-view model/views/sales.yml:11',
      'error removed-view model/views/sales.yml:11',
    ]);
    expect(c!.findings.find((f) => f.file === 'agents/config.yml')!.message).toBe(
      'agent sales-assistant lists view order_status in `accessible_views`, which this pull request removes',
    );
    expect(c!.findings.find((f) => f.file.startsWith('model/'))!.message).toBe(
      'view order_status, removed by this pull request, is in `accessible_views` of agent sales-assistant (agents/config.yml:17)',
    );
    expect(c!.broken).toEqual([
      { name: 'order_status', kind: 'view', agents: ['sales-assistant', 'status-bot'], certifiedQueries: [], evalQuestions: ['open_orders'] },
      { name: 'sales.status', kind: 'member', agents: ['auto', 'sales-assistant'], certifiedQueries: ['orders-by-status'], evalQuestions: ['statuses'] },
    ]);
  });

  it('checks against the compiled model where the run has it, and says so', async () => {
    const meta = {
      cubes: [
        { name: 'orders', type: 'cube' as const, members: [{ name: 'orders.count' }] },
        { name: 'sales', type: 'view' as const, members: ['count', 'total_amount', 'status', 'created_at'].map((m) => ({ name: `sales.${m}` })) },
      ],
    };
    const c = await checkAgents(shop, { head: namesFromMeta(meta) });
    expect(c?.source).toBe('compiled');
    expect(c?.findings.map((f) => f.message)).toEqual([
      "agent sales-assistant lists view order_status in `accessible_views`, which the model does not have (checked against the pull request's compiled model)",
      "agent status-bot lists view order_status in `accessible_views`, which the model does not have (checked against the pull request's compiled model)",
      "eval question open_orders queries order_status, which the model does not have as a cube or view (checked against the pull request's compiled model)",
    ]);
  });

  it('guesses no error where the local model may be short (a templated file)', async () => {
    const texts = new Map([...shop, ['model/views/more.yml.jinja', '{% for v in views %}...{% endfor %}']]);
    const head = namesFromFiles(under(new Map([...shrunk, ['model/views/more.yml.jinja', 'x']]), 'model/'));
    expect(head.complete).toBe(false);
    const c = await checkAgents(texts, { head });
    expect(c?.findings.filter((f) => f.rule.startsWith('unknown-view') || f.rule === 'unknown-table')).toEqual([]);
  });
});

describe('the names a query of the SQL API uses', () => {
  it('resolves tables, aliases and MEASURE(...) columns of one SELECT', async () => {
    expect(await sqlNames("SELECT s.status, MEASURE(s.count) AS n FROM sales AS s WHERE created_at > '2024-01-01' GROUP BY 1 ORDER BY n")).toEqual({
      tables: ['sales'],
      columns: [
        { table: 'sales', column: 'status' },
        { table: 'sales', column: 'count' },
        { table: 'sales', column: 'created_at' },
      ],
      columnsResolved: true,
    });
  });

  it('guesses no column through subqueries, CTEs or unqualified joins, and skips the catalogue', async () => {
    expect(await sqlNames('WITH t AS (SELECT status FROM sales) SELECT status FROM t')).toEqual({ tables: ['sales'], columns: [], columnsResolved: false });
    expect(await sqlNames('SELECT status FROM sales WHERE count > (SELECT 1 FROM orders)')).toMatchObject({ tables: ['sales', 'orders'], columns: [] });
    const joined = await sqlNames('SELECT status, o.count FROM sales s CROSS JOIN orders o');
    expect(joined).toEqual({ tables: ['sales', 'orders'], columns: [{ table: 'orders', column: 'count' }], columnsResolved: false });
    expect((await sqlNames('SELECT table_name FROM information_schema.tables')).tables).toEqual([]);
    expect((await sqlNames('SELEKT nothing')).problem).toBeTruthy();
  });
});

describe('the Agents section', () => {
  it('renders outside text inert: names in code spans, messages escaped, no mention or link of its own', async () => {
    const texts = new Map([
      ...model,
      [
        'agents/config.yml',
        'agents:\n  - name: "@octocat <img src=x onerror=alert(1)>"\n    space: auto\n    accessible_views:\n      - "[x](https://evil.example)"\n',
      ],
    ]);
    const c = await checkAgents(texts, { head: namesFromFiles(model) });
    const md = renderAgents(agentsView(c!), { target: 'comment', repoUrl: 'https://github.com/o/r', headSha: 'abc' }).join('\n');
    // Backslash-escaped, the tag and the link show as text; the mention is broken by a zero-width space.
    expect(md).toContain('\\<img src\\=x onerror\\=alert\\(1\\)\\>');
    expect(md).not.toMatch(/(^|[^\\])<img/);
    expect(md).not.toContain('](https://evil.example)');
    expect(md).not.toMatch(/@octocat/);
    expect(md).toContain('[agents/config\\.yml\\:5](https://github.com/o/r/blob/abc/agents/config.yml#L5)');
  });
});
