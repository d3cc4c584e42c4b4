/** OIDC token configurations: the audience, subject format and target variable of tokens minted for a deployment. */
import { HttpError, type HandlerTable } from '../../context.js';
import type { JsonObject } from '../../json.js';
import { allocId, deleteRecord, findRecord, putRecord, records, type State } from '../../state.js';
import { byId } from '../fields.js';
import type { OidcRec } from '../models.js';

const OIDC_NAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const OIDC_SUB = /^(?:[A-Za-z0-9:_-]|\{(?:deployment_id|component|region)\})+$/;
const ENV_VAR = /^[A-Z_][A-Z0-9_]*$/;

function oidcAudience(origin: string, audienceType: string, custom: string | null | undefined): string {
  if (custom) return custom;
  if (audienceType === 'aws') return 'sts.amazonaws.com';
  if (audienceType === 'azure') return 'api://AzureADTokenExchange';
  return `${origin}/oidc/${audienceType}`;
}

function checkOidcFields(body: { name?: string | null; subFormat?: string | null; targetEnvVar?: string | null }): void {
  if (body.name != null && (!OIDC_NAME.test(body.name) || body.name.length > 100)) {
    throw new HttpError(400, `body.name: got ${JSON.stringify(body.name)}, expected lowercase letters, digits and inner "-"`);
  }
  if (body.subFormat != null && (!OIDC_SUB.test(body.subFormat) || body.subFormat.length > 200)) {
    throw new HttpError(400, `body.subFormat: got ${JSON.stringify(body.subFormat)}, expected [A-Za-z0-9:_-] and {deployment_id}, {component}, {region}`);
  }
  if (body.targetEnvVar != null && (!ENV_VAR.test(body.targetEnvVar) || body.targetEnvVar.length > 128)) {
    throw new HttpError(400, `body.targetEnvVar: got ${JSON.stringify(body.targetEnvVar)}, expected an environment variable name ([A-Z_][A-Z0-9_]*)`);
  }
}

function oidcIn(state: State, id: number): OidcRec {
  const o = findRecord(state, 'oidcTokenConfigs', id);
  if (!o) throw new HttpError(404, `OIDC token config ${id} not found`);
  return o;
}

/** The fields of a config a create or update may set. */
interface OidcInput {
  customAudience?: string | null;
  customClaims?: JsonObject | null;
  isEnabled?: boolean | null;
  name?: string | null;
  subFormat?: string | null;
  targetEnvVar?: string | null;
}

export const oidcHandlers: HandlerTable = {
  listOidcTokenConfigs(ctx) {
    return records(ctx.state, 'oidcTokenConfigs').sort(byId);
  },

  createOidcTokenConfig(ctx) {
    const body = ctx.body as OidcInput & { audienceType: string };
    checkOidcFields(body);
    if (body.audienceType === 'custom' && !body.customAudience) throw new HttpError(400, 'body.customAudience: required when audienceType is "custom"');
    const all = records(ctx.state, 'oidcTokenConfigs');
    if (body.name && all.some((o) => o.name === body.name)) throw new HttpError(409, `an OIDC token config named ${JSON.stringify(body.name)} already exists`);
    const id = allocId(ctx.state, 'oidcTokenConfigs', 'oidcTokenConfig');
    const now = ctx.clock.iso();
    const rec: OidcRec = {
      id,
      name:
        body.name ??
        `${
          body.audienceType
            .toLowerCase()
            .replace(/[^a-z0-9]+/g, '-')
            .replace(/^-|-$/g, '') || 'oidc'
        }-${id}`,
      audienceType: body.audienceType,
      customAudience: body.customAudience ?? null,
      audience: oidcAudience(ctx.origin, body.audienceType, body.customAudience),
      isEnabled: body.isEnabled ?? true,
      subFormat: body.subFormat ?? null,
      targetEnvVar: body.targetEnvVar ?? null,
      customClaims: body.customClaims ?? null,
      createdAt: now,
      updatedAt: now,
    };
    putRecord(ctx.state, 'oidcTokenConfigs', id, rec);
    return rec;
  },

  getOidcTokenConfig(ctx) {
    return oidcIn(ctx.state, ctx.params.id as number);
  },

  updateOidcTokenConfig(ctx) {
    const rec = oidcIn(ctx.state, ctx.params.id as number);
    const body = ctx.body as OidcInput;
    checkOidcFields(body);
    if (body.name && records(ctx.state, 'oidcTokenConfigs').some((o) => o.name === body.name && o.id !== rec.id)) {
      throw new HttpError(409, `an OIDC token config named ${JSON.stringify(body.name)} already exists`);
    }
    if (rec.audienceType === 'custom' && body.customAudience === null) throw new HttpError(400, 'body.customAudience: a custom audience cannot be cleared');
    if (body.name != null) rec.name = body.name;
    if (body.isEnabled != null) rec.isEnabled = body.isEnabled;
    if (body.customAudience !== undefined) rec.customAudience = body.customAudience;
    if (body.customClaims !== undefined) rec.customClaims = body.customClaims;
    if (body.subFormat !== undefined) rec.subFormat = body.subFormat;
    if (body.targetEnvVar !== undefined) rec.targetEnvVar = body.targetEnvVar;
    rec.audience = oidcAudience(ctx.origin, rec.audienceType, rec.customAudience);
    rec.updatedAt = ctx.clock.iso();
    return rec;
  },

  deleteOidcTokenConfig(ctx) {
    const rec = oidcIn(ctx.state, ctx.params.id as number);
    deleteRecord(ctx.state, 'oidcTokenConfigs', rec.id);
    return { success: true };
  },
};
