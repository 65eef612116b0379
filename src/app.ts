import Fastify, { type FastifyInstance, LogController } from 'fastify';
import type { Config } from './config.ts';
import { installAuthentication } from './core/auth/authenticate.ts';
import { Identity } from './core/auth/identity.ts';
import { identityRoutes } from './core/auth/routes.ts';
import { runtimeRoutes } from './core/auth/runtime-routes.ts';
import type { Clock } from './core/clock.ts';
import type { Database } from './core/db/database.ts';
import { installErrorHandling } from './core/http/error-handler.ts';
import { registerOpenApi } from './core/http/openapi.ts';
import { requestIdFrom, type TraceContext, traceFrom } from './core/http/request-id.ts';
import { enableAllModules } from './core/modules/enablement.ts';
import { healthRoutes } from './core/ops/health.ts';
import { consoleSurface } from './surfaces/console/index.ts';

declare module 'fastify' {
  interface FastifyRequest {
    trace: TraceContext;
  }
  interface FastifyInstance {
    identity: Identity;
  }
}

export interface AppDeps {
  config: Config;
  db: Database;
  clock: Clock;
}

/** The whole service as one Fastify instance: core first, then each module, in one explicit list. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    logger: config.logLevel === 'silent' ? false : { level: config.logLevel },
    bodyLimit: config.bodyLimitBytes,
    genReqId: (req) => requestIdFrom(req.headers['x-request-id']),
    logController: new LogController({
      requestIdLogLabel: 'requestId',
      disableRequestLogging: config.logLevel !== 'debug' && config.logLevel !== 'trace',
    }),
    return503OnClosing: true,
    ajv: {
      customOptions: { removeAdditional: false, allErrors: true, coerceTypes: 'array', useDefaults: true },
    },
  });

  // JSON only: any other body type answers 415.
  app.removeContentTypeParser('text/plain');
  app.decorateRequest('trace');
  app.addHook('onRequest', async (request, reply) => {
    request.trace = traceFrom(request.headers.traceparent);
    reply.header('x-request-id', request.id);
  });

  const identity = await Identity.create({
    ...deps,
    onError: (err) => app.log.error({ err }, 'identity background task'),
  });
  app.decorate('identity', identity);
  app.addHook('onClose', () => identity.stop());
  const setupSteps = [enableAllModules];

  // Core.
  installErrorHandling(app);
  await registerOpenApi(app, config);
  installAuthentication(app, identity);
  await app.register(healthRoutes, { db: deps.db });
  await app.register(identityRoutes, { db: deps.db, identity });
  await app.register(runtimeRoutes, { ...deps, identity });

  // Surfaces.
  await app.register(consoleSurface, { ...deps, identity, setupSteps });

  // Modules.

  return app;
}
