import path from 'node:path';
import { type MetricsConfig, metricsConfig } from './config/metrics.ts';
import { mobileBuildRepository } from './config/mobile-build.ts';
import { ConfigError, type Env, integer, msList, oneOf, text, url } from './config/parse.ts';
import { retentionAges } from './config/retention.ts';
import { encryptionKeys, trustedProxies } from './config/security.ts';
import { type ShutdownConfig, shutdownConfig } from './config/shutdown.ts';
import { type SyncInstanceConfig, syncLimits } from './config/sync.ts';
import { type TracingConfig, tracingConfig } from './config/tracing.ts';
import type { EncryptionKey } from './core/secrets/keys.ts';

export type { SyncInstanceConfig } from './config/sync.ts';
export { ConfigError };

/** Every setting the service reads, parsed once at boot. Nothing reads process.env after this. */
export interface Config extends ShutdownConfig, MetricsConfig, TracingConfig {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  /** The PostgreSQL pool's size per instance (SVC_DB_POOL_MAX); single-statement reads get half as many more. */
  databasePoolMax: number;
  redisUrl: string | undefined;
  /** Prefix of every Redis key and channel, so several deployments can share one Redis. */
  redisPrefix: string;
  publicUrl: string;
  hostedAuth: { jwksUrl: string | undefined; issuer: string | undefined; audience: string | undefined };
  /**
   * The web console's sign-in (OpenID Connect code + PKCE): the provider's issuer URL and the console's
   * client id there. No issuer outside production = the built-in dev provider (docs/console.md).
   */
  consoleOidc: { issuer: string | undefined; clientId: string };
  /** The web console's built files (default: console/dist of this installation); tests build their own. */
  consoleDir: string | undefined;
  sessionTtlSeconds: number;
  webhookRetryScheduleMs: number[];
  webhookTimeoutMs: number;
  webhookAllowedHosts: string[];
  /** Live deliveries per tenant across workers; undefined = 16 on the embedded database, 64 on PostgreSQL. */
  webhookTenantConcurrency: number | undefined;
  /** Live deliveries per endpoint across workers; undefined = 8 on the embedded database, 32 on PostgreSQL. */
  webhookEndpointConcurrency: number | undefined;
  /** Timeouts in a row that open an endpoint's circuit (0 = never). */
  webhookCircuitTimeouts: number;
  /** How long a circuit first stays open (ms); each trip again without an answer doubles it, up to 32 times. */
  webhookCircuitOpenMs: number;
  mobileBuild: { dispatchToken: string | undefined; repository: string | undefined; githubApiUrl: string };
  /** Stripe's API (the payments module's stripe provider); tests point it at a local fake. */
  stripeApiUrl: string | undefined;
  mcpPort: number | undefined;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  bodyLimitBytes: number;
  /** How often each instance looks for revoked credentials (ms). */
  revocationPollMs: number;
  /**
   * Proxies whose `X-Forwarded-For` is believed for the client's address (rate limits, logs): addresses,
   * CIDR ranges, or `loopback`, `linklocal`, `uniquelocal`. Empty: the peer address is the client's.
   */
  trustProxy: string[];
  /** Failed authentications per address per minute before 429. */
  authFailureLimit: number;
  /**
   * `SVC_ENCRYPTION_KEY`: the keys that encrypt secrets at rest, the current one first; the others only
   * decrypt (rotation). Undefined outside production = the key in `SVC_DATA_DIR/encryption-key`.
   */
  encryptionKeys: EncryptionKey[] | undefined;
  /** Open `/v1/realtime` connections one instance accepts; more are refused with 429. */
  realtimeMaxConnections: number;
  /** Open `/v1/realtime` connections of one actor on one instance; more are refused with 429. */
  realtimeMaxConnectionsPerActor: number;
  /** Connections in one `/v1/realtime` room on one instance; a join past it is refused with `room_full`. */
  realtimeMaxRoomMembers: number;
  /** `/v1/sync` limits of one instance (docs/sync.md): a tenant's share of it, an actor's, awareness states. */
  sync: SyncInstanceConfig;
  /**
   * Retention of bookkeeping rows (see docs/operations.md): `ages` overrides rules' default ages by rule
   * name (ms; null = keep forever), checked against the declared rules when the app is built; a pass runs
   * every `intervalMs`.
   */
  retention: { ages: Readonly<Record<string, number | null>>; intervalMs: number };
}

/** Where the embedded database, dev keys and dev credentials live without SVC_DATA_DIR (from the cwd). */
export const DEFAULT_DATA_DIR = '.svc-data';

function redisPrefix(env: Env): string {
  const raw = text(env, 'SVC_REDIS_PREFIX') ?? 'svc:';
  if (!/^[A-Za-z0-9_:.-]{1,64}$/.test(raw)) {
    throw new ConfigError('SVC_REDIS_PREFIX', 'up to 64 letters, digits and _ : . -', raw);
  }
  return raw;
}

export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  const svcEnv = oneOf(env, 'SVC_ENV', ['development', 'production', 'test'] as const, 'development');
  const host = text(env, 'HOST') ?? '127.0.0.1';
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const publicUrl = url(env, 'SVC_PUBLIC_URL', ['http:', 'https:']) ?? `http://${urlHost}:${port}`;
  const jwksUrl = url(env, 'SVC_HOSTED_AUTH_JWKS_URL', ['http:', 'https:']);
  const issuer = text(env, 'SVC_HOSTED_AUTH_ISSUER');
  const audience = text(env, 'SVC_HOSTED_AUTH_AUDIENCE');
  if (jwksUrl !== undefined && issuer === undefined) {
    throw new ConfigError('SVC_HOSTED_AUTH_ISSUER', 'the issuer when SVC_HOSTED_AUTH_JWKS_URL is set', '');
  }
  const mcpPortRaw = text(env, 'SVC_MCP_PORT');
  const consoleDir = text(env, 'SVC_CONSOLE_DIR');
  return {
    env: svcEnv,
    host,
    port,
    dataDir: path.resolve(cwd, text(env, 'SVC_DATA_DIR') ?? DEFAULT_DATA_DIR),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databasePoolMax: integer(env, 'SVC_DB_POOL_MAX', 20, 2, 1000),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisPrefix: redisPrefix(env),
    publicUrl: publicUrl.replace(/\/+$/, ''),
    hostedAuth: { jwksUrl, issuer, audience },
    consoleOidc: {
      issuer: url(env, 'SVC_CONSOLE_OIDC_ISSUER', ['http:', 'https:']),
      clientId: text(env, 'SVC_CONSOLE_OIDC_CLIENT_ID') ?? 'svc-console',
    },
    consoleDir: consoleDir === undefined ? undefined : path.resolve(cwd, consoleDir),
    sessionTtlSeconds: integer(env, 'SVC_SESSION_TTL_SECONDS', 900, 30, 86_400),
    webhookRetryScheduleMs: msList(
      env,
      'SVC_WEBHOOK_RETRY_SCHEDULE_MS',
      [1000, 5000, 30000, 300000, 1800000],
    ),
    webhookTimeoutMs: integer(env, 'SVC_WEBHOOK_TIMEOUT_MS', 10_000, 1, 120_000),
    webhookAllowedHosts: (text(env, 'SVC_WEBHOOK_ALLOWED_HOSTS') ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter((h) => h !== ''),
    webhookTenantConcurrency:
      text(env, 'SVC_WEBHOOK_TENANT_CONCURRENCY') === undefined
        ? undefined
        : integer(env, 'SVC_WEBHOOK_TENANT_CONCURRENCY', 0, 1, 10_000),
    webhookEndpointConcurrency:
      text(env, 'SVC_WEBHOOK_ENDPOINT_CONCURRENCY') === undefined
        ? undefined
        : integer(env, 'SVC_WEBHOOK_ENDPOINT_CONCURRENCY', 0, 1, 10_000),
    webhookCircuitTimeouts: integer(env, 'SVC_WEBHOOK_CIRCUIT_TIMEOUTS', 5, 0, 1000),
    webhookCircuitOpenMs: integer(env, 'SVC_WEBHOOK_CIRCUIT_OPEN_MS', 30_000, 1, 3_600_000),
    mobileBuild: {
      dispatchToken: text(env, 'SVC_MOBILE_BUILD_DISPATCH_TOKEN'),
      repository: mobileBuildRepository(env),
      githubApiUrl: url(env, 'SVC_GITHUB_API_URL', ['http:', 'https:']) ?? 'https://api.github.com',
    },
    stripeApiUrl: url(env, 'SVC_STRIPE_API_URL', ['http:', 'https:']),
    mcpPort: mcpPortRaw === undefined ? undefined : integer(env, 'SVC_MCP_PORT', 0, 1, 65535),
    logLevel: oneOf(
      env,
      'LOG_LEVEL',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
      'info',
    ),
    bodyLimitBytes: integer(env, 'SVC_BODY_LIMIT_BYTES', 1_048_576, 1024, 64 * 1_048_576),
    ...shutdownConfig(env),
    ...metricsConfig(env),
    ...tracingConfig(env),
    revocationPollMs: integer(env, 'SVC_REVOCATION_POLL_MS', 250, 10, 60_000),
    trustProxy: trustedProxies(env),
    authFailureLimit: integer(env, 'SVC_AUTH_FAILURE_LIMIT', 30, 1, 1_000_000),
    encryptionKeys: encryptionKeys(env, svcEnv),
    realtimeMaxConnections: integer(env, 'SVC_REALTIME_MAX_CONNECTIONS', 10_000, 1, 1_000_000),
    realtimeMaxConnectionsPerActor: integer(env, 'SVC_REALTIME_MAX_CONNECTIONS_PER_ACTOR', 20, 1, 10_000),
    realtimeMaxRoomMembers: integer(env, 'SVC_REALTIME_MAX_ROOM_MEMBERS', 500, 1, 100_000),
    sync: syncLimits(env),
    retention: {
      ages: retentionAges(env),
      intervalMs: integer(env, 'SVC_RETENTION_INTERVAL_MS', 3_600_000, 60_000, 86_400_000),
    },
  };
}
