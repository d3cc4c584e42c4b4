/** Octokit from `@actions/github`, as the product builds it, pointed at the GitHub stand-in; answers checked against GitHub's schemas. */
import { getOctokit } from '@actions/github';
import { Agent, fetch as undiciFetch } from 'undici';
import { githubDescription } from '../../packages/emulator/src/github/description.js';
import type { GitHubStandin } from '../../packages/emulator/src/github/standin.js';

export type Octokit = ReturnType<typeof getOctokit>;

/**
 * Operations whose answers the stand-in shapes in full, so they must match GitHub's documented response
 * schema (the pull and comment answers carry only what the product reads).
 */
const FULL_ANSWERS = new Set([
  'checks/create',
  'checks/update',
  'checks/get',
  'checks/list-for-ref',
  'checks/list-annotations',
  'repos/create-deployment',
  'repos/list-deployments',
  'repos/get-deployment',
  'repos/create-deployment-status',
  'repos/list-deployment-statuses',
  'repos/get-deployment-status',
  'users/get-authenticated',
  'pulls/list-files',
  'repos/compare-commits-with-basehead',
  'issues/create',
  'issues/update',
  'issues/get',
  'issues/list-for-repo',
]);

/** An Octokit for `token` that trusts the stand-in's CA; answers off GitHub's schema land in `mismatches`. */
export function standinOctokit(standin: GitHubStandin, mismatches: string[], token = 'ghs_test'): Octokit {
  const description = githubDescription();
  const dispatcher = new Agent({ connect: { ca: standin.ca } });
  return getOctokit(token, {
    baseUrl: standin.url,
    userAgent: 'datamodel-ci-test',
    request: {
      fetch: async (url: string | URL, init?: Parameters<typeof undiciFetch>[1]) => {
        const res = await undiciFetch(url, { ...init, dispatcher });
        const method = init?.method ?? 'GET';
        const path = new URL(String(url)).pathname;
        const operationId = description.find(method, path)?.operation.operationId;
        if (operationId && FULL_ANSWERS.has(operationId) && (res.headers.get('content-type') ?? '').includes('json')) {
          const body: unknown = await res.clone().json();
          mismatches.push(...description.checkResponse(method, path, res.status, body).map((e) => `${method} ${path}: ${e}`));
        }
        return res;
      },
    },
  });
}

/** The status and GitHub error message of a rejected Octokit call. */
export async function refusal(call: Promise<unknown>): Promise<{ status: number; message: string; headers: Record<string, string> }> {
  try {
    await call;
  } catch (error) {
    const e = error as { status: number; response?: { data?: { message?: string }; headers?: Record<string, string> } };
    return { status: e.status, message: e.response?.data?.message ?? '', headers: e.response?.headers ?? {} };
  }
  throw new Error('expected the call to be refused');
}
