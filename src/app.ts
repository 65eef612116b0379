import type { FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import { installAuthentication } from './core/auth/authenticate.ts';
import { Identity } from './core/auth/identity.ts';
import { identityRoutes } from './core/auth/routes.ts';
import { runtimeRoutes } from './core/auth/runtime-routes.ts';
import { SIGNING_KEY_SECRET } from './core/auth/signing-keys.ts';
import type { Clock } from './core/clock.ts';
import type { Services } from './core/context.ts';
import type { Database } from './core/db/database.ts';
import { EmbeddedMaintenance, MAINTENANCE_WORKER } from './core/db/embedded-maintenance.ts';
import { GroupCommits } from './core/db/group-commit.ts';
import { loadMigrations, type Migration, migrationFolders } from './core/db/migrations.ts';
import { BackplaneEventBus, type EventBus } from './core/events/bus.ts';
import { eventRoutes } from './core/events/routes.ts';
import { EventStore, type OutboxWriter } from './core/events/store.ts';
import { installErrorHandling } from './core/http/error-handler.ts';
import { installIdempotency } from './core/http/idempotency.ts';
import { registerOpenApi } from './core/http/openapi.ts';
import { createServer } from './core/http/server.ts';
import { checkActionRoutes } from './core/modules/action-routes.ts';
import { enableModules, ModuleEnablement } from './core/modules/enablement.ts';
import { installAuthorization } from './core/modules/guard.ts';
import { Workers } from './core/modules/hooks.ts';
import { buildModuleHooks, installModules } from './core/modules/install.ts';
import type { ModuleManifest } from './core/modules/manifest.ts';
import { ModuleRegistry } from './core/modules/registry.ts';
import { moduleRoutes } from './core/modules/routes.ts';
import { Drain } from './core/ops/drain.ts';
import { handOverWork } from './core/ops/hand-over.ts';
import { healthRoutes } from './core/ops/health.ts';
import { instrumentApp, type ServiceMetrics } from './core/ops/metrics/index.ts';
import type { Tracing } from './core/ops/tracing/index.ts';
import { createRealtimeBackplane, type RealtimeBackplane } from './core/realtime/index.ts';
import { activeRetention, retentionRules } from './core/retention/rules.ts';
import { RETENTION_WORKER, RetentionWorker } from './core/retention/worker.ts';
import { openEncryption, type SecretEncryption } from './core/secrets/encryption.ts';
import { type EncryptedColumn, reencryptStoredSecrets } from './core/secrets/stored-secrets.ts';
import type { TenantSetupStep } from './core/tenancy/tenants.ts';
import { analyticsModule } from './modules/analytics/manifest.ts';
import { auctionsModule } from './modules/auctions/manifest.ts';
import { chatModule } from './modules/chat/manifest.ts';
import { paymentsModule } from './modules/payments/manifest.ts';
import { presenceModule } from './modules/presence/manifest.ts';
import { roomsModule } from './modules/rooms/manifest.ts';
import { storefrontModule } from './modules/storefront/manifest.ts';
import { syncModule } from './modules/sync/manifest.ts';
import { webhooksModule } from './modules/webhooks/manifest.ts';
import { installConsoleGuard } from './surfaces/console/guard.ts';
import { consoleSurface } from './surfaces/console/index.ts';
import { consoleApp } from './surfaces/console-app/index.ts';
import { mcpSurface } from './surfaces/mcp/index.ts';
import { type GatewayLimits, realtimeGateway } from './surfaces/realtime/index.ts';

/** The modules this service runs. A new module is its own folder plus one line here. */
export const MODULES: readonly ModuleManifest[] = [
  roomsModule,
  presenceModule,
  chatModule,
  webhooksModule,
  auctionsModule,
  paymentsModule,
  analyticsModule,
  storefrontModule,
  syncModule,
];

/** Every migration the service applies: core's, then each module's own folder. */
export function appMigrations(modules: readonly ModuleManifest[] = MODULES): Migration[] {
  return loadMigrations(migrationFolders(modules));
}

/** Every column where a secret is stored encrypted: core's, then each module's. */
export function encryptedColumns(modules: readonly ModuleManifest[] = MODULES): EncryptedColumn[] {
  return [SIGNING_KEY_SECRET, ...modules.flatMap((m) => m.encryptedColumns ?? [])];
}

/** Setup of a new tenant: the modules that start switched on. */
export function tenantSetup(modules: readonly ModuleManifest[] = MODULES): TenantSetupStep[] {
  return [enableModules(new ModuleRegistry(modules).enabledByDefault)];
}

declare module 'fastify' {
  interface FastifyInstance {
    identity: Identity;
    services: Services;
    /** Begun on SIGTERM, before the app closes (svc start; docs/operations.md, graceful shutdown). */
    drain: Drain;
  }
}

export interface AppDeps {
  config: Config;
  db: Database;
  clock: Clock;
  bus?: EventBus;
  /** The modules to run (default MODULES); tests add fixture modules. */
  modules?: readonly ModuleManifest[];
  /** Run the modules' background workers (default true). Tests that do not deliver turn them off. */
  workers?: boolean;
  /** Default: `SVC_ENCRYPTION_KEY`, or outside production the key kept in `SVC_DATA_DIR`. */
  encryption?: SecretEncryption;
  /** Tests: a backplane to use (the app closes it) and shorter gateway limits. */
  realtime?: { backplane?: RealtimeBackplane; limits?: Partial<GatewayLimits> };
  /**
   * What must be done in the database before the app reads it (the migrations, see runtime.ts): the
   * routes register meanwhile; the first statement of the app's own waits for it.
   */
  prepared?: Promise<unknown>;
  /** This app's metrics, served by the internal listener (runtime.ts); undefined: nothing is timed. */
  metrics?: ServiceMetrics;
  /** OpenTelemetry traces (runtime.ts, when an OTLP endpoint is set); undefined: no spans. */
  tracing?: Tracing;
}

/** The whole service as one Fastify instance: core first, then surfaces, then each module. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, db, clock } = deps;
  const modules = deps.modules ?? MODULES;
  // Checked before anything opens: SVC_RETENTION naming no declared rule stops start-up.
  const retention = activeRetention(retentionRules(modules), config.retention);
  const app = createServer(config, clock);
  // Its request spans start before any other hook, and its plugin sees every route.
  if (deps.tracing !== undefined) await deps.tracing.install(app);
  const encryption = deps.encryption ?? openEncryption(config, clock);
  // Before anything reads a stored secret: plain values (rows from before encryption) and values under
  // a rotated-out key are written again under the current key. This and the identity's keys load on the
  // database while the routes below register; both are awaited before the app is returned.
  const stored = (deps.prepared ?? Promise.resolve()).then(() =>
    reencryptStoredSecrets(db, encryption, encryptedColumns(modules)),
  );
  stored.catch(() => {}); // awaited below
  const reportError = (context: string) => (err: unknown) => app.log.error({ err }, context);
  const backplane =
    deps.realtime?.backplane ??
    (await createRealtimeBackplane(config, clock, {
      redisPrefix: config.redisPrefix,
      report: (err, context) => app.log.error({ err }, context),
    }));
  const bus =
    deps.bus ??
    (await BackplaneEventBus.open(backplane.pubsub, backplane.instanceId, reportError('event bus')));
  const outboxWriters: OutboxWriter[] = [];
  const services: Services = {
    config,
    db,
    clock,
    events: new EventStore(bus, clock, () => outboxWriters),
    registry: new ModuleRegistry(modules),
    enablement: new ModuleEnablement(db, clock),
    realtime: backplane,
    workers: new Workers({
      pubsub: backplane.pubsub,
      instanceId: backplane.instanceId,
      report: (err, context) => app.log.error({ err }, context),
    }),
    groupCommit: new GroupCommits(deps.metrics?.observeGroup),
    encryption,
    metrics: deps.metrics,
  };
  const redisCounts =
    config.redisUrl === undefined
      ? undefined
      : {
          open: (await import('./core/auth/failure-counts-redis.ts')).openRedisFailureCounts,
          url: config.redisUrl,
        };
  const sharedCounts = (namespace: string) =>
    redisCounts === undefined
      ? undefined
      : {
          counts: redisCounts.open(
            redisCounts.url,
            config.redisPrefix,
            (err, context) => app.log.error({ err }, context),
            namespace,
          ),
          pubsub: backplane.pubsub,
        };
  const sharedFailures = sharedCounts('auth:failures:');
  const sharedProductRequests = sharedCounts('product-keys:requests:');
  const closeShared = async () => {
    await sharedFailures?.counts.close();
    await sharedProductRequests?.counts.close();
    await bus.close();
    await backplane.close();
  };
  let identity: Identity;
  try {
    identity = await Identity.create({
      config,
      db,
      clock,
      encryption,
      onError: reportError('identity background task'),
      ...(sharedFailures === undefined ? {} : { sharedFailures }),
      ...(sharedProductRequests === undefined ? {} : { sharedProductRequests }),
    });
  } catch (error) {
    await closeShared();
    throw error;
  }
  const started = stored.then(() => identity.start());
  started.catch(() => {}); // awaited below
  app.decorate('identity', identity);
  app.decorate('services', services);
  if (deps.metrics !== undefined) instrumentApp(app, deps.metrics, { db, clock, bus, backplane });
  const drain = new Drain();
  app.decorate('drain', drain);
  // Workers stop taking work at once and hand what they hold back (released leases) within the window.
  drain.add('workers', () => handOverWork(services.workers, services.registry.names, config.drainWindowMs));
  app.addHook('onClose', async () => {
    await identity.stop();
    await bus.close();
    await backplane.close();
  });

  // Core.
  installErrorHandling(app);
  await registerOpenApi(app, config);
  installAuthentication(app, identity);
  installAuthorization(app, services.enablement);
  checkActionRoutes(app, services.registry);
  installIdempotency(app, db, clock);
  installConsoleGuard(app, db);
  await app.register(healthRoutes, { db, migrations: appMigrations(modules), realtime: backplane, drain });
  await app.register(identityRoutes, { db, identity, clock });
  await app.register(runtimeRoutes, { ...services, identity });
  await app.register(moduleRoutes, services);
  await app.register(eventRoutes, services);
  if (deps.workers !== false) {
    services.workers.add(
      RETENTION_WORKER,
      new RetentionWorker({
        db,
        clock,
        rules: retention,
        intervalMs: config.retention.intervalMs,
        log: app.log.child({ worker: RETENTION_WORKER }),
      }),
    );
    if (db.kind === 'pglite') {
      services.workers.add(
        MAINTENANCE_WORKER,
        new EmbeddedMaintenance({ db, clock, log: app.log.child({ worker: MAINTENANCE_WORKER }) }),
      );
    }
  }

  // Surfaces.
  await app.register(consoleSurface, { ...services, identity, setupSteps: tenantSetup(modules) });
  await app.register(consoleApp, { config, clock, identity });
  const hooks = buildModuleHooks(app, services);
  await app.register(realtimeGateway, {
    services,
    identity,
    backplane,
    modules: hooks,
    limits: deps.realtime?.limits,
    drain,
  });
  await app.register(mcpSurface, services);

  // Modules: their hooks (outbox writers, subscribers, workers), then their routes.
  await installModules(app, services, hooks, {
    writers: outboxWriters,
    runWorkers: deps.workers !== false,
  });

  try {
    const { encrypted } = await stored;
    if (Object.values(encrypted).some((n) => n > 0)) {
      app.log.info(
        { encrypted, keyId: encryption.currentKeyId },
        'stored secrets encrypted under the current key',
      );
    }
    await started;
  } catch (error) {
    // E.g. a migration that failed, or a signing key that does not decrypt: the start fails, and no
    // connection keeps the process alive.
    await app.close().catch(() => {});
    throw error;
  }
  return app;
}
