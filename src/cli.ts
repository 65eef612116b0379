// Only light modules are imported here: each command loads what it needs, so `start` can open the
// database on its own thread while this one loads the service (see `main`).
import path from 'node:path';
import { exitQuietlyWhenOutputCloses } from './commands/closed-output.ts';
import { devToken } from './commands/dev-token.ts';
import { type Progress, progressOnStderr, silentProgress } from './commands/progress.ts';
import { type Config, ConfigError, DEFAULT_DATA_DIR, loadConfig } from './config.ts';
import { systemClock } from './core/clock.ts';
import type { Database } from './core/db/database.ts';
import { migrate } from './core/db/migrations.ts';
import { prewarmPgliteThread } from './core/db/pglite-client.ts';
import { releaseStartMemory } from './core/ops/idle-memory.ts';
import { activeRetention, retentionRules } from './core/retention/rules.ts';
import { newKeyEntry, parseKeyList } from './core/secrets/keys.ts';
import type { DevCredentials } from './core/tenancy/demo.ts';
import { databaseExists, openDatabase } from './open-database.ts';

const HELP = `svc — multi-tenant runtime service

Usage: svc <command> [options]

Commands:
  start        run the service (embedded database unless DATABASE_URL is set)
  migrate      apply pending database migrations and exit
  openapi      print the OpenAPI document to stdout
  dev-token    print a hosted-auth JWT from the development issuer
               [--sub ID] [--email E] [--ttl SECONDS]  (default: the demo owner)
  encryption-key
               print a new key for SVC_ENCRYPTION_KEY (<id>:<base64>); see docs/configuration.md
  tenants create --name NAME --owner-email EMAIL
               create a tenant (the first one in production); --help for its options
  api-keys create --tenant TENANT_ID --scopes SCOPES
               create an API key for a tenant and print its secret once; --help for its options
  --help       this text

Configuration is read from environment variables; see docs/configuration.md.`;

/** Before the deadline, connections still open are cut: what they left is closed in this time. */
const DEADLINE_MARGIN_MS = 1000;

async function start(
  config: Config,
  opening: Promise<Database> | undefined,
  progress: Progress,
): Promise<number> {
  const [{ createRuntime }, { ensureDemoTenant }, { tenantSetup }] = await Promise.all([
    import('./runtime.ts'),
    import('./core/tenancy/demo.ts'),
    import('./app.ts'),
  ]);
  const runtime = await createRuntime(config, { progress, ...(opening === undefined ? {} : { opening }) });
  const { app } = runtime;
  let stopping = false;
  // Once stopping, in-flight responses carry `Connection: close`: otherwise their keep-alive sockets stay
  // open after the answer and hold the shutdown until the deadline.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (stopping) reply.header('connection', 'close');
    done(null, payload);
  });
  // SIGTERM: readiness answers 503 at once, new WebSocket connections are refused with 1012, open ones
  // close in batches over the drain window, workers hand their leases back; then the app closes (in-flight
  // requests finish) and the database last. The whole stop fits in SVC_SHUTDOWN_GRACE_MS, or the process
  // exits 1 when it passes (docs/operations.md, graceful shutdown).
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const { drainWindowMs, shutdownGraceMs } = config;
    const began = performance.now();
    const elapsedMs = () => Math.round(performance.now() - began);
    const drained = app.drain.begin();
    app.log.info({ signal, drainWindowMs, shutdownGraceMs }, 'draining: readiness answers 503');
    const cut = setTimeout(
      () => {
        app.log.warn({ elapsedMs: elapsedMs() }, 'shutdown deadline near: closing open connections');
        app.server.closeAllConnections();
      },
      Math.max(0, shutdownGraceMs - DEADLINE_MARGIN_MS),
    );
    const deadline = setTimeout(() => {
      app.log.error({ elapsedMs: elapsedMs() }, 'shutdown deadline passed: exiting');
      process.exit(1);
    }, shutdownGraceMs);
    try {
      // How long each part took: `sockets` is the batches' spread (the window), `workers` the leases' release.
      const steps = await drained;
      app.log.info({ elapsedMs: elapsedMs(), drainMs: steps }, 'stopping: finishing in-flight requests');
      await runtime.close();
    } finally {
      clearTimeout(cut);
      clearTimeout(deadline);
    }
    app.log.info({ elapsedMs: elapsedMs() }, 'stopped');
  };
  const closed = new Promise<void>((resolve) => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.once(signal, () => {
        stop(signal).then(resolve, (error) => {
          app.log.error({ err: error }, 'shutdown failed');
          process.exitCode = 1;
          resolve();
        });
      });
    }
  });
  const demo =
    config.env === 'development'
      ? await ensureDemoTenant(
          runtime.db,
          config.dataDir,
          tenantSetup(),
          runtime.app.services.clock,
          progress,
        )
      : { credentials: undefined, created: false };
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    // Nothing else ends the process: the pool, the workers and the signal handlers would keep it running
    // without a port (as it did with DATABASE_URL set). Closed like a stop, then exit 1.
    await runtime.close().catch(() => {});
    throw new Error(listenFailure(config, error as NodeJS.ErrnoException));
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  // PORT=0 lets the system pick the port, so a public URL derived from PORT names it only now: the OpenAPI
  // servers, discovery documents and webhook URLs said port 0.
  if (new URL(config.publicUrl).port === '0') config.publicUrl = base;
  const database =
    config.databaseUrl === undefined ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL';
  process.stdout.write(
    [
      '',
      `svc listening on ${base}  (${config.env}, ${database})`,
      `  Console        ${base}/console`,
      `  API reference  ${base}/docs`,
      `  OpenAPI        ${base}/openapi.json`,
      `  Health         curl ${base}/healthz`,
      ...demoLines(demo.credentials, demo.created, base, config.dataDir),
      '',
    ].join('\n'),
  );
  releaseStartMemory(runtime.db, runtime.app.services.clock, (heaps) =>
    app.log.info({ heaps }, 'memory of the start released'),
  );
  await closed;
  return process.exitCode === 1 ? 1 : 0;
}

function listenFailure(config: Config, error: NodeJS.ErrnoException): string {
  const where = `${config.host}:${config.port} (HOST, PORT)`;
  if (error.code === 'EADDRINUSE')
    return `cannot listen on ${where}: the port is in use by another process; stop it or choose another PORT`;
  if (error.code === 'EACCES')
    return `cannot listen on ${where}: permission denied (ports below 1024 need privileges); choose another PORT`;
  if (error.code === 'EADDRNOTAVAIL')
    return `cannot listen on ${where}: no network interface has that address; check HOST`;
  return `cannot listen on ${where}: ${error.message}`;
}

function demoLines(
  credentials: DevCredentials | undefined,
  created: boolean,
  base: string,
  dataDir: string,
): string[] {
  if (credentials === undefined) return [''];
  return [
    '',
    `Demo tenant${created ? ' (created now)' : ''} — credentials in ${dataDir}/dev-credentials.json`,
    `  tenantId    ${credentials.tenantId}`,
    `  apiKey      ${credentials.apiKey}`,
    `  productKey  ${credentials.productKey}`,
    `  userId      ${credentials.userId}`,
    '',
    'Try it:',
    `  curl -H "Authorization: Bearer ${credentials.apiKey}" ${base}/v1/me`,
    `  curl -H "Authorization: Bearer $(${devTokenCommand(dataDir)})" ${base}/api/auth/user`,
    '',
  ];
}

/**
 * The dev-token command as it must be typed in another shell: the issuer key lives in the data dir, so
 * a data dir other than the default is named in the command (absolute, so any working directory works).
 */
function devTokenCommand(dataDir: string): string {
  if (dataDir === path.resolve(DEFAULT_DATA_DIR)) return 'npx svc dev-token';
  return `SVC_DATA_DIR=${shellQuoted(dataDir)} npx svc dev-token`;
}

function shellQuoted(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

async function runMigrations(config: Config): Promise<number> {
  const { appMigrations } = await import('./app.ts');
  const db = await openDatabase(config);
  try {
    const applied = await migrate(db, appMigrations());
    process.stdout.write(
      applied.length === 0 ? 'migrations: up to date\n' : `applied: ${applied.join(', ')}\n`,
    );
    return 0;
  } finally {
    await db.close();
  }
}

async function printOpenApi(config: Config): Promise<number> {
  const { createRuntime } = await import('./runtime.ts');
  // A throwaway database and a throwaway key: nothing is written to SVC_DATA_DIR.
  const runtime = await createRuntime(
    {
      ...config,
      logLevel: 'silent',
      databaseUrl: undefined,
      encryptionKeys: parseKeyList(newKeyEntry(systemClock.now())),
    },
    { inMemory: true },
  );
  try {
    await runtime.app.ready();
    process.stdout.write(`${JSON.stringify(runtime.app.swagger(), null, 2)}\n`);
    return 0;
  } finally {
    await runtime.close();
  }
}

export async function main(argv: string[]): Promise<number> {
  const [command = '--help'] = argv;
  // A server's output has no reader to lose; a command's may (`svc openapi | head`).
  if (command !== 'start') exitQuietlyWhenOutputCloses();
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  // Needs no configuration: making the key production requires must work before it is set.
  if (command === 'encryption-key') {
    process.stdout.write(`${newKeyEntry(systemClock.now())}\n`);
    return 0;
  }
  // An admin command's flags are read first: a mistake is said before anything loads.
  let adminWork: ((config: Config) => Promise<number>) | undefined;
  if (command === 'tenants' || command === 'api-keys') {
    const parsed = (await import('./commands/admin.ts')).adminCommand(argv);
    if (typeof parsed === 'number') return parsed;
    adminWork = parsed;
  }
  let config: Config;
  let opening: Promise<Database> | undefined;
  let progress = silentProgress;
  try {
    config = loadConfig();
    if (command === 'start') progress = progressOnStderr(config.logLevel);
    // A database that exists opens on its own thread (PGlite) or connects (PostgreSQL) while this thread
    // loads the modules, which takes as long. A new data dir is made only once the checks below pass.
    if (command === 'start' && databaseExists(config)) {
      opening = openDatabase(config, { progress });
      opening.catch(() => {}); // awaited later; an error is reported there
    } else if (command === 'start') {
      // A new data dir: its database thread compiles PGlite meanwhile, and opens it once it is made.
      prewarmPgliteThread();
    }
    const { MODULES } = await import('./app.ts');
    // SVC_RETENTION may only name declared rules: said here, before anything is made.
    activeRetention(retentionRules(MODULES), config.retention);
  } catch (error) {
    await opening?.then((db) => db.close()).catch(() => {});
    if (error instanceof ConfigError) {
      process.stderr.write(`svc: configuration error: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  try {
    switch (command) {
      case 'start':
        return await start(config, opening, progress);
      case 'migrate':
        return await runMigrations(config);
      case 'openapi':
        return await printOpenApi(config);
      case 'dev-token':
        return await devToken(config, argv.slice(1));
      default:
        if (adminWork !== undefined) return await adminWork(config);
        process.stderr.write(`svc: unknown command '${command}'\n\n${HELP}\n`);
        return 2;
    }
  } catch (error) {
    process.stderr.write(`svc: ${(error as Error).message}\n`);
    return 1;
  }
}
