/** Connection settings from flags or DATAMODEL_CI_* variables, shared by every command. */
import { envName } from '../action-spec.js';
import { InputError } from '../client/errors.js';
import type { AuthScheme, ClientOptions } from '../client/http.js';
import { sourceOf } from '../settings.js';

export const CONNECTION_FLAGS = ['api-url', 'api-key', 'auth-scheme', 'ca-cert', 'timeout'] as const;

/** A setting from its flag, else its DATAMODEL_CI_* variable; empty counts as unset. */
function setting(flags: Record<string, string | boolean>, name: string, env: NodeJS.ProcessEnv): string | undefined {
  return sourceOf(flags, env)(name);
}

export function connectionOptions(
  flags: Record<string, string | boolean>,
  env: NodeJS.ProcessEnv = process.env,
): Pick<ClientOptions, 'baseUrl' | 'apiKey' | 'authScheme' | 'ca' | 'timeoutMs'> {
  const baseUrl = setting(flags, 'api-url', env);
  if (!baseUrl) throw new InputError('api-url', undefined, `the platform's https:// URL (--api-url or ${envName('api-url')})`);
  const apiKey = setting(flags, 'api-key', env);
  if (!apiKey) throw new InputError('api-key', undefined, `an API key (--api-key or ${envName('api-key')})`);
  const scheme = setting(flags, 'auth-scheme', env) ?? 'bearer';
  if (scheme !== 'bearer' && scheme !== 'api-key') throw new InputError('auth-scheme', scheme, '"bearer" or "api-key"');
  const timeout = setting(flags, 'timeout', env);
  let timeoutMs: number | undefined;
  if (timeout !== undefined) {
    timeoutMs = Number(timeout) * 1000;
    if (!/^\d+(\.\d+)?$/.test(timeout) || !(timeoutMs > 0)) {
      throw new InputError('timeout', timeout, 'a positive number of seconds');
    }
  }
  return { baseUrl, apiKey, authScheme: scheme as AuthScheme, ca: setting(flags, 'ca-cert', env), timeoutMs };
}
