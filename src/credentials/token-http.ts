// The one way abcd's credential code talks HTTP to GitHub: @octokit/request bound to a base URL
// (github.com, an Enterprise host, or a test server on 127.0.0.1) with a deadline on every
// call (rule 1). Loaded lazily, so verbs that never touch GitHub never load octokit.
import type { RequestInterface } from '@octokit/types';

/** Per call: GitHub answers token calls in well under a second; past this it is not coming. */
export const HTTP_DEADLINE_MS = 15_000;

export type GitHubRequest = RequestInterface;

export async function createGitHubRequest(baseUrl: string, timeoutMs = HTTP_DEADLINE_MS): Promise<GitHubRequest> {
  const { request } = await import('@octokit/request');
  const fetchWithDeadline: typeof fetch = (input, init) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    return fetch(input, { ...init, signal });
  };
  return request.defaults({
    baseUrl,
    headers: { 'user-agent': 'abcd', 'x-github-api-version': '2022-11-28' },
    request: { fetch: fetchWithDeadline },
  });
}

/** What octokit throws: RequestError with a status, and the response when there was one. */
export interface HttpFailure {
  status?: number;
  message: string;
  response?: { status?: number; headers?: Record<string, string | undefined>; data?: unknown };
}

export function asHttpFailure(e: unknown): HttpFailure | undefined {
  if (typeof e !== 'object' || e === null || !('status' in e)) return undefined;
  return e as HttpFailure;
}

/** The OAuth error code GitHub puts in a 200 (or octokit's 400) body, e.g. bad_refresh_token. */
export function oauthError(data: unknown): string | undefined {
  if (typeof data === 'object' && data !== null && 'error' in data) {
    const err = (data as { error: unknown }).error;
    return typeof err === 'string' ? err : undefined;
  }
  return undefined;
}
