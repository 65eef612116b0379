import { createClient, isSvcError, type SvcThrowingClient } from '@svc/client';
import { tenantRoute } from './router.tsx';
import { accessToken, sessionExpired } from './session.ts';

/** The header that says which tenant a console user acts in on `/v1/*` routes (their membership decides). */
export const TENANT_HEADER = 'X-SVC-Tenant';

/**
 * The console's one way to the service: the SDK's REST client, typed from /openapi.json, same origin,
 * the user's hosted-auth token, and on `/v1/*` the tenant of the current page. Every call throws `SvcError`
 * for a non-2xx answer: pages show it with `<ErrorNotice>` (message and request id).
 */
export const api: SvcThrowingClient = createClient({
  baseUrl: window.location.origin,
  throwOnError: true,
  getToken: async () => accessToken.value ?? '',
  retry: false,
});

api.use({
  onRequest({ request }) {
    const tenantId = tenantRoute.value?.tenantId;
    if (tenantId !== undefined && new URL(request.url).pathname.startsWith('/v1/')) {
      request.headers.set(TENANT_HEADER, tenantId);
    }
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401) sessionExpired();
    return response;
  },
});

/** The message and request id of anything a call threw, for display. */
export function describeError(error: unknown): { message: string; code?: string; requestId?: string } {
  if (isSvcError(error)) return { message: error.message, code: error.error, requestId: error.requestId };
  return { message: error instanceof Error ? error.message : String(error) };
}
