import type { FastifyBaseLogger } from 'fastify';
import type { Services } from '../context.ts';
import type { OutboxWriter } from '../events/store.ts';
import type { TenantEvent } from '../events/types.ts';
import type { RealtimeHooks } from '../realtime/contributions.ts';

/** What a module's hooks are built from: the app's services and a logger named after the module. */
export interface ModuleHost extends Services {
  log: FastifyBaseLogger;
}

/** A module's background work, started when the app is ready and stopped before it closes. */
export interface BackgroundWorker {
  start(): void | Promise<void>;
  /** Stops taking work; work in flight gets `graceMs` to finish. */
  stop(options: { graceMs: number }): Promise<void>;
  /** Work may be waiting (e.g. rows an outbox writer added): look now rather than at the next poll. */
  wake?(): void;
}

/** The per-app parts of a module, from its manifest's `hooks`. */
export interface ModuleHooks {
  /** Rows the module adds in the statement that records events (its outbox). */
  outbox?: OutboxWriter;
  /** Called after commit with every event this instance publishes. */
  onEvent?: (event: TenantEvent) => void;
  worker?: BackgroundWorker;
  /** Frames, join and room parts, relays the module adds to the realtime gateway. */
  realtime?: RealtimeHooks;
}

/** A module's hooks with its name. */
export interface InstalledHooks {
  module: string;
  hooks: ModuleHooks;
}

/**
 * The app's background workers by module name, so a verb can say "there is work" (`wake('webhooks')`)
 * without holding the worker. Waking a module that runs no worker here does nothing.
 */
export class Workers {
  private readonly byModule = new Map<string, BackgroundWorker>();

  add(module: string, worker: BackgroundWorker): void {
    this.byModule.set(module, worker);
  }

  wake(module: string): void {
    this.byModule.get(module)?.wake?.();
  }

  async start(): Promise<void> {
    for (const worker of this.byModule.values()) await worker.start();
  }

  async stop(options: { graceMs: number }): Promise<void> {
    await Promise.all([...this.byModule.values()].map((worker) => worker.stop(options)));
  }
}
