import Fastify, { type FastifyInstance, type FastifyRequest, LogController } from 'fastify';
import type { Config } from '../../config.ts';
import { ServiceUnavailable } from './errors.ts';
import { requestIdFrom, type TraceContext, traceFrom } from './request-id.ts';
import { installValidation } from './validation.ts';

declare module 'fastify' {
  interface FastifyRequest {
    readonly trace: TraceContext;
    traceContext: TraceContext | undefined;
  }
}

/**
 * The Fastify instance every route is registered on: request ids, JSON-only bodies, trace context on
 * demand, and the service's 503 for requests that arrive while it shuts down.
 */
export function createServer(config: Config): FastifyInstance {
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
  return app;
}
