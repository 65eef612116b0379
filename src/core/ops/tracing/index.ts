import type { TracingSettings } from '../../../config/tracing.ts';
import type { Tracing } from './tracing.ts';

export { inSpan, inSpanSync, type RemoteParent, startSpan, tracingOn, untraced } from './spans.ts';
export type { Tracing } from './tracing.ts';

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
