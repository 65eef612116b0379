import type { FastifyBaseLogger } from 'fastify';
import type { EventHandler } from '../events/bus.ts';
import type { OutboxWriter } from '../events/store.ts';
import { traceFrom } from '../http/request-id.ts';
import { newId } from '../ids.ts';
import type { RealtimeHooks } from '../realtime/contributions.ts';
import { type ServiceContext, type Services, serviceContext } from '../services.ts';
import type { BackgroundWorker } from './workers.ts';

export { type BackgroundWorker, WAKE_CHANNEL, Workers, type WorkerWakeChannel } from './workers.ts';

/** What a module's hooks are built from: the app's services and a logger named after the module. */
export interface ModuleHost extends Services {
  log: FastifyBaseLogger;
}

/**
 * The verb context of work a module does on its own in one tenant (a scheduler, a bus subscriber): no
 * principal, origin `system`, a fresh request id, and the host's clock unless the worker was given its own.
 */
export function systemContext(host: ModuleHost, tenantId: string, clock = host.clock): ServiceContext {
  return serviceContext(
    host,
    {
      log: host.log,
      tenantId,
      principal: undefined,
      requestId: newId('request', clock.now()),
      trace: traceFrom(undefined),
      origin: 'system',
    },
    clock,
  );
}

/** The per-app parts of a module, from its manifest's `hooks`. */
export interface ModuleHooks {
  /** Rows the module adds in the statement that records events (its outbox). */
  outbox?: OutboxWriter;
  /**
   * Called after commit with every event committed on this instance (`origin` `here`), and with the
   * events other instances broadcast (`elsewhere`: dead-letterings), as they arrive.
   */
  onEvent?: EventHandler;
  worker?: BackgroundWorker;
  /** Frames, join and room parts, relays the module adds to the realtime gateway. */
  realtime?: RealtimeHooks;
}

/** A module's hooks with its name. */
export interface InstalledHooks {
  module: string;
  hooks: ModuleHooks;
}
