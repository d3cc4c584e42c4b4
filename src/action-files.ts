/**
 * Render the action.yml of every action from the table in action-spec.ts (`datamodel-ci
 * generate-actions` writes them; a test fails when a committed file differs).
 */
import { envName, inputsOf, type ActionSpec } from './action-spec.js';

const q = (s: string) => JSON.stringify(s);

/** The node check every composite step runs first. */
export const NODE_CHECK = [
  'major="$(node -p \'process.versions.node.split(".")[0]\' 2>/dev/null || echo 0)"',
  'if [ "${major}" -lt 20 ]; then',
  '  echo "::error title=datamodel-ci::Node.js 20 or newer is needed on the runner; found $(node --version 2>/dev/null || echo \'no node\'). Add actions/setup-node (node-version: 20) before this step."',
  '  exit 1',
  'fi',
];

export function renderActionYml(spec: ActionSpec): string {
  const root = spec.dir === '.';
  const bundle = root ? '${GITHUB_ACTION_PATH}/dist/index.js' : '${GITHUB_ACTION_PATH}/../../dist/index.js';
  const lines: string[] = [
    '# Generated from src/action-spec.ts by `node dist/index.js generate-actions`; edit the table, not this file.',
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
  lines.push('', 'runs:', '  using: composite', '  steps:', '    - id: run', '      shell: bash', '      env:');
  for (const input of inputsOf(spec)) lines.push(`        ${envName(input.name)}: \${{ inputs.${input.name} }}`);
  lines.push('      run: |');
  for (const l of NODE_CHECK) lines.push(`        ${l}`);
  lines.push(`        node "${bundle}" ${spec.command}`);
  return `${lines.join('\n')}\n`;
}

const cell = (s: string) => s.replace(/\|/g, '\\|');

/** The inputs and outputs tables of an action (for its README and the project README). */
export function renderTables(spec: ActionSpec): string {
  const out = ['| Input | Required | Default | Description |', '|---|---|---|---|'];
  for (const i of inputsOf(spec)) {
    const def = i.default === undefined || i.default === '' ? '' : `\`${i.default}\``;
    out.push(`| \`${i.name}\` | ${i.required ? 'yes' : 'no'} | ${cell(def)} | ${cell(i.description)} |`);
  }
  out.push('', '| Output | Description |', '|---|---|');
  for (const o of spec.outputs) out.push(`| \`${o.name}\` | ${cell(o.description)} |`);
  return out.join('\n');
}

export function renderActionReadme(spec: ActionSpec): string {
  const uses = spec.dir === '.' ? 'your-org/datamodel-ci@v1' : `your-org/datamodel-ci/${spec.dir}@v1`;
  return `<!-- Generated from src/action-spec.ts by \`node dist/index.js generate-actions\`. -->
# ${spec.title}

${spec.description}

\`\`\`yaml
- uses: ${uses}
  with:
    api-url: \${{ vars.PLATFORM_API_URL }}
    api-key: \${{ secrets.PLATFORM_API_KEY }}
    deployment-id: \${{ vars.PLATFORM_DEPLOYMENT_ID }}
\`\`\`

It runs \`node dist/index.js ${spec.command}\` from this repository's bundle (Node.js 20 or newer on the
runner). Every input reaches the process as a \`DATAMODEL_CI_*\` variable; the same command runs in a
terminal as \`npx datamodel-ci ${spec.command}\`.

${renderTables(spec)}
`;
}
