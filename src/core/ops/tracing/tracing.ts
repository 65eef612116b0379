import type { FastifyInstance } from 'fastify';

/** OpenTelemetry traces of one app (docs/operations.md, traces). */
export interface Tracing {
  /** The request spans (@fastify/otel) and the request's trace taken from them; before any route. */
  install(app: FastifyInstance): Promise<void>;
  /** Exports every ended span now. */
  flush(): Promise<void>;
  /** Flushes; the last app of the process to close also stops the SDK. */
  close(): Promise<void>;
}
