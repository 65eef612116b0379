import type { FastifyInstance } from 'fastify';
import type { TracingSettings } from '../../../config/tracing.ts';

export { inSpan, inSpanSync, type RemoteParent, startSpan, tracingOn, untraced } from './spans.ts';

/** OpenTelemetry traces of one app (docs/operations.md, traces). */
export interface Tracing {
  /** The request spans (@fastify/otel) and the request's trace taken from them; before any route. */
  install(app: FastifyInstance): Promise<void>;
  /** Exports every ended span now. */
  flush(): Promise<void>;
  /** Flushes; the last app of the process to close also stops the SDK. */
  close(): Promise<void>;
}

/**
 * Loads OpenTelemetry (only now: with tracing off none of it is imported) and starts exporting; the
 * statements of the clients in use (PostgreSQL, Redis) get spans of their own.
 */
export async function openTracing(
  settings: TracingSettings,
  clients: { postgres: boolean; redis: boolean },
): Promise<Tracing> {
  const { startTracing } = await import('./sdk.ts');
  return startTracing(settings, clients);
}
