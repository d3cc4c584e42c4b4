/** GitHub discovery: link status, App installations, their repositories and branches (spec 4.15). */
import { z } from 'zod';
import { endpoint } from '../endpoint.js';
import { CursorQuery, Name, PosInt, cursorPage } from '../schemas.js';

export const GitHubConnectStatus = z.looseObject({
  connected: z.boolean(),
  linkUrl: z.string(),
  settingsUrl: z.string(),
});
export type GitHubConnectStatus = z.infer<typeof GitHubConnectStatus>;

/** An installation of the GitHub App (an org or account); the vendor gives its ids as strings. */
export const GitHubInstallation = z.looseObject({
  id: z.string(),
  installationId: z.string(),
  login: z.string(),
  avatarUrl: z.string().nullish(),
});
export type GitHubInstallation = z.infer<typeof GitHubInstallation>;

export const GitHubRepository = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  htmlUrl: z.string().nullish(),
});
export type GitHubRepository = z.infer<typeof GitHubRepository>;

export const GitHubBranch = z.looseObject({ name: z.string(), isDefault: z.boolean() });
export type GitHubBranch = z.infer<typeof GitHubBranch>;

export const InstallationParams = z.object({ installationId: PosInt });
export const RepositoryParams = z.object({ owner: Name, repo: Name });
export const GitHubBranchesQuery = CursorQuery.extend({ installationId: PosInt });

export const githubEndpoints = {
  status: endpoint({
    id: 'status',
    method: 'GET',
    path: '/api/v1/github/status',
    section: '4.15',
    summary: 'Whether GitHub is linked, plus the link and install URLs',
    response: GitHubConnectStatus,
  }),
  installations: endpoint({
    id: 'installations',
    method: 'GET',
    path: '/api/v1/github/installations',
    section: '4.15',
    summary: 'The caller’s GitHub App installations (orgs and accounts)',
    query: CursorQuery,
    response: cursorPage(GitHubInstallation),
    pagination: 'cursor',
  }),
  repositories: endpoint({
    id: 'repositories',
    method: 'GET',
    path: '/api/v1/github/installations/{installationId}/repositories',
    section: '4.15',
    summary: 'Repositories an installation can access',
    params: InstallationParams,
    query: CursorQuery,
    response: cursorPage(GitHubRepository),
    pagination: 'cursor',
  }),
  branches: endpoint({
    id: 'branches',
    method: 'GET',
    path: '/api/v1/github/repositories/{owner}/{repo}/branches',
    section: '4.15',
    summary: 'Branches of a repository (query installationId required)',
    params: RepositoryParams,
    query: GitHubBranchesQuery,
    response: cursorPage(GitHubBranch),
    pagination: 'cursor',
  }),
} as const;
