/** Deployments and their statuses: create (gated on the commit's checks), list with filters, read back. */
import type { Json, JsonObject } from './description.js';
import { json } from '../https-server.js';
import { pageOf } from './paging.js';
import { bodyOf, notFound, unprocessable, type Exchange, type Route } from './service.js';
import { appJson, errorBody, simpleUser, timestamp } from './shapes.js';

export type DeploymentState = 'error' | 'failure' | 'inactive' | 'in_progress' | 'queued' | 'pending' | 'success';

export interface StandinDeploymentStatus {
  id: number;
  state: DeploymentState;
  description: string;
  environment: string;
  environmentUrl: string;
  logUrl: string;
  targetUrl: string;
  /** Login of whoever created it. */
  creator: string;
  /** Slug of the app whose installation token created it; null for a personal access token. */
  app: string | null;
  createdAt: string;
}

export interface StandinDeployment {
  id: number;
  /** `owner/repo`. */
  repository: string;
  ref: string;
  sha: string;
  task: string;
  environment: string;
  originalEnvironment: string;
  description: string | null;
  payload: Json;
  autoMerge: boolean;
  /** As sent; null when left out (GitHub then requires every context on the commit to succeed). */
  requiredContexts: string[] | null;
  transientEnvironment: boolean;
  productionEnvironment: boolean;
  creator: string;
  /** Slug of the app whose installation token created it; null for a personal access token. */
  app: string | null;
  createdAt: string;
  updatedAt: string;
  /** Oldest first. */
  statuses: StandinDeploymentStatus[];
}

/** GitHub's limit on a deployment status description. */
export const MAX_STATUS_DESCRIPTION = 140;

interface DeploymentBody {
  ref: string;
  task: string;
  auto_merge: boolean;
  required_contexts: string[];
  payload: JsonObject | string;
  environment: string;
  description: string | null;
  transient_environment: boolean;
  production_environment: boolean;
}

interface StatusBody {
  state: DeploymentState;
  target_url: string;
  log_url: string;
  description: string;
  environment: string;
  environment_url: string;
  auto_inactive: boolean;
}

export interface DeploymentLinks {
  knownRepo: (fullName: string) => boolean;
  resolveRef: (fullName: string, ref: string) => string | undefined;
  /** The commit's contexts (check runs) and their states. */
  contexts: (fullName: string, sha: string) => { context: string; state: string }[];
}

export interface Deployments {
  route: Route;
  hasRepo: (fullName: string) => boolean;
  /** Every deployment of the repository, oldest first, with its statuses (copies). */
  deployments: (repository?: string) => StandinDeployment[];
}

/** Rules GitHub enforces on deployment bodies beyond the description's schema. */
export function deploymentRules(operationId: string, body: unknown): string[] {
  const description = (body as Partial<StatusBody> | undefined)?.description;
  if (operationId === 'repos/create-deployment-status' && typeof description === 'string' && description.length > MAX_STATUS_DESCRIPTION) {
    return [`body description is too long (maximum is ${MAX_STATUS_DESCRIPTION} characters)`];
  }
  return [];
}

/** A string payload is JSON text: GitHub keeps the object it encodes. */
function payloadOf(payload: DeploymentBody['payload'] | undefined): Json {
  if (payload === undefined) return {};
  if (typeof payload !== 'string') return payload;
  try {
    const parsed = JSON.parse(payload) as Json;
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : payload;
  } catch {
    return payload;
  }
}

const copy = (d: StandinDeployment): StandinDeployment => ({ ...d, statuses: d.statuses.map((s) => ({ ...s })) });

const DOCS = 'https://docs.github.com/rest/deployments';

export function createDeployments(defaultRepo: string, links: DeploymentLinks): Deployments {
  const all = new Map<string, StandinDeployment[]>();
  // Real ids: deployments passed 2^32, statuses 10^10.
  let nextDeployment = 4_400_000_001;
  let nextStatus = 12_600_000_001;

  const listOf = (fullName: string): StandinDeployment[] => {
    const key = fullName.toLowerCase();
    let list = all.get(key);
    if (!list) all.set(key, (list = []));
    return list;
  };

  const deploymentJson = (base: string, fullName: string, d: StandinDeployment): JsonObject => {
    const url = `${base}/repos/${fullName}/deployments/${d.id}`;
    return {
      url,
      id: d.id,
      node_id: `DE_kwDO${d.id}`,
      sha: d.sha,
      ref: d.ref,
      task: d.task,
      payload: d.payload,
      original_environment: d.originalEnvironment,
      environment: d.environment,
      description: d.description,
      creator: simpleUser(base, d.creator),
      created_at: d.createdAt,
      updated_at: d.updatedAt,
      statuses_url: `${url}/statuses`,
      repository_url: `${base}/repos/${fullName}`,
      transient_environment: d.transientEnvironment,
      production_environment: d.productionEnvironment,
      performed_via_github_app: d.app === null ? null : appJson(base, d.app),
    };
  };
  const statusJson = (base: string, fullName: string, d: StandinDeployment, s: StandinDeploymentStatus): JsonObject => {
    const deploymentUrl = `${base}/repos/${fullName}/deployments/${d.id}`;
    return {
      url: `${deploymentUrl}/statuses/${s.id}`,
      id: s.id,
      node_id: `DES_kwDO${s.id}`,
      state: s.state,
      creator: simpleUser(base, s.creator),
      description: s.description,
      environment: s.environment,
      target_url: s.targetUrl,
      created_at: s.createdAt,
      updated_at: s.createdAt,
      deployment_url: deploymentUrl,
      repository_url: `${base}/repos/${fullName}`,
      environment_url: s.environmentUrl,
      log_url: s.logUrl,
      performed_via_github_app: s.app === null ? null : appJson(base, s.app),
    };
  };

  const create = ({ req, res, fullName, caller, base }: Exchange): void => {
    const b = bodyOf<DeploymentBody>(req);
    const ref = b.ref ?? '';
    const sha = links.resolveRef(fullName, ref);
    if (!sha) return unprocessable(res, `No ref found for: ${ref}`, `${DOCS}/deployments#create-a-deployment`);
    // Left out, required_contexts means every context on the commit; each named one must be there and green.
    const contexts = links.contexts(fullName, sha);
    const required = b.required_contexts ?? contexts.map((c) => c.context);
    if (required.some((name) => !contexts.some((c) => c.context === name && c.state === 'success'))) {
      const errors = [{ contexts, resource: 'Deployment', field: 'required_contexts', code: 'invalid' }];
      return json(res, 409, errorBody(409, `Conflict: Commit status checks failed for ${ref}.`, `${DOCS}/deployments#create-a-deployment`, { errors }));
    }
    const now = timestamp();
    const environment = b.environment ?? 'production';
    const d: StandinDeployment = {
      id: nextDeployment++,
      repository: fullName,
      ref,
      sha,
      task: b.task ?? 'deploy',
      environment,
      originalEnvironment: environment,
      description: b.description === undefined ? '' : b.description,
      payload: payloadOf(b.payload),
      autoMerge: b.auto_merge ?? true,
      requiredContexts: b.required_contexts ?? null,
      transientEnvironment: b.transient_environment ?? false,
      productionEnvironment: b.production_environment ?? environment === 'production',
      creator: caller.login,
      app: caller.app ?? null,
      createdAt: now,
      updatedAt: now,
      statuses: [],
    };
    listOf(fullName).push(d);
    json(res, 201, deploymentJson(base, fullName, d));
  };

  const addStatus = ({ req, res, fullName, caller, base }: Exchange, d: StandinDeployment): void => {
    const b = bodyOf<StatusBody>(req);
    const now = timestamp();
    // The environment may move with a status; left out, it stays where the last status put it.
    const environment = b.environment ?? d.environment;
    const url = b.log_url ?? b.target_url ?? '';
    const s: StandinDeploymentStatus = {
      id: nextStatus++,
      state: b.state ?? 'pending',
      description: b.description ?? '',
      environment,
      environmentUrl: b.environment_url ?? '',
      logUrl: url,
      targetUrl: url,
      creator: caller.login,
      app: caller.app ?? null,
      createdAt: now,
    };
    d.statuses.push(s);
    d.environment = environment;
    d.updatedAt = now;
    if (s.state === 'success' && b.auto_inactive !== false) {
      // Earlier non-transient, non-production deployments to the environment that were live go inactive.
      for (const other of listOf(fullName)) {
        if (other === d || other.environment !== environment || other.transientEnvironment || other.productionEnvironment) continue;
        if (other.statuses.at(-1)?.state !== 'success') continue;
        other.statuses.push({ ...s, id: nextStatus++, state: 'inactive', description: '', environmentUrl: '', logUrl: '', targetUrl: '' });
        other.updatedAt = now;
      }
    }
    const location = `${base}/repos/${fullName}/deployments/${d.id}/statuses/${s.id}`;
    json(res, 201, statusJson(base, fullName, d, s), { location });
  };

  const route: Route = (x) => {
    const { req, res, operationId, params, fullName, base } = x;
    if (!/^repos\/(?:create|list|get)-deployment/.test(operationId)) return false;
    if (!links.knownRepo(fullName)) return (notFound(res), true);
    const d = params.deployment_id === undefined ? undefined : listOf(fullName).find((y) => y.id === Number(params.deployment_id));
    switch (operationId) {
      case 'repos/create-deployment':
        create(x);
        return true;
      case 'repos/list-deployments': {
        const q = (name: string): string | null => req.query.get(name);
        const list = listOf(fullName)
          .filter((y) => (q('sha') === null || y.sha === q('sha')) && (q('ref') === null || y.ref === q('ref')))
          .filter((y) => (q('task') === null || y.task === q('task')) && (q('environment') === null || y.environment === q('environment')))
          .sort((a, b) => b.id - a.id);
        const { items, headers } = pageOf(req, base, list);
        json(
          res,
          200,
          items.map((y) => deploymentJson(base, fullName, y)),
          headers,
        );
        return true;
      }
      case 'repos/get-deployment':
        if (!d) notFound(res);
        else json(res, 200, deploymentJson(base, fullName, d));
        return true;
      case 'repos/create-deployment-status':
        if (!d) notFound(res);
        else addStatus(x, d);
        return true;
      case 'repos/list-deployment-statuses': {
        if (!d) return (notFound(res), true);
        const { items, headers } = pageOf(req, base, [...d.statuses].reverse());
        json(
          res,
          200,
          items.map((s) => statusJson(base, fullName, d, s)),
          headers,
        );
        return true;
      }
      case 'repos/get-deployment-status': {
        const s = d?.statuses.find((y) => y.id === Number(params.status_id));
        if (!d || !s) notFound(res);
        else json(res, 200, statusJson(base, fullName, d, s));
        return true;
      }
      default:
        return false;
    }
  };

  return {
    route,
    hasRepo: (fullName) => (all.get(fullName.toLowerCase())?.length ?? 0) > 0,
    deployments: (repository = defaultRepo) => (all.get(repository.toLowerCase()) ?? []).map(copy),
  };
}
