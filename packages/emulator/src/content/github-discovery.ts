/** GitHub discovery: the installations, repositories and branches a deployment can connect to (fixed, deterministic data). */
import { HttpError, type HandlerTable } from '../context.js';
import { cursorPageWithData, type CursorQuery } from '../paging.js';

const GITHUB_INSTALLATIONS = [
  { installationId: 1001, login: 'acme-analytics', repos: ['data-model', 'dbt-project', 'dashboards'] },
  { installationId: 1002, login: 'ada', repos: ['sandbox-model'] },
];
const GITHUB_BRANCHES = ['main', 'develop', 'feature/revenue-model', 'release/2024-q4'];

function installationOrThrow(id: number) {
  const inst = GITHUB_INSTALLATIONS.find((i) => i.installationId === id);
  if (!inst) throw new HttpError(404, `GitHub installation ${id} not found for the caller`);
  return inst;
}

export const githubDiscoveryHandlers: HandlerTable = {
  status() {
    return {
      connected: true,
      linkUrl: 'https://github.com/login/oauth/authorize?client_id=Iv1.datamodelciemulator',
      settingsUrl: 'https://github.com/apps/datamodel-ci-emulator/installations/new',
    };
  },

  installations(ctx) {
    const items = GITHUB_INSTALLATIONS.map((i) => ({
      id: String(i.installationId),
      installationId: String(i.installationId),
      login: i.login,
      avatarUrl: `https://avatars.githubusercontent.com/u/${i.installationId}?v=4`,
    }));
    return cursorPageWithData(items, ctx.query as CursorQuery);
  },

  repositories(ctx) {
    const inst = installationOrThrow(ctx.params.installationId as number);
    const items = inst.repos.map((name, i) => ({
      id: inst.installationId * 100 + i + 1,
      name,
      fullName: `${inst.login}/${name}`,
      htmlUrl: `https://github.com/${inst.login}/${name}`,
      private: i > 0,
      defaultBranch: 'main',
    }));
    return cursorPageWithData(items, ctx.query as CursorQuery);
  },

  branches(ctx) {
    const q = ctx.query as CursorQuery & { installationId: number };
    const inst = installationOrThrow(q.installationId);
    const owner = String(ctx.params.owner);
    const repo = String(ctx.params.repo);
    if (owner.toLowerCase() !== inst.login || !inst.repos.includes(repo)) {
      throw new HttpError(404, `repository ${owner}/${repo} is not accessible to installation ${inst.installationId}`);
    }
    const items = GITHUB_BRANCHES.map((name) => ({ name, isDefault: name === 'main' }));
    return cursorPageWithData(items, q);
  },
};
