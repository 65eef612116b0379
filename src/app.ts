import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyRequest, LogController } from 'fastify';
import type { Config } from './config.ts';
import { installAuthentication } from './core/auth/authenticate.ts';
import { Identity } from './core/auth/identity.ts';
import { identityRoutes } from './core/auth/routes.ts';
import { runtimeRoutes } from './core/auth/runtime-routes.ts';
import type { Clock } from './core/clock.ts';
import type { Services } from './core/context.ts';
import type { Database } from './core/db/database.ts';
import { type EventBus, MemoryEventBus } from './core/events/bus.ts';
import { eventRoutes } from './core/events/routes.ts';
import { EventStore } from './core/events/store.ts';
import { installErrorHandling } from './core/http/error-handler.ts';
import { ServiceUnavailable } from './core/http/errors.ts';
import { registerOpenApi } from './core/http/openapi.ts';
import { requestIdFrom, type TraceContext, traceFrom } from './core/http/request-id.ts';
import { installValidation } from './core/http/validation.ts';
import { enableAllModules, ModuleEnablement } from './core/modules/enablement.ts';
import { installModuleGuard } from './core/modules/guard.ts';
import type { ModuleManifest } from './core/modules/manifest.ts';
import { ModuleRegistry } from './core/modules/registry.ts';
import { moduleRoutes } from './core/modules/routes.ts';
import { healthRoutes } from './core/ops/health.ts';
import { createRealtimeBackplane, type RealtimeBackplane } from './core/realtime/index.ts';
import { chatModule } from './modules/chat/manifest.ts';
import { presenceModule } from './modules/presence/manifest.ts';
import { roomsModule } from './modules/rooms/manifest.ts';
import { insertEventsWithDeliveries, WebhookWorker } from './modules/webhooks/index.ts';
import { webhooksModule } from './modules/webhooks/manifest.ts';
import { installConsoleGuard } from './surfaces/console/guard.ts';
import { consoleSurface } from './surfaces/console/index.ts';
import { mcpSurface } from './surfaces/mcp/index.ts';
import { type GatewayLimits, realtimeGateway } from './surfaces/realtime/index.ts';

/** The modules this service runs. A new module is its own folder plus one line here. */
export const MODULES: readonly ModuleManifest[] = [roomsModule, presenceModule, chatModule, webhooksModule];

declare module 'fastify' {
  interface FastifyRequest {
    readonly trace: TraceContext;
    traceContext: TraceContext | undefined;
  }
  interface FastifyInstance {
    identity: Identity;
    services: Services;
  }
}

export interface AppDeps {
  config: Config;
  db: Database;
  clock: Clock;
  bus?: EventBus;
  /** Run this instance's webhook worker (default true). Tests that do not deliver turn it off. */
  webhookWorker?: boolean;
  /** Tests: a backplane to use (the app closes it) and shorter gateway limits. */
  realtime?: { backplane?: RealtimeBackplane; limits?: Partial<GatewayLimits> };
}

/** The whole service as one Fastify instance: core first, then surfaces, then each module. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, db, clock } = deps;
  const app = Fastify({
    logger: config.logLevel === 'silent' ? false : { level: config.logLevel },
    bodyLimit: config.bodyLimitBytes,
    genReqId: (req) => requestIdFrom(req.headers['x-request-id']),
    logController: new LogController({
      requestIdLogLabel: 'requestId',
      disableRequestLogging: config.logLevel !== 'debug' && config.logLevel !== 'trace',
    }),
    // Refused during shutdown by the hook below, so the 503 has the service's error shape.
    return503OnClosing: false,
  });

  installValidation(app);
  // JSON only: any other body type answers 415.
  app.removeContentTypeParser('text/plain');
  // Parsed (or started) on first use: most requests never record an event or send a webhook.
  app.decorateRequest('traceContext', undefined);
  app.decorateRequest('trace', {
    getter(this: FastifyRequest): TraceContext {
      this.traceContext ??= traceFrom(this.headers.traceparent);
      return this.traceContext;
    },
  });
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (!closing) return done();
    reply.header('connection', 'close');
    done(new ServiceUnavailable('the service is shutting down; retry on another instance'));
  });

  const reportError = (context: string) => (err: unknown) => app.log.error({ err }, context);
  const bus = deps.bus ?? new MemoryEventBus(reportError('event subscriber failed'));
  const backplane =
    deps.realtime?.backplane ??
    createRealtimeBackplane(config, clock, { report: (err, context) => app.log.error({ err }, context) });
  // Outbox: every event gets its deliveries in the statement that records it; the worker is woken after
  // commit only for events that queued any.
  const queuedDeliveries = new WeakSet<object>();
  const events = new EventStore(bus, clock, async (tx, written) => {
    const queued = await insertEventsWithDeliveries(tx, written);
    for (const event of written) if (queued.has(event.id)) queuedDeliveries.add(event);
  });
  const webhookWorker = new WebhookWorker({
    db,
    config,
    clock,
    log: app.log,
    // Dead-lettering records a tenant event in the worker's tenant-scoped transaction; the fan-out skips
    // the endpoint that failed.
    emitTenantEvent: async (tx, tenantId, type, data) => {
      const event = await events.insert(tx, tenantId, type, data, {
        traceId: randomBytes(16).toString('hex'),
        spanId: randomBytes(8).toString('hex'),
        requestId: 'webhook-worker',
        origin: 'system',
      });
      return () => events.publishCommitted([event]);
    },
  });
  const services: Services = {
    config,
    db,
    clock,
    events,
    wakeWebhooks: () => webhookWorker.wake(),
    registry: new ModuleRegistry(MODULES),
    enablement: new ModuleEnablement(db),
    realtime: backplane,
  };
  const identity = await Identity.create({
    config,
    db,
    clock,
    onError: reportError('identity background task'),
  });
  app.decorate('identity', identity);
  app.decorate('services', services);
  if (deps.webhookWorker !== false) {
    bus.subscribe((event) => {
      if (queuedDeliveries.has(event)) webhookWorker.wake();
    });
    app.addHook('onReady', async () => webhookWorker.start());
    app.addHook('preClose', async () => webhookWorker.stop({ graceMs: config.shutdownGraceMs }));
  }
  app.addHook('onClose', async () => {
    await identity.stop();
    await bus.close();
    await backplane.close();
  });

  // Core.
  installErrorHandling(app);
  await registerOpenApi(app, config);
  installAuthentication(app, identity);
  installModuleGuard(app, services.enablement);
  installConsoleGuard(app, db);
  await app.register(healthRoutes, { db });
  await app.register(identityRoutes, { db, identity });
  await app.register(runtimeRoutes, { ...services, identity });
  await app.register(moduleRoutes, services);
  await app.register(eventRoutes, services);

  // Surfaces.
  await app.register(consoleSurface, { ...services, identity, setupSteps: [enableAllModules] });
  await app.register(realtimeGateway, { services, identity, backplane, limits: deps.realtime?.limits });
  await app.register(mcpSurface, services);

  // Modules.
  for (const module of MODULES) {
    const routes = module.routes;
    if (routes !== undefined) await app.register(async (scope) => routes(scope, services));
  }

  return app;
}
