import * as oauth from 'oauth4webapi';
import { BASE } from './router.tsx';
import { accessToken } from './session.ts';

/**
 * Sign-in with OpenID Connect, authorization code + PKCE (oauth4webapi), at the provider the service
 * names (`GET /api/auth/console-config`: in development its own dev provider). Only the PKCE verifier,
 * state, nonce and the page to come back to cross the redirect, in sessionStorage; the access token is
 * kept in memory (session.ts) and never stored.
 */
const PENDING = 'svc-console-sign-in';
/** When the last sign-in after a 401 finished (ms): another 401 right after it is not an expired token. */
const RECOVERED = 'svc-console-recovered-at';
/** A 401 sooner than this after such a sign-in stops at a button instead of signing in again (no loop). */
const LOOP_GUARD_MS = 10_000;
export const CALLBACK_PATH = '/callback';

interface ConsoleSignIn {
  issuer: string | null;
  clientId: string;
  scope: string;
  development: boolean;
}

interface Pending {
  verifier: string;
  state: string;
  nonce: string;
  /** The console path (below BASE, with its query) to return to. */
  returnTo: string;
  /** Started because the service answered 401. */
  afterExpiry: boolean;
}

function redirectUri(): string {
  return `${window.location.origin}${BASE}${CALLBACK_PATH}`;
}

async function provider(): Promise<{
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  config: ConsoleSignIn;
}> {
  // Before any token exists: a plain fetch, not the API client (which would send the missing token).
  const response = await fetch('/api/auth/console-config');
  if (!response.ok) throw new Error(`the service did not say how to sign in (HTTP ${response.status})`);
  const config = (await response.json()) as ConsoleSignIn;
  if (config.issuer === null) {
    throw new Error(
      'no sign-in provider is configured: set SVC_CONSOLE_OIDC_ISSUER and SVC_CONSOLE_OIDC_CLIENT_ID',
    );
  }
  const issuer = new URL(config.issuer);
  const options = { [oauth.allowInsecureRequests]: issuer.protocol === 'http:' };
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, options));
  return { as, client: { client_id: config.clientId }, config };
}

/** Leaves for the provider's sign-in page; back at CALLBACK_PATH, `finishSignIn` returns to `returnTo`. */
export async function startSignIn(returnTo: string, afterExpiry = false): Promise<void> {
  const { as, config } = await provider();
  if (as.authorization_endpoint === undefined) throw new Error('the provider has no authorization endpoint');
  const pending: Pending = {
    verifier: oauth.generateRandomCodeVerifier(),
    state: oauth.generateRandomState(),
    nonce: oauth.generateRandomNonce(),
    returnTo: returnTo.startsWith(CALLBACK_PATH) ? '/' : returnTo,
    afterExpiry,
  };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  const url = new URL(as.authorization_endpoint);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', config.clientId);
  url.searchParams.set('redirect_uri', redirectUri());
  url.searchParams.set('scope', config.scope);
  url.searchParams.set('state', pending.state);
  url.searchParams.set('nonce', pending.nonce);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(pending.verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  window.location.assign(url.href);
}

/**
 * At CALLBACK_PATH: checks the provider's answer (state, issuer), redeems the code with the verifier,
 * checks the ID token (issuer, audience, nonce), keeps the access token in memory, and says where to go.
 */
export async function finishSignIn(): Promise<string> {
  const raw = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(PENDING);
  if (raw === null) throw new Error('this sign-in was not started here (or was already used): sign in again');
  const pending = JSON.parse(raw) as Pending;
  const { as, client } = await provider();
  const insecure = { [oauth.allowInsecureRequests]: new URL(as.issuer).protocol === 'http:' };
  const params = oauth.validateAuthResponse(as, client, new URL(window.location.href), pending.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    redirectUri(),
    pending.verifier,
    insecure,
  );
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, {
    expectedNonce: pending.nonce,
    requireIdToken: true,
  });
  accessToken.value = tokens.access_token;
  if (pending.afterExpiry) sessionStorage.setItem(RECOVERED, String(Date.now()));
  return pending.returnTo;
}

/**
 * True when a sign-in that followed a 401 finished moments ago: the service refusing the new token too is
 * not an expiry, and signing in again would only go round (the shell asks the user instead).
 */
export function justRecovered(): boolean {
  const at = Number(sessionStorage.getItem(RECOVERED) ?? '0');
  return Date.now() - at < LOOP_GUARD_MS;
}

/** The console path of the current page, with its query string: where a sign-in comes back to. */
export function currentConsolePath(): string {
  const { pathname, search } = window.location;
  const rest = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  return `${rest === '' ? '/' : rest}${search}`;
}

/** Where the provider sends the browser back after signing out there. */
export const SIGNED_OUT_PATH = '/signed-out';

/**
 * Signs out at the provider too when it offers RP-initiated logout (the dev provider does): otherwise its
 * own session would sign the user straight back in. Resolves false when there is nothing to do there.
 */
export async function endProviderSession(): Promise<boolean> {
  const { as, config } = await provider();
  if (as.end_session_endpoint === undefined) return false;
  const url = new URL(as.end_session_endpoint);
  url.searchParams.set('client_id', config.clientId);
  url.searchParams.set('post_logout_redirect_uri', `${window.location.origin}${BASE}${SIGNED_OUT_PATH}`);
  window.location.assign(url.href);
  return true;
}
