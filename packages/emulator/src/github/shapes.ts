/** JSON shapes GitHub answers with, shared by the stand-in's services: users, apps, timestamps. */
import type { JsonObject } from './description.js';

export const BOT_LOGIN = 'github-actions[bot]';
/** The app behind GITHUB_TOKEN. */
export const ACTIONS_APP = 'github-actions';
const ACTIONS_APP_ID = 15368;

/** GitHub's timestamps: ISO 8601 to the second. */
export function timestamp(date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A stable id for a login (github-actions[bot] keeps its real one). */
export function userId(login: string): number {
  return login === BOT_LOGIN ? 41898282 : 100 + login.length;
}

function smallHash(text: string): number {
  let h = 0;
  for (const ch of text) h = (h * 31 + (ch.codePointAt(0) ?? 0)) % 1_000_003;
  return h;
}

/** The app slug behind an installation token's login: `my-app[bot]` → `my-app`. */
export function appSlugOf(login: string): string {
  return login.replace(/\[bot\]$/, '');
}

export function appId(slug: string): number {
  return slug === ACTIONS_APP ? ACTIONS_APP_ID : 900_000 + smallHash(slug);
}

/** GitHub's `simple-user`, every required field present. */
export function simpleUser(api: string, login: string, type?: 'User' | 'Bot' | 'Organization'): JsonObject {
  const id = userId(login);
  const url = `${api}/users/${encodeURIComponent(login)}`;
  const bot = login.endsWith('[bot]');
  return {
    login,
    id,
    node_id: `${bot ? 'BOT' : 'U'}_kgDO${id}`,
    avatar_url: bot ? `https://avatars.githubusercontent.com/in/${appId(appSlugOf(login))}?v=4` : `https://avatars.githubusercontent.com/u/${id}?v=4`,
    gravatar_id: '',
    url,
    html_url: bot ? `https://github.com/apps/${appSlugOf(login)}` : `https://github.com/${login}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type: type ?? (bot ? 'Bot' : 'User'),
    user_view_type: 'public',
    site_admin: false,
  };
}

/** GitHub's `public-user`, what `GET /user` answers a personal access token with. */
export function publicUser(api: string, login: string): JsonObject {
  return {
    ...simpleUser(api, login),
    name: null,
    company: null,
    blog: '',
    location: null,
    email: null,
    hireable: null,
    bio: null,
    public_repos: 2,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: '2011-01-25T18:44:36Z',
    updated_at: '2024-01-01T00:00:00Z',
  };
}

/** GitHub's `integration` (a GitHub App), as in `app` and `performed_via_github_app`. */
export function appJson(api: string, slug: string): JsonObject {
  const actions = slug === ACTIONS_APP;
  const id = appId(slug);
  return {
    id,
    slug,
    node_id: actions ? 'MDM6QXBwMTUzNjg=' : `A_kwDO${id}`,
    owner: simpleUser(api, actions ? 'github' : slug, 'Organization'),
    name: actions ? 'GitHub Actions' : slug,
    description: actions ? 'Automate your workflow from idea to production' : '',
    external_url: actions ? 'https://help.github.com/en/actions' : `https://${slug}.example`,
    html_url: `https://github.com/apps/${slug}`,
    created_at: '2018-07-30T09:30:17Z',
    updated_at: '2024-04-10T20:33:16Z',
    permissions: { checks: 'write', deployments: 'write', issues: 'write', metadata: 'read', pull_requests: 'write', statuses: 'write' },
    events: ['check_run', 'check_suite', 'deployment', 'deployment_status', 'pull_request'],
  };
}

/** A GitHub error answer body. */
export function errorBody(status: number, message: string, docs = 'https://docs.github.com/rest', extra: JsonObject = {}): JsonObject {
  return { message, ...extra, documentation_url: docs, status: String(status) };
}
