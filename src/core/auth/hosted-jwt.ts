import {
  createRemoteJWKSet,
  decodeProtectedHeader,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from 'jose';
import type { Config } from '../../config.ts';
import { type Clock, systemClock } from '../clock.ts';
import { AppError, ServiceUnavailable } from '../http/errors.ts';
import { DEV_AUDIENCE, DEV_ISSUER, type DevIssuer, loadDevIssuer } from './dev-issuer.ts';

/** Asymmetric algorithms only: `none` and HMAC (the public-key-as-secret confusion) are refused. */
const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
const CLOCK_SKEW_SECONDS = 60;
/**
 * An unknown `kid` refetches the JWKS (the provider rotated its keys), but at most once per this interval:
 * tokens naming random kids must not turn the service into a request amplifier against the provider.
 */
const JWKS_REFRESH_COOLDOWN_MS = 5_000;
const JWKS_MAX_AGE_MS = 600_000;
/** Key-resolution failures that are the token's fault; anything else means the provider could not be read. */
const TOKEN_KEY_ERRORS = new Set([
  'ERR_JWKS_NO_MATCHING_KEY',
  'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
  'ERR_JOSE_NOT_SUPPORTED',
]);

export interface HostedIdentity {
  provider: string;
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
  name: string | undefined;
}

export interface HostedJwtVerifier {
  verify(token: string): Promise<HostedIdentity>;
  /** The dev issuer, when this process runs one (development and test only). */
  devIssuer: DevIssuer | undefined;
}

function invalid(reason: string): AppError {
  return new AppError('invalid_token', `hosted-auth token rejected: ${reason}`);
}

function identityFrom(payload: JWTPayload, provider: string, nowSeconds: number): HostedIdentity {
  if (typeof payload.sub !== 'string' || payload.sub === '') throw invalid('no sub claim');
  // Issued in the future (beyond the clock skew allowed): not a token anyone could hold yet.
  if (typeof payload.iat === 'number' && payload.iat > nowSeconds + CLOCK_SKEW_SECONDS) {
    throw invalid('issued in the future (iat)');
  }
  const email = typeof payload.email === 'string' ? payload.email.toLowerCase() : undefined;
  return {
    provider,
    subject: payload.sub,
    email,
    emailVerified: payload.email_verified === true || payload.email_verified === 'true',
    name: typeof payload.name === 'string' ? payload.name : undefined,
  };
}

function explain(error: unknown): string {
  const code = (error as { code?: string }).code;
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return 'expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return (error as Error).message;
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return 'algorithm not allowed';
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return 'signing key not found';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'bad signature';
    default:
      return 'malformed or unverifiable';
  }
}

export async function createHostedJwtVerifier(
  config: Config,
  clock: Pick<Clock, 'now'> = systemClock,
): Promise<HostedJwtVerifier> {
  const { jwksUrl, issuer, audience } = config.hostedAuth;
  if (jwksUrl !== undefined && issuer !== undefined) {
    const remote = createRemoteJWKSet(new URL(jwksUrl), {
      cooldownDuration: JWKS_REFRESH_COOLDOWN_MS,
      cacheMaxAge: JWKS_MAX_AGE_MS,
    });
    // A provider outage is the service's problem, not the caller's: 503, and no strike against the address.
    const keys: JWTVerifyGetKey = async (header, token) => {
      try {
        return await remote(header, token);
      } catch (error) {
        if (TOKEN_KEY_ERRORS.has((error as { code?: string }).code ?? '')) throw error;
        throw new ServiceUnavailable(
          "the hosted auth provider's signing keys cannot be fetched; try again shortly",
        );
      }
    };
    return {
      devIssuer: undefined,
      async verify(token) {
        try {
          const { payload } = await jwtVerify(token, keys, {
            issuer,
            ...(audience === undefined ? {} : { audience }),
            algorithms: ASYMMETRIC,
            clockTolerance: CLOCK_SKEW_SECONDS,
            currentDate: new Date(clock.now()),
            requiredClaims: ['exp', 'sub'],
          });
          return identityFrom(payload, issuer, Math.floor(clock.now() / 1000));
        } catch (error) {
          if (error instanceof AppError) throw error;
          throw invalid(explain(error));
        }
      },
    };
  }
  if (config.env === 'production') {
    return {
      devIssuer: undefined,
      async verify() {
        throw invalid('no hosted auth provider is configured (SVC_HOSTED_AUTH_JWKS_URL)');
      },
    };
  }
  const dev = await loadDevIssuer(config.dataDir, { create: true });
  if (dev === undefined) throw new Error('dev issuer key could not be created');
  return {
    devIssuer: dev,
    async verify(token) {
      try {
        // Only the dev issuer's own key: a token naming no key, or another one, is not its token.
        const { kid } = decodeProtectedHeader(token);
        if (kid !== dev.kid)
          throw invalid(kid === undefined ? 'no kid in its header' : `unknown signing key ${kid}`);
        const { payload } = await jwtVerify(token, dev.publicKey, {
          issuer: DEV_ISSUER,
          audience: DEV_AUDIENCE,
          algorithms: ['ES256'],
          clockTolerance: CLOCK_SKEW_SECONDS,
          currentDate: new Date(clock.now()),
          requiredClaims: ['exp', 'sub', 'iat'],
        });
        return identityFrom(payload, DEV_ISSUER, Math.floor(clock.now() / 1000));
      } catch (error) {
        if (error instanceof AppError) throw error;
        throw invalid(explain(error));
      }
    },
  };
}
