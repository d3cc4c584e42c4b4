/** Embed sessions: one-time session ids redeemed for a signed embed token, and revoked. */
import { createHash, randomBytes } from 'node:crypto';
import { HttpError, reply, type HandlerTable } from '../../context.js';
import type { JsonObject } from '../../json.js';
import { findRecord, putRecord } from '../../state.js';
import { mintToken } from '../../tokens.js';
import type { SessionRec } from '../models.js';
import {
  addEmbedGroup,
  canonicalTenant,
  checkAccountGroups,
  ensureTenant,
  groupsOf,
  normalizeEmail,
  normalizeExternalId,
  provisionOne,
  usersOf,
} from './records.js';

const SESSION_TTL_MS = 10 * 60_000;
const EMBED_TOKEN_TTL_S = 24 * 3600;

export const embedSessionHandlers: HandlerTable = {
  generateSession(ctx) {
    const body = ctx.body as {
      deploymentId: number;
      externalId?: string | null;
      email?: string | null;
      embedTenantName?: string | null;
      creatorMode?: boolean | null;
      groups?: string[] | null;
      tenantGroups?: string[] | null;
      tenantGroupDefinitions?: { name: string; description?: string | null }[] | null;
      userProfile?: { displayName?: string | null; picture?: string | null } | null;
      securityContext?: JsonObject | null;
      userAttributes?: unknown;
      branchName?: string | null;
    };
    const { state } = ctx;
    const scope = ctx.principal.key.deploymentIds;
    if (scope && !scope.includes(body.deploymentId)) {
      throw new HttpError(403, `this API key is scoped to deployment(s) ${scope.join(', ')}, not ${body.deploymentId}`);
    }
    const d = state.deployments.find((x) => x.id === body.deploymentId);
    if (!d) throw new HttpError(404, `body.deploymentId: deployment ${body.deploymentId} not found`);
    if (body.branchName && !d.branches[body.branchName])
      throw new HttpError(404, `body.branchName: branch ${JSON.stringify(body.branchName)} not found in deployment ${d.id}`);
    const tenant = body.embedTenantName ? canonicalTenant(body.embedTenantName, 'body.embedTenantName') : null;
    const tenantGroups = body.tenantGroups ?? [];
    if (tenantGroups.length && (!body.creatorMode || !tenant)) {
      throw new HttpError(400, 'body.tenantGroups: needs creatorMode: true and an embedTenantName');
    }
    const defined = new Set([...(tenant ? groupsOf(state, tenant).map((g) => g.name) : []), ...(body.tenantGroupDefinitions ?? []).map((g) => g.name)]);
    const undefinedGroups = tenantGroups.filter((g) => !defined.has(g));
    if (undefinedGroups.length) {
      throw new HttpError(
        400,
        `body.tenantGroups: ${undefinedGroups.map((g) => JSON.stringify(g)).join(', ')} not defined (create them in tenantGroupDefinitions)`,
      );
    }
    if ((body.tenantGroupDefinitions ?? []).some((g) => g.name.startsWith('system:'))) {
      throw new HttpError(400, 'body.tenantGroupDefinitions: names starting with "system:" are reserved');
    }
    checkAccountGroups(state, body.groups, 'body.groups');
    const email = normalizeEmail(body.email, 'body.email');
    const externalId = body.externalId ? normalizeExternalId(body.externalId, 'body.externalId') : null;
    // Checked: now create what the session names.
    if (tenant) {
      ensureTenant(ctx, tenant);
      for (const def of body.tenantGroupDefinitions ?? []) {
        if (!groupsOf(state, tenant).some((g) => g.name === def.name)) addEmbedGroup(ctx, tenant, def.name, def.description);
      }
      if (externalId) {
        provisionOne(ctx, tenant, {
          externalId,
          email: email ?? null,
          groups: body.groups ?? null,
          tenantGroups: body.tenantGroups ?? null,
          userProfile: body.userProfile ?? null,
        });
      }
    }
    const now = ctx.clock.now();
    const s: SessionRec = {
      sessionId: randomBytes(16).toString('hex'),
      deploymentId: d.id,
      tenant,
      externalId,
      email: email ?? null,
      creatorMode: body.creatorMode === true,
      groups: body.groups ?? [],
      tenantGroups,
      branchName: body.branchName ?? null,
      securityContext: body.securityContext ?? null,
      userAttributes: body.userAttributes ?? null,
      createdAt: now,
      expiresAt: now + SESSION_TTL_MS,
      redeemedAt: null,
      revokedAt: null,
    };
    putRecord(state, 'embedSessions', s.sessionId, s);
    return { sessionId: s.sessionId };
  },

  postTokenBySessionId(ctx) {
    const { sessionId } = ctx.body as { sessionId: string };
    const s = findRecord(ctx.state, 'embedSessions', sessionId);
    const now = ctx.clock.now();
    if (!s || s.redeemedAt !== null || s.revokedAt !== null || now >= s.expiresAt) {
      throw new HttpError(401, 'invalid session: unknown, expired, revoked or already redeemed');
    }
    s.redeemedAt = now;
    if (s.tenant && s.externalId) {
      const u = usersOf(ctx.state, s.tenant).find((x) => x.externalId === s.externalId);
      if (u) u.lastLogin = new Date(now).toISOString();
    }
    const iat = Math.floor(now / 1000);
    const token = mintToken(ctx, {
      iss: 'cubecloud',
      sub: s.externalId ?? 'anonymous',
      sid: createHash('sha256').update(s.sessionId).digest('hex').slice(0, 16),
      deploymentId: s.deploymentId,
      embedTenantName: s.tenant,
      creatorMode: s.creatorMode,
      groups: s.groups,
      tenantGroups: s.tenantGroups,
      branchName: s.branchName,
      securityContext: s.securityContext,
      iat,
      exp: iat + EMBED_TOKEN_TTL_S,
    });
    return { token };
  },

  revokeSession(ctx) {
    const { sessionId } = ctx.body as { sessionId: string };
    const s = findRecord(ctx.state, 'embedSessions', sessionId);
    // Unknown, expired or already revoked: 204 all the same.
    if (s && s.revokedAt === null) s.revokedAt = ctx.clock.now();
    return reply({ status: 204 });
  },
};
