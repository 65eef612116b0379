import type { FastifyInstance } from 'fastify';
import type { Services } from '../context.ts';
import type { OutboxWriter } from '../events/store.ts';

/**
 * Builds every module's per-app hooks and wires them: outbox writers into the event store (through
 * `writers`), subscribers onto the bus, workers into `services.workers` (started when the app is ready and
 * stopped before it closes, unless `runWorkers` is false); then registers each module's routes.
 */
export async function installModules(
  app: FastifyInstance,
  services: Services,
  options: { writers: OutboxWriter[]; runWorkers: boolean },
): Promise<void> {
  for (const module of services.registry.modules) {
    const hooks = module.hooks?.({ ...services, log: app.log.child({ module: module.name }) });
    if (hooks?.outbox !== undefined) options.writers.push(hooks.outbox);
    const { onEvent, worker } = hooks ?? {};
    if (onEvent !== undefined) {
      const unsubscribe = services.events.bus.subscribe(onEvent);
      app.addHook('onClose', async () => unsubscribe());
    }
    if (worker !== undefined && options.runWorkers) services.workers.add(module.name, worker);
  }
  app.addHook('onReady', () => services.workers.start());
  app.addHook('preClose', () => services.workers.stop({ graceMs: services.config.shutdownGraceMs }));
  for (const module of services.registry.modules) {
    const routes = module.routes;
    if (routes !== undefined) await app.register(async (scope) => routes(scope, services));
  }
}
