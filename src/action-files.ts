/**
 * Render the action.yml of every action from the table in action-spec.ts (`datamodel-ci
 * generate-actions` writes them; a test fails when a committed file differs).
 */
import { COMMON_INPUTS, envName, inputsOf, type ActionSpec, type InputSpec } from './action-spec.js';

const q = (s: string) => JSON.stringify(s);

/**
 * The oldest Node.js the bundle supports, as package.json `engines` says (`^22.13.0 || >=24`): 22 is the
 * oldest line still maintained (20 ended in April 2026) and 22.13 the oldest the dependencies accept.
 */
export const NODE_FLOOR = { major: 22, minor: 13, text: 'Node.js 22.13+ or 24+' } as const;

/** actions/setup-node pinned to a commit: the actions set up Node.js 24 themselves on a runner whose node is older. */
export const SETUP_NODE = 'actions/setup-node@53b83947a5a98c8d113130e565377fae1a50d02f # v6.3.0';

/** Whether the runner's node meets the floor (any non-version text, or no node at all, does not). */
const NODE_OK = [
  'version="$(node -p \'process.versions.node\' 2>/dev/null || echo none)"',
  'major="${version%%.*}"; minor="${version#*.}"; minor="${minor%%.*}"',
  `if { [ "\${major}" -ge 24 ] || { [ "\${major}" -eq ${NODE_FLOOR.major} ] && [ "\${minor}" -ge ${NODE_FLOOR.minor} ]; }; } 2>/dev/null; then`,
];

/** The first step: `old=true` in its outputs when the runner's node is below the floor, and a notice saying so. */
export const NODE_PROBE = [
  ...NODE_OK,
  '  echo "old=false" >> "$GITHUB_OUTPUT"',
  'else',
  `  echo "::notice title=datamodel-ci::the runner's node is $(node --version 2>/dev/null || echo 'missing'), older than ${NODE_FLOOR.text}: this action sets up Node.js 24 (actions/setup-node, from the runner's tool cache when it is there), which stays first on PATH for the job's later steps"`,
  '  echo "old=true" >> "$GITHUB_OUTPUT"',
  'fi',
];

/** The check of the step that runs the bundle, after the setup: it fails closed on anything it cannot read as a version. */
export const NODE_CHECK = [
  ...NODE_OK.slice(0, 2),
  NODE_OK[2]!.replace(/^if \{/, 'if ! {'),
  `  echo "::error title=datamodel-ci::${NODE_FLOOR.text} is needed on the runner; found $(node --version 2>/dev/null || echo 'no node'). The action sets up Node.js 24 when the runner's is older: on a self-hosted runner, let actions/setup-node reach nodejs.org (or fill its tool cache)."`,
  '  exit 1',
  'fi',
];

export function renderActionYml(spec: ActionSpec): string {
  const root = spec.dir === '.';
  const bundle = root ? '${GITHUB_ACTION_PATH}/dist/index.js' : '${GITHUB_ACTION_PATH}/../../dist/index.js';
  const lines: string[] = [
    '# Generated from src/action-spec.ts by `npm run generate-actions`; edit the table, not this file.',
    `name: ${q(spec.title)}`,
    `description: ${q(spec.description)}`,
    'author: datamodel-ci developers',
  ];
  if (root) lines.push('branding:', '  icon: git-pull-request', '  color: blue');
  lines.push('', 'inputs:');
  for (const input of inputsOf(spec)) {
    lines.push(`  ${input.name}:`, `    description: ${q(input.description)}`, `    required: ${input.required ? 'true' : 'false'}`);
    if (input.default !== undefined) lines.push(`    default: ${q(input.default)}`);
  }
  lines.push('', 'outputs:');
  for (const output of spec.outputs) {
    lines.push(`  ${output.name}:`, `    description: ${q(output.description)}`, `    value: \${{ steps.run.outputs.${output.name} }}`);
  }
  lines.push('', 'runs:', '  using: composite', '  steps:', '    - id: node', '      shell: bash', '      run: |');
  for (const l of NODE_PROBE) lines.push(`        ${l}`);
  // Only when the runner's node is older: no step for the user to add, and nothing downloaded otherwise.
  lines.push("    - if: steps.node.outputs.old == 'true'", `      uses: ${SETUP_NODE}`, '      with:', '        node-version: 24');
  lines.push('    - id: run', '      shell: bash', '      env:');
  for (const input of inputsOf(spec)) lines.push(`        ${envName(input.name)}: \${{ inputs.${input.name} }}`);
  lines.push('      run: |');
  for (const l of NODE_CHECK) lines.push(`        ${l}`);
  // exec: the runner signals only the step's shell on cancel; bash does not pass the signal on, so node
  // must be that process to stop a dbt run or an upload cleanly.
  lines.push(`        exec node "${bundle}" ${spec.command}`);
  return `${lines.join('\n')}\n`;
}

const cell = (s: string) => s.replace(/\|/g, '\\|');

function inputTable(inputs: readonly InputSpec[]): string[] {
  const out = ['| Input | Required | Default | Description |', '|---|---|---|---|'];
  for (const i of inputs) {
    const def = i.default === undefined || i.default === '' ? '' : `\`${i.default}\``;
    out.push(`| \`${i.name}\` | ${i.required ? 'yes' : 'no'} | ${cell(def)} | ${cell(i.description)} |`);
  }
  return out;
}

function outputTable(spec: ActionSpec): string[] {
  if (!spec.outputs.length) return ['No outputs.'];
  return ['| Output | Description |', '|---|---|', ...spec.outputs.map((o) => `| \`${o.name}\` | ${cell(o.description)} |`)];
}

/** The inputs and outputs tables of an action (for its own README). */
export function renderTables(spec: ActionSpec): string {
  return [...inputTable(inputsOf(spec)), '', ...outputTable(spec)].join('\n');
}

export function renderActionReadme(spec: ActionSpec): string {
  const uses = spec.dir === '.' ? 'your-org/datamodel-ci@v1' : `your-org/datamodel-ci/${spec.dir}@v1`;
  return `<!-- Generated from src/action-spec.ts by \`npm run generate-actions\`. -->
# ${spec.title}

${spec.description}

\`\`\`yaml
- uses: ${uses}
  with:
    api-url: \${{ vars.PLATFORM_API_URL }}
    api-key: \${{ secrets.PLATFORM_API_KEY }}
    deployment-id: \${{ vars.PLATFORM_DEPLOYMENT_ID }}
\`\`\`

It runs \`node dist/index.js ${spec.command}\` from this repository's bundle, on the runner's node when it is
${NODE_FLOOR.text}, else on Node.js 24 that it sets up itself (no \`actions/setup-node\` step needed). Every
input reaches the process as a \`DATAMODEL_CI_*\` variable; the same command runs in a terminal as
\`datamodel-ci ${spec.command}\` ([docs/cli.md](../../docs/cli.md)).

${renderTables(spec)}
`;
}

/** The page that lists every action's inputs and outputs (generated into it between these markers). */
export const ACTIONS_DOC = 'docs/actions.md';
export const TABLES_START = '<!-- action-tables:start (generated by `npm run generate-actions`) -->';
export const TABLES_END = '<!-- action-tables:end -->';

/** The inputs every action shares, once, then what each action adds and outputs. */
export function renderActionTables(specs: readonly ActionSpec[]): string {
  const shared = ['## Inputs every action takes', '', ...inputTable(COMMON_INPUTS)].join('\n');
  const parts = specs.map((spec) => {
    const where = spec.dir === '.' ? '`action.yml` (root)' : `\`${spec.dir}\``;
    const own = spec.inputs.length ? inputTable(spec.inputs) : ['No inputs beyond the shared ones.'];
    return [`## ${spec.title}`, '', `${where}: ${spec.description}`, '', ...own, '', ...outputTable(spec)].join('\n');
  });
  return `${TABLES_START}\n${[shared, ...parts].join('\n\n')}\n${TABLES_END}`;
}

/** Replace the generated tables of the actions page; the markers must be there. */
export function updateActionTables(doc: string, specs: readonly ActionSpec[]): string {
  const start = doc.indexOf(TABLES_START);
  const end = doc.indexOf(TABLES_END);
  if (start === -1 || end === -1 || end < start) throw new Error(`${ACTIONS_DOC}: the action-tables markers are missing`);
  return doc.slice(0, start) + renderActionTables(specs) + doc.slice(end + TABLES_END.length);
}

const EXAMPLE_BLOCK = /<!-- example:start (\S+) -->\n[\s\S]*?<!-- example:end -->/g;

/** The pages whose workflow blocks are copies of examples/workflows/. */
export const EXAMPLE_DOCS = ['README.md', 'docs/workflows.md', 'docs/production.md'];

/**
 * Replace every `<!-- example:start <file> -->…<!-- example:end -->` block of a page with the file of
 * examples/workflows, so the docs show exactly the workflows the end-to-end tests run.
 */
export function updateExamples(doc: string, read: (file: string) => string): string {
  return doc.replace(EXAMPLE_BLOCK, (_m, file: string) => `<!-- example:start ${file} -->\n\`\`\`yaml\n${read(file).trimEnd()}\n\`\`\`\n<!-- example:end -->`);
}
