import type { FastifyInstance } from 'fastify';
import type { Services } from '../context.ts';
import type { OutboxWriter } from '../events/store.ts';
import type { InstalledHooks } from './hooks.ts';

/** Builds every module's per-app hooks, once per app, each with a logger named after its module. */
export function buildModuleHooks(app: FastifyInstance, services: Services): InstalledHooks[] {
  return services.registry.modules.map((module) => ({
    module: module.name,
    hooks: module.hooks?.({ ...services, log: app.log.child({ module: module.name }) }) ?? {},
  }));
}

/**
 * Wires every module's hooks: outbox writers into the event store (through `writers`), subscribers onto
 * the bus, workers into `services.workers` (started when the app is ready and stopped before it closes,
 * unless `runWorkers` is false); then registers each module's routes. (Realtime hooks go to the gateway.)
 */
export async function installModules(
  app: FastifyInstance,
  services: Services,
  installed: readonly InstalledHooks[],
  options: { writers: OutboxWriter[]; runWorkers: boolean },
): Promise<void> {
  for (const { module, hooks } of installed) {
    if (hooks.outbox !== undefined) options.writers.push(hooks.outbox);
    const { onEvent, worker } = hooks;
    if (onEvent !== undefined) {
      const unsubscribe = services.events.bus.subscribe(onEvent);
      app.addHook('onClose', async () => unsubscribe());
    }
    if (worker !== undefined && options.runWorkers) services.workers.add(module, worker);
  }
  app.addHook('onReady', () => services.workers.start());
  app.addHook('preClose', () => services.workers.stop({ graceMs: services.config.shutdownGraceMs }));
  for (const module of services.registry.modules) {
    const routes = module.routes;
    if (routes !== undefined) await app.register(async (scope) => routes(scope, services));
  }
}
