import Fastify, { type FastifyInstance, LogController } from 'fastify';
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
import { registerOpenApi } from './core/http/openapi.ts';
import { requestIdFrom, type TraceContext, traceFrom } from './core/http/request-id.ts';
import { installValidation } from './core/http/validation.ts';
import { enableAllModules, ModuleEnablement } from './core/modules/enablement.ts';
import { installModuleGuard } from './core/modules/guard.ts';
import type { ModuleManifest } from './core/modules/manifest.ts';
import { ModuleRegistry } from './core/modules/registry.ts';
import { moduleRoutes } from './core/modules/routes.ts';
import { healthRoutes } from './core/ops/health.ts';
import { roomsModule } from './modules/rooms/manifest.ts';
import { consoleSurface } from './surfaces/console/index.ts';

/** The modules this service runs. A new module is its own folder plus one line here. */
export const MODULES: readonly ModuleManifest[] = [roomsModule];

declare module 'fastify' {
  interface FastifyRequest {
    trace: TraceContext;
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
    return503OnClosing: true,
  });

  installValidation(app);
  // JSON only: any other body type answers 415.
  app.removeContentTypeParser('text/plain');
  app.decorateRequest('trace');
  app.addHook('onRequest', async (request, reply) => {
    request.trace = traceFrom(request.headers.traceparent);
    reply.header('x-request-id', request.id);
  });

  const reportError = (context: string) => (err: unknown) => app.log.error({ err }, context);
  const bus = deps.bus ?? new MemoryEventBus(reportError('event subscriber failed'));
  const services: Services = {
    config,
    db,
    clock,
    events: new EventStore(bus, clock),
    registry: new ModuleRegistry(MODULES),
    enablement: new ModuleEnablement(db),
  };
  const identity = await Identity.create({
    config,
    db,
    clock,
    onError: reportError('identity background task'),
  });
  app.decorate('identity', identity);
  app.decorate('services', services);
  app.addHook('onClose', async () => {
    await identity.stop();
    await bus.close();
  });

  // Core.
  installErrorHandling(app);
  await registerOpenApi(app, config);
  installAuthentication(app, identity);
  installModuleGuard(app, services.enablement);
  await app.register(healthRoutes, { db });
  await app.register(identityRoutes, { db, identity });
  await app.register(runtimeRoutes, { ...services, identity });
  await app.register(moduleRoutes, services);
  await app.register(eventRoutes, services);

  // Surfaces.
  await app.register(consoleSurface, { ...services, identity, setupSteps: [enableAllModules] });

  // Modules.
  for (const module of MODULES) {
    const routes = module.routes;
    if (routes !== undefined) await app.register(async (scope) => routes(scope, services));
  }

  return app;
}
