/**
 * What a person hears while the client retries: after the first failed attempt to reach the platform,
 * one line saying so and how long the retries may go on (a refused port otherwise waits in silence).
 * Every retry is in the debug log already (`--verbose`).
 */
import { ConnectionError, TimeoutError, type PlatformError } from '../client/errors.js';
import type { RetryInfo } from '../client/retry.js';

export interface RetrySink {
  warning(message: string): void;
}

/** An `onRetry` hook for a client of `apiUrl` that tells `sink` about unreachable hosts and retries. */
export function retryNotice(sink: RetrySink, apiUrl: string): (error: PlatformError, next: RetryInfo) => void {
  let told = false;
  const host = new URL(apiUrl).host;
  return (error, next) => {
    const unreachable = error instanceof ConnectionError || error instanceof TimeoutError;
    if (unreachable && !told) {
      told = true;
      const why = error instanceof TimeoutError ? `no answer within ${Math.round(error.timeoutMs / 1000)} s` : (error.code ?? 'connection failed');
      sink.warning(`cannot reach ${host} (${why}) for ${next.label}: retrying for up to ${next.secondsLeft} s (Ctrl-C stops)`);
    }
  };
}
