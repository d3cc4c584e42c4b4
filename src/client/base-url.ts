/** The platform's address as the `api-url` input gives it, checked before any call. */
import { InputError } from './errors.js';

/** Parse and check the base URL: https only, no credentials, query or fragment; a path is the prefix of every request. */
export function parseBaseUrl(input: string, inputName = 'api-url'): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new InputError(inputName, input, 'an absolute https:// URL such as https://example.cubecloud.dev');
  }
  if (url.protocol !== 'https:') {
    throw new InputError(inputName, input, 'an https:// URL (the platform accepts HTTPS only)');
  }
  if (url.username || url.password) {
    throw new InputError(inputName, redactUrlCredentials(url), 'a URL without user:password (pass the key as api-key)');
  }
  if (url.search || url.hash)
    throw new InputError(inputName, input, 'a URL without ?query or #fragment (the host, and a path when the API is served under one)');
  // A path prefixes every request (a gateway may serve the API under one), but /d/<id>/… is the web app's page of a deployment.
  const page = /^\/d\/(\d+)(?:\/|$)/.exec(url.pathname);
  if (page)
    throw new InputError(
      inputName,
      input,
      `the tenant's origin ${url.origin}: this is the web app's page of deployment ${page[1]} (/d/${page[1]}/…), and the API is not served under it; pass ${url.origin} with deployment-id ${page[1]}`,
    );
  return url;
}

function redactUrlCredentials(url: URL): string {
  const copy = new URL(url.href);
  copy.username = '***';
  copy.password = '';
  return copy.href;
}
