import Fastify, { type FastifyInstance, LogController } from 'fastify';
import type { Config } from './config.ts';
import type { Clock } from './core/clock.ts';
import type { Database } from './core/db/database.ts';
import { installErrorHandling } from './core/http/error-handler.ts';
import { registerOpenApi } from './core/http/openapi.ts';
import { requestIdFrom, type TraceContext, traceFrom } from './core/http/request-id.ts';
import { healthRoutes } from './core/ops/health.ts';

declare module 'fastify' {
  interface FastifyRequest {
    trace: TraceContext;
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

  // Core.
  installErrorHandling(app);
  await registerOpenApi(app, config);
  await app.register(healthRoutes, { db: deps.db });

  // Modules.

  return app;
}
