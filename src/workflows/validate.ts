/** validate: compile a branch with the platform's own compiler; map each error to a repository file and line. */
import { existsSync } from 'node:fs';
import { posix } from 'node:path';
import type { OpContext } from './context.js';

export interface ModelError {
  /** Repository path (model-dir joined with the platform's file name), when known. */
  file: string | undefined;
  line: number | undefined;
  /** The message without its `file:line:` prefix. */
  message: string;
}

export interface ValidateResult {
  branch: string;
  valid: boolean;
  errors: ModelError[];
  /** Cubes and views the platform counted, when it says. */
  cubes?: number;
}

/** `model-dir` + name, normalised, never escaping the repository. */
function under(modelDir: string, fileName: string): string | undefined {
  if (fileName.split(/[\\/]/).includes('..')) return undefined;
  const joined = posix.normalize(posix.join(modelDir.split('\\').join('/'), fileName.replace(/^\/+/, '')));
  return joined.startsWith('../') || joined === '..' ? undefined : joined.replace(/^\.\//, '');
}

/**
 * Repository path of a platform file name. The platform names files relative to the project root
 * (`model/cubes/orders.yml`) or to its `model/` folder (`cubes/orders.yml`, as Cube's compiler does):
 * whichever exists in the checkout wins, the project root first.
 */
export function repoPath(modelDir: string, fileName: string): string {
  const candidates = [under(modelDir, fileName), under(posix.join(modelDir.split('\\').join('/'), 'model'), fileName)].filter((c): c is string => !!c);
  return candidates.find((c) => existsSync(c)) ?? candidates[0] ?? fileName;
}

/** Split `model/cubes/orders.yml:12: text` into file, line and text. */
export function parseErrorMessage(message: string, fileName: string | null | undefined): { file?: string; line?: number; text: string } {
  const m = /^([^\s:][^:\n]*?):(\d+)(?::\d+)?:\s*([\s\S]*)$/.exec(message);
  if (m && (!fileName || m[1] === fileName)) return { file: m[1], line: Number(m[2]), text: m[3] as string };
  const bare = fileName && message.startsWith(`${fileName}: `) ? message.slice(fileName.length + 2) : message;
  const inner = /(?:line |:)(\d+)(?::\d+)?\b/.exec(bare);
  return { file: fileName ?? undefined, line: inner && fileName ? Number(inner[1]) : undefined, text: bare };
}

export async function validateBranch(ctx: OpContext, input: { branch: string; modelDir: string }): Promise<ValidateResult> {
  const r = await ctx.client.dataModel.validate({ deploymentId: ctx.deploymentId, query: { branchName: input.branch } }, { signal: ctx.signal });
  const errors = r.errors.map((e) => {
    const parsed = parseErrorMessage(e.message, e.fileName);
    return {
      file: parsed.file ? repoPath(input.modelDir, parsed.file) : undefined,
      line: parsed.line,
      message: parsed.text,
    };
  });
  if (r.valid) ctx.reporter.info(`${input.branch}: the data model is valid (${r.cubesCount ?? '?'} cubes and views)`);
  else {
    ctx.reporter.info(`${input.branch}: ${errors.length} error(s)`);
    for (const e of errors) ctx.reporter.error(e.message, { file: e.file, line: e.line, title: 'data model' });
  }
  return { branch: input.branch, valid: r.valid, errors, ...(typeof r.cubesCount === 'number' ? { cubes: r.cubesCount } : {}) };
}
