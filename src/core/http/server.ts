import Fastify, {
  type FastifyBaseLogger,
  type FastifyBodyParser,
  type FastifyInstance,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
  type onRequestHookHandler,
} from 'fastify';
import pino, { type DestinationStream } from 'pino';
import type { Config } from '../../config.ts';
import type { Clock } from '../clock.ts';
import { StampedRequest } from './arrival.ts';
import { clientErrorHandler, sendError, toAppError } from './error-handler.ts';
import { type ErrorDetail, InvalidRequest, ServiceUnavailable } from './errors.ts';
import { jsonProblem, textProblem } from './json-safety.ts';
import { requestIdFrom, type TraceContext, traceFrom } from './request-id.ts';
import { requestLogger } from './request-logger.ts';
import { serializeOnFirstUse } from './serialization.ts';
import { installValidation } from './validation.ts';

declare module 'fastify' {
  interface FastifyRequest {
    readonly trace: TraceContext;
    traceContext: TraceContext | undefined;
  }
}

/**
 * The service's JSON body parser (`parseAs: 'string'`): prototype poisoning, nesting deeper than
 * MAX_JSON_DEPTH and text the database cannot store are refused with 400. Exported for a route that also
 * takes JSON under another content type (analytics ingestion: `text/plain` from `navigator.sendBeacon`).
 */
export function storableJsonParser(app: FastifyInstance): FastifyBodyParser<string | Buffer> {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  return (request, body, done) => {
    parseJson(request, typeof body === 'string' ? body : body.toString('utf8'), (error, value) => {
      if (error !== null) return done(error, undefined);
      const problem = jsonProblem(value, '/body');
      if (problem !== undefined) {
        return done(
          new InvalidRequest(`invalid request: ${problem.field} ${problem.message}`, [problem]),
          undefined,
        );
      }
      done(null, value);
    });
  };
}

/**
 * Every JSON body, path parameter and query value is refused with 400 before any route sees it when it
 * nests deeper than MAX_JSON_DEPTH or holds text the database cannot store (NUL, lone surrogates), so
 * no route can fail on such input with a 500, whatever it does with it.
 */
function installStorableInput(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, storableJsonParser(app));
  // Path and query are known once routed: checked by the last of each route's `onRequest` hooks (after
  // authentication, which other plugins' `onRoute` hooks put first), so requests run no `preValidation`
  // phase at all unless a route asks for one.
  const storable: onRequestHookHandler = (request, _reply, done) => {
    done(storableProblem(request.params, 'params') ?? storableProblem(request.query, 'querystring'));
  };
  app.addHook('onRoute', (route) => {
    const own = route.onRequest;
    route.onRequest = own === undefined ? [storable] : [...(Array.isArray(own) ? own : [own]), storable];
  });
}

/** The first path parameter or query value the database could not store, as a 400; without allocating. */
function storableProblem(values: unknown, part: 'params' | 'querystring'): InvalidRequest | undefined {
  if (typeof values !== 'object' || values === null) return undefined;
  for (const key in values) {
    if (!Object.hasOwn(values, key)) continue;
    const value: unknown = Reflect.get(values, key);
    if (Array.isArray(value)) {
      for (const text of value) {
        const refused = storableText(text, part, key);
        if (refused !== undefined) return refused;
      }
    } else {
      const refused = storableText(value, part, key);
      if (refused !== undefined) return refused;
    }
  }
  return undefined;
}

function storableText(text: unknown, part: string, key: string): InvalidRequest | undefined {
  // The field is named only for a refusal (no string built per value that passes).
  if (typeof text !== 'string' || textProblem(text, '') === undefined) return undefined;
  const problem = textProblem(text, `/${part}/${key}`) as ErrorDetail;
  return new InvalidRequest(`invalid request: ${problem.field} ${problem.message}`, [problem]);
}

/**
 * How the service logs. At `debug` and `trace` Fastify logs every request and its answer, with its own
 * pino logger. At the other levels no request is logged, and Fastify is built without a logger of its
 * own: with one, it times every response and listens for its end (two listeners added and removed per
 * request) only to log it. The service's pino logger is then `app.log`, and every `request.log` a lazy
 * child of it (`requestLogger`) all the same, so what the code writes, and with which bindings, is alike.
 */
function loggingOptions(
  level: Config['logLevel'],
  stream: DestinationStream | undefined,
): {
  fastify: Pick<FastifyServerOptions, 'logger' | 'childLoggerFactory' | 'logController'>;
  root?: FastifyBaseLogger;
} {
  const logController = new LogController({
    requestIdLogLabel: 'requestId',
    disableRequestLogging: level !== 'debug' && level !== 'trace',
  });
  if (level === 'debug' || level === 'trace') {
    // `request.log` makes its pino child on its first line written: most requests write none.
    const logger = stream === undefined ? { level } : { level, stream };
    return { fastify: { logger, childLoggerFactory: requestLogger, logController } };
  }
  if (level === 'silent')
    return { fastify: { logger: false, childLoggerFactory: requestLogger, logController } };
  const root = pino({ level, serializers: { err: pino.stdSerializers.err } }, stream);
  return {
    fastify: {
      logger: false,
      childLoggerFactory: (_none, bindings, options) => requestLogger(root, bindings, options),
      logController,
    },
    root,
  };
}

/**
 * The Fastify instance every route is registered on: request ids, JSON-only bodies, trace context on
 * demand, and the service's 503 for requests that arrive while it shuts down. Logs go to standard output
 * (`logStream`: elsewhere, for tests).
 */
export function createServer(
  config: Config,
  clock: Clock,
  { logStream }: { logStream?: DestinationStream } = {},
): FastifyInstance {
  const logging = loggingOptions(config.logLevel, logStream);
  const app = Fastify({
    ...logging.fastify,
    bodyLimit: config.bodyLimitBytes,
    // With metrics on, stamped as they arrive: where the request-duration metric starts (ops/metrics/http.ts).
    ...(config.metrics === undefined ? {} : { http: { IncomingMessage: StampedRequest } }),
    // `request.ip` is the X-Forwarded-For client only behind the proxies SVC_TRUST_PROXY names.
    trustProxy: config.trustProxy.length === 0 ? false : config.trustProxy,
    genReqId: (req) => requestIdFrom(req.headers['x-request-id'], clock.now()),
    // Refused during shutdown by the hook below, so the 503 has the service's error shape.
    return503OnClosing: false,
    // The app registers while the database opens and migrates (`openingDatabase`), and a plugin that
    // reads the database waits for that: a first start on a slow or busy machine can take longer than
    // Fastify's default of 10 s (a test app on the embedded database did, in CI, beside the other tests).
    pluginTimeout: 120_000,
    schemaController: { compilersFactory: { buildSerializer: serializeOnFirstUse } },
    clientErrorHandler: clientErrorHandler(clock),
    // Errors of the router itself (a bad percent-encoding, an over-long path segment) in the API's shape.
    frameworkErrors: (error, request, reply) => {
      sendError(request, reply, toAppError(error));
    },
  });

  if (logging.root !== undefined) app.log = logging.root;
  installValidation(app);
  // JSON only: any other body type answers 415.
  app.removeContentTypeParser('text/plain');
  installStorableInput(app);
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
    done(
      new ServiceUnavailable('the service is shutting down; retry on another instance', { expected: true }),
    );
  });
  return app;
}
