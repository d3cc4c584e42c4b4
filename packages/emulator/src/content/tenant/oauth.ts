/** OAuth integrations (the client secret is write-only), the caller's OAuth tokens and authorization flows. */
import { randomBytes } from 'node:crypto';
import { HttpError, type Ctx, type HandlerTable } from '../../context.js';
import type { JsonObject } from '../../json.js';
import { allocId, deleteRecord, findRecord, putRecord, records, type State } from '../../state.js';
import { byId } from '../fields.js';
import type { OAuthIntegrationRec, UserTokenRec } from '../models.js';

/** Never the secret: it is write-only. */
function integrationOut(i: OAuthIntegrationRec) {
  return {
    id: i.id,
    name: i.name,
    type: i.type,
    clientId: i.clientId,
    authUrl: i.authUrl,
    tokenUrl: i.tokenUrl,
    redirectUri: i.redirectUri,
    scopes: i.scopes,
    config: i.config,
    createdAt: i.createdAt,
    updatedAt: i.updatedAt,
  };
}

function integrationIn(state: State, id: number): OAuthIntegrationRec {
  const i = findRecord(state, 'oauthIntegrations', id);
  if (!i) throw new HttpError(404, `OAuth integration ${id} not found`);
  return i;
}

function userTokenOut(t: UserTokenRec) {
  return { ...t, lastError: null };
}

function callerToken(ctx: Ctx): { integration: OAuthIntegrationRec; token: UserTokenRec } {
  const integration = integrationIn(ctx.state, ctx.params.integrationId as number);
  const token = records(ctx.state, 'userOAuthTokens').find((t) => t.integrationId === integration.id && t.userId === ctx.principal.user.id);
  if (!token) throw new HttpError(404, `no OAuth token of the caller for integration ${integration.id}`);
  return { integration, token };
}

export const oauthHandlers: HandlerTable = {
  listOAuthIntegrations(ctx) {
    return records(ctx.state, 'oauthIntegrations').sort(byId).map(integrationOut);
  },

  createOAuthIntegration(ctx) {
    const body = ctx.body as Omit<OAuthIntegrationRec, 'id' | 'createdAt' | 'updatedAt' | 'scopes' | 'config'> & { scopes?: string[]; config?: JsonObject };
    if (records(ctx.state, 'oauthIntegrations').some((i) => i.name === body.name)) {
      throw new HttpError(409, `an OAuth integration named ${JSON.stringify(body.name)} already exists`);
    }
    const now = ctx.clock.iso();
    const rec: OAuthIntegrationRec = {
      id: allocId(ctx.state, 'oauthIntegrations', 'oauthIntegration'),
      name: body.name,
      type: body.type,
      clientId: body.clientId,
      clientSecret: body.clientSecret,
      authUrl: body.authUrl,
      tokenUrl: body.tokenUrl,
      redirectUri: body.redirectUri,
      scopes: body.scopes ?? [],
      config: body.config ?? {},
      createdAt: now,
      updatedAt: now,
    };
    putRecord(ctx.state, 'oauthIntegrations', rec.id, rec);
    return integrationOut(rec);
  },

  getOAuthIntegration(ctx) {
    return integrationOut(integrationIn(ctx.state, ctx.params.id as number));
  },

  updateOAuthIntegration(ctx) {
    const rec = integrationIn(ctx.state, ctx.params.id as number);
    const body = ctx.body as Omit<OAuthIntegrationRec, 'id' | 'createdAt' | 'updatedAt' | 'scopes' | 'config' | 'clientSecret'> & {
      clientSecret?: string | null;
      scopes?: string[];
      config?: JsonObject;
    };
    if (records(ctx.state, 'oauthIntegrations').some((i) => i.name === body.name && i.id !== rec.id)) {
      throw new HttpError(409, `an OAuth integration named ${JSON.stringify(body.name)} already exists`);
    }
    Object.assign(rec, {
      name: body.name,
      type: body.type,
      clientId: body.clientId,
      authUrl: body.authUrl,
      tokenUrl: body.tokenUrl,
      redirectUri: body.redirectUri,
      scopes: body.scopes ?? rec.scopes,
      config: body.config ?? rec.config,
      updatedAt: ctx.clock.iso(),
    });
    // Omitted (or null) keeps the stored secret.
    if (body.clientSecret) rec.clientSecret = body.clientSecret;
    return integrationOut(rec);
  },

  deleteOAuthIntegration(ctx) {
    const rec = integrationIn(ctx.state, ctx.params.id as number);
    for (const t of records(ctx.state, 'userOAuthTokens')) if (t.integrationId === rec.id) deleteRecord(ctx.state, 'userOAuthTokens', t.id);
    for (const f of records(ctx.state, 'oauthFlows')) if (f.integrationId === rec.id) deleteRecord(ctx.state, 'oauthFlows', f.state);
    deleteRecord(ctx.state, 'oauthIntegrations', rec.id);
    return { success: true };
  },

  listUserOAuthTokens(ctx) {
    return records(ctx.state, 'userOAuthTokens')
      .filter((t) => t.userId === ctx.principal.user.id)
      .sort(byId)
      .map(userTokenOut);
  },

  getUserOAuthToken(ctx) {
    return userTokenOut(callerToken(ctx).token);
  },

  revokeUserOAuthToken(ctx) {
    const { token } = callerToken(ctx);
    deleteRecord(ctx.state, 'userOAuthTokens', token.id);
    return { success: true };
  },

  initiateOAuthFlow(ctx) {
    const integration = integrationIn(ctx.state, ctx.params.integrationId as number);
    const state = randomBytes(16).toString('hex');
    const url = new URL(integration.authUrl);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', integration.clientId);
    url.searchParams.set('redirect_uri', integration.redirectUri);
    if (integration.scopes.length) url.searchParams.set('scope', integration.scopes.join(' '));
    url.searchParams.set('state', state);
    putRecord(ctx.state, 'oauthFlows', state, { state, integrationId: integration.id, userId: ctx.principal.user.id, startedAt: ctx.clock.iso() });
    return { authorizationUrl: url.toString(), state };
  },
};
