import { createHmac } from 'node:crypto';
import { AppError, ServiceUnavailable } from '../../core/http/errors.ts';

/** GitHub's REST API version the dispatch is written against. */
export const GITHUB_API_VERSION = '2022-11-28';
/** How long the dispatch may take before the build is recorded as failed. */
export const DISPATCH_TIMEOUT_MS = 10_000;

export interface DispatchTarget {
  apiUrl: string;
  repository: string;
  token: string;
}

/** Why a dispatch did not go through: the error the console gets, and what the build records. */
export class DispatchRefused extends Error {
  constructor(
    readonly answer: AppError,
    readonly recorded: string,
  ) {
    super(recorded);
    this.name = 'DispatchRefused';
  }
}

/**
 * The secret the CI signs its callback with: derived from the dispatch token and the build id, so
 * nothing more is stored, each build has its own, and rotating the token voids the old ones.
 */
export function callbackSecret(token: string, buildId: string): string {
  return createHmac('sha256', token).update(`svc mobile-build callback ${buildId}`).digest('hex');
}

function retryAfterOf(headers: Headers, now: number): number {
  const retryAfter = Number(headers.get('retry-after'));
  if (Number.isFinite(retryAfter) && retryAfter > 0) return retryAfter;
  const reset = Number(headers.get('x-ratelimit-reset'));
  if (Number.isFinite(reset) && reset > 0) return Math.max(1, Math.ceil(reset - now / 1000));
  return 60;
}

async function messageOf(response: Response): Promise<string> {
  try {
    const body: unknown = await response.json();
    if (typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string') {
      return body.message.slice(0, 300);
    }
  } catch {
    // not JSON
  }
  return response.statusText;
}

/** GitHub's refusals as the errors the console gets (see docs/mobile-builds.md). */
async function refusal(response: Response, target: DispatchTarget, now: number): Promise<DispatchRefused> {
  const { status, headers } = response;
  const message = await messageOf(response);
  const repo = target.repository;
  const rateLimited =
    status === 429 ||
    (status === 403 && (headers.get('x-ratelimit-remaining') === '0' || headers.has('retry-after')));
  if (rateLimited) {
    const seconds = retryAfterOf(headers, now);
    const error = new ServiceUnavailable(
      `GitHub is rate limiting the dispatch token; retry after ${seconds} s`,
    );
    error.headers['retry-after'] = String(seconds);
    return new DispatchRefused(error, `GitHub rate limited the dispatch (${status}): ${message}`);
  }
  if (status === 401 || status === 403) {
    return new DispatchRefused(
      new AppError(
        'upstream_error',
        `GitHub refused the dispatch token (${status}: ${message}): SVC_MOBILE_BUILD_DISPATCH_TOKEN needs contents read/write permission on ${repo}`,
      ),
      `GitHub refused the token (${status}): ${message}`,
    );
  }
  if (status === 404) {
    return new DispatchRefused(
      new AppError(
        'upstream_error',
        `GitHub knows no repository ${repo} that the dispatch token can see (404); check SVC_MOBILE_BUILD_REPOSITORY and the token's repository access`,
      ),
      `repository ${repo} not found (404)`,
    );
  }
  if (status === 422) {
    return new DispatchRefused(
      new AppError('upstream_error', `GitHub refused the dispatch payload (422): ${message}`),
      `payload refused (422): ${message}`,
    );
  }
  return new DispatchRefused(
    new AppError('upstream_error', `GitHub answered ${status} to the dispatch (${message}); retry later`),
    `GitHub answered ${status}: ${message}`,
  );
}

/**
 * Sends GitHub's repository dispatch (`POST /repos/{owner}/{repo}/dispatches`, event `mobile-build`).
 * GitHub answers 204 when it accepted it. Throws DispatchRefused for every other outcome, a timeout and a
 * network failure included.
 */
export async function sendDispatch(
  target: DispatchTarget,
  clientPayload: Record<string, unknown>,
  now: number,
): Promise<void> {
  const url = `${target.apiUrl.replace(/\/+$/, '')}/repos/${target.repository}/dispatches`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        accept: 'application/vnd.github+json',
        authorization: `Bearer ${target.token}`,
        'x-github-api-version': GITHUB_API_VERSION,
        'content-type': 'application/json',
        'user-agent': 'svc-mobile-build',
      },
      body: JSON.stringify({ event_type: 'mobile-build', client_payload: clientPayload }),
      signal: AbortSignal.timeout(DISPATCH_TIMEOUT_MS),
    });
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    const what = timedOut ? `no answer within ${DISPATCH_TIMEOUT_MS / 1000} s` : 'the connection failed';
    throw new DispatchRefused(
      new AppError(
        'upstream_error',
        `GitHub could not be reached (${what}); the build is recorded as failed, retry`,
        {
          cause: error,
        },
      ),
      `GitHub could not be reached: ${what}`,
    );
  }
  if (response.status >= 200 && response.status < 300) {
    await response.body?.cancel();
    return;
  }
  throw await refusal(response, target, now);
}
