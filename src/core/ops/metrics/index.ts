import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import type { EventBus } from '../../events/bus.ts';
import { type Backplane, dependencyGauges } from './dependencies.ts';
import { countEvents } from './event-counts.ts';
import { installHttpMetrics } from './http.ts';
import type { ServiceMetrics } from './service-metrics.ts';
import { observeSockets } from './sockets.ts';
import { webhookQueueGauges } from './webhook-queue.ts';

export { type MetricsListener, startMetricsListener } from './listener.ts';
export { ServiceMetrics } from './service-metrics.ts';

export interface InstrumentedParts {
  db: Database;
  clock: Clock;
  bus: EventBus;
  backplane: Backplane;
}

/**
 * Turns the app's metrics on (the internal listener is configured): request timing, socket counts, the
 * event-bus counts, the gauges read when scraped and the process defaults. Without it an app only bumps
 * the plain counts its hot paths keep anyway, and times nothing.
 */
export function instrumentApp(app: FastifyInstance, metrics: ServiceMetrics, parts: InstrumentedParts): void {
  const report = (context: string) => (err: unknown) => app.log.error({ err }, context);
  installHttpMetrics(app, metrics.httpDuration);
  app.addHook('onReady', async () => {
    if (app.hasDecorator('websocketServer')) observeSockets(app.websocketServer, metrics);
  });
  const unsubscribe = countEvents(parts.bus, metrics);
  app.addHook('onClose', async () => unsubscribe());
  webhookQueueGauges(metrics.registry, { ...parts, report: report('metrics: webhook queue depth') });
  dependencyGauges(metrics.registry, parts.db, parts.backplane);
  metrics.collectProcessDefaults();
}
