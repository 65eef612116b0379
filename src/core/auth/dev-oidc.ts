import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { exportJWK, SignJWT } from 'jose';
import type { Config } from '../../config.ts';
import type { Clock } from '../clock.ts';
import { NotFound } from '../http/errors.ts';
import { DEV_OWNER_EMAIL, DEV_OWNER_SUB, type DevIssuer, signDevToken } from './dev-issuer.ts';
import {
  DevAuthorizationCodes,
  DevProviderSessions,
  SESSION_COOKIE,
  verifierMatches,
} from './dev-oidc-codes.ts';
import { DEV_PAGE_CSP, refusalPage, signInPage } from './dev-oidc-page.ts';

/** Where the dev provider lives below the service's origin: its issuer identifier is `<origin>` + this. */
export const DEV_OIDC_PATH = '/api/auth/dev-oidc';
const TOKEN_TTL_SECONDS = 3600;
const SCOPE = 'openid email profile';

/**
 * The issuer as the browser reached this service: `npm start` then http://localhost:8080/console works as
 * well as 127.0.0.1 (the console fetches discovery from its own origin, and checks the issuer it names).
 */
export function devIssuerUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}${DEV_OIDC_PATH}`;
}

type Form = Record<string, string | undefined>;

/** The authorization request's parameters (query of the GET, body of the POST). */
function authorizationRequest(params: Form) {
  return {
    responseType: params.response_type,
    clientId: params.client_id,
    redirectUri: params.redirect_uri,
    scope: params.scope ?? '',
    state: params.state,
    nonce: params.nonce,
    codeChallenge: params.code_challenge,
    codeChallengeMethod: params.code_challenge_method,
  };
}

/** An OAuth error of the token endpoint (RFC 6749 §5.2): its own body shape, never cached. */
function tokenError(reply: FastifyReply, status: number, error: string, description: string) {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .send({ error, error_description: description });
}

/**
 * The built-in development OpenID Connect provider the console signs in with when no other is configured
 * (SVC_CONSOLE_OIDC_ISSUER), outside production: discovery, a one-button sign-in page as the demo owner,
 * a token endpoint (authorization code + S256 PKCE only, public client) and its keys. The access token it
 * hands out is the dev issuer's hosted-auth JWT (what `svc dev-token` prints), which the API accepts; the
 * ID token is signed with the same key. Off (404 on every route) in production or with another provider.
 */
export async function devOidcRoutes(
  app: FastifyInstance,
  options: { config: Config; clock: Clock; devIssuer: DevIssuer | undefined },
) {
  const { config, clock } = options;
  const issuer =
    config.env === 'production' || config.consoleOidc.issuer !== undefined ? undefined : options.devIssuer;
  const clientId = config.consoleOidc.clientId;
  const codes = new DevAuthorizationCodes(clock);
  const sessions = new DevProviderSessions();
  const hidden = { schema: { hide: true } };
  const enabled = (): DevIssuer => {
    if (issuer === undefined) {
      throw new NotFound(
        'the development sign-in provider (off in production or with SVC_CONSOLE_OIDC_ISSUER)',
      );
    }
    return issuer;
  };
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    },
  );

  app.get(`${DEV_OIDC_PATH}/.well-known/openid-configuration`, hidden, async (request) => {
    enabled();
    const base = devIssuerUrl(request);
    return {
      issuer: base,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      jwks_uri: `${base}/jwks`,
      end_session_endpoint: `${base}/logout`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      scopes_supported: SCOPE.split(' '),
      claims_supported: ['sub', 'email', 'email_verified', 'nonce'],
      authorization_response_iss_parameter_supported: true,
    };
  });

  app.get(`${DEV_OIDC_PATH}/jwks`, hidden, async () => {
    const key = enabled();
    return { keys: [{ ...(await exportJWK(key.publicKey)), kid: key.kid, alg: 'ES256', use: 'sig' }] };
  });

  /**
   * Checks an authorization request. A request naming another client or a redirect_uri off this origin's
   * console is refused on a page (never redirected: no open redirect); any other fault goes back to the
   * console as an OAuth error.
   */
  const check = (request: FastifyRequest, reply: FastifyReply, params: Form) => {
    enabled();
    const req = authorizationRequest(params);
    const origin = `${request.protocol}://${request.host}`;
    const refuse = (reason: string) =>
      reply
        .code(400)
        .type('text/html; charset=utf-8')
        .header('content-security-policy', DEV_PAGE_CSP)
        .send(refusalPage(reason));
    if (req.clientId !== clientId)
      return { refused: refuse(`unknown client_id; this provider serves "${clientId}"`) };
    let redirect: URL;
    try {
      redirect = new URL(req.redirectUri ?? '');
    } catch {
      return { refused: refuse('redirect_uri is missing or not a URL') };
    }
    if (redirect.origin !== origin || !redirect.pathname.startsWith('/console/') || redirect.hash !== '') {
      return { refused: refuse(`redirect_uri must be a console page of ${origin}`) };
    }
    const back = (error: string, description: string) => {
      redirect.searchParams.set('error', error);
      redirect.searchParams.set('error_description', description);
      if (req.state !== undefined) redirect.searchParams.set('state', req.state);
      redirect.searchParams.set('iss', devIssuerUrl(request));
      return { refused: reply.redirect(redirect.href, 302) };
    };
    if (req.responseType !== 'code') return back('unsupported_response_type', 'response_type must be code');
    if (!req.scope.split(' ').includes('openid')) return back('invalid_scope', 'scope must include openid');
    if (req.codeChallengeMethod !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(req.codeChallenge ?? '')) {
      return back('invalid_request', 'PKCE is required: code_challenge with code_challenge_method S256');
    }
    return { req, redirect, refused: undefined };
  };

  /** The user said yes: a one-time code back to the console's redirect_uri, with the state and issuer. */
  const grant = (
    request: FastifyRequest,
    reply: FastifyReply,
    req: ReturnType<typeof authorizationRequest>,
    redirect: URL,
  ) => {
    const code = codes.issue({
      clientId,
      redirectUri: redirect.href,
      codeChallenge: req.codeChallenge ?? '',
      nonce: req.nonce,
      subject: DEV_OWNER_SUB,
      email: DEV_OWNER_EMAIL,
    });
    redirect.searchParams.set('code', code);
    if (req.state !== undefined) redirect.searchParams.set('state', req.state);
    redirect.searchParams.set('iss', devIssuerUrl(request));
    return reply.header('cache-control', 'no-store').redirect(redirect.href, 302);
  };

  app.get<{ Querystring: Form }>(`${DEV_OIDC_PATH}/authorize`, hidden, async (request, reply) => {
    const checked = check(request, reply, request.query);
    if (checked.refused !== undefined) return checked.refused;
    if (request.query.prompt !== 'login' && sessions.has(request.headers.cookie)) {
      return grant(request, reply, checked.req, checked.redirect);
    }
    const fields: Record<string, string> = Object.fromEntries(
      Object.entries(request.query).filter(
        (field): field is [string, string] => typeof field[1] === 'string',
      ),
    );
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', DEV_PAGE_CSP)
      .header('x-content-type-options', 'nosniff')
      .send(signInPage(`${DEV_OIDC_PATH}/authorize`, fields));
  });

  app.post<{ Body: Form }>(`${DEV_OIDC_PATH}/authorize`, hidden, async (request, reply) => {
    const checked = check(
      request,
      reply,
      typeof request.body === 'object' && request.body !== null ? request.body : {},
    );
    if (checked.refused !== undefined) return checked.refused;
    const session = sessions.begin();
    reply.header('set-cookie', `${SESSION_COOKIE}=${session}; Path=${DEV_OIDC_PATH}; HttpOnly; SameSite=Lax`);
    return grant(request, reply, checked.req, checked.redirect);
  });

  /** RP-initiated logout: the browser is forgotten here, then sent back to the console. */
  app.get<{ Querystring: Form }>(`${DEV_OIDC_PATH}/logout`, hidden, async (request, reply) => {
    enabled();
    sessions.end(request.headers.cookie);
    reply.header(
      'set-cookie',
      `${SESSION_COOKIE}=; Path=${DEV_OIDC_PATH}; HttpOnly; SameSite=Lax; Max-Age=0`,
    );
    const origin = `${request.protocol}://${request.host}`;
    let back: URL | undefined;
    try {
      back = new URL(request.query.post_logout_redirect_uri ?? '');
    } catch {
      back = undefined;
    }
    if (back === undefined || back.origin !== origin || !back.pathname.startsWith('/console/')) {
      back = new URL('/console/', origin);
    }
    return reply.header('cache-control', 'no-store').redirect(back.href, 302);
  });

  app.post<{ Body: Form }>(`${DEV_OIDC_PATH}/token`, hidden, async (request, reply) => {
    const key = enabled();
    const body: Form = typeof request.body === 'object' && request.body !== null ? request.body : {};
    if (body.grant_type !== 'authorization_code') {
      return tokenError(reply, 400, 'unsupported_grant_type', 'only authorization_code is supported');
    }
    if (body.client_id !== clientId) return tokenError(reply, 401, 'invalid_client', 'unknown client_id');
    // Redeemed before anything else is checked: a code is spent by any attempt, right or wrong.
    const grant = codes.redeem(body.code ?? '');
    if (grant === undefined)
      return tokenError(reply, 400, 'invalid_grant', 'the code is unknown, used or expired');
    if (grant.clientId !== body.client_id)
      return tokenError(reply, 400, 'invalid_grant', 'the code was issued to another client');
    if (grant.redirectUri !== body.redirect_uri) {
      return tokenError(reply, 400, 'invalid_grant', 'redirect_uri differs from the authorization request');
    }
    if (!verifierMatches(body.code_verifier ?? '', grant.codeChallenge)) {
      return tokenError(reply, 400, 'invalid_grant', 'code_verifier does not match the code_challenge');
    }
    const now = clock.now();
    const accessToken = await signDevToken(
      key,
      { sub: grant.subject, email: grant.email, ttlSeconds: TOKEN_TTL_SECONDS },
      now,
    );
    const issuedAt = Math.floor(now / 1000);
    const idToken = await new SignJWT({
      email: grant.email,
      email_verified: true,
      auth_time: issuedAt,
      ...(grant.nonce === undefined ? {} : { nonce: grant.nonce }),
    })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' })
      .setIssuer(devIssuerUrl(request))
      .setAudience(clientId)
      .setSubject(grant.subject)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + TOKEN_TTL_SECONDS)
      .sign(key.privateKey);
    return reply.header('cache-control', 'no-store').send({
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: TOKEN_TTL_SECONDS,
      scope: SCOPE,
      id_token: idToken,
    });
  });
}
