/**
 * Branch names: what the platform accepts, and the names the toolkit gives a pull request's shared
 * branch. The action checks its inputs with these rules and the emulator enforces them.
 */

/** Why `name` is not a branch name the toolkit will use, or undefined when it is fine. */
export function branchNameProblem(name: string): string | undefined {
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(name) || name.includes('..') || name.endsWith('/') || name.endsWith('.lock') || name.includes('//')) {
    return 'a branch name of letters, digits, ".", "_", "-" and "/" (starting with a letter or digit; no spaces, "..", "//", or a trailing "/")';
  }
  return undefined;
}

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

/** A platform dev-mode fork (`dev-…`), never a target the toolkit writes a model to directly. */
export function isDevBranch(name: string): boolean {
  return name.startsWith('dev-');
}

/**
 * The data REST API of a branch (its staging or dev-mode instance), in the one form the toolkit uses:
 * `<deploymentUrl>/dev-mode/<branch>/cubejs-api/v1`, each segment of the branch URL-encoded and its `/`
 * kept, as the vendor's examples write it (`/dev-mode/feature/x/...`).
 */
export function branchRestUrl(deploymentUrl: string, branch: string): string {
  return `${deploymentUrl.replace(/\/+$/, '')}/dev-mode/${branchPath(branch)}/cubejs-api/v1`;
}

/** A branch name as a URL path: each segment encoded, `/` kept. */
export function branchPath(branch: string): string {
  return branch.split('/').map(encodeURIComponent).join('/');
}

/** A REST URL as the platform reports it, in the toolkit's form: no trailing `/`, ending in `/v1`. */
export function normaliseRestUrl(url: string): string {
  const bare = url.replace(/\/+$/, '');
  return bare.endsWith('/v1') ? bare : `${bare}/v1`;
}
