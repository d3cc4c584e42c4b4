/** Tenant settings, OAuth integrations, user OAuth tokens and OIDC token configs (spec 4.15). */
import { z } from 'zod';
import { endpoint } from '../endpoint.js';
import { IdParams, PosInt } from '../schemas.js';
import { Unspecified } from './area-helpers.js';

// ---------------------------------------------------------------------------------------------
// Tenant settings.

/** Vendor `TenantSettings` (every field required there). */
export const TenantSettings = z.looseObject({
  auditLogEnabled: z.boolean(),
  auditLogEnabledCurrent: z.boolean(),
  auditLogEnabledTimestamp: z.number().int(),
  hasSupportAccess: z.boolean(),
  maintenanceWindowDay: z.string(),
  maintenanceWindowEnabled: z.boolean(),
  maintenanceWindowTime: z.string(),
  oidcEnabled: z.boolean(),
  useAIBIUserInterface: z.boolean(),
});
export type TenantSettings = z.infer<typeof TenantSettings>;

export const TenantSettingsInput = z.looseObject({
  auditLogEnabled: z.boolean().nullish(),
  hasSupportAccess: z.boolean().nullish(),
  maintenanceWindowDay: z.string().nullish(),
  maintenanceWindowEnabled: z.boolean().nullish(),
  maintenanceWindowTime: z.string().nullish(),
  oidcEnabled: z.boolean().nullish(),
  useAIBIUserInterface: z.boolean().nullish(),
});

// ---------------------------------------------------------------------------------------------
// OAuth integrations. Secret fields are strings so the redactor (`*Secret`, `*Token`) sees them.

export const OAuthIntegration = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  type: z.string(),
  clientId: z.string(),
  authUrl: z.string(),
  tokenUrl: z.string(),
  redirectUri: z.string(),
  scopes: z.array(z.unknown()).nullish(),
  config: z.record(z.string(), z.unknown()).nullish(),
  /** Not sent by the vendor's schema; typed as a string in case a server echoes it. */
  clientSecret: z.string().nullish(),
});
export type OAuthIntegration = z.infer<typeof OAuthIntegration>;

export const CreateOAuthIntegrationInput = z.looseObject({
  name: z.string().min(1),
  type: z.string().min(1),
  clientId: z.string().min(1),
  clientSecret: z.string().min(1),
  authUrl: z.url(),
  tokenUrl: z.url(),
  redirectUri: z.url(),
  scopes: z.array(z.string()).optional(),
  config: z.record(z.string(), z.unknown()).optional(),
});

/** Vendor `UpdateOAuthIntegrationInput`: the full record again; omit `clientSecret` to keep it. */
export const UpdateOAuthIntegrationInput = CreateOAuthIntegrationInput.extend({
  clientSecret: z.string().min(1).nullish(),
});

// ---------------------------------------------------------------------------------------------
// User OAuth tokens (the caller's tokens, one per integration).

export const UserOAuthToken = z.looseObject({
  id: z.number().int(),
  integrationId: z.number().int(),
  userId: z.number().int(),
  status: z.string(),
  accessTokenExpiresAt: z.string().nullish(),
  refreshTokenExpiresAt: z.string().nullish(),
  /** Not in the vendor's schema; strings so a server that sends them has them harvested. */
  accessToken: z.string().nullish(),
  refreshToken: z.string().nullish(),
});
export type UserOAuthToken = z.infer<typeof UserOAuthToken>;

export const IntegrationParams = z.object({ integrationId: PosInt });

// ---------------------------------------------------------------------------------------------
// OIDC token configs.

export const OidcTokenConfig = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  audience: z.string(),
  audienceType: z.string(),
  isEnabled: z.boolean(),
  subFormat: z.string().nullish(),
  targetEnvVar: z.string().nullish(),
  customClaims: z.looseObject({}).nullish(),
});
export type OidcTokenConfig = z.infer<typeof OidcTokenConfig>;

export const CreateOidcTokenConfigInput = z.looseObject({
  audienceType: z.string().min(1),
  customAudience: z.string().nullish(),
  customClaims: z.record(z.string(), z.unknown()).nullish(),
  isEnabled: z.boolean().nullish(),
  name: z.string().nullish(),
  subFormat: z.string().nullish(),
  targetEnvVar: z.string().nullish(),
});

export const UpdateOidcTokenConfigInput = CreateOidcTokenConfigInput.omit({ audienceType: true });

// ---------------------------------------------------------------------------------------------

export const tenantEndpoints = {
  getSettings: endpoint({
    id: 'getTenantSettings',
    method: 'GET',
    path: '/api/v1/tenant/settings',
    section: '4.15',
    summary: 'Get tenant settings',
    response: TenantSettings,
  }),
  updateSettings: endpoint({
    id: 'updateTenantSettings',
    method: 'PUT',
    path: '/api/v1/tenant/settings',
    section: '4.15',
    summary: 'Update tenant settings',
    body: TenantSettingsInput,
    response: TenantSettings,
  }),
  listOAuthIntegrations: endpoint({
    id: 'listOAuthIntegrations',
    method: 'GET',
    path: '/api/v1/oauth-integrations',
    section: '4.15',
    summary: 'List OAuth integrations',
    response: z.array(OAuthIntegration),
  }),
  createOAuthIntegration: endpoint({
    id: 'createOAuthIntegration',
    method: 'POST',
    path: '/api/v1/oauth-integrations',
    section: '4.15',
    summary: 'Create an OAuth integration',
    body: CreateOAuthIntegrationInput,
    response: OAuthIntegration,
  }),
  getOAuthIntegration: endpoint({
    id: 'getOAuthIntegration',
    method: 'GET',
    path: '/api/v1/oauth-integrations/{id}',
    section: '4.15',
    summary: 'Get an OAuth integration',
    params: IdParams,
    response: OAuthIntegration,
  }),
  updateOAuthIntegration: endpoint({
    id: 'updateOAuthIntegration',
    method: 'PUT',
    path: '/api/v1/oauth-integrations/{id}',
    section: '4.15',
    summary: 'Update an OAuth integration',
    params: IdParams,
    body: UpdateOAuthIntegrationInput,
    response: OAuthIntegration,
  }),
  deleteOAuthIntegration: endpoint({
    id: 'deleteOAuthIntegration',
    method: 'DELETE',
    path: '/api/v1/oauth-integrations/{id}',
    section: '4.15',
    summary: 'Delete an OAuth integration',
    params: IdParams,
    response: Unspecified,
  }),
  listUserOAuthTokens: endpoint({
    id: 'listUserOAuthTokens',
    method: 'GET',
    path: '/api/v1/user-oauth-tokens',
    section: '4.15',
    summary: 'List the caller’s OAuth tokens',
    response: z.array(UserOAuthToken),
  }),
  getUserOAuthToken: endpoint({
    id: 'getUserOAuthToken',
    method: 'GET',
    path: '/api/v1/user-oauth-tokens/{integrationId}',
    section: '4.15',
    summary: 'The caller’s token for one integration',
    params: IntegrationParams,
    response: UserOAuthToken,
  }),
  revokeUserOAuthToken: endpoint({
    id: 'revokeUserOAuthToken',
    method: 'DELETE',
    path: '/api/v1/user-oauth-tokens/{integrationId}',
    section: '4.15',
    summary: 'Revoke the caller’s token for one integration',
    params: IntegrationParams,
    response: Unspecified,
  }),
  initiateOAuthFlow: endpoint({
    id: 'initiateOAuthFlow',
    method: 'POST',
    path: '/api/v1/user-oauth-tokens/{integrationId}/initiate',
    section: '4.15',
    summary: 'Start the OAuth authorization flow for one integration',
    params: IntegrationParams,
    response: Unspecified,
  }),
  listOidcTokenConfigs: endpoint({
    id: 'listOidcTokenConfigs',
    method: 'GET',
    path: '/api/v1/oidc-token-configs',
    section: '4.15',
    summary: 'List OIDC token configs',
    response: z.array(OidcTokenConfig),
  }),
  createOidcTokenConfig: endpoint({
    id: 'createOidcTokenConfig',
    method: 'POST',
    path: '/api/v1/oidc-token-configs',
    section: '4.15',
    summary: 'Create an OIDC token config',
    body: CreateOidcTokenConfigInput,
    response: OidcTokenConfig,
  }),
  getOidcTokenConfig: endpoint({
    id: 'getOidcTokenConfig',
    method: 'GET',
    path: '/api/v1/oidc-token-configs/{id}',
    section: '4.15',
    summary: 'Get an OIDC token config',
    params: IdParams,
    response: OidcTokenConfig,
  }),
  updateOidcTokenConfig: endpoint({
    id: 'updateOidcTokenConfig',
    method: 'PUT',
    path: '/api/v1/oidc-token-configs/{id}',
    section: '4.15',
    summary: 'Update an OIDC token config',
    params: IdParams,
    body: UpdateOidcTokenConfigInput,
    response: OidcTokenConfig,
  }),
  deleteOidcTokenConfig: endpoint({
    id: 'deleteOidcTokenConfig',
    method: 'DELETE',
    path: '/api/v1/oidc-token-configs/{id}',
    section: '4.15',
    summary: 'Delete an OIDC token config',
    params: IdParams,
    response: Unspecified,
  }),
} as const;
