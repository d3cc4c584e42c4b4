/** Application configuration, theme and the OpenAPI description document (spec 4.15, section 9). */
import { z } from 'zod';
import { endpoint } from '../endpoint.js';
import { AnyObject } from '../schemas.js';

/** One colour scheme of the deprecated `light` / `dark` theme fields. */
export const AppThemeScheme = z.looseObject({
  accentColor: z.string().nullish(),
  backgroundColor: z.string().nullish(),
  foregroundColor: z.string().nullish(),
  contrast: z.number().nullish(),
  logoUrl: z.string().nullish(),
});

/**
 * The application theme. Release 0.6.0 added `palette` and `logoUrl` and deprecated `light` and
 * `dark`; all four are optional here so a server that drops the deprecated pair still parses.
 */
export const AppTheme = z.looseObject({
  palette: z.looseObject({}).nullish(),
  logoUrl: z.string().nullish(),
  typography: z.looseObject({}).nullish(),
  /** @deprecated since 0.6.0: use `palette`. */
  light: AppThemeScheme.nullish(),
  /** @deprecated since 0.6.0: use `palette`. */
  dark: AppThemeScheme.nullish(),
});
export type AppTheme = z.infer<typeof AppTheme>;

/** Vendor `AppConfigResponse` (required there: the three booleans). */
export const AppConfig = z.looseObject({
  applyThemeGlobally: z.boolean(),
  restrictDataDownload: z.boolean(),
  sheetsAgentChatEnabled: z.boolean(),
  appTheme: AppTheme.nullish(),
  creatorMode: z.looseObject({}).nullish(),
  embedding: z.looseObject({}).nullish(),
  sheetsUi: z.looseObject({}).nullish(),
  timezoneSettings: z.looseObject({}).nullish(),
});
export type AppConfig = z.infer<typeof AppConfig>;

/** The OpenAPI 3.1 document of the running build: `openapi` and `paths` required, the rest kept. */
export const OpenApiDocument = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string().optional(), version: z.string().optional() }).optional(),
  paths: AnyObject,
  components: AnyObject.optional(),
});
export type OpenApiDocument = z.infer<typeof OpenApiDocument>;

export const appEndpoints = {
  config: endpoint({
    id: 'getAppConfig',
    method: 'GET',
    path: '/api/v1/app-config',
    section: '4.15',
    summary: 'Application configuration',
    response: AppConfig,
  }),
  theme: endpoint({
    id: 'getAppTheme',
    method: 'GET',
    path: '/api/v1/app-theme',
    section: '4.15',
    summary: 'Application theme (palette, logoUrl; light/dark deprecated)',
    response: AppTheme,
  }),
  spec: endpoint({
    id: 'getSpec',
    method: 'GET',
    path: '/api/v1/spec',
    section: '4.15',
    summary: 'The OpenAPI 3.1 document of the running build',
    response: OpenApiDocument,
  }),
} as const;
