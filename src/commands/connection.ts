/** The connection of the commands that only talk to the platform (`check`, `api`): the same inputs as the actions. */
import { CONNECTION_INPUTS } from '../action-spec.js';
import { InputError } from '../client/errors.js';
import type { ClientOptions } from '../client/http.js';
import type { Io } from '../io.js';
import { retryNotice } from '../report/retry-notice.js';
import { InputReader, readConnection, sourceOf } from '../settings.js';

/** Client options from the connection flags or their DATAMODEL_CI_* variables; the key is required here. */
export function connectionOptions(
  flags: Record<string, string | boolean>,
  io: Io,
): Pick<ClientOptions, 'baseUrl' | 'apiKey' | 'authScheme' | 'ca' | 'timeoutMs' | 'onSecret' | 'onRetry'> {
  const c = readConnection(new InputReader(sourceOf(flags, io.env), CONNECTION_INPUTS));
  if (!c.apiKey) throw new InputError('api-key', undefined, 'an API key (--api-key or DATAMODEL_CI_API_KEY)');
  return {
    baseUrl: c.apiUrl,
    apiKey: c.apiKey,
    authScheme: c.authScheme,
    timeoutMs: c.requestTimeoutMs,
    ca: c.caCert,
    onRetry: retryNotice({ warning: (m) => io.err(`warning: ${m}`) }, c.apiUrl),
    // In a GitHub Actions step, mask every secret the client learns.
    ...(io.env.GITHUB_ACTIONS === 'true' ? { onSecret: (secret: string) => io.out(`::add-mask::${secret}`) } : {}),
  };
}
