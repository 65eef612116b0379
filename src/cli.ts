import { type Config, ConfigError, loadConfig } from './config.ts';
import { migrate } from './core/db/migrations.ts';
import { createRuntime, openDatabase } from './runtime.ts';

const HELP = `svc — multi-tenant runtime service

Usage: svc <command> [options]

Commands:
  start        run the service (embedded database unless DATABASE_URL is set)
  migrate      apply pending database migrations and exit
  openapi      print the OpenAPI document to stdout
  --help       this text

Configuration is read from environment variables; see docs/configuration.md.`;

async function start(config: Config): Promise<number> {
  const runtime = await createRuntime(config);
  const { app } = runtime;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'stopping: finishing in-flight requests');
    const deadline = setTimeout(() => {
      app.log.warn('shutdown deadline passed: closing open connections');
      app.server.closeAllConnections();
    }, config.shutdownGraceMs);
    try {
      await runtime.close();
    } finally {
      clearTimeout(deadline);
    }
    app.log.info('stopped');
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
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  const database =
    config.databaseUrl === undefined ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL';
  process.stdout.write(
    [
      '',
      `svc listening on ${base}  (${config.env}, ${database})`,
      `  API reference  ${base}/docs`,
      `  OpenAPI        ${base}/openapi.json`,
      `  Health         curl ${base}/healthz`,
      '',
      '',
    ].join('\n'),
  );
  await closed;
  return process.exitCode === 1 ? 1 : 0;
}

async function runMigrations(config: Config): Promise<number> {
  const db = await openDatabase(config);
  try {
    const applied = await migrate(db);
    process.stdout.write(
      applied.length === 0 ? 'migrations: up to date\n' : `applied: ${applied.join(', ')}\n`,
    );
    return 0;
  } finally {
    await db.close();
  }
}

async function printOpenApi(config: Config): Promise<number> {
  const runtime = await createRuntime(
    { ...config, logLevel: 'silent', databaseUrl: undefined },
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
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`svc: configuration error: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  try {
    switch (command) {
      case 'start':
        return await start(config);
      case 'migrate':
        return await runMigrations(config);
      case 'openapi':
        return await printOpenApi(config);
      default:
        process.stderr.write(`svc: unknown command '${command}'\n\n${HELP}\n`);
        return 2;
    }
  } catch (error) {
    process.stderr.write(`svc: ${(error as Error).message}\n`);
    return 1;
  }
}
