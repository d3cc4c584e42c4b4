/**
 * The doctor's agents-folder check: the deployment's own `CUBE_CLOUD_AGENTS_CONFIG_ENABLED` and
 * `CUBE_CLOUD_AGENTS_CONFIG_PATH` (read from its environment variables) beside the `agents-folder` input,
 * so a folder the deployment moved is not silently left unchecked. A value the platform masks is not
 * guessed: the check is then "not checked".
 */
import { normalAgentsFolder } from '../agents-input.js';
import { messageOf } from '../client/errors.js';
import { DEFAULTS } from '../defaults.js';
import type { OpContext } from './context.js';
import type { AddCheck } from './doctor-fed.js';

const NAME = 'agents folder';
const ENABLED = 'CUBE_CLOUD_AGENTS_CONFIG_ENABLED';
const PATH = 'CUBE_CLOUD_AGENTS_CONFIG_PATH';
const MASKED = '[ENCRYPTED]';
/** At most this many variables are read (a deployment holds tens). */
const MAX_VARIABLES = 2_000;

async function variables(ctx: OpContext, names: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let n = 0;
  for await (const v of ctx.client.deployments.iterateEnvVars({ deploymentId: ctx.deploymentId }, { signal: ctx.signal })) {
    if (names.includes(v.name)) out.set(v.name, v.value);
    if ((n += 1) >= MAX_VARIABLES) break;
  }
  return out;
}

/** Compare the deployment's agents settings with `folder` (the `agents-folder` input, normalised). */
export async function agentsFolderCheck(ctx: OpContext, add: AddCheck, folder: string): Promise<void> {
  const checks = `checks ${folder}/ under model-dir (agents-folder)`;
  let vars: Map<string, string>;
  try {
    vars = await variables(ctx, [ENABLED, PATH]);
  } catch (e) {
    if (ctx.signal?.aborted) throw e;
    add(NAME, 'not checked', `the deployment's environment variables could not be read (${messageOf(e)})`, checks);
    return;
  }
  const enabled = vars.get(ENABLED);
  const path = vars.get(PATH);
  if (enabled === MASKED || path === MASKED) {
    add(NAME, 'not checked', `the platform masks ${enabled === MASKED ? ENABLED : PATH}: where the deployment reads its agents is not shown`, checks);
    return;
  }
  if (enabled?.trim().toLowerCase() !== 'true') {
    add(
      NAME,
      'ok',
      `YAML agent configuration is off on this deployment (${ENABLED} is ${enabled === undefined ? 'not set' : JSON.stringify(enabled)}): its agents are not configured from the repository`,
      `${checks} all the same, as what the deployment would load once ${ENABLED} is true`,
    );
    return;
  }
  const read = path === undefined || path.trim() === '' ? DEFAULTS.agentsFolder : normalAgentsFolder(path);
  const where = path === undefined || path.trim() === '' ? `${PATH} not set, so ${DEFAULTS.agentsFolder}/` : `${PATH}=${JSON.stringify(path)}`;
  if (!read) {
    add(NAME, 'failed', `the deployment's ${where} is not a folder inside the project`, `${checks}; the deployment's own setting needs fixing`);
    return;
  }
  if (read === folder) {
    add(NAME, 'ok', `the deployment loads its agents from ${read}/ (${where})`, `${checks}, the folder the deployment loads`);
    return;
  }
  add(
    NAME,
    'failed',
    `the deployment loads its agents from ${read}/ (${where}), but agents-folder is ${folder}`,
    `checks ${folder}/, which the deployment does not load: set agents-folder: ${read}`,
  );
}
