/** The names the toolkit gives a pull request's shared branch (the platform's own rule: the contract's `branchNameProblem`). */

/** Why `prefix` cannot prefix the toolkit's branch names, or undefined. Empty is allowed. */
export function prefixProblem(prefix: string): string | undefined {
  if (prefix === '') return undefined;
  // Lower case only: the shared branch name is lower-cased, and `dev-` is the platform's dev-mode fork prefix.
  if (!/^[a-z0-9][a-z0-9._/-]*$/.test(prefix) || prefix.includes('..') || prefix.includes('//') || prefix.startsWith('dev-')) {
    return 'lower-case letters, digits, ".", "_", "-" or "/", not starting with "dev-" and without ".."';
  }
  return undefined;
}

/** The shared branch of a PR: `<prefix>pr-<number>`, lower-case. One PR, one name; no two PRs share one. */
export function branchForPr(prefix: string, number: number): string {
  return `${prefix}pr-${number}`.toLowerCase();
}

/** The PR number of a branch the toolkit made (`<prefix>pr-<n>`), or undefined for any other name. */
export function prOfBranch(prefix: string, name: string): number | undefined {
  if (!name.startsWith(prefix)) return undefined;
  const m = /^pr-([1-9]\d*)$/.exec(name.slice(prefix.length));
  return m ? Number(m[1]) : undefined;
}

/**
 * The short-lived branch a merge queue entry is validated on: `<prefix>mq-<number>-<first 12 of the
 * group's commit>`, so a rerun of the same entry finds it and two entries never share one.
 */
export function branchForQueue(prefix: string, number: number, headSha: string): string {
  return `${prefix}mq-${number}-${headSha.slice(0, 12)}`.toLowerCase();
}

/** The PR number of a queue branch the toolkit made (`<prefix>mq-<n>-<sha>`), or undefined for any other name. */
export function prOfQueueBranch(prefix: string, name: string): number | undefined {
  if (!name.startsWith(prefix)) return undefined;
  const m = /^mq-([1-9]\d*)-[0-9a-f]{7,40}$/.exec(name.slice(prefix.length));
  return m ? Number(m[1]) : undefined;
}

/**
 * The throwaway branch of `datamodel-ci plan`: `<prefix>plan-<user>-<random>`, the user (when known) as
 * lower-case letters, digits and dashes, so a kept one says whose it is; `random` keeps two runs apart.
 */
export function branchForPlan(prefix: string, user: string | undefined, random: string): string {
  const who = (user ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 16)
    .replace(/-+$/, '');
  return `${prefix}plan-${who ? `${who}-` : ''}${random}`.toLowerCase();
}
