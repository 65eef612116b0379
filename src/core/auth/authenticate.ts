import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { AppError, RateLimited } from '../http/errors.ts';
import { BearerMemo, bearerCredential, type Presented } from './bearer.ts';
import type { Identity } from './identity.ts';
import { hostedUser, type Principal, type PrincipalKind } from './principal.ts';
import { allowOrigin, installProductKeyCors, PRODUCT_KEY_HEADER } from './product-access.ts';
import { invalidProductKey } from './product-keys.ts';
import { isSessionToken } from './session-tokens.ts';
import { tenantHeader } from './tenant-header.ts';

/**
 * What a route declares about who may call it (`config.auth`). Routes without it are public. A route that
 * names `product` accepts `X-SVC-Product-Key`: that is the key's whole grant (keys hold no scopes), and
 * browsers may call it from other origins (CORS, limited by each key's allowed origins).
 */
export interface RouteAuth {
  credentials: readonly PrincipalKind[];
  /** Scope the principal must hold (hosted users are governed by console roles instead). */
  scope?: string;
  /** A missing credential is fine (public data); a bad one is still refused. */
  optional?: boolean;
  /** WebSocket upgrades: also accept `?token=`. */
  queryToken?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    principal: Principal | undefined;
  }
}

const REALM = 'svc';
const KIND_NAMES: Record<PrincipalKind, string> = {
  api_key: 'a tenant API key',
  hosted_user: 'a hosted-auth JWT',
  session: 'a session token',
  product: 'a product key (X-SVC-Product-Key)',
};

function challenge(error?: string, extra: Record<string, string> = {}): string {
  const parts = [`realm="${REALM}"`];
  if (error !== undefined) parts.push(`error="${error}"`);
  for (const [k, v] of Object.entries(extra)) parts.push(`${k}="${v.replaceAll('"', "'")}"`);
  return `Bearer ${parts.join(', ')}`;
}

/**
 * RFC 6750 challenge for every refusal the guard makes: no `error` when no credential came, `invalid_request`
 * for a malformed request, `insufficient_scope` for a 403, `invalid_token` for any credential that failed.
 */
function withChallenge(error: AppError): AppError {
  if (error.status !== 400 && error.status !== 401 && error.status !== 403) return error;
  if (error.headers['www-authenticate'] !== undefined) return error;
  const rfcError =
    error.code === 'unauthorized'
      ? undefined
      : error.status === 400
        ? 'invalid_request'
        : error.status === 403
          ? 'insufficient_scope'
          : 'invalid_token';
  error.headers['www-authenticate'] = challenge(
    rfcError,
    rfcError === undefined ? {} : { error_description: error.message },
  );
  return error;
}

/** A WebSocket upgrade's `?token=` credential, if one was sent. */
export function queryToken(request: FastifyRequest): string | undefined {
  const query: unknown = request.query;
  if (typeof query !== 'object' || query === null || !('token' in query)) return undefined;
  return typeof query.token === 'string' && query.token !== '' ? query.token : undefined;
}

/** Failures that count toward the per-address limit: a credential was presented and did not verify. */
const GUESSES = new Set(['invalid_token', 'invalid_api_key']);

/**
 * `X-SVC-Product-Key`, when it is the credential of this request: on a route that accepts product keys, or
 * (to say so) alone on a route that needs a credential and does not. Elsewhere the header is ignored, so a
 * frontend may send it on every call.
 */
function productKeyPresented(
  request: FastifyRequest,
  auth: RouteAuth,
  others: boolean,
): Presented | undefined {
  const header = request.headers[PRODUCT_KEY_HEADER];
  if (header === undefined) return undefined;
  const accepts = auth.credentials.includes('product');
  if (!accepts && (others || auth.optional === true)) return undefined;
  if (others) {
    throw new AppError(
      'invalid_request',
      'send one credential: either X-SVC-Product-Key or Authorization / X-API-Key, not both',
    );
  }
  if (typeof header !== 'string') {
    throw new AppError('invalid_request', 'send the X-SVC-Product-Key header once');
  }
  return { kind: 'product', value: header.trim() };
}

function presentedCredential(
  request: FastifyRequest,
  auth: RouteAuth,
  bearers: BearerMemo,
  isSession: (jwt: string) => boolean,
): Presented | undefined {
  const headers = request.headers;
  const apiKeyHeader = headers['x-api-key'];
  const authorization = headers.authorization;
  if (typeof apiKeyHeader === 'string' && authorization !== undefined) {
    throw new AppError('invalid_request', 'send one credential: either Authorization or X-API-Key, not both');
  }
  const product =
    headers[PRODUCT_KEY_HEADER] === undefined
      ? undefined
      : productKeyPresented(request, auth, apiKeyHeader !== undefined || authorization !== undefined);
  if (product !== undefined) return product;
  if (typeof apiKeyHeader === 'string') return { kind: 'api_key', value: apiKeyHeader.trim() };
  if (authorization !== undefined) return bearers.presented(authorization);
  if (auth.queryToken !== true) return undefined;
  const token = queryToken(request);
  return token === undefined ? undefined : bearerCredential(token, isSession);
}

/**
 * The tenant a console user acts in on a route that takes an API key (`X-SVC-Tenant` beside a hosted-auth
 * JWT), or undefined when this request is not that. The JWT without the header is refused by the caller;
 * the header with another credential is refused here, so nobody thinks it changed an API key's tenant.
 */
function consoleUserTenant(
  request: FastifyRequest,
  auth: RouteAuth,
  presented: Presented,
): string | undefined {
  const tenantId = tenantHeader(request);
  if (tenantId === undefined) {
    if (
      presented.kind === 'hosted_user' &&
      auth.credentials.includes('api_key') &&
      !auth.credentials.includes('hosted_user')
    ) {
      throw new AppError(
        'unauthorized',
        'a hosted-auth JWT acts in a tenant here: send X-SVC-Tenant: <tenant id> with it (or send a tenant API key)',
      );
    }
    return undefined;
  }
  if (presented.kind !== 'hosted_user') {
    throw new AppError(
      'invalid_request',
      `X-SVC-Tenant goes with a hosted-auth JWT only; ${KIND_NAMES[presented.kind]} already names its tenant`,
    );
  }
  if (!auth.credentials.includes('api_key')) {
    throw new AppError(
      'invalid_request',
      'X-SVC-Tenant is for routes that take an API key; console routes name the tenant in their path',
    );
  }
  return tenantId;
}

const AUTHENTICATION_HOOKS = new WeakSet<object>();

/** Whether `hook` is the authentication hook of a route (the authorization hook goes right after it). */
export function isAuthenticationHook(hook: unknown): boolean {
  return typeof hook === 'function' && AUTHENTICATION_HOOKS.has(hook);
}

/** A route option's hooks as a list (Fastify takes one function or an array). */
export function routeHooks<H>(hooks: H | H[] | undefined): H[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

/**
 * Resolves `request.principal` for every route that declares `config.auth`, then enforces it: a route hook
 * of those routes (first among their own), so a public route runs none of it. A callback hook: a
 * credential verified recently is answered from memory, with no promise on the hot path.
 */
export function installAuthentication(app: FastifyInstance, identity: Identity): void {
  // A token verified before is a session token without decoding it again.
  const isSession = (jwt: string) => identity.sessions.isVerified(jwt) || isSessionToken(jwt);
  const bearers = new BearerMemo(isSession);
  app.decorateRequest('principal', undefined);
  installProductKeyCors(app);

  /** `guess`: false for a refusal that no presented credential caused (a missing product key). */
  const refusal = (request: FastifyRequest, error: unknown, guess = true): Error => {
    if (!(error instanceof AppError)) return error as Error;
    if (guess && GUESSES.has(error.code)) identity.failures.recordFailure(request.ip);
    return withChallenge(error);
  };
  // Scope, session room and module are checked next, by the authorization hook (core/modules/guard.ts);
  // a product key's origin and request rate here, since they are the key's own.
  const admit = (request: FastifyRequest, reply: FastifyReply, principal: Principal): void => {
    if (principal.kind === 'product') identity.productGate.admit(request, reply, principal);
    request.principal = principal;
  };

  const authenticate = (auth: RouteAuth): onRequestHookHandler => {
    const acceptsProduct = auth.credentials.includes('product');
    const onlyProduct = auth.credentials.length === 1 && acceptsProduct;
    const wanted = auth.credentials.map((k) => KIND_NAMES[k]).join(' or ');
    return (request, reply, done) => {
      let presented: Presented | undefined;
      let actingIn: string | undefined;
      let missing = false;
      try {
        // Browsers read the answers (refusals included) of routes meant for them; a key may take it back.
        const origin = request.headers.origin;
        if (acceptsProduct && typeof origin === 'string') allowOrigin(reply, origin);
        const retryAfter = identity.failures.retryAfterSeconds(request.ip);
        if (retryAfter > 0)
          throw new RateLimited('too many failed authentications; try again later', retryAfter);
        presented = presentedCredential(request, auth, bearers, isSession);
        if (presented === undefined) {
          if (auth.optional === true) return done();
          if (onlyProduct) {
            missing = true;
            throw invalidProductKey('missing');
          }
          throw new AppError('unauthorized', `send ${wanted}`);
        }
        actingIn = consoleUserTenant(request, auth, presented);
        if (actingIn === undefined && !auth.credentials.includes(presented.kind)) {
          throw new AppError(
            'unauthorized',
            `this route does not accept ${KIND_NAMES[presented.kind]}; send ${wanted}`,
          );
        }
        const cached =
          actingIn === undefined ? identity.verifyCached(presented.kind, presented.value) : undefined;
        if (cached !== undefined) {
          admit(request, reply, cached);
          return done();
        }
      } catch (error) {
        return done(refusal(request, error, !missing));
      }
      const verified = identity.verify(presented.kind, presented.value);
      const tenant = actingIn;
      (tenant === undefined
        ? verified
        : verified.then((user) => identity.actInTenant(hostedUser(user), tenant))
      ).then(
        (principal) => {
          try {
            admit(request, reply, principal);
          } catch (error) {
            return done(refusal(request, error));
          }
          done();
        },
        (error: unknown) => done(refusal(request, error)),
      );
    };
  };

  app.addHook('onRoute', (route) => {
    const auth = route.config?.auth;
    if (auth === undefined) return;
    const hook = authenticate(auth);
    AUTHENTICATION_HOOKS.add(hook);
    route.onRequest = [hook, ...routeHooks(route.onRequest)];
  });
}
