/**
 * The data diff's plan, made before the first platform call: whether it may run here (off until enabled;
 * a public repository needs its own allow; never for a fork's pull request) and the team's key queries,
 * read and checked. The run is an operation (src/operations/data-diff.ts).
 */
import { probesRefusal } from '../access/probes.js';
import { readKeyQueriesFile } from './queries-file.js';
import type { DataDiffSettings, KeyQuery } from './types.js';

/** What the data diff asks of the event: a fork's pull request, a public repository. */
export interface PullRequestFacts {
  pr?: { fork: boolean } | undefined;
  repositoryPublic: boolean;
}

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
}

export async function planDataDiff(settings: DataDiffSettings, run: PullRequestFacts): Promise<DataDiffPlan> {
  const refusal = dataDiffRefusal(settings, run);
  // Read whenever given, even with the data diff off: a wrong path is said now, not when it is turned on.
  const fileQueries = settings.queriesFile ? await readKeyQueriesFile(settings.queriesFile) : [];
  const probes = probesRefusal(settings, run);
  return { settings, fileQueries, ...(refusal ? { refusal } : {}), ...(probes ? { probesRefusal: probes } : {}), ...(run.pr?.fork ? { fork: true } : {}) };
}
