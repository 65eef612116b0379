import type { Middleware } from 'openapi-fetch';

export interface Credentials {
  /** A tenant API key, for servers (never ship one to a browser or an app). */
  apiKey?: string;
  /** A session token (`POST /v1/runtime/connect`) or a hosted-auth JWT. */
  token?: string;
  /** Asked before every request: return the current token (refresh it here when it is about to expire). */
  getToken?: () => string | undefined | null | Promise<string | undefined | null>;
}

/** Sends `Authorization: Bearer …` from `getToken()`, else `token`, else `apiKey`, unless a request set its own. */
export function authMiddleware(credentials: Credentials): Middleware | undefined {
  const { apiKey, token, getToken } = credentials;
  if (apiKey === undefined && token === undefined && getToken === undefined) return undefined;
  return {
    async onRequest({ request }) {
      if (request.headers.has('Authorization')) return undefined;
      const bearer = (await getToken?.()) ?? token ?? apiKey;
      if (!bearer) return undefined;
      request.headers.set('Authorization', `Bearer ${bearer}`);
      return request;
    },
  };
}
