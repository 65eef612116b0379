import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { answerUnmatched } from '../http/error-handler.ts';
import { AppError, RateLimited } from '../http/errors.ts';
import type { FailureLimiter } from './failure-limiter.ts';
import type { PrincipalKind, ProductPrincipal } from './principal.ts';

/** The header a product frontend sends its publishable key in. */
export const PRODUCT_KEY_HEADER = 'x-svc-product-key';

/** Headers a browser may read from a cross-origin answer (ETag for revalidation, Retry-After on 429). */
const EXPOSED = 'ETag, Retry-After, X-Request-Id, WWW-Authenticate';
const PREFLIGHT_MAX_AGE_SECONDS = 600;
/** The product-key request limit counts per minute. */
export const PRODUCT_REQUEST_WINDOW_MS = 60_000;

/** Whether `origin` is one the key allows: an exact origin, or `scheme://*.domain` for its subdomains. */
export function originAllowed(allowed: readonly string[], origin: string): boolean {
  if (allowed.length === 0) return true;
  const lower = origin.toLowerCase();
  return allowed.some((entry) => {
    const star = entry.indexOf('://*.');
    if (star < 0) return entry === lower;
    const scheme = entry.slice(0, star + 3);
    const suffix = entry.slice(star + 4);
    return lower.startsWith(scheme) && lower.endsWith(suffix) && lower.length > scheme.length + suffix.length;
  });
}

/** A browser's `Origin`; undefined for a request without one (a server, a phone app: not a browser). */
export function browserOrigin(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin;
  return typeof origin === 'string' && origin !== '' ? origin : undefined;
}

/**
 * 403 `forbidden` for a browser origin that an origin list does not allow: a product key's own, or one its
 * tenant keeps (the storefront's `allowedOrigins`). The answer goes without `Access-Control-Allow-Origin`
 * (see `installProductKeyCors`), so the page on that origin cannot read it.
 */
export class OriginNotAllowed extends AppError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

/** CORS answer headers for a route that browsers call (the caller's own origin, never `*` with a key). */
export function allowOrigin(reply: FastifyReply, origin: string): void {
  reply.header('access-control-allow-origin', origin);
  reply.header('access-control-expose-headers', EXPOSED);
  reply.header('vary', 'Origin');
}

/**
 * What a verified product key may do on this request: its origin restriction (a browser's `Origin` must be
 * one the key lists; a request without one — a server, a phone app — is not a browser and passes) and its
 * request rate per client address. Counted in memory, and across instances through Redis when configured.
 */
export class ProductKeyGate {
  constructor(private readonly requests: FailureLimiter) {}

  /** A refused origin's answer loses its CORS header in the `onError` hook (`installProductKeyCors`). */
  admit(request: FastifyRequest, _reply: FastifyReply, principal: ProductPrincipal): void {
    const origin = browserOrigin(request);
    const { allowedOrigins, requestsPerMinute } = principal.restrictions;
    if (origin !== undefined && !originAllowed(allowedOrigins, origin)) {
      throw new OriginNotAllowed(
        `the origin ${origin} is not allowed for this product key; add it to the key's allowedOrigins in the console`,
      );
    }
    const counted = `${principal.productKeyId} ${request.ip}`;
    const retryAfter = this.requests.retryAfterSeconds(counted);
    if (retryAfter > 0) {
      throw new RateLimited(
        `this product key allows ${requestsPerMinute} requests per minute from one address; retry after ${retryAfter} s`,
        retryAfter,
      );
    }
    this.requests.recordFailure(counted, requestsPerMinute);
  }

  start(): Promise<void> {
    return this.requests.start();
  }

  stop(): Promise<void> {
    return this.requests.stop();
  }
}

/** The request headers a browser may send to a route, from the credentials it accepts. */
function allowedHeaders(credentials: readonly PrincipalKind[]): string {
  const headers = ['Content-Type', 'If-None-Match', 'X-Request-Id', 'traceparent'];
  if (credentials.includes('product')) headers.push('X-SVC-Product-Key');
  if (credentials.some((kind) => kind !== 'product')) headers.push('Authorization');
  if (credentials.includes('api_key')) headers.push('X-API-Key');
  return headers.join(', ');
}

/**
 * CORS for every route that accepts product keys (browsers call them from other origins): preflights are
 * answered here, as requests no route matches (no route declares OPTIONS), for the methods such routes
 * declare; the answers themselves carry `Access-Control-Allow-Origin` (set by the authentication hook,
 * and taken off when the key or its tenant refuses the origin: `OriginNotAllowed`). A preflight carries no
 * key, so no tenant is known: it is answered alike for every origin, and the origin lists are applied to
 * the request itself.
 */
export function installProductKeyCors(app: FastifyInstance): void {
  const routes = FindMyWay();
  const accepted = new Map<string, { methods: Set<string>; credentials: readonly PrincipalKind[] }>();
  app.addHook('onRoute', (route) => {
    const credentials = route.config?.auth?.credentials;
    if (credentials === undefined || !credentials.includes('product')) return;
    let entry = accepted.get(route.url);
    if (entry === undefined) {
      entry = { methods: new Set(), credentials };
      accepted.set(route.url, entry);
      routes.on('OPTIONS', route.url, () => {}, { url: route.url });
    }
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      entry.methods.add(method as HTTPMethod);
    }
  });
  // Whatever refuses the origin (the key, or its tenant's list in a route), the answer is not shared.
  app.addHook('onError', (_request, reply, error, done) => {
    if (error instanceof OriginNotAllowed) reply.removeHeader('access-control-allow-origin');
    done();
  });
  // A preflight matches no route (none declares OPTIONS): answered where unmatched requests are.
  answerUnmatched(app, (request, reply) => {
    if (request.method !== 'OPTIONS') return false;
    const origin = browserOrigin(request);
    const asked = request.headers['access-control-request-method'];
    const found = routes.find('OPTIONS', request.url.split('?')[0] ?? '/');
    const url = (found?.store as { url?: string } | undefined)?.url;
    const entry = url === undefined ? undefined : accepted.get(url);
    if (entry === undefined || origin === undefined || typeof asked !== 'string') return false;
    if (!entry.methods.has(asked.toUpperCase())) return false;
    allowOrigin(reply, origin);
    reply
      .header('access-control-allow-methods', [...entry.methods].join(', '))
      .header('access-control-allow-headers', allowedHeaders(entry.credentials))
      .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS))
      .code(204)
      .send();
    return true;
  });
}
