import { randomUUID } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { type Config, loadConfig } from '../src/config.ts';
import { type Clock, systemClock } from '../src/core/clock.ts';
import type { Database } from '../src/core/db/database.ts';
import type { ModuleManifest } from '../src/core/modules/manifest.ts';
import { createRuntime, openDatabase } from '../src/runtime.ts';

/**
 * The key tests encrypt stored secrets with: the same in every test process, so test files sharing one
 * PostgreSQL read each other's signing keys, and no key file is written. Never use it anywhere else.
 */
export const TEST_ENCRYPTION_KEY = `test-key:${Buffer.alloc(32, 7).toString('base64')}`;

/**
 * Test configuration: the real database semantics always — in-memory PGlite by default, the PostgreSQL
 * server when DATABASE_URL is set (CI). Tests never share rows: every test makes its own tenants.
 */
export function testConfig(overrides: Partial<Config> = {}): Config {
  const base = loadConfig({
    SVC_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: process.env.DATABASE_URL,
    REDIS_URL: process.env.REDIS_URL,
    // Each test app its own keys and channels on a shared Redis (failure counts, presence, rooms).
    SVC_REDIS_PREFIX: `svc-test:${randomUUID().slice(0, 8)}:`,
    SVC_DATA_DIR: process.env.SVC_TEST_DATA_DIR ?? '.svc-test-data',
    SVC_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
  });
  return { ...base, ...overrides };
}

export interface TestApp {
  app: FastifyInstance;
  db: Database;
  config: Config;
  close(): Promise<void>;
}

export interface BuildOptions {
  config?: Partial<Config>;
  clock?: Clock;
  /** Reuse an open database (e.g. two app instances on one database). */
  db?: Database;
  /**
   * Run the modules' background workers, e.g. the webhook worker (default off): on a shared PostgreSQL a test app's worker would claim other
   * test files' deliveries with its own retry settings. Tests that deliver turn it on.
   */
  webhookWorker?: boolean;
  /** The modules to run (default MODULES); a fixture module is added here. */
  modules?: readonly ModuleManifest[];
  /** Add routes or hooks before the app is sealed. */
  extend?: (app: FastifyInstance) => void | Promise<void>;
}

/** Builds the app the way production does (migrations, all plugins), without listening. */
export async function buildTestApp(options: BuildOptions = {}): Promise<TestApp> {
  const config = testConfig(options.config);
  const db = options.db ?? (await openDatabase(config, { inMemory: true }));
  const runtime = await createRuntime(config, {
    db,
    clock: options.clock ?? systemClock,
    workers: options.webhookWorker ?? false,
    ...(options.modules === undefined ? {} : { modules: options.modules }),
  });
  await options.extend?.(runtime.app);
  await runtime.app.ready();
  return {
    app: runtime.app,
    db,
    config,
    async close() {
      await runtime.close();
      if (options.db === undefined) await db.close();
    },
  };
}

export type Response = LightMyRequestResponse & { json<T = Record<string, unknown>>(): T };

export async function call(app: FastifyInstance, options: InjectOptions): Promise<Response> {
  return (await app.inject(options)) as Response;
}
