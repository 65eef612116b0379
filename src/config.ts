import { isIP } from 'node:net';
import path from 'node:path';
import { type EncryptionKey, KEY_LIST_FORMAT, KeyFormatError, parseKeyList } from './core/secrets/keys.ts';

/** Every setting the service reads, parsed once at boot. Nothing reads process.env after this. */
export interface Config {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /** Prefix of every Redis key and channel, so several deployments can share one Redis. */
  redisPrefix: string;
  publicUrl: string;
  hostedAuth: { jwksUrl: string | undefined; issuer: string | undefined; audience: string | undefined };
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
  shutdownGraceMs: number;
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

export class ConfigError extends Error {
  /** `received` is quoted in the message; for a secret pass `{ secret: true }` and a description instead. */
  constructor(
    readonly variable: string,
    expected: string,
    received: string,
    options: { secret?: boolean } = {},
  ) {
    super(
      `${variable}: expected ${expected}, got ${options.secret === true ? received : JSON.stringify(received)}`,
    );
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(name, `a whole number from ${min} to ${max}`, raw);
  }
  return value;
}

function redisPrefix(env: Env): string {
  const raw = text(env, 'SVC_REDIS_PREFIX') ?? 'svc:';
  if (!/^[A-Za-z0-9_:.-]{1,64}$/.test(raw)) {
    throw new ConfigError('SVC_REDIS_PREFIX', 'up to 64 letters, digits and _ : . -', raw);
  }
  return raw;
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function trustedProxies(env: Env): string[] {
  const entries = (text(env, 'SVC_TRUST_PROXY') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const [address = '', bits, ...rest] = entry.split('/');
    const family = isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
    if (!PROXY_NAMES.includes(entry) && (family === 0 || !bitsOk || rest.length > 0)) {
      throw new ConfigError(
        'SVC_TRUST_PROXY',
        `comma-separated addresses, CIDR ranges or ${PROXY_NAMES.join(', ')}`,
        entry,
      );
    }
  }
  return entries;
}

function encryptionKeys(env: Env, svcEnv: Config['env']): EncryptionKey[] | undefined {
  const raw = text(env, 'SVC_ENCRYPTION_KEY');
  if (raw === undefined) {
    if (svcEnv !== 'production') return undefined;
    throw new ConfigError(
      'SVC_ENCRYPTION_KEY',
      'a key, required when SVC_ENV=production (make one with `npx svc encryption-key`; see docs/configuration.md)',
      'nothing',
      { secret: true },
    );
  }
  try {
    return parseKeyList(raw);
  } catch (error) {
    if (!(error instanceof KeyFormatError)) throw error;
    // The value is a secret: the message describes what is wrong without repeating it.
    throw new ConfigError('SVC_ENCRYPTION_KEY', KEY_LIST_FORMAT, error.detail, { secret: true });
  }
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `one of ${allowed.join(', ')}`, raw);
  }
  return raw as T;
}

function url(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `a URL (${protocols.join(', ')})`, raw);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `a URL with scheme ${protocols.join(' or ')}`, raw);
  }
  return raw;
}

/** `owner/name`; required once a dispatch token is set (the token alone names no repository). */
function mobileBuildRepository(env: Env): string | undefined {
  const raw = text(env, 'SVC_MOBILE_BUILD_REPOSITORY');
  if (raw === undefined) {
    if (text(env, 'SVC_MOBILE_BUILD_DISPATCH_TOKEN') === undefined) return undefined;
    throw new ConfigError(
      'SVC_MOBILE_BUILD_REPOSITORY',
      'owner/name of the repository that builds the apps, required when SVC_MOBILE_BUILD_DISPATCH_TOKEN is set',
      'nothing',
      { secret: true },
    );
  }
  if (!/^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/.test(raw)) {
    throw new ConfigError('SVC_MOBILE_BUILD_REPOSITORY', 'owner/name, e.g. acme/white-label-app', raw);
  }
  return raw;
}

function msList(env: Env, name: string, fallback: number[]): number[] {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const parts = raw.split(',').map((part) => part.trim());
  const values = parts.map(Number);
  if (parts.some((part) => !/^\d+$/.test(part)) || values.length === 0 || values.length > 20) {
    throw new ConfigError(name, 'a comma-separated list of 1 to 20 whole milliseconds', raw);
  }
  return values;
}

const AGE_UNITS_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };
/** Ten years: longer than anything is worth keeping as bookkeeping, short enough to stay exact. */
const MAX_AGE_MS = 3650 * 86_400_000;

/** `SVC_RETENTION=chat_changes=30d,events=off`: rule name = age (`<n>m`, `<n>h`, `<n>d`) or `off`. */
function retentionAges(env: Env): Record<string, number | null> {
  const expected = 'comma-separated <rule>=<age> entries, the age like 90m, 12h, 30d, or off';
  const ages: Record<string, number | null> = {};
  const entries = (text(env, 'SVC_RETENTION') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const match = /^([a-z][a-z0-9_]{1,62})\s*=\s*(off|(\d{1,6})([mhd]))$/.exec(entry);
    const name = match?.[1];
    if (match === null || name === undefined || Object.hasOwn(ages, name)) {
      throw new ConfigError('SVC_RETENTION', expected, entry);
    }
    const ms = match[2] === 'off' ? null : Number(match[3]) * (AGE_UNITS_MS[match[4] ?? ''] ?? 0);
    if (ms !== null && (ms <= 0 || ms > MAX_AGE_MS)) {
      throw new ConfigError('SVC_RETENTION', 'ages from 1 minute to 3650 days, or off', entry);
    }
    ages[name] = ms;
  }
  return ages;
}

export interface SyncInstanceConfig {
  maxOpenDocuments: number;
  /** Always below `maxOpenDocuments`: one tenant never fills the instance. */
  maxDocumentsPerTenant: number;
  maxConnections: number;
  /** Always below `maxConnections`. */
  maxConnectionsPerTenant: number;
  maxConnectionsPerActor: number;
  maxAwarenessStateBytes: number;
  maxAwarenessDepth: number;
  maxAwarenessClientsPerConnection: number;
}

/** A tenant's share defaults to a fifth of the instance, and may be set to anything below the whole. */
function syncLimits(env: Env): SyncInstanceConfig {
  const maxOpenDocuments = integer(env, 'SVC_SYNC_MAX_OPEN_DOCUMENTS', 10_000, 2, 1_000_000);
  const maxConnections = integer(env, 'SVC_SYNC_MAX_CONNECTIONS', 20_000, 2, 1_000_000);
  const share = (whole: number) => Math.max(1, Math.floor(whole / 5));
  const maxConnectionsPerTenant = integer(
    env,
    'SVC_SYNC_MAX_CONNECTIONS_PER_TENANT',
    share(maxConnections),
    1,
    maxConnections - 1,
  );
  return {
    maxOpenDocuments,
    maxDocumentsPerTenant: integer(
      env,
      'SVC_SYNC_MAX_DOCUMENTS_PER_TENANT',
      share(maxOpenDocuments),
      1,
      maxOpenDocuments - 1,
    ),
    maxConnections,
    maxConnectionsPerTenant,
    maxConnectionsPerActor: integer(
      env,
      'SVC_SYNC_MAX_CONNECTIONS_PER_ACTOR',
      Math.min(100, maxConnectionsPerTenant),
      1,
      maxConnectionsPerTenant,
    ),
    maxAwarenessStateBytes: integer(env, 'SVC_SYNC_MAX_AWARENESS_STATE_BYTES', 16_384, 64, 1_048_576),
    maxAwarenessDepth: integer(env, 'SVC_SYNC_MAX_AWARENESS_DEPTH', 32, 1, 1_000),
    maxAwarenessClientsPerConnection: integer(
      env,
      'SVC_SYNC_MAX_AWARENESS_CLIENTS_PER_CONNECTION',
      4,
      1,
      1_000,
    ),
  };
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
  return {
    env: svcEnv,
    host,
    port,
    dataDir: path.resolve(cwd, text(env, 'SVC_DATA_DIR') ?? DEFAULT_DATA_DIR),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisPrefix: redisPrefix(env),
    publicUrl: publicUrl.replace(/\/+$/, ''),
    hostedAuth: { jwksUrl, issuer, audience },
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
    shutdownGraceMs: integer(env, 'SVC_SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
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
