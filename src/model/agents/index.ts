/**
 * The offline check of the `agents/` folder (docs/agents.md): read the folder, then check it against the
 * pull request's model. Nothing when the folder holds no file: the check is on exactly when it exists.
 */
import { readAgentsFolder } from './folder.js';
import { checkAgainstModel, type AgentsCheck } from './model-check.js';
import type { ModelNames } from './model-names.js';

export type { AgentsCheck, BrokenName } from './model-check.js';
export type { ModelNames, MetaLike } from './model-names.js';
export { namesFromFiles, namesFromMeta } from './model-names.js';
export { agentsPaths, DEFAULT_AGENTS_FOLDER, readAgentsFolder } from './folder.js';
export type * from './types.js';

/** `texts`: the project's files keyed by path under model-dir (the folder's among them). */
export async function checkAgents(
  texts: ReadonlyMap<string, string>,
  model: { head: ModelNames; base?: ModelNames | undefined },
  folder?: string,
): Promise<AgentsCheck | undefined> {
  const read = readAgentsFolder(texts, folder);
  return read ? checkAgainstModel(read, model.head, model.base) : undefined;
}

/** The errors of a check (warnings do not fail it). */
export const agentsErrors = (c: AgentsCheck | undefined) => c?.findings.filter((f) => f.level === 'error') ?? [];
