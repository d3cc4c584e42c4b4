/** The `agents-folder` input: the folder of the agents' configuration, relative to model-dir (docs/agents.md). */
import { InputError } from './client/errors.js';
import { DEFAULTS } from './defaults.js';
import type { InputReader } from './input-reader.js';

const EXPECTED = 'a folder inside model-dir, relative to it, without ".." segments (such as agents or ai/agents)';

/** The folder as the check compares paths: `./x/` and `x` are one folder; absolute, `..` and empty are refused. */
export function normalAgentsFolder(value: string): string | undefined {
  const parts = value.trim().replace(/\\/g, '/').split('/');
  if (value.trim().startsWith('/') || /^[a-z]:$/i.test(parts[0] ?? '')) return undefined;
  const kept = parts.filter((p) => p !== '' && p !== '.');
  if (!kept.length || kept.includes('..') || kept.some((p) => /[*?[\]{}]/.test(p) || [...p].some((c) => c.charCodeAt(0) < 32))) return undefined;
  return kept.join('/');
}

export function readAgentsFolderInput(r: InputReader): string {
  const given = r.raw('agents-folder');
  if (given === undefined || given.trim() === '') return DEFAULTS.agentsFolder;
  const folder = normalAgentsFolder(given);
  if (!folder) throw new InputError('agents-folder', given, EXPECTED);
  return folder;
}
