import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const KEY_2 = Buffer.alloc(32, 0xff).toString('base64');
const KEY_1_URLSAFE = Buffer.alloc(32, 0xfb).toString('base64url');

function configErrorFor(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env, '/srv/app');
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected ${JSON.stringify(env)} to be refused`);
}

describe('configuration', () => {
  test('defaults follow the configuration contract (ARCHITECTURE §9)', () => {
    const config = loadConfig({}, '/srv/app');
    assert.equal(config.env, 'development');
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 8080);
    assert.equal(config.dataDir, path.resolve('/srv/app', '.svc-data'));
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.redisUrl, undefined);
    assert.equal(config.publicUrl, 'http://127.0.0.1:8080');
    assert.deepEqual(config.hostedAuth, { jwksUrl: undefined, issuer: undefined, audience: undefined });
    assert.equal(config.sessionTtlSeconds, 900);
    assert.deepEqual(config.webhookRetryScheduleMs, [1000, 5000, 30000, 300000, 1800000]);
    assert.equal(config.webhookTimeoutMs, 10_000);
    assert.deepEqual(config.mobileBuild, {
      dispatchToken: undefined,
      repository: undefined,
      githubApiUrl: 'https://api.github.com',
    });
    assert.equal(config.logLevel, 'info');
    assert.equal(config.bodyLimitBytes, 1_048_576);
    assert.equal(config.shutdownGraceMs, 30_000);
    assert.equal(config.drainWindowMs, 10_000);
    assert.deepEqual(config.webhookAllowedHosts, []);
    assert.equal(config.mcpPort, undefined);
    assert.equal(config.revocationPollMs, 250);
    assert.equal(config.authFailureLimit, 30);
    assert.equal(config.realtimeMaxConnections, 10_000);
    assert.equal(config.realtimeMaxConnectionsPerActor, 20);
    assert.equal(config.encryptionKeys, undefined, 'outside production: the key kept in SVC_DATA_DIR');
    assert.deepEqual(config.retention, { ages: {}, intervalMs: 3_600_000 });
  });

  test('empty or blank values count as unset', () => {
    const config = loadConfig({ PORT: '', LOG_LEVEL: '  ', SVC_WEBHOOK_RETRY_SCHEDULE_MS: '' }, '/srv/app');
    assert.equal(config.port, 8080);
    assert.equal(config.logLevel, 'info');
    assert.deepEqual(config.webhookRetryScheduleMs, [1000, 5000, 30000, 300000, 1800000]);
  });

  test('good values are parsed', () => {
    const config = loadConfig(
      {
        PORT: '9000',
        HOST: '0.0.0.0',
        SVC_ENV: 'production',
        SVC_DATA_DIR: 'var/data',
        DATABASE_URL: 'postgres://u@db:5432/svc',
        REDIS_URL: 'redis://cache:6379',
        SVC_PUBLIC_URL: 'https://api.example.test/',
        SVC_HOSTED_AUTH_JWKS_URL: 'https://id.example.test/.well-known/jwks.json',
        SVC_HOSTED_AUTH_ISSUER: 'https://id.example.test/',
        SVC_HOSTED_AUTH_AUDIENCE: 'svc',
        SVC_SESSION_TTL_SECONDS: '60',
        SVC_WEBHOOK_RETRY_SCHEDULE_MS: '10, 20,30',
        SVC_WEBHOOK_TIMEOUT_MS: '500',
        SVC_MOBILE_BUILD_DISPATCH_TOKEN: 'tok',
        SVC_MOBILE_BUILD_REPOSITORY: 'acme/app',
        SVC_GITHUB_API_URL: 'https://ghe.example.test/api/v3',
        LOG_LEVEL: 'warn',
        SVC_WEBHOOK_ALLOWED_HOSTS: ' Hooks.Internal , ,10.0.0.7',
        SVC_REALTIME_MAX_CONNECTIONS: '50000',
        SVC_REALTIME_MAX_CONNECTIONS_PER_ACTOR: '3',
        SVC_ENCRYPTION_KEY: ` k2:${KEY_2}, k1:${KEY_1_URLSAFE} `,
        SVC_RETENTION: 'chat_changes=30d, events=off,issued_sessions = 90m,webhook_deliveries=12h',
        SVC_RETENTION_INTERVAL_MS: '600000',
      },
      '/srv/app',
    );
    assert.equal(config.port, 9000);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.env, 'production');
    assert.equal(config.dataDir, '/srv/app/var/data');
    assert.equal(config.databaseUrl, 'postgres://u@db:5432/svc');
    assert.equal(config.redisUrl, 'redis://cache:6379');
    assert.equal(config.publicUrl, 'https://api.example.test', 'trailing slash dropped');
    assert.equal(config.hostedAuth.audience, 'svc');
    assert.equal(config.sessionTtlSeconds, 60);
    assert.deepEqual(config.webhookRetryScheduleMs, [10, 20, 30]);
    assert.equal(config.webhookTimeoutMs, 500);
    assert.equal(config.mobileBuild.repository, 'acme/app');
    assert.equal(config.mobileBuild.githubApiUrl, 'https://ghe.example.test/api/v3');
    assert.equal(config.logLevel, 'warn');
    assert.deepEqual(config.webhookAllowedHosts, ['hooks.internal', '10.0.0.7']);
    assert.equal(config.realtimeMaxConnections, 50_000);
    assert.equal(config.realtimeMaxConnectionsPerActor, 3);
    assert.deepEqual(
      config.encryptionKeys?.map((k) => [k.id, k.key.toString('hex')]),
      [
        ['k2', 'ff'.repeat(32)],
        ['k1', 'fb'.repeat(32)],
      ],
      'the current key first; standard and URL-safe base64',
    );
    assert.deepEqual(config.retention, {
      ages: {
        chat_changes: 30 * 86_400_000,
        events: null,
        issued_sessions: 90 * 60_000,
        webhook_deliveries: 12 * 3_600_000,
      },
      intervalMs: 600_000,
    });
  });

  test('the default public URL follows HOST and PORT, bracketing IPv6', () => {
    assert.equal(loadConfig({ HOST: '10.0.0.5', PORT: '81' }).publicUrl, 'http://10.0.0.5:81');
    assert.equal(loadConfig({ HOST: '::1' }).publicUrl, 'http://[::1]:8080');
    assert.doesNotThrow(() => new URL(loadConfig({ HOST: '::1' }).publicUrl));
  });

  const bad: [variable: string, env: Record<string, string>][] = [
    ['PORT', { PORT: 'http' }],
    ['PORT', { PORT: '65536' }],
    ['PORT', { PORT: '-1' }],
    ['PORT', { PORT: '80.5' }],
    ['SVC_ENV', { SVC_ENV: 'prod' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://localhost/svc' }],
    ['DATABASE_URL', { DATABASE_URL: 'not a url' }],
    ['REDIS_URL', { REDIS_URL: 'http://localhost:6379' }],
    ['SVC_PUBLIC_URL', { SVC_PUBLIC_URL: 'api.example.test' }],
    ['SVC_PUBLIC_URL', { SVC_PUBLIC_URL: 'ftp://api.example.test' }],
    ['SVC_HOSTED_AUTH_JWKS_URL', { SVC_HOSTED_AUTH_JWKS_URL: 'jwks.json', SVC_HOSTED_AUTH_ISSUER: 'x' }],
    ['SVC_HOSTED_AUTH_ISSUER', { SVC_HOSTED_AUTH_JWKS_URL: 'https://id.example.test/jwks.json' }],
    ['SVC_SESSION_TTL_SECONDS', { SVC_SESSION_TTL_SECONDS: '0' }],
    ['SVC_SESSION_TTL_SECONDS', { SVC_SESSION_TTL_SECONDS: '15m' }],
    ['SVC_WEBHOOK_RETRY_SCHEDULE_MS', { SVC_WEBHOOK_RETRY_SCHEDULE_MS: '1000,soon' }],
    ['SVC_WEBHOOK_RETRY_SCHEDULE_MS', { SVC_WEBHOOK_RETRY_SCHEDULE_MS: '1000,,5000' }],
    ['SVC_WEBHOOK_RETRY_SCHEDULE_MS', { SVC_WEBHOOK_RETRY_SCHEDULE_MS: Array(21).fill('1').join(',') }],
    ['SVC_WEBHOOK_TIMEOUT_MS', { SVC_WEBHOOK_TIMEOUT_MS: '0' }],
    ['SVC_GITHUB_API_URL', { SVC_GITHUB_API_URL: 'github' }],
    ['SVC_MCP_PORT', { SVC_MCP_PORT: '0' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'verbose' }],
    ['SVC_BODY_LIMIT_BYTES', { SVC_BODY_LIMIT_BYTES: '1mb' }],
    ['SVC_SHUTDOWN_GRACE_MS', { SVC_SHUTDOWN_GRACE_MS: '-5' }],
    ['SVC_DRAIN_WINDOW_MS', { SVC_SHUTDOWN_GRACE_MS: '5000', SVC_DRAIN_WINDOW_MS: '5000' }],
    ['SVC_REVOCATION_POLL_MS', { SVC_REVOCATION_POLL_MS: '1' }],
    ['SVC_DB_POOL_MAX', { SVC_DB_POOL_MAX: '1' }],
    ['SVC_DB_POOL_MAX', { SVC_DB_POOL_MAX: 'twenty' }],
    ['SVC_AUTH_FAILURE_LIMIT', { SVC_AUTH_FAILURE_LIMIT: '0' }],
    ['SVC_REALTIME_MAX_CONNECTIONS', { SVC_REALTIME_MAX_CONNECTIONS: '0' }],
    ['SVC_REALTIME_MAX_CONNECTIONS', { SVC_REALTIME_MAX_CONNECTIONS: '10k' }],
    ['SVC_REALTIME_MAX_CONNECTIONS', { SVC_REALTIME_MAX_CONNECTIONS: '1000001' }],
    ['SVC_REALTIME_MAX_CONNECTIONS_PER_ACTOR', { SVC_REALTIME_MAX_CONNECTIONS_PER_ACTOR: '0' }],
    ['SVC_REALTIME_MAX_CONNECTIONS_PER_ACTOR', { SVC_REALTIME_MAX_CONNECTIONS_PER_ACTOR: '2.5' }],
    ['SVC_ENCRYPTION_KEY', { SVC_ENV: 'production' }],
    ['SVC_ENCRYPTION_KEY', { SVC_ENCRYPTION_KEY: KEY_2 }],
    ['SVC_ENCRYPTION_KEY', { SVC_ENCRYPTION_KEY: `k1:${KEY_2.slice(0, 40)}` }],
    ['SVC_ENCRYPTION_KEY', { SVC_ENCRYPTION_KEY: `k1:${Buffer.alloc(16).toString('base64')}` }],
    ['SVC_ENCRYPTION_KEY', { SVC_ENCRYPTION_KEY: `bad id:${KEY_2}` }],
    ['SVC_ENCRYPTION_KEY', { SVC_ENCRYPTION_KEY: `k1:${KEY_2},k1:${KEY_1_URLSAFE}` }],
    ['SVC_ENCRYPTION_KEY', { SVC_ENCRYPTION_KEY: ' , ,' }],
    ['SVC_RETENTION', { SVC_RETENTION: 'events' }],
    ['SVC_RETENTION', { SVC_RETENTION: 'events=30' }],
    ['SVC_RETENTION', { SVC_RETENTION: 'events=0d' }],
    ['SVC_RETENTION', { SVC_RETENTION: 'events=3651d' }],
    ['SVC_RETENTION', { SVC_RETENTION: 'events=30d,events=off' }],
    ['SVC_RETENTION', { SVC_RETENTION: 'Events=30d' }],
    ['SVC_RETENTION_INTERVAL_MS', { SVC_RETENTION_INTERVAL_MS: '1000' }],
  ];
  for (const [variable, env] of bad) {
    test(`refuses ${JSON.stringify(env)} naming ${variable}`, () => {
      const error = configErrorFor(env);
      assert.equal(error.variable, variable);
      assert.match(error.message, new RegExp(`^${variable}: expected `));
    });
  }

  test('a refused SVC_ENCRYPTION_KEY is described, never repeated', () => {
    for (const value of [KEY_2, `k1:${KEY_2.slice(0, 40)}`, `k1:${KEY_2},k1:${KEY_2}`]) {
      const error = configErrorFor({ SVC_ENCRYPTION_KEY: value });
      assert.ok(!error.message.includes(KEY_2.slice(0, 40)), error.message);
    }
  });

  test('docs/configuration.md documents every variable src/config.ts reads', () => {
    const source = fs.readFileSync(path.join(ROOT, 'src/config.ts'), 'utf8');
    const variables = new Set([...source.matchAll(/\benv,\s*'([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1] ?? ''));
    assert.ok(variables.has('PORT') && variables.has('DATABASE_URL'), 'the scan finds variables');
    const docs = fs.readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8');
    const missing = [...variables].filter((name) => !docs.includes(`\`${name}\``));
    assert.deepEqual(missing, [], 'undocumented variables');
  });

  test('`svc start` with a bad value exits 2 naming the variable, before opening anything', () => {
    const result = spawnSync(process.execPath, [path.join(ROOT, 'bin/svc.mjs'), 'start'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, PORT: 'eighty', SVC_DATA_DIR: '/nonexistent/never-created' },
      timeout: 60_000,
    });
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /configuration error: PORT: expected a whole number from 0 to 65535/);
    assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
    assert.equal(result.stdout, '');
  });

  test('`svc start` in production without SVC_ENCRYPTION_KEY exits 2 naming it, before opening anything', () => {
    const dataDir = path.join(os.tmpdir(), `svc-never-created-${process.pid}-${Date.now()}`);
    const result = spawnSync(process.execPath, [path.join(ROOT, 'bin/svc.mjs'), 'start'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, SVC_ENV: 'production', PORT: '0', SVC_DATA_DIR: dataDir },
      timeout: 60_000,
    });
    assert.equal(result.status, 2, result.stderr);
    assert.match(
      result.stderr,
      /configuration error: SVC_ENCRYPTION_KEY: expected a key, required when SVC_ENV=production \(make one with `npx svc encryption-key`/,
    );
    assert.equal(result.stdout, '');
    assert.equal(fs.existsSync(dataDir), false);
  });

  test('`svc encryption-key` prints a key SVC_ENCRYPTION_KEY accepts, a new one each time', () => {
    const run = () =>
      spawnSync(process.execPath, [path.join(ROOT, 'bin/svc.mjs'), 'encryption-key'], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { PATH: process.env.PATH, SVC_ENV: 'production' },
        timeout: 60_000,
      });
    const [first, second] = [run(), run()];
    assert.equal(first.status, 0, first.stderr);
    const line = first.stdout.trim();
    assert.match(line, /^k\d{8}-[0-9a-f]{4}:[A-Za-z0-9+/]{43}=$/);
    assert.notEqual(second.stdout.trim(), line);
    const config = loadConfig({ SVC_ENV: 'production', SVC_ENCRYPTION_KEY: line });
    assert.equal(config.encryptionKeys?.[0]?.key.length, 32);
  });

  test('`svc start` with SVC_RETENTION naming no declared rule exits 2 and lists the rules', () => {
    const result = spawnSync(process.execPath, [path.join(ROOT, 'bin/svc.mjs'), 'start'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        SVC_RETENTION: 'chat_change=7d',
        SVC_DATA_DIR: '/nonexistent/never-created',
      },
      timeout: 60_000,
    });
    assert.equal(result.status, 2, result.stderr);
    assert.match(
      result.stderr,
      /configuration error: SVC_RETENTION: expected rule names among credential_revocations, .*chat_changes.*, got "chat_change"/,
    );
    assert.equal(result.stdout, '');
  });
});
