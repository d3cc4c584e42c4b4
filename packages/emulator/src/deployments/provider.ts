/** Deployments, environments, tokens, versions, build status, env vars, regions (spec 4.1–4.7, 4.15, 8, 9). */
import { branchRestUrl } from '@datamodel-ci/platform-api';
import { makeBranch, sessionBranch } from '../build/branches.js';
import { buildStatusOf, productionFiles, reconcileRuntimes, stagingFiles } from '../build/runtime.js';
import { deploymentUrl, HttpError, profileOn, requireDeployment, type Ctx, type HandlerTable } from '../context.js';
import { textOf, type JsonObject } from '../json.js';
import { cursorPageWithData, cursorPaginate, offsetPage, type CursorQuery } from '../paging.js';
import { mintToken } from '../tokens.js';
import type { BranchRec } from '../build/models.js';
import { fedFromRepository, newDeployment, VERSION_CATALOG, type DeploymentRec, type EnvVarRec } from './models.js';
import { connectRepository } from './repository.js';

const IMAGE_REPOSITORY = 'cubejs/cube';

function versionsOf(d: DeploymentRec) {
  return Object.entries(VERSION_CATALOG).flatMap(([channel, versions]) =>
    versions.map((v, i) => ({
      releaseChannelVersion: `${IMAGE_REPOSITORY}:v${v}`,
      version: v,
      releaseChannel: channel,
      isLatestInChannel: i === 0,
      isCurrent: d.releaseChannel === channel && d.version === v,
    })),
  );
}

/** `1.7.20`, `v1.7.20` or `<repository>:v1.7.20` -> `1.7.20`. */
function normalizeVersion(input: string): string | undefined {
  const m = /^(?:[a-z0-9./_-]+:)?v?(\d+\.\d+\.\d+)$/i.exec(input.trim());
  return m?.[1];
}

/** `releaseChannelVersionHold` as the tenant reports it: a boolean, `null` for no hold (`version-hold-null`), or not at all (`version-hold-unreported`). */
function holdOf(ctx: Ctx, d: DeploymentRec): { releaseChannelVersionHold?: boolean | null } {
  if (profileOn(ctx, 'version-hold-unreported')) return {};
  if (profileOn(ctx, 'version-hold-null')) return { releaseChannelVersionHold: d.versionHold ? true : null };
  return { releaseChannelVersionHold: d.versionHold };
}

/** `repoType` of a deployment no outside repository is connected to: unreported by default, `deployRepo` (its internal Git repository) under `repo-type-deploy-repo`. */
function repoTypeOf(ctx: Ctx, d: DeploymentRec): { repoType?: string } {
  return !d.connected && profileOn(ctx, 'repo-type-deploy-repo') ? { repoType: 'deployRepo' } : {};
}

function settingsOf(ctx: Ctx, d: DeploymentRec) {
  return {
    ...d.settings,
    ...repoTypeOf(ctx, d),
    id: d.id,
    name: d.name,
    template: textOf(d.settings.template ?? 'single'),
    cloudProvider: textOf(d.settings.cloudProvider ?? 'aws'),
    creationStep: d.creationStep,
    deploymentUrl: deploymentUrl(ctx.origin, d.id),
    releaseChannel: d.releaseChannel,
    releaseChannelVersion: `${IMAGE_REPOSITORY}:v${d.version}`,
    ...holdOf(ctx, d),
    cubeImageVersion: d.version,
    templateVariables: d.templateVariables,
    deployBranchName: d.deployBranch,
    // A deployment fed from a repository takes production from its pushes: no uploads to, no merges into, its deploy branch.
    deployBranchReadOnly: fedFromRepository(d),
    deployBranchMergeAllowed: !fedFromRepository(d),
    deployProjectRoot: d.connected?.projectRoot ?? '/',
    isCubeSqlEnabled: true,
    isSupportPreAggregations: true,
  };
}

/** Make another (shared) branch the deploy branch; the old one becomes a shared branch. */
function moveDeployBranch(d: DeploymentRec, name: string): void {
  if (name === d.deployBranch) return;
  const old = d.branches[d.deployBranch];
  if (old) old.kind = 'shared';
  (d.branches[name] as BranchRec).kind = 'deploy';
  d.deployBranch = name;
}

function visibleDeployments(ctx: Ctx): DeploymentRec[] {
  const scope = ctx.principal.key.deploymentIds;
  return ctx.state.deployments.filter((d) => !scope || scope.includes(d.id));
}

function deploymentRecord(ctx: Ctx, d: DeploymentRec) {
  return { id: d.id, name: d.name, created_at: d.createdAt, deploymentUrl: deploymentUrl(ctx.origin, d.id), creationStep: d.creationStep };
}

/** An environment as the platform lists it: its data API at `restUrl`, its SQL API on the emulator's host. */
function environmentRecord(host: string, e: { id: string; name: string; type: string; branch: string }, restUrl: string) {
  return { ...e, api_credentials: { rest: { url: restUrl }, sql: { host, port: 15432 } } };
}

function environmentsOf(ctx: Ctx, d: DeploymentRec) {
  const base = deploymentUrl(ctx.origin, d.id);
  const host = new URL(ctx.origin).hostname;
  const env = (id: string, name: string, type: string, branch: string, url: string) => environmentRecord(host, { id, name, type, branch }, url);
  const envs = [env(`${d.id}-production`, 'production', 'production', d.deployBranch, `${base}/cubejs-api/v1`)];
  for (const b of Object.values(d.branches).sort((a, c) => a.id - c.id)) {
    if (b.kind === 'shared' && b.staging) envs.push(env(`${d.id}-staging-${b.id}`, b.name, 'staging', b.name, branchRestUrl(base, b.name)));
  }
  for (const name of new Set(Object.values(d.devSessions))) envs.push(env(`${d.id}-dev-${name}`, name, 'development', name, branchRestUrl(base, name)));
  return envs;
}

/** Profile environments-unpaged: 120 staging environments of other teams' branches (listed, never queried). */
function otherTeams(ctx: Ctx, d: DeploymentRec, type: string | undefined) {
  if (type && type !== 'staging') return [];
  const base = deploymentUrl(ctx.origin, d.id);
  const host = new URL(ctx.origin).hostname;
  return Array.from({ length: 120 }, (_, i) => {
    const name = `team-${String(i + 1).padStart(3, '0')}/work`;
    return environmentRecord(host, { id: `${d.id}-staging-team-${i + 1}`, name, type: 'staging', branch: name }, branchRestUrl(base, name));
  });
}

function findEnvironment(ctx: Ctx, d: DeploymentRec) {
  const id = String(ctx.params.environmentId);
  const env = environmentsOf(ctx, d).find((e) => e.id === id);
  if (!env) throw new HttpError(404, `environment ${JSON.stringify(id)} not found in deployment ${d.id}`);
  return env;
}

/** The security context a minted token carries (profile minted-context-drops-cubecloud: the platform's own, empty, cubeCloud element). */
function mintedContext(ctx: Ctx, sent: JsonObject): JsonObject {
  return profileOn(ctx, 'minted-context-drops-cubecloud') ? { ...sent, cubeCloud: {} } : sent;
}

/** The tenant's default API scopes (Cube's `CUBEJS_DEFAULT_API_SCOPES`): under default-scopes-no-sql, Cube's older defaults without `sql`. */
function defaultScopes(ctx: Ctx): string[] {
  return profileOn(ctx, 'default-scopes-no-sql') ? ['graphql', 'meta', 'data'] : ['graphql', 'meta', 'data', 'sql'];
}

/** The scopes an environment token carries: those asked for (under mint-ignores-scopes: the defaults whatever was asked), else the defaults. */
function mintedScopes(ctx: Ctx, asked: string[] | null | undefined): string[] {
  return asked && !profileOn(ctx, 'mint-ignores-scopes') ? asked : defaultScopes(ctx);
}

function mint(ctx: Ctx, claims: Record<string, unknown>, lifetimeSec: number) {
  const iat = Math.floor(ctx.clock.now() / 1000);
  const exp = iat + lifetimeSec;
  return { token: mintToken(ctx, { ...claims, iat, exp }), iat, exp };
}

/**
 * Profile mint-refuses-uncompiled: the compile error of the model an environment serves (production's or a
 * staging environment's last finished build, a dev-mode branch's working tree), or nothing when it compiles.
 */
async function servedModelFailure(ctx: Ctx, d: DeploymentRec, branch: string): Promise<string | undefined> {
  const b = d.branches[branch];
  if (!b) return undefined;
  const now = ctx.clock.now();
  const files = b.kind === 'deploy' ? productionFiles(b, now) : b.kind === 'shared' ? stagingFiles(b, now) : b.files;
  if (!Object.keys(files).length) return undefined;
  const compiled = await ctx.engine.compile(files);
  return compiled.valid ? undefined : (compiled.failure ?? 'Error: Compile errors');
}

/** A secret-named variable (PASS, SECRET, TOKEN, KEY, CREDENTIAL in its name) reads `[ENCRYPTED]`, as the vendor file says; profile `env-vars-all-masked`: every one. */
function shownEnvValue(ctx: Ctx, v: EnvVarRec): string {
  return profileOn(ctx, 'env-vars-all-masked') || /PASS|SECRET|TOKEN|KEY|CREDENTIAL/i.test(v.name) ? '[ENCRYPTED]' : v.value;
}

export const deploymentHandlers: HandlerTable = {
  getDeployments(ctx) {
    const q = ctx.query as { offset?: number; limit?: number };
    const all = visibleDeployments(ctx).map((d) => deploymentRecord(ctx, d));
    const { rows, pagination } = offsetPage(all, q);
    return { data: { deployments: rows }, items: rows, pagination };
  },

  getDeployment(ctx) {
    return deploymentRecord(ctx, requireDeployment(ctx));
  },

  updateDeployment(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as JsonObject & {
      releaseChannel?: string | null;
      releaseChannelVersion?: string | null;
      releaseChannelVersionHold?: boolean | null;
      templateVariables?: JsonObject | null;
    };
    const channel = body.releaseChannel ?? d.releaseChannel;
    let version = d.version;
    let hold = typeof body.releaseChannelVersionHold === 'boolean' ? body.releaseChannelVersionHold : d.versionHold;
    if (body.releaseChannelVersion) {
      const v = normalizeVersion(body.releaseChannelVersion);
      const list = VERSION_CATALOG[channel] ?? [];
      if (!v || !list.includes(v)) {
        throw new HttpError(
          400,
          `releaseChannelVersion: got ${JSON.stringify(body.releaseChannelVersion)}, expected a version on the ${channel} channel's list (${list.join(', ')}), as 1.7.20, v1.7.20 or ${IMAGE_REPOSITORY}:v1.7.20`,
        );
      }
      version = v;
      // A version that is not the channel's latest is held unless the hold is sent (the vendor's PUT prose).
      if (typeof body.releaseChannelVersionHold !== 'boolean' && v !== list[0]) hold = true;
    } else if (body.releaseChannel) {
      // releaseChannel alone moves the deployment to that channel's latest version.
      const head = VERSION_CATALOG[body.releaseChannel]?.[0];
      if (!head) throw new HttpError(400, `releaseChannel: got ${JSON.stringify(body.releaseChannel)}, expected latest or release`);
      version = head;
    }
    const { releaseChannel: _c, releaseChannelVersion: _v, releaseChannelVersionHold: _h, templateVariables, ...rest } = body;
    const nextDeploy = rest.deployBranchName;
    if (typeof nextDeploy === 'string' && d.branches[nextDeploy]?.kind !== 'deploy' && d.branches[nextDeploy]?.kind !== 'shared') {
      throw new HttpError(400, `deployBranchName: got ${JSON.stringify(nextDeploy)}, expected an existing shared branch`);
    }
    d.releaseChannel = channel;
    d.version = version;
    d.versionHold = hold;
    if (templateVariables) d.templateVariables = { ...d.templateVariables, ...templateVariables };
    for (const [k, v] of Object.entries(rest)) {
      if (v === undefined) continue;
      if (k === 'name' && typeof v === 'string') d.name = v;
      else if (k === 'deployBranchName' && typeof v === 'string') moveDeployBranch(d, v);
      else d.settings[k] = v;
    }
    reconcileRuntimes(ctx, d);
    return settingsOf(ctx, d);
  },

  deleteDeployment(ctx) {
    const d = requireDeployment(ctx);
    ctx.state.deployments = ctx.state.deployments.filter((x) => x !== d);
    return { success: true };
  },

  getDeploymentSettings(ctx) {
    return settingsOf(ctx, requireDeployment(ctx));
  },

  getDeploymentEnvironments(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as { type?: string; offset?: number; limit?: number };
    const envs = environmentsOf(ctx, d).filter((e) => !q.type || e.type === q.type);
    // Whether this list pages is not documented: the environments-unpaged profile answers it whole, offset
    // and limit ignored, for a tenant with many other teams' staging environments listed first.
    if (profileOn(ctx, 'environments-unpaged')) {
      const all = [...envs.filter((e) => e.type === 'production'), ...otherTeams(ctx, d, q.type), ...envs.filter((e) => e.type !== 'production')];
      return { data: all, items: all };
    }
    const { rows, pagination } = offsetPage(envs, q);
    return {
      data: { environments: rows },
      items: rows,
      pageInfo: { hasNextPage: pagination.offset + rows.length < envs.length, hasPreviousPage: pagination.offset > 0 },
      pagination,
    };
  },

  createDeploymentEnvironmentTokenForMetaSync(ctx) {
    const d = requireDeployment(ctx);
    const env = findEnvironment(ctx, d);
    const body = ctx.body as { security_context: JsonObject; expires_in?: number | null };
    const lifetime = body.expires_in ?? 86_400;
    const securityContext = mintedContext(ctx, body.security_context);
    const t = mint(ctx, { kind: 'meta', deploymentId: d.id, environmentId: env.id, branch: env.branch, securityContext }, lifetime);
    return { data: { token: t.token, created_at: new Date(t.iat * 1000).toISOString(), expires_at: new Date(t.exp * 1000).toISOString() } };
  },

  getDeploymentEnvironmentTokens(ctx) {
    const d = requireDeployment(ctx);
    findEnvironment(ctx, d);
    return { items: [], data: [], pageInfo: null, pagination: { offset: 0, limit: 20, total: 0 } };
  },

  async createDeploymentEnvironmentToken(ctx) {
    const d = requireDeployment(ctx);
    const env = findEnvironment(ctx, d);
    if (profileOn(ctx, 'meta-token-scoped')) throw new HttpError(403, 'this API key may not mint environment tokens');
    if (profileOn(ctx, 'mint-refuses-uncompiled')) {
      const failure = await servedModelFailure(ctx, d, env.branch);
      if (failure) throw new HttpError(400, failure);
    }
    const body = ctx.body as { security_context: JsonObject; expires_in?: number | null; scopes?: string[] | null };
    const securityContext = mintedContext(ctx, body.security_context);
    const scopes = mintedScopes(ctx, body.scopes);
    const t = mint(ctx, { kind: 'data', deploymentId: d.id, environmentId: env.id, branch: env.branch, securityContext, scopes }, body.expires_in ?? 3600);
    return {
      data: {
        token: t.token,
        security_context: securityContext,
        created_at: new Date(t.iat * 1000).toISOString(),
        expires_at: new Date(t.exp * 1000).toISOString(),
      },
    };
  },

  listDeploymentVersions(ctx) {
    const d = requireDeployment(ctx);
    const items = versionsOf(d);
    return { data: items, items, pageInfo: { hasNextPage: false, hasPreviousPage: false } };
  },

  deploymentToken(ctx) {
    const d = requireDeployment(ctx);
    const body = (ctx.body ?? {}) as { expiresIn?: number | null };
    const lifetime = body.expiresIn ?? 86_400;
    if (lifetime < 60 || lifetime > 86_400) throw new HttpError(400, `expiresIn: got ${lifetime}, expected 60 to 86400 seconds`);
    const t = mint(ctx, { kind: 'data', deploymentId: d.id, userId: ctx.principal.user.id }, lifetime);
    return { cubeApiToken: t.token };
  },

  buildStatus(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as { branchName?: string | null };
    return buildStatusOf(d, q.branchName ?? sessionBranch(ctx, d)?.name ?? d.deployBranch, ctx.clock.now(), ctx);
  },

  logs(ctx) {
    const d = requireDeployment(ctx);
    const q = ctx.query as CursorQuery & { pod?: string };
    const pod = q.pod ?? `cube-${d.id}-api-0`;
    const lines = Array.from({ length: 25 }, (_, i) => ({
      date: new Date(ctx.clock.now() - (25 - i) * 1000).toISOString(),
      message: i % 5 === 0 ? 'Compiling schema' : `Query completed in ${10 + i} ms`,
      pod,
    }));
    return cursorPaginate(lines, q);
  },

  pods(ctx) {
    const d = requireDeployment(ctx);
    const items = [
      { name: `cube-${d.id}-api-0`, containers: ['MAIN', 'vector', 'api-proxy'], ready: true, restartCount: 0, status: 'Running', type: 'api' },
      { name: `cube-${d.id}-refresh-0`, containers: ['MAIN'], ready: true, restartCount: 0, status: 'Running', type: 'refresh-worker' },
    ];
    return cursorPaginate(items, ctx.query as CursorQuery);
  },

  getEnvVariables(ctx) {
    const d = requireDeployment(ctx);
    const items = d.envVars.map((v) => ({ name: v.name, value: shownEnvValue(ctx, v) }));
    return cursorPageWithData(items, ctx.query as CursorQuery);
  },

  setEnvVariables(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { env_variables: { name: string; value: string }[] };
    for (const v of body.env_variables) {
      const existing = d.envVars.find((e) => e.name === v.name);
      if (existing) existing.value = v.value;
      else d.envVars.push({ name: v.name, value: v.value });
    }
    const items = d.envVars.map((v) => ({ name: v.name, value: shownEnvValue(ctx, v) }));
    return { items, data: items, pageInfo: null };
  },

  advanceCreationStep(ctx) {
    const d = requireDeployment(ctx);
    d.creationStep = (ctx.body as { creationStep: string }).creationStep;
    return deploymentRecord(ctx, d);
  },

  resetCreationStep(ctx) {
    const d = requireDeployment(ctx);
    d.creationStep = 'project';
    return deploymentRecord(ctx, d);
  },

  createDeployment(ctx) {
    const body = ctx.body as JsonObject & { name: string; creationStep?: string };
    if (ctx.state.deployments.some((d) => d.name === body.name)) throw new HttpError(409, `a deployment named ${JSON.stringify(body.name)} exists`);
    const id = Math.max(0, ...ctx.state.deployments.map((d) => d.id), ctx.state.seq.deployment ?? 0) + 1;
    ctx.state.seq.deployment = id;
    const d = newDeployment({
      id,
      name: body.name,
      createdAt: ctx.clock.iso(),
      creationStep: body.creationStep ?? 'project',
      settings: { cloudProvider: body.cloudProvider, region: body.region, deployMode: body.deployMode ?? 'git', template: 'single' },
      envVars: [],
    });
    makeBranch(d, 'main', null, 'deploy', d.createdAt);
    ctx.state.deployments.push(d);
    // A scoped key that created it may use it.
    ctx.principal.key.deploymentIds?.push(id);
    return deploymentRecord(ctx, d);
  },

  connect(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as { name: string; deployBranchName?: string | null };
    connectRepository(d, body.name);
    return deploymentRecord(ctx, d);
  },

  listRegions(ctx) {
    const regions = [
      { id: 1, name: 'aws-us-east-1', title: 'US East (N. Virginia)', provider: 'aws', isPublic: true },
      { id: 2, name: 'aws-eu-central-1', title: 'Europe (Frankfurt)', provider: 'aws', isPublic: true },
      { id: 3, name: 'gcp-us-central1', title: 'US Central (Iowa)', provider: 'gcp', isPublic: true },
    ];
    const page = cursorPaginate(regions, ctx.query as CursorQuery);
    return { ...page, data: regions };
  },
};
