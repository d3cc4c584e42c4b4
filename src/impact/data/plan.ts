/**
 * The data diff's plan, made before the first platform call: whether it may run here (off until enabled;
 * a public repository needs its own allow; never for a fork's pull request) and the team's key queries,
 * read and checked. The run is an operation (src/operations/data-diff.ts).
 */
import { InputError } from '../../client/errors.js';
import { fileAtCommit } from '../../model/git-commit.js';
import { probesRefusal, type PullRequestFacts } from '../base/pull-request.js';
import { pairKeyQueries } from './query-sides.js';
import { parseKeyQueries, readKeyQueriesFile } from './queries-file.js';
import type { DataDiffSettings, KeyQuery } from './types.js';

/** Why the data diff does not run here, or nothing when it may. */
export function dataDiffRefusal(s: DataDiffSettings, run: PullRequestFacts): string | undefined {
  if (s.mode === 'off') return 'the data diff is off (input data-diff: values or relative turns it on)';
  if (run.pr?.fork) return "this pull request comes from a fork: the data diff never runs for one (production's numbers would reach its author)";
  if (run.repositoryPublic && !s.allowPublic)
    return "the repository is public: production's numbers would be public in this comment; data-diff-allow-public: true allows it";
  return undefined;
}

/** Read before the first platform call: may the data diff run here, and the team's key queries, checked. */
export interface DataDiffPlan {
  settings: DataDiffSettings;
  /** Why the data diff does not run here (off, a fork, a public repository without the allow). */
  refusal?: string;
  fileQueries: KeyQuery[];
  /** Why the persona probes do not run here (a fork, a public repository without the allow); `off` does not stop them. */
  probesRefusal?: string;
  /** The pull request comes from a fork: no token is minted for it, whatever the mode (the rollup plans ask). */
  fork?: boolean;
  /** What the key queries per side came to (the base's file read or not, queries new or gone), said once the run starts. */
  queryNotes?: string[];
}

/**
 * The key queries as the base has them: the `data-diff-base-queries` file (bad input when wrong), else in a
 * pull request's run the key-queries file at the event's base commit (read with git). The base's own
 * mistake is not the pull request's: a base file that cannot be read is a note, and both sides run the head's.
 */
async function baseKeyQueries(s: DataDiffSettings, run: PullRequestFacts): Promise<{ queries?: KeyQuery[]; note?: string }> {
  if (s.baseQueriesFile) return { queries: await readKeyQueriesFile(s.baseQueriesFile, 'data-diff-base-queries') };
  const sha = run.pr?.baseSha ?? run.group?.baseSha;
  if (!s.queriesFile || !sha) return {};
  const at = `${s.queriesFile} at the base commit ${sha.slice(0, 7)}`;
  const both = "both sides run the pull request's key queries";
  const read = await fileAtCommit(s.queriesFile, sha);
  if ('missing' in read) return { note: `the base commit has no ${s.queriesFile}: ${both}` };
  if ('problem' in read) return { note: `${at} could not be read (${read.problem}): ${both}` };
  try {
    return { queries: parseKeyQueries(read.text, at) };
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return { note: `${at} is not a key-queries file (${e.message}): ${both}` };
  }
}

export async function planDataDiff(settings: DataDiffSettings, run: PullRequestFacts): Promise<DataDiffPlan> {
  const refusal = dataDiffRefusal(settings, run);
  // Read whenever given, even with the data diff off: a wrong path is said now, not when it is turned on.
  const head = settings.queriesFile ? await readKeyQueriesFile(settings.queriesFile) : [];
  const base = await baseKeyQueries(settings, run);
  const paired = base.queries ? pairKeyQueries(head, base.queries) : { queries: head, notes: [] };
  const queryNotes = [...(base.note ? [base.note] : []), ...paired.notes];
  const probes = probesRefusal(settings, run);
  return {
    settings,
    fileQueries: paired.queries,
    ...(refusal ? { refusal } : {}),
    ...(probes ? { probesRefusal: probes } : {}),
    ...(run.pr?.fork ? { fork: true } : {}),
    ...(queryNotes.length ? { queryNotes } : {}),
  };
}
