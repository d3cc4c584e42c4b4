/**
 * Who is calling and what their token may do: GITHUB_TOKEN (an installation token of the `github-actions`
 * app, permissions as a workflow's `permissions:` grants them), other apps' installation tokens, and
 * personal access tokens. Refusals are answered the way GitHub answers them.
 */
import type { ServerResponse } from 'node:http';
import { json, type RecordedRequest } from '../https-server.js';
import { appSlugOf, BOT_LOGIN, errorBody } from './shapes.js';

/** A permission of GITHUB_TOKEN, as named in a workflow's `permissions:` key. */
export type Scope =
  | 'actions'
  | 'attestations'
  | 'checks'
  | 'contents'
  | 'deployments'
  | 'discussions'
  | 'id-token'
  | 'issues'
  | 'models'
  | 'packages'
  | 'pages'
  | 'pull-requests'
  | 'repository-projects'
  | 'security-events'
  | 'statuses';
export type Access = 'write' | 'read' | 'none';
/**
 * A token's permissions, in the form of a workflow's `permissions:`: `write-all`, `read-all`, or a map in
 * which every scope not named is `none` (as GitHub does once one scope is named).
 */
export type Permissions = 'write-all' | 'read-all' | Partial<Record<Scope, Access>>;

export interface TokenSpec {
  /** An app installation token (GITHUB_TOKEN and the like) or a personal access token; default installation. */
  kind?: 'installation' | 'pat';
  /** The login it acts as: default `github-actions[bot]` for an installation token; required for a PAT. */
  login?: string;
  /** What it may write; default the stand-in's permissions for an installation token, `write-all` for a PAT. */
  permissions?: Permissions;
}

/** The identity a request acts as. */
export interface Caller {
  kind: 'installation' | 'pat';
  login: string;
  permissions: Permissions;
  /** Slug of the app behind an installation token; undefined for a PAT. */
  app?: string;
}

export interface Tokens {
  /** The identity of a request: its registered token, else the default (GITHUB_TOKEN). */
  caller(req: RecordedRequest): Caller;
  add(token: string, spec: TokenSpec): void;
  /** Change a registered token's permissions, or (no token) the default token's. */
  setPermissions(permissions: Permissions, token?: string): void;
  /** Answer 403 when the caller may not call the operation; true when it answered. */
  refuse(res: ServerResponse, operationId: string, caller: Caller): boolean;
}

interface Need {
  /** Any one of these at `write` will do. */
  scopes: Scope[];
  /** Only a GitHub App may call it (the Checks API). */
  appOnly?: boolean;
  docs: string;
}

const DOCS = 'https://docs.github.com/rest';
/** What each write the stand-in serves needs; reads of its (public) repositories need nothing. */
const NEEDS: Record<string, Need> = {
  'issues/create-comment': { scopes: ['issues', 'pull-requests'], docs: `${DOCS}/issues/comments#create-an-issue-comment` },
  'issues/update-comment': { scopes: ['issues', 'pull-requests'], docs: `${DOCS}/issues/comments#update-an-issue-comment` },
  'issues/create': { scopes: ['issues'], docs: `${DOCS}/issues/issues#create-an-issue` },
  'issues/update': { scopes: ['issues'], docs: `${DOCS}/issues/issues#update-an-issue` },
  'checks/create': { scopes: ['checks'], appOnly: true, docs: `${DOCS}/checks/runs#create-a-check-run` },
  'checks/update': { scopes: ['checks'], appOnly: true, docs: `${DOCS}/checks/runs#update-a-check-run` },
  'repos/create-deployment': { scopes: ['deployments'], docs: `${DOCS}/deployments/deployments#create-a-deployment` },
  'repos/create-deployment-status': { scopes: ['deployments'], docs: `${DOCS}/deployments/statuses#create-a-deployment-status` },
};

export const NOT_ACCESSIBLE = 'Resource not accessible by integration';

/** What `permissions` grants for one scope. */
export function access(permissions: Permissions, scope: Scope): Access {
  if (permissions === 'write-all') return 'write';
  if (permissions === 'read-all') return 'read';
  return permissions[scope] ?? 'none';
}

/** Send GitHub's 403. */
export function forbidden(res: ServerResponse, message: string, docs: string, headers: Record<string, string> = {}): void {
  json(res, 403, errorBody(403, message, docs), headers);
}

export function createTokens(initial: Permissions): Tokens {
  let defaults = initial;
  const known = new Map<string, TokenSpec>();
  const tokenOf = (req: RecordedRequest): string | undefined => /^(?:token|bearer)\s+(\S+)$/i.exec(String(req.headers.authorization ?? ''))?.[1];

  return {
    caller(req) {
      const token = tokenOf(req);
      const spec = (token === undefined ? undefined : known.get(token)) ?? {};
      const kind = spec.kind ?? 'installation';
      const login = spec.login ?? BOT_LOGIN;
      const permissions = spec.permissions ?? (kind === 'pat' ? 'write-all' : defaults);
      return { kind, login, permissions, ...(kind === 'installation' ? { app: appSlugOf(login) } : {}) };
    },
    add(token, spec) {
      if (spec.kind === 'pat' && !spec.login) throw new Error('stand-in: a personal access token needs a login');
      known.set(token, { ...spec });
    },
    setPermissions(permissions, token) {
      if (token === undefined) {
        defaults = permissions;
        return;
      }
      const spec = known.get(token);
      if (!spec) throw new Error('stand-in: setPermissions for a token never added');
      spec.permissions = permissions;
    },
    refuse(res, operationId, caller) {
      if (operationId === 'users/get-authenticated' && caller.kind === 'installation') {
        forbidden(res, NOT_ACCESSIBLE, `${DOCS}/users/users#get-the-authenticated-user`);
        return true;
      }
      const need = NEEDS[operationId];
      if (!need) return false;
      if (need.appOnly && caller.kind === 'pat') {
        forbidden(res, 'You must authenticate via a GitHub App.', need.docs);
        return true;
      }
      if (need.scopes.some((s) => access(caller.permissions, s) === 'write')) return false;
      // GitHub names the permissions that would have done, alternatives separated by "; ".
      const accepted = need.scopes.map((s) => `${s.replace(/-/g, '_')}=write`).join('; ');
      const message = caller.kind === 'pat' ? 'Resource not accessible by personal access token' : NOT_ACCESSIBLE;
      forbidden(res, message, need.docs, { 'x-accepted-github-permissions': accepted });
      return true;
    },
  };
}
