/**
 * Branch names as the platform takes them: the one rule the action checks its inputs with and the
 * emulator enforces, the dev-mode forks, and a branch's data API address. (The names the toolkit gives
 * a pull request's branch are its own: src/branch-names.ts.)
 */

/** Why `name` is not a branch name the platform takes, or undefined when it is fine. */
export function branchNameProblem(name: string): string | undefined {
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(name) || name.includes('..') || name.endsWith('/') || name.endsWith('.lock') || name.includes('//')) {
    return 'a branch name of letters, digits, ".", "_", "-" and "/" (starting with a letter or digit; no spaces, "..", "//", or a trailing "/")';
  }
  return undefined;
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
