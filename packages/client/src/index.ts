import createFetchClient, { type Client, type ClientOptions as FetchClientOptions } from 'openapi-fetch';
import { authMiddleware, type Credentials } from './auth.ts';
import { SvcError } from './errors.ts';
import { idempotencyMiddleware, randomIdempotencyKey } from './idempotency.ts';
import { paginate } from './paginate.ts';
import { type RetryOptions, retryingFetch } from './retry.ts';
import type { InitParam, ListInit, ListItem, ListPath, paths, ThrowingMethod } from './types.ts';

export type { Credentials } from './auth.ts';
export type { ErrorBody, ErrorCode, ErrorDetail, UnexpectedResponse } from './errors.ts';
export { isSvcError, SvcError } from './errors.ts';
export type { components, operations, paths } from './generated/openapi.js';
export { IDEMPOTENCY_KEY_HEADER, randomIdempotencyKey } from './idempotency.ts';
export type { RetryOptions } from './retry.ts';
export type { ListItem, ListPath } from './types.ts';

export interface ClientOptions extends Credentials {
  /** Where the service answers, e.g. `https://svc.example.com` (the paths start with `/v1/...`). */
  baseUrl: string;
  /** The `fetch` to send with (default: the global one); a Request goes in, a Response comes out. */
  fetch?: (request: Request) => Promise<Response>;
  /** Throw `SvcError` for an answer that is not 2xx, and resolve to `{ data, response }` otherwise. */
  throwOnError?: boolean;
  /** Retries of requests that are safe to repeat, on 503/429 and network failures; `false`: none. */
  retry?: RetryOptions | false;
  /** Makes each automatic `Idempotency-Key` (default: a random UUID). */
  idempotencyKey?: () => string;
  /** Headers sent with every request. */
  headers?: FetchClientOptions['headers'];
}

interface Paginates {
  /** Every row of a paginated list, fetching page after page: `for await (const room of client.paginate('/v1/rooms'))`. */
  paginate<P extends ListPath>(
    path: P,
    ...init: InitParam<ListInit<P>>
  ): AsyncGenerator<ListItem<P>, void, undefined>;
}

/** The REST client: openapi-fetch's, typed by the service's OpenAPI document, results as `{ data } | { error }`. */
export type SvcClient = Client<paths> & Paginates;

/** The REST client made with `throwOnError: true`: each call resolves to `{ data, response }` or throws `SvcError`. */
export type SvcThrowingClient = Omit<Client<paths>, 'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH' | 'HEAD'> &
  Paginates & {
    GET: ThrowingMethod<'get'>;
    PUT: ThrowingMethod<'put'>;
    POST: ThrowingMethod<'post'>;
    DELETE: ThrowingMethod<'delete'>;
    PATCH: ThrowingMethod<'patch'>;
    HEAD: ThrowingMethod<'head'>;
  };

const THROWING_METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE'] as const;
type Call = (url: string, init?: unknown) => Promise<{ error?: unknown; response: Response }>;

export function createClient(options: ClientOptions & { throwOnError: true }): SvcThrowingClient;
export function createClient(options: ClientOptions & { throwOnError?: false }): SvcClient;
export function createClient(options: ClientOptions): SvcClient | SvcThrowingClient {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const client = createFetchClient<paths>({
    baseUrl: options.baseUrl,
    headers: options.headers,
    fetch: options.retry === false ? baseFetch : retryingFetch(baseFetch, options.retry),
  });
  const auth = authMiddleware(options);
  if (auth) client.use(auth);
  client.use(idempotencyMiddleware(options.idempotencyKey ?? randomIdempotencyKey));

  // openapi-fetch's methods are typed per path; `paginate`'s signature types the call, this one only runs it.
  const get = client.GET as unknown as Parameters<typeof paginate>[0];
  const paginates: Paginates = {
    paginate: (path, ...init) => paginate(get, path, init[0] ?? {}) as AsyncGenerator<never, void, undefined>,
  };
  if (options.throwOnError !== true) return Object.assign(client, paginates);

  const throwing: Record<string, Call> = {};
  for (const method of THROWING_METHODS) {
    const call = client[method] as unknown as Call;
    throwing[method] = async (url, init) => {
      const result = await call(url, init);
      if (!result.response.ok) throw new SvcError(result.error, result.response);
      return result;
    };
  }
  return Object.assign(client, paginates, throwing) as unknown as SvcThrowingClient;
}
