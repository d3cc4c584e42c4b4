/** Bad values of `agents-folder` on each command that reads it: refused (exit 2) before any call. */
import type { Case } from './bad-input-cases.js';

export const AGENTS_CASES: Case[] = (['validate', 'impact'] as const).flatMap((command) => [
  {
    name: `agents-folder outside model-dir (${command})`,
    command,
    env: { DATAMODEL_CI_AGENTS_FOLDER: '../agents' },
    code: 2 as const,
    says: ['agents-folder: got "../agents", expected a folder inside model-dir, relative to it, without ".." segments'],
  },
  {
    name: `agents-folder absolute (${command})`,
    command,
    env: { DATAMODEL_CI_AGENTS_FOLDER: '/srv/agents' },
    code: 2 as const,
    says: ['agents-folder: got "/srv/agents", expected a folder inside model-dir'],
  },
]);
