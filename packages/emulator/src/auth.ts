/**
 * Spec section 5: 401 for a missing, malformed or expired credential; 403 for a key scoped to other
 * deployments, a non-admin on an admin-only endpoint, or a missing permission.
 */
import type { Endpoint } from '@datamodel-ci/platform-api';
import { ALL_PERMISSIONS } from './account/models.js';
import type { Clock } from './clock.js';
import { HttpError, type Principal } from './context.js';
import type { DeploymentRec } from './deployments/models.js';
import type { State } from './state.js';

/** Resolve the caller from the Authorization header (`Bearer <key>` or `Api-Key <key>`). */
export function authenticate(state: State, clock: Clock, e: Endpoint | undefined, header: string | undefined): Principal {
  if (!header) throw new HttpError(401, 'missing credential: send Authorization: Bearer <API key>');
  const m = /^(Bearer|Api-Key)\s+(\S+)$/i.exec(header.trim());
  if (!m) throw new HttpError(401, 'malformed Authorization header: expected "Bearer <key>" or "Api-Key <key>"');
  const token = m[2] as string;
  const key = state.apiKeys.find((k) => k.key === token);
  if (!key) {
    if (token.split('.').length === 3) throw new HttpError(401, 'invalid credential: data-API tokens are not accepted here');
    throw new HttpError(401, 'invalid credential: unknown API key');
  }
  if (key.expiresAt !== undefined && key.expiresAt <= clock.now()) {
    throw new HttpError(401, `expired credential: the key expired at ${new Date(key.expiresAt).toISOString()}`);
  }
  const user = state.users.find((u) => u.id === key.userId);
  if (!user || !user.active) throw new HttpError(401, 'invalid credential: its user is deactivated');
  const scim = e?.access?.scim === true;
  if (scim && key.kind !== 'scim') throw new HttpError(401, 'invalid credential: the SCIM API needs a SCIM token');
  if (!scim && key.kind === 'scim' && e) throw new HttpError(403, 'a SCIM token works on /api/scim/v2 only');
  return { key, user };
}

/** Scope, role and permission checks; returns the deployment named by the path, if any. */
export function authorize(state: State, e: Endpoint, principal: Principal, params: Record<string, unknown>): DeploymentRec | undefined {
  const { key, user } = principal;
  const deploymentId = params.deploymentId;
  let deployment: DeploymentRec | undefined;
  if (typeof deploymentId === 'number') {
    if (key.deploymentIds && !key.deploymentIds.includes(deploymentId)) {
      throw new HttpError(403, `this API key is scoped to deployment(s) ${key.deploymentIds.join(', ')}, not ${deploymentId}`);
    }
  }
  if (e.access?.admin && !user.isAdmin) throw new HttpError(403, `${e.method} ${e.path} needs the admin role`);
  const granted = user.isAdmin ? ALL_PERMISSIONS : user.permissions;
  for (const p of e.access?.permissions ?? []) {
    if (!granted.includes(p)) throw new HttpError(403, `missing permission ${p}`);
  }
  if (typeof deploymentId === 'number') {
    deployment = state.deployments.find((d) => d.id === deploymentId);
    if (!deployment) throw new HttpError(404, `deployment ${deploymentId} not found`);
  }
  return deployment;
}
