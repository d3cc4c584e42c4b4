/**
 * Production's last complete evaluation run (`evals-production: last-complete`): every page of the
 * deployment's runs (`GET …/evaluations`, by cursor, with the results' fail-closed page rules), and the
 * newest run shown to be production's: status `completed`, `branchName` the deploy branch, the agent asked
 * (`evals-agent`, else the platform's default `auto`), no `questionFile` (the whole set), and a `createdAt`
 * date. A run not shown to be production's is never reused; when a candidate carries no date, which one is
 * newest is not known and none is reused. No such run: the caller starts one, and says why.
 */
import { messageOf } from '../../client/errors.js';
import { DEFAULTS } from '../../defaults.js';
import { plural } from '../../report/plural.js';
import type { OpContext } from '../context.js';
import type { ReusedRun } from './delta.js';

/** The platform's default agent when none is named (the vendor's CLI: "defaults to the auto agent"). */
export const DEFAULT_AGENT = 'auto';

/** A page not whole, as the results' rules say: the reason, or undefined for a whole page. */
export function pageProblem(page: { items?: unknown; pageInfo?: unknown }, after: string | undefined, noun = 'page'): string | undefined {
  if (!Array.isArray(page.items)) return `a ${noun} whose items is not a list`;
  const info = page.pageInfo as Record<string, unknown> | null | undefined;
  const more = info && typeof info === 'object' ? info.hasNextPage : undefined;
  if (typeof more !== 'boolean') return `an incomplete ${noun} (hasNextPage missing or not a boolean)`;
  if (!more) return undefined;
  const cursor = info?.endCursor;
  if (typeof cursor !== 'string' || cursor === '' || cursor === after) return `an incomplete ${noun} (hasNextPage with no cursor to follow)`;
  return undefined;
}

/** Every item of a cursor list, page by page under `pageProblem`'s rules: the items, or why the list is not whole. */
export async function wholeList(
  read: (after: string | undefined) => Promise<{ items?: unknown; pageInfo?: unknown }>,
  noun: string,
): Promise<unknown[] | string> {
  const out: unknown[] = [];
  let after: string | undefined;
  for (let n = 0; n < DEFAULTS.evalsMaxPages; n += 1) {
    const page = await read(after);
    const problem = pageProblem(page, after, noun);
    if (problem) return problem;
    out.push(...(page.items as unknown[]));
    const info = page.pageInfo as { hasNextPage: boolean; endCursor?: string };
    if (!info.hasNextPage) return out;
    after = info.endCursor;
  }
  return `more than ${DEFAULTS.evalsMaxPages} ${noun}s`;
}

const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v : undefined);

/** The run to reuse, or the one line saying why none is (pure: the list's records as the platform gave them). */
export function pickProductionRun(runs: unknown[], o: { branch: string; agent?: string }): { run: ReusedRun } | { none: string } {
  const agent = (o.agent ?? DEFAULT_AGENT).toLowerCase();
  const candidates: Array<{ run: ReusedRun; at: number }> = [];
  let undated = 0;
  let branchNotShown = 0;
  for (const raw of runs) {
    if (!raw || typeof raw !== 'object') continue;
    const r = raw as Record<string, unknown>;
    const id = typeof r.id === 'number' ? String(r.id) : text(r.id);
    if (!id || (text(r.status) ?? '').toLowerCase() !== 'completed') continue;
    const branch = text(r.branchName);
    if (branch === undefined) {
      branchNotShown += 1;
      continue;
    }
    if (branch !== o.branch || (text(r.agentName) ?? '').toLowerCase() !== agent || text(r.questionFile)) continue;
    const createdAt = text(r.createdAt);
    const at = createdAt ? Date.parse(createdAt) : NaN;
    if (!createdAt || Number.isNaN(at)) {
      undated += 1;
      continue;
    }
    const completedAt = text(r.completedAt);
    candidates.push({ run: { runId: id, createdAt, ...(completedAt ? { completedAt } : {}) }, at });
  }
  if (undated) {
    const which = undated === 1 ? 'a completed run' : `${undated} completed runs`;
    return { none: `${which} on ${o.branch} ${undated === 1 ? 'carries' : 'carry'} no creation date: which is newest is not known` };
  }
  const newest = candidates.sort((a, b) => b.at - a.at)[0];
  if (newest) return { run: newest.run };
  const agentName = o.agent ?? `the default agent (${DEFAULT_AGENT})`;
  const why = `no completed run of ${agentName} on ${o.branch} over the whole question set`;
  const unshown = `${plural(branchNotShown, 'completed run')} ${branchNotShown === 1 ? 'does not say its' : 'do not say their'} branch`;
  return { none: branchNotShown ? `${why} (${unshown}, so none is shown to be production's)` : why };
}

/** Every run the deployment lists, page by page; a string saying why the list could not be read whole. */
export async function listRuns(ctx: OpContext): Promise<unknown[] | string> {
  try {
    const runs = await wholeList(
      (after) => ctx.client.evaluations.list({ deploymentId: ctx.deploymentId, query: after ? { after } : {} }, { signal: ctx.signal }),
      'page',
    );
    return typeof runs === 'string' ? `the list of runs has ${runs}` : runs;
  } catch (e) {
    if (ctx.signal?.aborted) throw e;
    return `the list of runs could not be read: ${messageOf(e)}`;
  }
}

/** Production's last complete run, or the one line saying why a run is started instead. */
export async function lastCompleteRun(ctx: OpContext, o: { branch: string; agent?: string }): Promise<{ run: ReusedRun } | { none: string }> {
  const runs = await listRuns(ctx);
  return typeof runs === 'string' ? { none: runs } : pickProductionRun(runs, o);
}
