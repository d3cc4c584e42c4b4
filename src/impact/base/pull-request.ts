/**
 * What the run knows of the pull request that decides whether production's data may be read for it (a fork's
 * pull request, a public repository, the base commit), and the persona probes' refusal, which the data diff's
 * plan carries. Pure.
 */

/** What the data diff asks of the event: a fork's pull request, a public repository, the base commit. */
export interface PullRequestFacts {
  pr?: { fork: boolean; baseSha?: string } | undefined;
  group?: { baseSha: string } | undefined;
  repositoryPublic: boolean;
}

/** Why the probes do not run here: never for a fork, and a public repository needs the data diff's own allow; `off` does not stop them. */
export function probesRefusal(s: { allowPublic: boolean }, run: PullRequestFacts): string | undefined {
  if (run.pr?.fork) return "this pull request comes from a fork: persona probes never run for one (production's row counts would reach its author)";
  if (run.repositoryPublic && !s.allowPublic)
    return "the repository is public: production's row counts would be public in this comment; data-diff-allow-public: true allows the persona probes";
  return undefined;
}
