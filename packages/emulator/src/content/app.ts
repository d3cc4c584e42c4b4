/** App config, theme and the OpenAPI document. */
import { profileOn, type HandlerTable } from '../context.js';
import { buildOpenApiDocument } from '../openapi.js';

function appTheme(origin: string) {
  return {
    palette: {
      accent: { color: '#7A77FF', hue: 242, saturation: 100 },
      base: { color: '#141446', hue: 240, saturation: 55 },
      contrastLevel: 50,
      pastel: false,
      surfaceMode: 'neutral',
      themes: null,
    },
    logoUrl: `${origin}/static/logo.svg`,
    typography: null,
    light: { accentColor: '#7A77FF', backgroundColor: '#FFFFFF', foregroundColor: '#141446', contrast: 1, logoUrl: `${origin}/static/logo.svg` },
    dark: { accentColor: '#A3A1FF', backgroundColor: '#141446', foregroundColor: '#FFFFFF', contrast: 1, logoUrl: `${origin}/static/logo-dark.svg` },
  };
}

export const appHandlers: HandlerTable = {
  getAppConfig(ctx) {
    return {
      applyThemeGlobally: false,
      restrictDataDownload: false,
      sheetsAgentChatEnabled: false,
      appTheme: appTheme(ctx.origin),
      creatorMode: { enabled: false },
      embedding: { enabled: true },
      sheetsUi: { enabled: true },
      timezoneSettings: { defaultTimezone: 'UTC' },
    };
  },

  getAppTheme(ctx) {
    return appTheme(ctx.origin);
  },

  getSpec(ctx) {
    // Evaluations are a preview feature outside the contract: listed only where the tenant has them.
    return buildOpenApiDocument(ctx.origin, { evaluations: !profileOn(ctx, 'no-evaluations') });
  },
};
